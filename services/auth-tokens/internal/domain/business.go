package domain

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/google/uuid"
)

// EntityType is the legal form of a business.
type EntityType string

// The entity types.
const (
	SoleProp    EntityType = "SOLE_PROP"
	CCorp       EntityType = "C_CORP"
	LLC         EntityType = "LLC"
	SCorp       EntityType = "S_CORP"
	Partnership EntityType = "PARTNERSHIP"
)

// EntityTypes lists every entity type (for documentation and errors).
var EntityTypes = []EntityType{SoleProp, CCorp, LLC, SCorp, Partnership}

// ReportingBasis is the accounting basis reports default to.
type ReportingBasis string

// The reporting bases.
const (
	Accrual ReportingBasis = "ACCRUAL"
	Cash    ReportingBasis = "CASH"
)

// DefaultCountry applies when a new business names none.
const DefaultCountry = "US"

// DateLayout is the date-only form activation_at also accepts (midnight UTC).
const DateLayout = "2006-01-02"

var (
	naicsPattern = regexp.MustCompile(`^[0-9]{2,6}$`)
	phonePattern = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)
	tinPattern   = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z -]{0,31}$`)
)

// Business is a business owned by one platform client.
type Business struct {
	ID          uuid.UUID
	ClientID    string
	ExternalID  *string
	LegalName   string
	TIN         *string
	USState     *string
	Country     string
	EntityType  *EntityType
	PhoneNumber *string
	// ActivationAt is when the business started keeping its books with us
	// (reports default to it); the creation time unless the platform says.
	ActivationAt          time.Time
	NAICSCode             *string
	DefaultReportingBasis ReportingBasis
	// FiscalYearStartMonth is the month (1–12) the fiscal year starts in:
	// reports close retained earnings at the end of each fiscal year.
	FiscalYearStartMonth int
	// IsDemo marks a sandbox business a platform created to try things out;
	// fixed at creation.
	IsDemo    bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Opt is a field of a partial update: absent (Set false), null (Set, Value
// nil) or a value. It decodes from JSON so absence and null differ.
type Opt[T any] struct {
	Set   bool
	Value *T
}

// Some is a set, non-null Opt.
func Some[T any](v T) Opt[T] { return Opt[T]{Set: true, Value: &v} }

// UnmarshalJSON implements json.Unmarshaler; only called when the key is present.
func (o *Opt[T]) UnmarshalJSON(data []byte) error {
	o.Set = true
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		o.Value = nil
		return nil
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	o.Value = &v
	return nil
}

// BusinessInput carries the client-supplied fields of a create (absent
// fields take defaults) or a patch (absent fields stay unchanged; null
// clears an optional field).
type BusinessInput struct {
	ExternalID            Opt[string]
	LegalName             Opt[string]
	TIN                   Opt[string]
	USState               Opt[string]
	Country               Opt[string]
	EntityType            Opt[string]
	PhoneNumber           Opt[string]
	ActivationAt          Opt[string]
	NAICSCode             Opt[string]
	DefaultReportingBasis Opt[string]
	FiscalYearStartMonth  Opt[int]
	IsDemo                Opt[bool] // create only
}

// NewBusiness validates in and builds a business owned by clientID.
func NewBusiness(id uuid.UUID, clientID string, in BusinessInput, now time.Time) (Business, error) {
	b := Business{
		ID:                    id,
		ClientID:              clientID,
		Country:               DefaultCountry,
		DefaultReportingBasis: Accrual,
		FiscalYearStartMonth:  1,
		ActivationAt:          now,
		CreatedAt:             now,
		UpdatedAt:             now,
	}
	if err := b.apply(in, true); err != nil {
		return Business{}, err
	}
	return b, nil
}

// Update applies a partial update, validating the result as a whole.
func (b *Business) Update(in BusinessInput, now time.Time) error {
	next := *b
	if err := next.apply(in, false); err != nil {
		return err
	}
	next.UpdatedAt = now
	*b = next
	return nil
}

// apply sets the present fields of in, collecting every problem so the
// client sees them all at once. Errors are 400 InvalidPayload naming fields.
func (b *Business) apply(in BusinessInput, creating bool) error {
	fields := map[string]string{}
	bad := func(field, reason string) { fields[field] = reason }

	if in.LegalName.Set {
		switch v := in.LegalName.Value; {
		case v == nil || strings.TrimSpace(*v) == "":
			bad("legal_name", "is required")
		case utf8.RuneCountInString(strings.TrimSpace(*v)) > MaxNameLength:
			bad("legal_name", "must be at most 255 characters")
		default:
			b.LegalName = strings.TrimSpace(*v)
		}
	} else if creating {
		bad("legal_name", "is required")
	}

	optText(in.ExternalID, &b.ExternalID, "external_id", func(v string) string {
		if v == "" || utf8.RuneCountInString(v) > MaxNameLength {
			return "must be 1 to 255 characters"
		}
		return ""
	}, bad)
	optText(in.TIN, &b.TIN, "tin", func(v string) string {
		if !tinPattern.MatchString(v) {
			return "must be 1 to 32 letters, digits, spaces or dashes"
		}
		return ""
	}, bad)
	optText(in.PhoneNumber, &b.PhoneNumber, "phone_number", func(v string) string {
		if !phonePattern.MatchString(v) {
			return "must be in E.164 form, e.g. +14155550123"
		}
		return ""
	}, bad)
	optText(in.NAICSCode, &b.NAICSCode, "naics_code", func(v string) string {
		if !naicsPattern.MatchString(v) {
			return "must be 2 to 6 digits"
		}
		return ""
	}, bad)

	if in.Country.Set {
		if v := in.Country.Value; v == nil || !IsCountryCode(strings.ToUpper(*v)) {
			bad("country", "must be an ISO 3166-1 alpha-2 country code, e.g. US or CA")
		} else {
			b.Country = strings.ToUpper(*v)
		}
	}
	if in.USState.Set {
		if v := in.USState.Value; v == nil {
			b.USState = nil
		} else if s := strings.ToUpper(*v); IsUSState(s) {
			b.USState = &s
		} else {
			bad("us_state", "must be a USPS state code, e.g. CA or NY")
		}
	}
	if in.EntityType.Set {
		if v := in.EntityType.Value; v == nil {
			b.EntityType = nil
		} else if et := EntityType(*v); validEntityType(et) {
			b.EntityType = &et
		} else {
			bad("entity_type", "must be one of SOLE_PROP, C_CORP, LLC, S_CORP, PARTNERSHIP")
		}
	}
	if in.ActivationAt.Set {
		if v := in.ActivationAt.Value; v == nil {
			b.ActivationAt = b.CreatedAt // null means the default
		} else if at, ok := parseActivation(*v); ok {
			b.ActivationAt = at
		} else {
			bad("activation_at", "must be an RFC 3339 date-time (e.g. 2024-02-29T00:00:00Z) or a date YYYY-MM-DD")
		}
	}
	if in.IsDemo.Set {
		switch v := in.IsDemo.Value; {
		case !creating:
			bad("is_demo", "can only be set when the business is created")
		case v == nil:
			bad("is_demo", "must be true or false")
		default:
			b.IsDemo = *v
		}
	}
	if in.DefaultReportingBasis.Set {
		switch v := in.DefaultReportingBasis.Value; {
		case v == nil:
			bad("default_reporting_basis", "must be ACCRUAL or CASH")
		case ReportingBasis(*v) == Accrual || ReportingBasis(*v) == Cash:
			b.DefaultReportingBasis = ReportingBasis(*v)
		default:
			bad("default_reporting_basis", "must be ACCRUAL or CASH")
		}
	}
	if in.FiscalYearStartMonth.Set {
		if v := in.FiscalYearStartMonth.Value; v == nil || *v < 1 || *v > 12 {
			bad("fiscal_year_start_month", "must be a month number from 1 (January) to 12")
		} else {
			b.FiscalYearStartMonth = *v
		}
	}
	// A state only means something for a US business.
	if _, stateBad := fields["us_state"]; !stateBad && b.USState != nil && b.Country != "US" {
		bad("us_state", "is only valid when country is US")
	}
	if len(fields) > 0 {
		return apperr.FieldErrors(apperr.InvalidPayload, fields)
	}
	return nil
}

// optText applies an optional text field: null clears it, a value is
// trimmed and checked by check (returning a reason, or "" when valid).
func optText(o Opt[string], dst **string, field string, check func(string) string, bad func(string, string)) {
	if !o.Set {
		return
	}
	if o.Value == nil {
		*dst = nil
		return
	}
	v := strings.TrimSpace(*o.Value)
	if reason := check(v); reason != "" {
		bad(field, reason)
		return
	}
	*dst = &v
}

func validEntityType(et EntityType) bool {
	for _, e := range EntityTypes {
		if e == et {
			return true
		}
	}
	return false
}

// parseActivation reads an RFC 3339 date-time (kept as the instant, in
// UTC) or a date (midnight UTC), the form clients used before.
func parseActivation(v string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC().Truncate(time.Microsecond), true
	}
	if d, err := time.Parse(DateLayout, v); err == nil {
		return d, true
	}
	return time.Time{}, false
}

// ActivationTime renders activation_at as an RFC 3339 date-time in UTC.
func (b Business) ActivationTime() string {
	return b.ActivationAt.UTC().Format(time.RFC3339Nano)
}
