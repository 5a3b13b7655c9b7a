package domain

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/google/uuid"
)

var now = time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)

func fieldsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	ae := apperr.From(err)
	if ae.Type != apperr.InvalidPayload {
		t.Fatalf("err = %v, want InvalidPayload", err)
	}
	return ae.Meta["fields"].(map[string]string)
}

func TestNewBusinessValidation(t *testing.T) {
	base := func() BusinessInput { return BusinessInput{LegalName: Some("Acme LLC")} }
	with := func(f func(*BusinessInput)) BusinessInput { in := base(); f(&in); return in }
	tests := []struct {
		name      string
		in        BusinessInput
		badFields []string
	}{
		{"minimal", base(), nil},
		{"full", BusinessInput{
			ExternalID: Some("ext-1"), LegalName: Some("Acme"), TIN: Some("12-3456789"), USState: Some("CA"),
			Country: Some("US"), EntityType: Some("LLC"), PhoneNumber: Some("+14155550123"),
			ActivationAt: Some("2024-02-29"), NAICSCode: Some("541211"), DefaultReportingBasis: Some("CASH"),
		}, nil},
		{"canada without state", with(func(in *BusinessInput) { in.Country = Some("CA") }), nil},
		{"lowercase country and state normalised", with(func(in *BusinessInput) { in.Country = Some("us"); in.USState = Some("ny") }), nil},
		{"legal name missing", BusinessInput{}, []string{"legal_name"}},
		{"legal name blank", with(func(in *BusinessInput) { in.LegalName = Some("   ") }), []string{"legal_name"}},
		{"legal name null", with(func(in *BusinessInput) { in.LegalName = Opt[string]{Set: true} }), []string{"legal_name"}},
		{"legal name too long", with(func(in *BusinessInput) { in.LegalName = Some(strings.Repeat("é", 256)) }), []string{"legal_name"}},
		{"legal name 255 ok", with(func(in *BusinessInput) { in.LegalName = Some(strings.Repeat("é", 255)) }), nil},
		{"external id too long", with(func(in *BusinessInput) { in.ExternalID = Some(strings.Repeat("x", 256)) }), []string{"external_id"}},
		{"external id empty", with(func(in *BusinessInput) { in.ExternalID = Some("") }), []string{"external_id"}},
		{"unknown country", with(func(in *BusinessInput) { in.Country = Some("XX") }), []string{"country"}},
		{"alpha-3 country", with(func(in *BusinessInput) { in.Country = Some("USA") }), []string{"country"}},
		{"country null", with(func(in *BusinessInput) { in.Country = Opt[string]{Set: true} }), []string{"country"}},
		{"unknown state", with(func(in *BusinessInput) { in.USState = Some("ZZ") }), []string{"us_state"}},
		{"state outside US", with(func(in *BusinessInput) { in.Country = Some("CA"); in.USState = Some("NY") }), []string{"us_state"}},
		{"unknown entity type", with(func(in *BusinessInput) { in.EntityType = Some("CORP") }), []string{"entity_type"}},
		{"entity type wrong case", with(func(in *BusinessInput) { in.EntityType = Some("llc") }), []string{"entity_type"}},
		{"unknown basis", with(func(in *BusinessInput) { in.DefaultReportingBasis = Some("MODIFIED_CASH") }), []string{"default_reporting_basis"}},
		{"bad date", with(func(in *BusinessInput) { in.ActivationAt = Some("2023-02-29") }), []string{"activation_at"}},
		{"date-time", with(func(in *BusinessInput) { in.ActivationAt = Some("2024-01-01T09:30:00+02:00") }), nil},
		{"date-time without zone", with(func(in *BusinessInput) { in.ActivationAt = Some("2024-01-01T09:30:00") }), []string{"activation_at"}},
		{"activation not a time", with(func(in *BusinessInput) { in.ActivationAt = Some("soon") }), []string{"activation_at"}},
		{"demo", with(func(in *BusinessInput) { in.IsDemo = Some(true) }), nil},
		{"fiscal year from July", with(func(in *BusinessInput) { in.FiscalYearStartMonth = Some(7) }), nil},
		{"fiscal year from December", with(func(in *BusinessInput) { in.FiscalYearStartMonth = Some(12) }), nil},
		{"fiscal year month 0", with(func(in *BusinessInput) { in.FiscalYearStartMonth = Some(0) }), []string{"fiscal_year_start_month"}},
		{"fiscal year month 13", with(func(in *BusinessInput) { in.FiscalYearStartMonth = Some(13) }), []string{"fiscal_year_start_month"}},
		{"fiscal year null", with(func(in *BusinessInput) { in.FiscalYearStartMonth = Opt[int]{Set: true} }), []string{"fiscal_year_start_month"}},
		{"demo null", with(func(in *BusinessInput) { in.IsDemo = Opt[bool]{Set: true} }), []string{"is_demo"}},
		{"naics one digit", with(func(in *BusinessInput) { in.NAICSCode = Some("5") }), []string{"naics_code"}},
		{"naics seven digits", with(func(in *BusinessInput) { in.NAICSCode = Some("5412111") }), []string{"naics_code"}},
		{"naics letters", with(func(in *BusinessInput) { in.NAICSCode = Some("54a2") }), []string{"naics_code"}},
		{"phone without plus", with(func(in *BusinessInput) { in.PhoneNumber = Some("4155550123") }), []string{"phone_number"}},
		{"phone too long", with(func(in *BusinessInput) { in.PhoneNumber = Some("+1234567890123456") }), []string{"phone_number"}},
		{"bad tin", with(func(in *BusinessInput) { in.TIN = Some("12/34") }), []string{"tin"}},
		{"several at once", BusinessInput{Country: Some("ZZ"), NAICSCode: Some("1")}, []string{"legal_name", "country", "naics_code"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := NewBusiness(uuid.New(), "client-1", tt.in, now)
			if len(tt.badFields) == 0 {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if b.Country == "" || b.DefaultReportingBasis == "" || !b.CreatedAt.Equal(now) {
					t.Fatalf("defaults missing: %+v", b)
				}
				return
			}
			fields := fieldsOf(t, err)
			if len(fields) != len(tt.badFields) {
				t.Fatalf("fields = %v, want %v", fields, tt.badFields)
			}
			for _, f := range tt.badFields {
				if _, ok := fields[f]; !ok {
					t.Fatalf("fields = %v, want %s", fields, f)
				}
			}
		})
	}
}

func TestNewBusinessDefaultsAndNormalisation(t *testing.T) {
	b, err := NewBusiness(uuid.New(), "c", BusinessInput{LegalName: Some("  Acme  "), Country: Some("us"), USState: Some("ca"), ActivationAt: Some("2024-03-01")}, now)
	if err != nil {
		t.Fatal(err)
	}
	if b.LegalName != "Acme" || b.Country != "US" || *b.USState != "CA" || b.DefaultReportingBasis != Accrual || b.IsDemo {
		t.Fatalf("business = %+v", b)
	}
	tests := []struct {
		name string
		in   Opt[string]
		want string
	}{
		{"absent: the creation time", Opt[string]{}, "2026-02-01T10:00:00Z"},
		{"null: the creation time", Opt[string]{Set: true}, "2026-02-01T10:00:00Z"},
		{"date: midnight UTC", Some("2024-03-01"), "2024-03-01T00:00:00Z"},
		{"date-time: same instant in UTC", Some("2024-03-01T09:30:00.5+02:00"), "2024-03-01T07:30:00.5Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := NewBusiness(uuid.New(), "c", BusinessInput{LegalName: Some("Acme"), ActivationAt: tt.in}, now)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.ActivationTime(); got != tt.want {
				t.Fatalf("activation_at = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestIsDemoOnlyAtCreation(t *testing.T) {
	b, err := NewBusiness(uuid.New(), "c", BusinessInput{LegalName: Some("Sandbox"), IsDemo: Some(true)}, now)
	if err != nil || !b.IsDemo {
		t.Fatalf("demo business = %+v, %v", b, err)
	}
	err = b.Update(BusinessInput{IsDemo: Some(false)}, now.Add(time.Hour))
	if f := fieldsOf(t, err); f["is_demo"] == "" || !b.IsDemo {
		t.Fatalf("patching is_demo: fields %v, is_demo %v", f, b.IsDemo)
	}
}

func TestUpdate(t *testing.T) {
	b, err := NewBusiness(uuid.New(), "c", BusinessInput{LegalName: Some("Acme"), USState: Some("CA"), NAICSCode: Some("54")}, now)
	if err != nil {
		t.Fatal(err)
	}
	later := now.Add(time.Hour)
	// null clears, absent keeps, value sets
	if err := b.Update(BusinessInput{NAICSCode: Opt[string]{Set: true}, EntityType: Some("S_CORP")}, later); err != nil {
		t.Fatal(err)
	}
	if b.NAICSCode != nil || *b.EntityType != SCorp || *b.USState != "CA" || b.LegalName != "Acme" || !b.UpdatedAt.Equal(later) || !b.CreatedAt.Equal(now) {
		t.Fatalf("after update: %+v", b)
	}
	// Moving to Canada with a US state left is invalid, and nothing changes.
	before := b
	err = b.Update(BusinessInput{Country: Some("CA"), LegalName: Some("Changed")}, later.Add(time.Hour))
	if f := fieldsOf(t, err); f["us_state"] == "" {
		t.Fatalf("fields = %v", f)
	}
	if b.LegalName != before.LegalName || b.Country != before.Country || !b.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatal("failed update changed the business")
	}
	if err := b.Update(BusinessInput{Country: Some("CA"), USState: Opt[string]{Set: true}}, later); err != nil {
		t.Fatalf("move with state cleared: %v", err)
	}
	// activation_at: a value sets it, null restores the default (creation time).
	if err := b.Update(BusinessInput{ActivationAt: Some("2025-01-01")}, later); err != nil || b.ActivationTime() != "2025-01-01T00:00:00Z" {
		t.Fatalf("set activation_at: %v, %s", err, b.ActivationTime())
	}
	if err := b.Update(BusinessInput{ActivationAt: Opt[string]{Set: true}}, later); err != nil || !b.ActivationAt.Equal(now) {
		t.Fatalf("null activation_at: %v, %s", err, b.ActivationTime())
	}
	// The fiscal year starts in January until a patch moves it; a bad month changes nothing.
	if b.FiscalYearStartMonth != 1 {
		t.Fatalf("default fiscal year start %d", b.FiscalYearStartMonth)
	}
	if err := b.Update(BusinessInput{FiscalYearStartMonth: Some(4)}, later); err != nil || b.FiscalYearStartMonth != 4 {
		t.Fatalf("fiscal year from April: %v, %d", err, b.FiscalYearStartMonth)
	}
	if err := b.Update(BusinessInput{FiscalYearStartMonth: Some(-1)}, later); fieldsOf(t, err)["fiscal_year_start_month"] == "" || b.FiscalYearStartMonth != 4 {
		t.Fatalf("month -1: %v, %d", err, b.FiscalYearStartMonth)
	}
}

func TestOptJSON(t *testing.T) {
	var v struct {
		A Opt[string] `json:"a"`
		B Opt[string] `json:"b"`
		C Opt[string] `json:"c"`
		N Opt[int]    `json:"n"`
	}
	if err := json.Unmarshal([]byte(`{"a":"x","b":null,"n":3}`), &v); err != nil {
		t.Fatal(err)
	}
	if !v.A.Set || *v.A.Value != "x" || !v.B.Set || v.B.Value != nil || v.C.Set || *v.N.Value != 3 {
		t.Fatalf("decoded %+v", v)
	}
	err := json.Unmarshal([]byte(`{"a":5}`), &v)
	var te *json.UnmarshalTypeError
	if !asTypeError(err, &te) || te.Field != "a" {
		t.Fatalf("wrong type error = %#v", err)
	}
}

func asTypeError(err error, target **json.UnmarshalTypeError) bool {
	te, ok := err.(*json.UnmarshalTypeError)
	*target = te
	return ok
}

func TestNewClient(t *testing.T) {
	tests := []struct {
		id, name, hash string
		ok             bool
	}{
		{"demo", "Demo", "h", true},
		{uuid.NewString(), "Acme", "h", true},
		{"a.b_c-d", "x", "h", true},
		{"", "Demo", "h", false},
		{"has space", "Demo", "h", false},
		{strings.Repeat("a", 65), "Demo", "h", false},
		{"demo", " ", "h", false},
		{"demo", "Demo", "", false},
	}
	for _, tt := range tests {
		_, err := NewClient(tt.id, tt.name, tt.hash, now)
		if (err == nil) != tt.ok {
			t.Errorf("NewClient(%q, %q) err = %v", tt.id, tt.name, err)
		}
	}
}

func TestCodeLists(t *testing.T) {
	if len(countryCodes) != 249 || len(usStateCodes) != 60 {
		t.Fatalf("lists: %d countries, %d states", len(countryCodes), len(usStateCodes))
	}
	for _, c := range []string{"US", "CA", "GB", "DE", "JP", "SS", "XK"} {
		want := c != "XK" // Kosovo's XK is user-assigned, not ISO
		if IsCountryCode(c) != want {
			t.Errorf("IsCountryCode(%s) = %v", c, !want)
		}
	}
}
