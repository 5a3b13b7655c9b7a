package banking

import (
	"encoding/json"
	"fmt"
	"regexp"
	"unicode/utf8"

	"github.com/acctsuite/acct/pkg/jsonraw"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// ClassificationType tells the three kinds of classification apart (the
// wire's `type`).
type ClassificationType string

// The classification types.
const (
	ByAccountID  ClassificationType = "AccountId"
	ByStableName ClassificationType = "StableName"
	ByExclusion  ClassificationType = "Exclusion"
)

// Classification is what a categorization names: a ledger account by id
// or by stable name, or an exclusion. Exactly the field of its type is set.
type Classification struct {
	Type       ClassificationType
	AccountID  uuid.UUID
	StableName string
	Exclusion  ExclusionType
}

// AccountIDClassification names the account with the given id.
func AccountIDClassification(id uuid.UUID) Classification {
	return Classification{Type: ByAccountID, AccountID: id}
}

// StableNameClassification names the account with the given stable name.
func StableNameClassification(name string) Classification {
	return Classification{Type: ByStableName, StableName: name}
}

// ExclusionClassification names an exclusion.
func ExclusionClassification(x ExclusionType) Classification {
	return Classification{Type: ByExclusion, Exclusion: x}
}

// IsExclusion reports whether c takes the transaction out of the P&L.
func (c Classification) IsExclusion() bool { return c.Type == ByExclusion }

// Key is a canonical text form of c ("AccountId:<uuid>",
// "StableName:SALES", "Exclusion:PERSONAL_EXPENSES"), for maps, rankings
// and fingerprints.
func (c Classification) Key() string {
	switch c.Type {
	case ByAccountID:
		return string(c.Type) + ":" + c.AccountID.String()
	case ByStableName:
		return string(c.Type) + ":" + c.StableName
	case ByExclusion:
		return string(c.Type) + ":" + string(c.Exclusion)
	}
	return ""
}

// Validate checks that c is one of the three forms with its field set and
// valid; field names c in the error.
func (c Classification) Validate(field string) error {
	switch c.Type {
	case ByAccountID:
		if c.AccountID == uuid.Nil {
			return fieldError(apperr.InvalidPayload, field+".id", EnumInvalidCategorization, "must be a non-nil UUID")
		}
	case ByStableName:
		if reason := checkStableName(c.StableName); reason != "" {
			return fieldError(apperr.InvalidPayload, field+".stable_name", EnumInvalidCategorization, reason)
		}
	case ByExclusion:
		if !c.Exclusion.Valid() {
			return fieldError(apperr.InvalidPayload, field+".exclusion_type", EnumInvalidCategorization,
				"must be one of "+choices(ExclusionTypes))
		}
	default:
		return fieldError(apperr.InvalidPayload, field+".type", EnumInvalidCategorization,
			"must be AccountId, StableName or Exclusion")
	}
	return nil
}

// MaxStableNameLength bounds a stable name (the ledger's rule).
const MaxStableNameLength = 100

var stableNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)

// checkStableName is the ledger's stable-name rule; it returns the reason
// a name is refused, or "".
func checkStableName(s string) string {
	if s == "" || utf8.RuneCountInString(s) > MaxStableNameLength || !stableNamePattern.MatchString(s) {
		return fmt.Sprintf("must be 1 to %d of A-Z a-z 0-9 _ . : - starting with a letter or digit", MaxStableNameLength)
	}
	return ""
}

// wireClassification is the JSON of a classification with every member
// kept raw, so each can be checked for its own JSON type.
type wireClassification struct {
	Type          json.RawMessage `json:"type"`
	ID            json.RawMessage `json:"id"`
	StableName    json.RawMessage `json:"stable_name"`
	ExclusionType json.RawMessage `json:"exclusion_type"`
}

// decodeClassification reads `{type: AccountId, id}`, `{type: StableName,
// stable_name}` or `{type: Exclusion, exclusion_type}` found at field;
// violations are recorded in v with EnumInvalidCategorization.
func decodeClassification(raw json.RawMessage, field string, v *apperr.Violations) (Classification, bool) {
	var w wireClassification
	if !jsonraw.IsObject(raw) || json.Unmarshal(raw, &w) != nil {
		v.Add(field, EnumInvalidCategorization, "must be an object with a type of AccountId, StableName or Exclusion")
		return Classification{}, false
	}
	typ, ok := jsonraw.String(w.Type)
	if !ok {
		v.Add(field+".type", EnumInvalidCategorization, "is required: AccountId, StableName or Exclusion")
		return Classification{}, false
	}
	var c Classification
	switch ClassificationType(typ) {
	case ByAccountID:
		s, ok := jsonraw.String(w.ID)
		id, err := uuid.Parse(s)
		if !ok || err != nil || id == uuid.Nil || len(s) != 36 {
			v.Add(field+".id", EnumInvalidCategorization, "must be an account id (a UUID)")
			return Classification{}, false
		}
		c = AccountIDClassification(id)
	case ByStableName:
		s, ok := jsonraw.String(w.StableName)
		if !ok {
			v.Add(field+".stable_name", EnumInvalidCategorization, "is required: a string")
			return Classification{}, false
		}
		c = StableNameClassification(s)
	case ByExclusion:
		s, ok := jsonraw.String(w.ExclusionType)
		if !ok {
			v.Add(field+".exclusion_type", EnumInvalidCategorization, "is required: one of "+choices(ExclusionTypes))
			return Classification{}, false
		}
		c = ExclusionClassification(ExclusionType(s))
	default:
		v.Add(field+".type", EnumInvalidCategorization, "must be AccountId, StableName or Exclusion")
		return Classification{}, false
	}
	if err := c.Validate(field); err != nil {
		if err := v.Merge(err); err != nil {
			// Validate returns only 400s; keep the field named anyway.
			v.Add(field, EnumInvalidCategorization, err.Error())
		}
		return Classification{}, false
	}
	return c, true
}

// DecodeClassification reads a classification sent as the body member
// field ({type: AccountId, id} | {type: StableName, stable_name} | {type:
// Exclusion, exclusion_type}); a violation is a 400 InvalidPayload naming
// the member (InvalidCategorization).
func DecodeClassification(raw json.RawMessage, field string) (Classification, error) {
	v := apperr.NewViolations(apperr.InvalidPayload)
	if jsonraw.IsNull(raw) {
		v.Add(field, EnumInvalidCategorization, "is required")
		return Classification{}, v.Err()
	}
	c, ok := decodeClassification(raw, field, v)
	if !ok {
		return Classification{}, v.Err()
	}
	return c, nil
}
