package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// Identifier type names of the API.
const (
	identAccountID  = "AccountId"
	identStableName = "StableName"
)

// valueJSON is {value, display_name} (account_type, account_subtype).
type valueJSON struct {
	Value       string `json:"value"`
	DisplayName string `json:"display_name"`
}

// accountFields are the fields every account shape shares.
type accountFields struct {
	Name           string    `json:"name"`
	AccountNumber  *string   `json:"account_number"`
	Normality      string    `json:"normality"`
	AccountType    valueJSON `json:"account_type"`
	AccountSubtype valueJSON `json:"account_subtype"`
}

func fieldsOf(a domain.Account) accountFields {
	st := a.SubtypeInfo()
	return accountFields{
		Name: a.Name, AccountNumber: a.AccountNumber, Normality: string(a.Normality),
		AccountType:    valueJSON{Value: string(a.Type), DisplayName: a.Type.DisplayName()},
		AccountSubtype: valueJSON{Value: st.Value, DisplayName: st.DisplayName},
	}
}

// plainAccountJSON is the SDK's SingleChartAccount: the account of a
// journal line, with plain-string id and stable name.
type plainAccountJSON struct {
	ID         uuid.UUID `json:"id"`
	StableName *string   `json:"stable_name"`
	accountFields
}

func toPlainAccount(a domain.Account) plainAccountJSON {
	return plainAccountJSON{ID: a.ID, StableName: a.StableName, accountFields: fieldsOf(a)}
}

// accountIDJSON is {type: "AccountId", id}.
type accountIDJSON struct {
	Type string    `json:"type"`
	ID   uuid.UUID `json:"id"`
}

// stableNameJSON is {type: "StableName", stable_name}.
type stableNameJSON struct {
	Type       string `json:"type"`
	StableName string `json:"stable_name"`
}

// singleChartAccountJSON is the spec's Single_Chart_Account.
type singleChartAccountJSON struct {
	Type       string          `json:"type"`
	ID         accountIDJSON   `json:"id"`
	StableName *stableNameJSON `json:"stable_name"`
	accountFields
	ParentID   *accountIDJSON `json:"parent_id"`
	ArchivedAt *time.Time     `json:"archived_at"`
}

func toSingleChartAccount(a domain.Account) singleChartAccountJSON {
	out := singleChartAccountJSON{
		Type: "Single_Chart_Account", ID: accountIDJSON{Type: identAccountID, ID: a.ID},
		accountFields: fieldsOf(a), ArchivedAt: a.ArchivedAt,
	}
	if a.StableName != nil {
		out.StableName = &stableNameJSON{Type: identStableName, StableName: *a.StableName}
	}
	if a.ParentID != nil {
		out.ParentID = &accountIDJSON{Type: identAccountID, ID: *a.ParentID}
	}
	return out
}

// errIdentifier is the decoding error of an account identifier.
var errIdentifier = errors.New(`must be {"type": "AccountId", "id": uuid} or {"type": "StableName", "stable_name": string}`)

// accountIdentifier decodes the API's AccountIdentifier: {type: "AccountId",
// id} or {type: "StableName", stable_name}. A bare UUID string is accepted as
// an AccountId (the real product's documentation shows parent_id so).
type accountIdentifier struct {
	ref domain.AccountRef
}

// UnmarshalJSON implements json.Unmarshaler.
func (a *accountIdentifier) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return errIdentifier
		}
		id, err := uuid.Parse(s)
		if err != nil || len(s) != 36 {
			return errIdentifier
		}
		a.ref = domain.ByID(id)
		return nil
	}
	var raw struct {
		Type       string  `json:"type"`
		ID         *string `json:"id"`
		StableName *string `json:"stable_name"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return errIdentifier
	}
	switch {
	case raw.Type == identAccountID && raw.ID != nil && raw.StableName == nil:
		id, err := uuid.Parse(*raw.ID)
		if err != nil || len(*raw.ID) != 36 {
			return fmt.Errorf("AccountId id %q is not a UUID", *raw.ID)
		}
		a.ref = domain.ByID(id)
	case raw.Type == identStableName && raw.StableName != nil && raw.ID == nil:
		if *raw.StableName == "" {
			return errors.New("StableName stable_name must not be empty")
		}
		a.ref = domain.ByStableName(*raw.StableName)
	default:
		return errIdentifier
	}
	return nil
}

// stableNameInput decodes a stable name sent as {type: "StableName",
// stable_name} (the SDK) or as a plain string (the real product's docs).
type stableNameInput struct {
	name string
}

// UnmarshalJSON implements json.Unmarshaler.
func (s *stableNameInput) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &s.name)
	}
	var raw struct {
		Type       string `json:"type"`
		StableName string `json:"stable_name"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil || raw.Type != identStableName {
		return errors.New(`must be a string or {"type": "StableName", "stable_name": string}`)
	}
	s.name = raw.StableName
	return nil
}

// valueInput decodes an enum sent as a string or as {value, display_name}
// (what an account answer carries, so clients can send it back).
type valueInput struct {
	value string
}

// UnmarshalJSON implements json.Unmarshaler.
func (v *valueInput) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &v.value)
	}
	var raw struct {
		Value       string  `json:"value"`
		DisplayName *string `json:"display_name"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil || raw.Value == "" {
		return errors.New(`must be a string or {"value": string, "display_name": string}`)
	}
	v.value = raw.Value
	return nil
}
