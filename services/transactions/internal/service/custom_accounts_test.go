package service

import (
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// customAccount creates a custom account and returns the answer's data.
func (e *env) customAccount(bid uuid.UUID, token string, body map[string]any, want int) map[string]any {
	e.T.Helper()
	return data(e.Do(req("POST", base(bid)+"/custom-accounts", token, body), want))
}

// parentOf returns the stable name of the chart node directly above id.
func parentOf(chart map[string]map[string]any, id string) string {
	for name, node := range chart {
		if _, err := uuid.Parse(name); err == nil {
			continue // the same nodes, by id
		}
		for _, sub := range node["sub_accounts"].([]any) {
			if sub.(map[string]any)["id"] == id {
				return name
			}
		}
	}
	return ""
}

func TestCustomAccounts(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	other := e.business("client-a", "US")

	tests := []struct {
		name                        string
		body                        map[string]any
		wantParent, wantSub, wantKd string
	}{
		{"depository defaults to checking", map[string]any{"account_name": "Operating", "account_type": "DEPOSITORY", "mask": "1234", "institution_name": "First Bank"}, "BANK_ACCOUNTS", "CHECKING", "DEFAULT"},
		{"savings", map[string]any{"account_name": "Reserve", "account_type": "DEPOSITORY", "account_subtype": "SAVINGS"}, "BANK_ACCOUNTS", "SAVINGS", "DEFAULT"},
		{"credit card", map[string]any{"account_name": "Visa", "account_type": "CREDIT", "custom_account_type": "PERSONAL"}, "CREDIT_CARDS", "CREDIT_CARD", "PERSONAL"},
	}
	created := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e.with(t)
			a := e.customAccount(bid, tok, tt.body, 201)
			if a["account_name"] != tt.body["account_name"] || a["account_subtype"] != tt.wantSub || a["custom_account_type"] != tt.wantKd || a["user_created"] != true {
				t.Fatalf("account = %v", a)
			}
			chart := e.chart(bid, tok)
			ledger := a["ledger_account_id"].(string)
			node, ok := chart[ledger]
			if !ok {
				t.Fatalf("ledger account %s not in the chart", ledger)
			}
			if node["name"] != tt.body["account_name"] {
				t.Fatalf("ledger account name = %v", node["name"])
			}
			if p := parentOf(chart, ledger); p != tt.wantParent {
				t.Fatalf("ledger account under %q, want %s", p, tt.wantParent)
			}
			created[a["id"].(string)] = true
		})
	}

	t.Run("external_id makes a create idempotent", func(t *testing.T) {
		e := e.with(t)
		body := map[string]any{"account_name": "Ext", "account_type": "DEPOSITORY", "external_id": "ext-1"}
		first := e.customAccount(bid, tok, body, 201)
		before := e.counts()
		again := e.customAccount(bid, tok, body, 200)
		if again["id"] != first["id"] || again["ledger_account_id"] != first["ledger_account_id"] {
			t.Fatalf("second create = %v, want %v", again, first)
		}
		if e.counts() != before {
			t.Fatal("the repeated create wrote rows")
		}
		created[first["id"].(string)] = true
		// Another business may use the same external id.
		if o := e.customAccount(other, tok, body, 201); o["id"] == first["id"] {
			t.Fatal("another business got the same account")
		}
	})

	t.Run("list", func(t *testing.T) {
		e := e.with(t)
		list := data(e.Do(req("GET", base(bid)+"/custom-accounts?user_created=true", tok, nil), 200))["custom_accounts"].([]any)
		if len(list) != len(created) {
			t.Fatalf("listed %d accounts, want %d", len(list), len(created))
		}
		for _, a := range list {
			if !created[a.(map[string]any)["id"].(string)] {
				t.Fatalf("unexpected account %v", a)
			}
		}
		if l := data(e.Do(req("GET", base(bid)+"/custom-accounts?user_created=false", tok, nil), 200))["custom_accounts"].([]any); len(l) != 0 {
			t.Fatalf("user_created=false lists %d", len(l))
		}
		if l := data(e.Do(req("GET", base(other)+"/custom-accounts", tok, nil), 200))["custom_accounts"].([]any); len(l) != 1 {
			t.Fatalf("the other business lists %d accounts, want 1", len(l))
		}
	})

	t.Run("invalid", func(t *testing.T) {
		for _, tt := range []struct {
			name  string
			body  any
			field string
		}{
			{"not an object", `[1]`, "body"},
			{"missing name", map[string]any{"account_type": "DEPOSITORY"}, "account_name"},
			{"blank name", map[string]any{"account_name": "  ", "account_type": "DEPOSITORY"}, "account_name"},
			{"missing type", map[string]any{"account_name": "X"}, "account_type"},
			{"unknown type", map[string]any{"account_name": "X", "account_type": "LOAN"}, "account_type"},
			{"subtype of another type", map[string]any{"account_name": "X", "account_type": "CREDIT", "account_subtype": "SAVINGS"}, "account_subtype"},
			{"unknown kind", map[string]any{"account_name": "X", "account_type": "CREDIT", "custom_account_type": "SHARED"}, "custom_account_type"},
			{"mask too long", map[string]any{"account_name": "X", "account_type": "CREDIT", "mask": "12345678901"}, "mask"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				e := e.with(t)
				before := e.counts()
				m := e.DoInvalid(req("POST", base(bid)+"/custom-accounts", tok, tt.body), 400, banking.EnumInvalidCustomAccount)
				if fields, _ := m["meta"].(map[string]any)["fields"].(map[string]any); fields[tt.field] == nil {
					t.Fatalf("error does not name %s: %v", tt.field, m)
				}
				if e.counts() != before {
					t.Fatal("a refused create wrote rows")
				}
			})
		}
		t.Run("not JSON", func(t *testing.T) {
			e := e.with(t)
			r := req("POST", base(bid)+"/custom-accounts", tok, `{"account_name":"X","account_type":"CREDIT"}`)
			r.Header.Set("Content-Type", "text/plain")
			e.DoInvalid(r, 415, "")
		})
	})
}
