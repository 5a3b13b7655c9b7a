package service

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// bankSetup is a business with a custom account and helpers to add and
// categorize its transactions.
type bankSetup struct {
	e       *env
	bid     uuid.UUID
	tok     string
	account map[string]any
}

func (e *env) bankSetup(client, country string) *bankSetup {
	e.T.Helper()
	tok := e.Token(client)
	bid := e.business(client, country)
	acct := e.customAccount(bid, tok, map[string]any{"account_name": "Operating", "account_type": "DEPOSITORY"}, 201)
	return &bankSetup{e: e, bid: bid, tok: tok, account: acct}
}

// txn adds one transaction and returns its id.
func (s *bankSetup) txn(amount int64, direction, date string) string {
	s.e.T.Helper()
	rows := s.e.customTxns(s.bid, s.tok, s.account["id"].(string), []any{
		map[string]any{"amount": amount, "direction": direction, "date": date, "counterparty_name": "Cafe Nero"},
	}, 201)
	return rows[0].(map[string]any)["id"].(string)
}

func (s *bankSetup) categorize(e *env, method, id string, body any, want int) map[string]any {
	e.T.Helper()
	return data(e.Do(req(method, base(s.bid)+"/bank-transactions/"+id+"/categorize", s.tok, body), want))
}

func single(c map[string]any) map[string]any {
	return map[string]any{"type": "Category", "category": c}
}

func exclusion(x string) map[string]any {
	return map[string]any{"type": "Exclusion", "exclusion_type": x}
}

// liveEntries counts the transaction's unreversed ledger entries.
func (e *env) liveEntries(bid uuid.UUID, txnID string) int {
	e.T.Helper()
	var n int
	err := e.DB.NewRaw("SELECT count(*) FROM ledger_entries WHERE business_id = ? AND source_type = ? AND source_id = ? AND reversal_id IS NULL AND reversal_of_id IS NULL",
		bid, app.SourceBankTransaction, txnID).Scan(context.Background(), &n)
	if err != nil {
		e.T.Fatal(err)
	}
	return n
}

func TestCategorize(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("client-a", "US")
	bank := s.account["ledger_account_id"].(string)

	t.Run("single, then recategorize", func(t *testing.T) {
		e := e.with(t)
		id := s.txn(11300, "DEBIT", "2026-06-01")
		got := s.categorize(e, "PUT", id, single(stable("MEALS")), 200)
		cat := got["category"].(map[string]any)
		if got["categorization_status"] != "CATEGORIZED" || got["categorization_method"] != "API" ||
			cat["type"] != "Account" || cat["stable_name"] != "MEALS" || cat["category"] != "MEALS" ||
			got["projected_income_category"] != "EXPENSE" || got["categorization_flow"] != nil || got["tax_options"] != nil {
			t.Fatalf("categorized = %v", got)
		}
		b := e.balances(s.bid, s.tok, "")
		if b["MEALS"] != 11300 || b[bank] != -11300 {
			t.Fatalf("MEALS %d, bank %d", b["MEALS"], b[bank])
		}
		// POST is the same operation.
		s.categorize(e, "POST", id, single(stable("OFFICE_EXPENSES")), 200)
		b = e.balances(s.bid, s.tok, "")
		if b["MEALS"] != 0 || b["OFFICE_EXPENSES"] != 11300 || b[bank] != -11300 {
			t.Fatalf("after recategorizing: MEALS %d, OFFICE_EXPENSES %d, bank %d", b["MEALS"], b["OFFICE_EXPENSES"], b[bank])
		}
		if n := e.liveEntries(s.bid, id); n != 1 {
			t.Fatalf("%d live entries, want 1", n)
		}
		snap := e.txnSnapshots(s.bid)[id]
		if snap.Version != 3 || snap.Status != "CATEGORIZED" || snap.Category == nil || *snap.Category.StableName != "OFFICE_EXPENSES" || *snap.Method != "API" {
			t.Fatalf("snapshot = %+v", snap)
		}
		read := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+id, s.tok, nil), 200))
		if read["category"].(map[string]any)["stable_name"] != "OFFICE_EXPENSES" {
			t.Fatalf("read back %v", read)
		}
	})

	t.Run("split with tags", func(t *testing.T) {
		e := e.with(t)
		id := s.txn(10000, "CREDIT", "2026-06-02")
		got := s.categorize(e, "PUT", id, map[string]any{"type": "Split", "entries": []any{
			map[string]any{"category": stable("SALES"), "amount": 7000, "tags": []any{map[string]any{"key": "dept", "value": "east"}}},
			map[string]any{"category": exclusion("PERSONAL_INFLOWS"), "amount": "3000"},
		}}, 200)
		cat := got["category"].(map[string]any)
		entries := cat["entries"].([]any)
		first, second := entries[0].(map[string]any), entries[1].(map[string]any)
		if got["categorization_status"] != "SPLIT" || cat["type"] != "Split_Categorization" || len(entries) != 2 ||
			first["type"] != "AccountSplitEntry" || cents(first["amount"]) != 7000 || len(first["tags"].([]any)) != 1 ||
			second["type"] != "ExclusionSplitEntry" || second["category"].(map[string]any)["type"] != "Exclusion" ||
			got["projected_income_category"] != "REVENUE" {
			t.Fatalf("split = %v", got)
		}
	})

	t.Run("duplicate posts nothing and removes the live entry", func(t *testing.T) {
		e := e.with(t)
		id := s.txn(500, "DEBIT", "2026-06-03")
		s.categorize(e, "PUT", id, single(stable("MEALS")), 200)
		got := s.categorize(e, "PUT", id, single(exclusion("DUPLICATE_TRANSACTION")), 200)
		if got["projected_income_category"] != "EXCLUDE" || e.liveEntries(s.bid, id) != 0 {
			t.Fatalf("duplicate = %v, live entries %d", got, e.liveEntries(s.bid, id))
		}
	})

	t.Run("transfer creates its clearing account", func(t *testing.T) {
		e := e.with(t)
		id := s.txn(2500, "DEBIT", "2026-06-04")
		s.categorize(e, "PUT", id, single(exclusion("TRANSFER_BETWEEN_ACCOUNTS")), 200)
		if b := e.balances(s.bid, s.tok, ""); b[banking.StableTransfersInTransit] != 2500 {
			t.Fatalf("TRANSFERS_IN_TRANSIT = %d", b[banking.StableTransfersInTransit])
		}
	})

	t.Run("invalid", func(t *testing.T) {
		id := s.txn(1000, "DEBIT", "2026-06-05")
		other := e.business("client-a", "US")
		for _, tt := range []struct {
			name string
			body any
			enum string
		}{
			{"unknown type", map[string]any{"type": "Guess"}, banking.EnumInvalidCategorization},
			{"missing category", map[string]any{"type": "Category"}, banking.EnumInvalidCategorization},
			{"unknown stable name", single(stable("NO_SUCH")), domain.EnumUnknownAccount},
			{"unknown account id", single(accountID(uuid.NewString())), domain.EnumUnknownAccount},
			{"another business's account", single(accountID(domain.DefaultAccountID(other, "MEALS").String())), domain.EnumUnknownAccount},
			{"the bank account itself", single(accountID(bank)), banking.EnumCategoryIsBankAccount},
			{"split sum differs", map[string]any{"type": "Split", "entries": []any{
				map[string]any{"category": stable("MEALS"), "amount": 400}, map[string]any{"category": stable("RENT"), "amount": 500}}}, banking.EnumSplitAmountMismatch},
			{"zero split amount", map[string]any{"type": "Split", "entries": []any{
				map[string]any{"category": stable("MEALS"), "amount": 0}, map[string]any{"category": stable("RENT"), "amount": 1000}}}, banking.EnumInvalidSplitAmount},
			{"duplicate in a split", map[string]any{"type": "Split", "entries": []any{
				map[string]any{"category": exclusion("DUPLICATE_TRANSACTION"), "amount": 500}, map[string]any{"category": stable("RENT"), "amount": 500}}}, banking.EnumDuplicateNotSplittable},
			{"tax code outside Canada", map[string]any{"type": "Category", "category": stable("MEALS"), "tax_code": "GST"}, banking.EnumTaxCodeNotAllowed},
		} {
			t.Run(tt.name, func(t *testing.T) {
				e := e.with(t)
				before := e.counts()
				e.DoInvalid(req("PUT", base(s.bid)+"/bank-transactions/"+id+"/categorize", s.tok, tt.body), 400, tt.enum)
				if e.counts() != before {
					t.Fatal("a refused categorization wrote rows")
				}
			})
		}
		t.Run("unknown transaction", func(t *testing.T) {
			e := e.with(t)
			e.DoInvalid(req("PUT", base(s.bid)+"/bank-transactions/"+uuid.NewString()+"/categorize", s.tok, single(stable("MEALS"))), 404, app.EnumBankTransactionNotFound)
			e.DoInvalid(req("GET", base(other)+"/bank-transactions/"+id, s.tok, nil), 404, app.EnumBankTransactionNotFound)
			e.DoInvalid(req("PUT", base(other)+"/bank-transactions/"+id+"/categorize", s.tok, single(stable("MEALS"))), 404, app.EnumBankTransactionNotFound)
		})
	})

	t.Run("concurrent categorizations leave one live entry", func(t *testing.T) {
		e := e.with(t)
		id := s.txn(4200, "DEBIT", "2026-06-06")
		cats := []string{"MEALS", "RENT", "TRAVEL", "SOFTWARE", "UTILITIES", "PHONE", "INSURANCE", "MARKETING"}
		var wg sync.WaitGroup
		errs := make(chan error, len(cats))
		for _, c := range cats {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := e.HTTP.Test(req("PUT", base(s.bid)+"/bank-transactions/"+id+"/categorize", s.tok, single(stable(c))), -1)
				if err != nil {
					errs <- err
					return
				}
				if resp.StatusCode != 200 {
					errs <- fmt.Errorf("%s: status %d", c, resp.StatusCode)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if n := e.liveEntries(s.bid, id); n != 1 {
			t.Fatalf("%d live entries, want 1", n)
		}
		read := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+id, s.tok, nil), 200))
		b := e.balances(s.bid, s.tok, "")
		if got := read["category"].(map[string]any)["stable_name"].(string); b[got] < 4200 {
			t.Fatalf("the transaction says %s, whose balance is %d", got, b[got])
		}
		var total int64
		for _, c := range cats {
			total += b[c]
		}
		if total != 4200 {
			t.Fatalf("the categories hold %d in all, want 4200 (one live categorization)", total)
		}
		if snap := e.txnSnapshots(s.bid)[id]; snap.Version != len(cats)+1 {
			t.Fatalf("version %d, want %d", snap.Version, len(cats)+1)
		}
	})
}

func TestCategorizeCanada(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("client-ca", "CA")
	id := s.txn(11300, "DEBIT", "2026-06-01")
	read := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+id, s.tok, nil), 200))
	opts, ok := read["tax_options"].(map[string]any)
	if !ok {
		t.Fatalf("a CA business's transaction has no tax_options: %v", read)
	}
	var hasHST bool
	for _, o := range opts["canada"].([]any) {
		hasHST = hasHST || o.(map[string]any)["code"] == "HST_ON"
	}
	if !hasHST {
		t.Fatalf("tax options %v lack HST_ON", opts)
	}
	got := s.categorize(e, "PUT", id, map[string]any{"type": "Category", "category": stable("MEALS"), "tax_code": "HST_ON"}, 200)
	if got["tax_code"] != "HST_ON" {
		t.Fatalf("tax_code = %v", got["tax_code"])
	}
	b := e.balances(s.bid, s.tok, "")
	if b["MEALS"] != 10000 || b["SALES_TAXES_RECEIVABLE"] != 1300 {
		t.Fatalf("MEALS %d, SALES_TAXES_RECEIVABLE %d; want 10000 and 1300", b["MEALS"], b["SALES_TAXES_RECEIVABLE"])
	}
	for name, body := range map[string]map[string]any{
		"unknown code":        {"type": "Category", "category": stable("MEALS"), "tax_code": "VAT_UK"},
		"code with exclusion": {"type": "Category", "category": exclusion("PERSONAL_EXPENSES"), "tax_code": "HST_ON"},
	} {
		t.Run(name, func(t *testing.T) {
			e := e.with(t)
			m := e.DoInvalid(req("PUT", base(s.bid)+"/bank-transactions/"+id+"/categorize", s.tok, body), 400, "")
			if m["error_enum"] != banking.EnumUnknownTaxCode && m["error_enum"] != banking.EnumTaxCodeNotAllowed {
				t.Fatalf("error = %v", m)
			}
		})
	}
}

func TestSuggestionsFromHistory(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("client-a", "US")
	acct := s.account["id"].(string)
	rows := e.customTxns(s.bid, s.tok, acct, []any{
		map[string]any{"amount": 100, "direction": "DEBIT", "date": "2026-05-01", "counterparty_name": "CAFE NERO #1234"},
		map[string]any{"amount": 200, "direction": "DEBIT", "date": "2026-05-02", "counterparty_name": "Cafe Nero 0917"},
		map[string]any{"amount": 300, "direction": "DEBIT", "date": "2026-05-03", "counterparty_name": "cafe-nero"},
		map[string]any{"amount": 400, "direction": "DEBIT", "date": "2026-05-04", "counterparty_name": "Cafe Nero"},
		map[string]any{"amount": 500, "direction": "DEBIT", "date": "2026-05-05", "counterparty_name": "Someone Else"},
	}, 201)
	id := func(i int) string { return rows[i].(map[string]any)["id"].(string) }
	s.categorize(e, "PUT", id(0), single(stable("MEALS")), 200)
	s.categorize(e, "PUT", id(1), single(stable("MEALS")), 200)
	s.categorize(e, "PUT", id(2), single(stable("OFFICE_EXPENSES")), 200)

	flow := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+id(3), s.tok, nil), 200))["categorization_flow"].(map[string]any)
	sugg, cats := flow["suggestions"].([]any), flow["categories"].([]any)
	if flow["type"] != "ASK_FROM_SUGGESTIONS" || len(sugg) != 2 || len(cats) != 2 ||
		sugg[0].(map[string]any)["stable_name"] != "MEALS" || sugg[1].(map[string]any)["stable_name"] != "OFFICE_EXPENSES" {
		t.Fatalf("flow = %v", flow)
	}
	if f := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+id(4), s.tok, nil), 200))["categorization_flow"].(map[string]any); len(f["suggestions"].([]any)) != 0 {
		t.Fatalf("another counterparty gets suggestions: %v", f)
	}
	list := e.Do(req("GET", base(s.bid)+"/bank-transactions?categorized=false&sort_by=date&sort_order=ASC", s.tok, nil), 200)["data"].([]any)
	if f := list[0].(map[string]any)["categorization_flow"].(map[string]any); len(f["suggestions"].([]any)) != 2 {
		t.Fatalf("listed flow = %v", f)
	}
}
