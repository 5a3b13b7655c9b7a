package service

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

func TestLedgerAccounts(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	accounts := base(bid) + "/ledger/accounts"
	objID := func(m map[string]any) string { return m["id"].(map[string]any)["id"].(string) }
	// POST and PUT answer the real client's SingleChartAccount: id and
	// stable_name are plain strings (the client fails on the object form).
	plainID := func(t *testing.T, m map[string]any) string {
		t.Helper()
		id, ok := m["id"].(string)
		if !ok {
			t.Fatalf("id %v is not a plain string: %v", m["id"], m)
		}
		if _, ok := m["type"]; ok {
			t.Fatalf("the client's shape has no type: %v", m)
		}
		return id
	}

	t.Run("get a default account in the spec's form", func(t *testing.T) {
		e := e.with(t)
		id := domain.DefaultAccountID(bid, "BANK_FEES")
		a := data(e.Do(req("GET", accounts+"/"+id.String(), tok, nil), 200))
		if a["type"] != "Single_Chart_Account" || objID(a) != id.String() || a["id"].(map[string]any)["type"] != "AccountId" ||
			a["stable_name"].(map[string]any)["stable_name"] != "BANK_FEES" || a["stable_name"].(map[string]any)["type"] != "StableName" ||
			a["parent_id"].(map[string]any)["id"] != domain.DefaultAccountID(bid, "FEES").String() || a["normality"] != "DEBIT" ||
			a["account_subtype"].(map[string]any)["value"] != "FEES" || a["archived_at"] != nil {
			t.Fatalf("account = %v", a)
		}
	})

	var coworking string
	t.Run("create", func(t *testing.T) {
		e := e.with(t)
		tests := []struct {
			name       string
			body       map[string]any
			wantParent string
			check      func(t *testing.T, a map[string]any)
		}{
			{"under a stable name", map[string]any{"name": "Coworking", "account_number": "6110", "normality": "DEBIT",
				"parent_id": stable("RENT"), "account_type": "EXPENSE", "stable_name": map[string]any{"type": "StableName", "stable_name": "COWORKING"}},
				"RENT", func(t *testing.T, a map[string]any) {
					if a["account_number"] != "6110" || a["stable_name"] != "COWORKING" ||
						a["account_subtype"].(map[string]any)["value"] != "OPERATING_EXPENSES" {
						t.Fatalf("account = %v", a)
					}
				}},
			{"under an account id, explicit subtype", map[string]any{"name": "Gift cards", "normality": "CREDIT",
				"parent_id": accountID(domain.DefaultAccountID(bid, "UNEARNED_REVENUE").String()), "account_type": "LIABILITY",
				"account_subtype": "OTHER_CURRENT_LIABILITIES"}, "UNEARNED_REVENUE", func(t *testing.T, a map[string]any) {
				if a["stable_name"] != nil || a["account_subtype"].(map[string]any)["value"] != "OTHER_CURRENT_LIABILITIES" {
					t.Fatalf("account = %v", a)
				}
			}},
			{"no parent: under the type's root, default normality", map[string]any{"name": "Grants", "account_type": "REVENUE",
				"stable_name": "GRANTS"}, "REVENUE", func(t *testing.T, a map[string]any) {
				if a["normality"] != "CREDIT" || a["account_subtype"].(map[string]any)["value"] != "REVENUE" {
					t.Fatalf("account = %v", a)
				}
			}},
			{"bare parent id and object enums", map[string]any{"name": "Petty cash 2", "parent_id": domain.DefaultAccountID(bid, "CASH").String(),
				"account_type": map[string]any{"value": "ASSET", "display_name": "Asset"}, "normality": map[string]any{"value": "DEBIT"}},
				"CASH", nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				e := e.with(t)
				a := data(e.Do(req("POST", accounts, tok, tt.body), 201))
				created := plainID(t, a)
				if id, err := uuid.Parse(created); err != nil || id.Version() != 7 {
					t.Fatalf("id %v is not a UUIDv7", created)
				}
				if tt.check != nil {
					tt.check(t, a)
				}
				got := data(e.Do(req("GET", accounts+"/"+created, tok, nil), 200))
				if objID(got) != created || got["name"] != a["name"] || got["name"] != tt.body["name"] ||
					got["parent_id"].(map[string]any)["id"] != domain.DefaultAccountID(bid, tt.wantParent).String() {
					t.Fatalf("read back %v", got)
				}
				if tt.wantParent == "RENT" {
					coworking = created
				}
			})
		}
		if ch := e.chart(bid, tok); ch["COWORKING"] == nil || ch["GRANTS"] == nil {
			t.Fatal("created accounts missing from the chart")
		}
	})

	t.Run("create refused", func(t *testing.T) {
		e := e.with(t)
		tests := []struct {
			name     string
			body     any
			status   int
			wantEnum string
		}{
			{"type differs from the parent's", map[string]any{"name": "X", "account_type": "REVENUE", "parent_id": stable("RENT")}, 400, domain.EnumAccountTypeMismatch},
			{"subtype of another type", map[string]any{"name": "X", "account_type": "EXPENSE", "parent_id": stable("RENT"), "account_subtype": "SALES"}, 400, domain.EnumAccountTypeMismatch},
			{"unknown parent stable name", map[string]any{"name": "X", "account_type": "EXPENSE", "parent_id": stable("NO_SUCH")}, 400, domain.EnumUnknownAccount},
			{"unknown parent id", map[string]any{"name": "X", "account_type": "EXPENSE", "parent_id": accountID(uuid.NewString())}, 400, domain.EnumUnknownAccount},
			{"duplicate stable name", map[string]any{"name": "X", "account_type": "EXPENSE", "stable_name": "COWORKING"}, 409, domain.EnumDuplicateStableName},
			{"duplicate of a default stable name", map[string]any{"name": "X", "account_type": "EXPENSE", "stable_name": "MEALS"}, 409, domain.EnumDuplicateStableName},
			{"no name", map[string]any{"account_type": "EXPENSE"}, 400, "InvalidPayload"},
			{"blank name", map[string]any{"name": " ", "account_type": "EXPENSE"}, 400, "InvalidPayload"},
			{"no type", map[string]any{"name": "X"}, 400, "InvalidPayload"},
			{"unknown type", map[string]any{"name": "X", "account_type": "INCOME"}, 400, "InvalidPayload"},
			{"unknown normality", map[string]any{"name": "X", "account_type": "EXPENSE", "normality": "UP"}, 400, "InvalidPayload"},
			{"bad stable name", map[string]any{"name": "X", "account_type": "EXPENSE", "stable_name": "has spaces"}, 400, "InvalidPayload"},
			{"bad parent uuid", map[string]any{"name": "X", "account_type": "EXPENSE", "parent_id": accountID("not-a-uuid")}, 400, "InvalidPayload"},
			{"unknown field", map[string]any{"name": "X", "account_type": "EXPENSE", "colour": "red"}, 400, "InvalidPayload"},
			{"malformed JSON", `{"name":`, 400, "InvalidPayload"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				e := e.with(t)
				e.DoInvalid(req("POST", accounts, tok, tt.body), tt.status, tt.wantEnum)
			})
		}
		rq := req("POST", accounts, tok, `{"name":"X","account_type":"EXPENSE"}`)
		rq.Header.Set("Content-Type", "text/plain")
		e.DoInvalid(rq, http.StatusUnsupportedMediaType, "UnsupportedMediaType")
	})

	t.Run("update", func(t *testing.T) {
		e := e.with(t)
		meals := accounts + "/" + domain.DefaultAccountID(bid, "MEALS").String()
		a := data(e.Do(req("PUT", meals, tok, map[string]any{"name": "Meals & entertainment", "account_number": "6200"}), 200))
		if plainID(t, a) != domain.DefaultAccountID(bid, "MEALS").String() || a["name"] != "Meals & entertainment" ||
			a["account_number"] != "6200" || a["stable_name"] != "MEALS" {
			t.Fatalf("updated = %v", a)
		}
		// The whole object sent back unchanged is fine.
		e.Do(req("PUT", meals, tok, map[string]any{"name": "Meals", "account_number": nil, "normality": "DEBIT", "account_type": "EXPENSE",
			"account_subtype": "OPERATING_EXPENSES", "stable_name": stable("MEALS"),
			"parent_id": accountID(domain.DefaultAccountID(bid, "OPERATING_EXPENSES").String())}), 200)
		if got := data(e.Do(req("GET", meals, tok, nil), 200)); got["name"] != "Meals" || got["account_number"] != nil {
			t.Fatalf("after PUT = %v", got)
		}
		mine := accounts + "/" + coworking
		if a := data(e.Do(req("PUT", mine, tok, map[string]any{"name": "Shared desks", "stable_name": "SHARED_DESKS"}), 200)); a["stable_name"] != "SHARED_DESKS" {
			t.Fatalf("renamed stable name = %v", a)
		}
		refused := []struct {
			name     string
			path     string
			body     map[string]any
			status   int
			wantEnum string
		}{
			{"stable name of a default account", meals, map[string]any{"name": "Meals", "stable_name": "FOOD"}, 400, domain.EnumImmutableField},
			{"type", mine, map[string]any{"name": "X", "account_type": "ASSET"}, 400, domain.EnumImmutableField},
			{"normality", mine, map[string]any{"name": "X", "normality": "CREDIT"}, 400, domain.EnumImmutableField},
			{"parent", mine, map[string]any{"name": "X", "parent_id": accountID(domain.DefaultAccountID(bid, "TRAVEL").String())}, 400, domain.EnumImmutableField},
			{"stable name taken", mine, map[string]any{"name": "X", "stable_name": "TRAVEL"}, 409, domain.EnumDuplicateStableName},
			{"no name", mine, map[string]any{"account_number": "1"}, 400, "InvalidPayload"},
			{"unknown account", accounts + "/" + uuid.NewString(), map[string]any{"name": "X"}, 404, domain.EnumAccountNotFound},
		}
		for _, tt := range refused {
			t.Run(tt.name, func(t *testing.T) {
				e := e.with(t)
				e.DoInvalid(req("PUT", tt.path, tok, tt.body), tt.status, tt.wantEnum)
			})
		}
	})

	t.Run("archive", func(t *testing.T) {
		e := e.with(t)
		archive := func(id string) string { return accounts + "/" + id + "/archive" }
		e.DoInvalid(req("POST", archive(domain.DefaultAccountID(bid, "TIPS").String()), tok, nil), 409, domain.EnumDefaultAccount)

		parent := data(e.Do(req("GET", accounts+"/"+plainID(t, data(e.Do(req("POST", accounts, tok,
			map[string]any{"name": "Studio", "account_type": "EXPENSE", "parent_id": stable("RENT")}), 201))), tok, nil), 200))
		child := data(e.Do(req("GET", accounts+"/"+plainID(t, data(e.Do(req("POST", accounts, tok, map[string]any{"name": "Studio utilities",
			"account_type": "EXPENSE", "parent_id": accountID(objID(parent))}), 201))), tok, nil), 200))
		e.DoInvalid(req("POST", archive(objID(parent)), tok, nil), 409, domain.EnumAccountInUse) // a live child

		// A balance keeps the child; once it is back to zero it can go.
		e.post(bid, tok, map[string]any{"entry_at": "2026-01-10", "line_items": []any{
			line(accountID(objID(child)), 700, "DEBIT"), line(stable("CASH"), 700, "CREDIT")}}, 201)
		if m := e.DoInvalid(req("POST", archive(objID(child)), tok, nil), 409, domain.EnumAccountInUse); m["meta"].(map[string]any)["debits"] != float64(700) {
			t.Fatalf("in-use error = %v", m)
		}
		e.post(bid, tok, map[string]any{"entry_at": "2026-01-11", "line_items": []any{
			line(stable("CASH"), 700, "DEBIT"), line(accountID(objID(child)), 700, "CREDIT")}}, 201)
		archived := data(e.Do(req("POST", archive(objID(child)), tok, nil), 200))
		if archived["archived_at"] == nil {
			t.Fatalf("archived = %v", archived)
		}
		again := data(e.Do(req("POST", archive(objID(child)), tok, nil), 200))
		if again["archived_at"] != archived["archived_at"] {
			t.Fatal("archiving twice changed the account")
		}
		data(e.Do(req("POST", archive(objID(parent)), tok, nil), 200))

		ch := e.chart(bid, tok)
		if ch[objID(child)] != nil || ch[objID(parent)] != nil {
			t.Fatal("archived accounts still in the chart")
		}
		if got := data(e.Do(req("GET", accounts+"/"+objID(child), tok, nil), 200)); got["archived_at"] == nil {
			t.Fatal("an archived account is not readable")
		}
		// Archived accounts take no new postings and no new children.
		e.DoInvalid(req("POST", base(bid)+"/ledger/journal-entries", tok, map[string]any{"line_items": []any{
			line(accountID(objID(child)), 1, "DEBIT"), line(stable("CASH"), 1, "CREDIT")}}), 400, domain.EnumAccountArchived)
		e.DoInvalid(req("POST", accounts, tok, map[string]any{"name": "Under archived", "account_type": "EXPENSE",
			"parent_id": accountID(objID(parent))}), 400, domain.EnumAccountArchived)
		e.DoInvalid(req("POST", archive(uuid.NewString()), tok, nil), 404, domain.EnumAccountNotFound)
	})

	t.Run("delete", func(t *testing.T) {
		e := e.with(t)
		create := func(body map[string]any) string {
			return plainID(t, data(e.Do(req("POST", accounts, tok, body), 201)))
		}
		del := func(id string) *http.Request { return req("DELETE", accounts+"/"+id, tok, nil) }
		e.DoInvalid(del(domain.DefaultAccountID(bid, "TIPS").String()), 409, domain.EnumDefaultAccount)

		// An account never used goes: 404 afterwards, out of the chart,
		// and the other services see it archived.
		unused := create(map[string]any{"name": "Never used", "account_type": "EXPENSE"})
		e.NoContent(del(unused))
		e.DoInvalid(req("GET", accounts+"/"+unused, tok, nil), 404, domain.EnumAccountNotFound)
		e.DoInvalid(del(unused), 404, domain.EnumAccountNotFound)
		if e.chart(bid, tok)[unused] != nil {
			t.Fatal("a deleted account is in the chart")
		}
		evts := e.accountEvents(bid.String())
		last := evts[len(evts)-1].Accounts
		if len(last) != 1 || last[0].ID.String() != unused || !last[0].Archived {
			t.Fatalf("last accounts event %+v, want the deleted account archived", last)
		}

		// Ledger lines keep an account, even at a zero balance: archive it.
		used := create(map[string]any{"name": "Used once", "account_type": "EXPENSE"})
		for _, dir := range [][2]string{{"DEBIT", "CREDIT"}, {"CREDIT", "DEBIT"}} {
			e.post(bid, tok, map[string]any{"entry_at": "2026-02-10", "line_items": []any{
				line(accountID(used), 300, dir[0]), line(stable("CASH"), 300, dir[1])}}, 201)
		}
		if m := e.DoInvalid(del(used), 409, domain.EnumAccountInUse); !strings.Contains(m["description"].(string), "archive") {
			t.Fatalf("in-use error %v does not say to archive it", m)
		}
		data(e.Do(req("POST", accounts+"/"+used+"/archive", tok, nil), 200))
		e.DoInvalid(del(used), 409, domain.EnumAccountInUse) // archived, still with its lines

		// Sub-accounts (archived ones too) keep a parent; a rule keeps its
		// category; a bank account keeps its ledger account.
		parent := create(map[string]any{"name": "Parent", "account_type": "EXPENSE"})
		child := create(map[string]any{"name": "Child", "account_type": "EXPENSE", "parent_id": accountID(parent)})
		data(e.Do(req("POST", accounts+"/"+child+"/archive", tok, nil), 200))
		e.DoInvalid(del(parent), 409, domain.EnumAccountInUse)
		e.NoContent(del(child))
		e.NoContent(del(parent))

		ruled := create(map[string]any{"name": "Ruled", "account_type": "EXPENSE"})
		rule := data(e.Do(req("POST", base(bid)+"/categorization-rules", tok, map[string]any{"direction": "DEBIT", "category": accountID(ruled)}), 201))
		e.DoInvalid(del(ruled), 409, domain.EnumAccountInUse)
		e.NoContent(req("DELETE", base(bid)+"/categorization-rules/"+rule["id"].(string), tok, nil))
		e.NoContent(del(ruled))

		box := data(e.Do(req("POST", base(bid)+"/custom-accounts", tok, map[string]any{"account_name": "Box", "account_type": "DEPOSITORY"}), 201))
		e.DoInvalid(del(box["ledger_account_id"].(string)), 409, domain.EnumAccountInUse)
	})

	t.Run("bad ids", func(t *testing.T) {
		e := e.with(t)
		for _, rq := range []*http.Request{
			req("GET", accounts+"/not-a-uuid", tok, nil),
			req("PUT", accounts+"/not-a-uuid", tok, map[string]any{"name": "X"}),
			req("POST", accounts+"/not-a-uuid/archive", tok, nil),
			req("DELETE", accounts+"/not-a-uuid", tok, nil),
			req("GET", "/v1/businesses/not-a-uuid/ledger/chart", tok, nil),
		} {
			e.DoInvalid(rq, 400, "InvalidParameters")
		}
		e.DoInvalid(req("GET", accounts+"/"+uuid.NewString(), tok, nil), 404, domain.EnumAccountNotFound)
		e.DoInvalid(req("GET", base(bid)+"/ledger/chart", "", nil), 401, "")
	})
}
