package banking

import (
	"encoding/json"
	"fmt"

	"github.com/acctsuite/acct/pkg/jsonraw"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Bounds of a custom account's fields, in characters.
const (
	MaxInstitutionNameLength = 255
	MaxMaskLength            = 10
)

// CustomAccountInput is a checked POST /custom-accounts body.
type CustomAccountInput struct {
	AccountName     string
	InstitutionName *string
	Mask            *string
	Type            CustomAccountType
	Subtype         CustomAccountSubtype
	Kind            CustomAccountKind
	ExternalID      *string
}

// LedgerParent is the stable name of the chart account the custom
// account's ledger account goes under.
func (in CustomAccountInput) LedgerParent() string { return in.Type.LedgerParent() }

// ParseCustomAccountInput reads a custom account: `account_name`
// (required), `institution_name`, `mask` (the last digits shown to users),
// `account_type` (DEPOSITORY or CREDIT, required), `account_subtype`
// (CHECKING or SAVINGS for DEPOSITORY, CREDIT_CARD for CREDIT; defaults
// to CHECKING and CREDIT_CARD), `custom_account_type` (DEFAULT or
// PERSONAL, default DEFAULT) and `external_id`. Every violation is named
// in one 400 InvalidPayload (InvalidCustomAccount).
func ParseCustomAccountInput(body []byte) (CustomAccountInput, error) {
	var w struct {
		AccountName       json.RawMessage `json:"account_name"`
		InstitutionName   json.RawMessage `json:"institution_name"`
		Mask              json.RawMessage `json:"mask"`
		AccountType       json.RawMessage `json:"account_type"`
		AccountSubtype    json.RawMessage `json:"account_subtype"`
		CustomAccountType json.RawMessage `json:"custom_account_type"`
		ExternalID        json.RawMessage `json:"external_id"`
	}
	if !jsonraw.IsObject(body) || json.Unmarshal(body, &w) != nil {
		return CustomAccountInput{}, fieldError(apperr.InvalidPayload, "body", EnumInvalidCustomAccount, "must be a JSON object")
	}
	v := apperr.NewViolations(apperr.InvalidPayload)
	var in CustomAccountInput
	if s := decodeText(w.AccountName, "account_name", textRule{max: MaxAccountNameLength, required: true, enum: EnumInvalidCustomAccount}, v); s != nil {
		in.AccountName = *s
	}
	in.InstitutionName = decodeText(w.InstitutionName, "institution_name", textRule{max: MaxInstitutionNameLength, enum: EnumInvalidCustomAccount}, v)
	in.Mask = decodeText(w.Mask, "mask", textRule{max: MaxMaskLength, enum: EnumInvalidCustomAccount}, v)
	in.ExternalID = decodeText(w.ExternalID, "external_id", textRule{max: MaxExternalIDLength, enum: EnumInvalidCustomAccount}, v)

	enum := func(raw json.RawMessage, field string, required bool, valid func(string) bool, allowed string) (string, bool) {
		if jsonraw.IsNull(raw) {
			if required {
				v.Add(field, EnumInvalidCustomAccount, "is required: "+allowed)
			}
			return "", false
		}
		s, ok := jsonraw.String(raw)
		if !ok || !valid(s) {
			v.Add(field, EnumInvalidCustomAccount, "must be "+allowed)
			return "", false
		}
		return s, true
	}
	if s, ok := enum(w.AccountType, "account_type", true, func(s string) bool { return CustomAccountType(s).Valid() }, "DEPOSITORY or CREDIT"); ok {
		in.Type = CustomAccountType(s)
	}
	if s, ok := enum(w.AccountSubtype, "account_subtype", false, func(s string) bool { return CustomAccountSubtype(s).Valid() }, "CHECKING, SAVINGS or CREDIT_CARD"); ok {
		in.Subtype = CustomAccountSubtype(s)
	}
	in.Kind = KindDefault
	if s, ok := enum(w.CustomAccountType, "custom_account_type", false, func(s string) bool { return CustomAccountKind(s).Valid() }, "DEFAULT or PERSONAL"); ok {
		in.Kind = CustomAccountKind(s)
	}
	if in.Type.Valid() {
		switch {
		case in.Subtype == "":
			in.Subtype = in.Type.Subtypes()[0]
		case !in.Type.Allows(in.Subtype):
			v.Add("account_subtype", EnumInvalidCustomAccount,
				fmt.Sprintf("must be %s for account_type %s", choices(in.Type.Subtypes()), in.Type))
		}
	}
	if err := v.Err(); err != nil {
		return CustomAccountInput{}, err
	}
	return in, nil
}
