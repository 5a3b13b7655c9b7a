package httpapi

import (
	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
)

// valueJSON is {value, display_name} (account_type, account_subtype).
type valueJSON struct {
	Value       string `json:"value"`
	DisplayName string `json:"display_name"`
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

// ledgerAccountJSON is the spec's ledger account (Single_Chart_Account),
// the shape of local_ledger_account: id and stable_name in the spec's
// object form, as GET /ledger/accounts/{accountId} serves them.
type ledgerAccountJSON struct {
	Type           string          `json:"type"`
	ID             accountIDJSON   `json:"id"`
	Name           string          `json:"name"`
	AccountNumber  *string         `json:"account_number"`
	StableName     *stableNameJSON `json:"stable_name"`
	Normality      string          `json:"normality"`
	AccountType    valueJSON       `json:"account_type"`
	AccountSubtype valueJSON       `json:"account_subtype"`
}

// acctsyncAccountJSON is the spec's ApiAcctsyncLedgerAccount.
type acctsyncAccountJSON struct {
	Type               string                `json:"type"`
	ID                 uuid.UUID             `json:"id"`
	ExternalID         string                `json:"external_id"`
	Name               string                `json:"name"`
	StableName         accountIDJSON         `json:"stable_name"`
	Normality          string                `json:"normality"`
	AccountType        valueJSON             `json:"account_type"`
	AccountSubtype     valueJSON             `json:"account_subtype"`
	Balance            int64                 `json:"balance"`
	LocalLedgerAccount *ledgerAccountJSON    `json:"local_ledger_account"`
	ChildAccounts      []acctsyncAccountJSON `json:"child_accounts"`
}

func toAcctsyncAccount(v acctsync.LedgerAccountView) acctsyncAccountJSON {
	t := v.Classification.AccountType()
	st := v.Subtype()
	out := acctsyncAccountJSON{
		Type: "ApiAcctsyncLedgerAccount", ID: v.ID, ExternalID: v.ExternalID, Name: v.Name,
		StableName:     accountIDJSON{Type: "AccountId", ID: v.ID},
		Normality:      string(v.Classification.Normality()),
		AccountType:    valueJSON{Value: string(t), DisplayName: t.DisplayName()},
		AccountSubtype: valueJSON{Value: st.Value, DisplayName: st.DisplayName},
		Balance:        int64(v.CurrentBalance),
		ChildAccounts:  make([]acctsyncAccountJSON, 0, len(v.Children)),
	}
	if v.Local != nil {
		la := toLedgerAccount(*v.Local)
		out.LocalLedgerAccount = &la
	}
	for _, c := range v.Children {
		out.ChildAccounts = append(out.ChildAccounts, toAcctsyncAccount(c))
	}
	return out
}

func toLedgerAccount(a acctsync.LedgerAccount) ledgerAccountJSON {
	out := ledgerAccountJSON{
		Type: "Single_Chart_Account", ID: accountIDJSON{Type: "AccountId", ID: a.ID}, Name: a.Name,
		AccountNumber: a.AccountNumber, Normality: string(a.Normality),
		AccountType:    valueJSON{Value: string(a.AccountType), DisplayName: a.AccountType.DisplayName()},
		AccountSubtype: valueJSON{Value: a.Subtype.Value, DisplayName: a.Subtype.DisplayName},
	}
	if a.StableName != nil {
		out.StableName = &stableNameJSON{Type: "StableName", StableName: *a.StableName}
	}
	return out
}
