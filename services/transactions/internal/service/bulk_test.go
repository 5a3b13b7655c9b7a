package service

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// txnView is what a business's books say about one bank transaction, free
// of the ids that differ between businesses: its state and its journal.
type txnView struct {
	Status, Method, TaxCode, Category string
	Version                           int
	// Entries counts the transaction's entries, reversals included; Live
	// is its live entry's lines ("ACCOUNT DIRECTION AMOUNT", sorted).
	Entries int
	Live    string
}

// view reads the transactions ids of business bid as txnViews.
func (s *bankSetup) view(ids []string) []txnView {
	e := s.e
	e.T.Helper()
	snaps := e.txnSnapshots(s.bid)
	out := make([]txnView, len(ids))
	for i, id := range ids {
		t := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+id, s.tok, nil), 200))
		v := txnView{Status: fmt.Sprint(t["categorization_status"]), Method: fmt.Sprint(t["categorization_method"]),
			TaxCode: fmt.Sprint(t["tax_code"]), Category: categoryKey(t["category"]), Version: snaps[id].Version}
		ctx := context.Background()
		if err := e.DB.NewRaw("SELECT count(*) FROM ledger_entries WHERE business_id = ? AND source_type = ? AND source_id = ?",
			s.bid, app.SourceBankTransaction, id).Scan(ctx, &v.Entries); err != nil {
			e.T.Fatal(err)
		}
		var lines []string
		if err := e.DB.NewRaw(`SELECT coalesce(a.stable_name, 'BANK:' || a.name) || ' ' || l.direction || ' ' || l.amount
			FROM ledger_entries le JOIN ledger_lines l ON l.entry_id = le.id JOIN ledger_accounts a ON a.id = l.account_id
			WHERE le.business_id = ? AND le.source_type = ? AND le.source_id = ? AND le.reversal_id IS NULL AND le.reversal_of_id IS NULL
			ORDER BY 1`, s.bid, app.SourceBankTransaction, id).Scan(ctx, &lines); err != nil {
			e.T.Fatal(err)
		}
		v.Live = strings.Join(lines, "; ")
		out[i] = v
	}
	return out
}

// categoryKey is a transaction's category answer without account ids.
func categoryKey(c any) string {
	m, ok := c.(map[string]any)
	if !ok {
		return "none"
	}
	one := func(m map[string]any) string {
		if m["type"] == "Exclusion" {
			return "X:" + fmt.Sprint(m["exclusion_type"])
		}
		return "A:" + fmt.Sprint(m["stable_name"])
	}
	if m["type"] != "Split_Categorization" {
		return one(m)
	}
	var parts []string
	for _, x := range m["entries"].([]any) {
		en := x.(map[string]any)
		parts = append(parts, fmt.Sprintf("%s=%d", one(en["category"].(map[string]any)), cents(en["amount"])))
	}
	return "split[" + strings.Join(parts, ",") + "]"
}

// namedBalances are the balances of the accounts with a stable name (the
// same in every business), and the bank account's under "BANK".
func (s *bankSetup) namedBalances() map[string]int64 {
	b := s.e.balances(s.bid, s.tok, "")
	out := map[string]int64{"BANK": b[s.account["ledger_account_id"].(string)]}
	for k, v := range b {
		if _, err := uuid.Parse(k); err != nil {
			out[k] = v
		}
	}
	return out
}

// randomCategorization is a categorize body for a transaction of amount:
// a single category, a split summing to the amount, or an exclusion.
func randomCategorization(rng *rand.Rand, amount int64) map[string]any {
	cats := []string{"MEALS", "RENT", "SALES", "OFFICE_EXPENSES", "OWNERS_CAPITAL", "TRAVEL"}
	switch k := rng.IntN(10); {
	case k < 5 || amount < 3:
		return single(stable(cats[rng.IntN(len(cats))]))
	case k < 8:
		n := 2 + rng.IntN(2)
		var entries []any
		left := amount
		for i := range n {
			part := left
			if i < n-1 {
				part = 1 + rng.Int64N(left-int64(n-1-i))
			}
			left -= part
			cat := stable(cats[rng.IntN(len(cats))])
			if rng.IntN(4) == 0 {
				cat = exclusion("TRANSFER_BETWEEN_ACCOUNTS")
			}
			entries = append(entries, map[string]any{"category": cat, "amount": part})
		}
		return map[string]any{"type": "Split", "entries": entries}
	default:
		x := []string{"PERSONAL_EXPENSES", "PERSONAL_INFLOWS", "TRANSFER_BETWEEN_ACCOUNTS", "DUPLICATE_TRANSACTION"}
		return single(exclusion(x[rng.IntN(len(x))]))
	}
}

// TestBulkCategorizeEqualsSingleCategorizations is a property test over
// seeded random cases: two businesses get the same transactions, some of
// them categorized beforehand; one then gets a batch of categorizations as
// single PUT /categorize calls, the other as one bulk-categorize call. The
// transactions (status, method, category, version) and the books (every
// transaction's entries and live lines, every named balance) must come out
// the same. Repeating the bulk call changes nothing, and a batch with one
// bad item (a split that does not add up, an unknown account, an unknown
// or another business's transaction) changes nothing at all and names the
// item.
func TestBulkCategorizeEqualsSingleCategorizations(t *testing.T) {
	e := newEnv(t)
	const cases = 12
	for n := range cases {
		t.Run(fmt.Sprint("case ", n), func(t *testing.T) {
			e := e.with(t)
			rng := rand.New(rand.NewPCG(uint64(n), 2026))
			singles, bulk := e.bankSetup(fmt.Sprintf("bulk-a-%d", n), "US"), e.bankSetup(fmt.Sprintf("bulk-b-%d", n), "US")
			count := 3 + rng.IntN(10)
			var items []any
			amounts := make([]int64, count)
			for i := range count {
				amounts[i] = 1 + rng.Int64N(50000)
				dir := "DEBIT"
				if rng.IntN(3) == 0 {
					dir = "CREDIT"
				}
				items = append(items, map[string]any{"amount": amounts[i], "direction": dir,
					"date": fmt.Sprintf("2026-0%d-1%d", 1+rng.IntN(9), rng.IntN(10)), "counterparty_name": fmt.Sprint("Shop ", rng.IntN(4))})
			}
			ids := func(s *bankSetup) []string {
				var out []string
				for _, r := range e.customTxns(s.bid, s.tok, s.account["id"].(string), items, 201) {
					out = append(out, r.(map[string]any)["id"].(string))
				}
				return out
			}
			idsA, idsB := ids(singles), ids(bulk)

			// Some transactions are categorized already (the same way in both).
			for i := range count {
				if rng.IntN(5) < 2 {
					body := randomCategorization(rng, amounts[i])
					singles.categorize(e, "PUT", idsA[i], body, 200)
					bulk.categorize(e, "PUT", idsB[i], body, 200)
				}
			}
			// The batch: most transactions, in a random order, some given
			// the categorization they have.
			var order []int
			for i := range count {
				if rng.IntN(5) < 4 {
					order = append(order, i)
				}
			}
			if len(order) == 0 {
				order = []int{0}
			}
			rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
			bodies := map[int]map[string]any{}
			var batch []any
			for _, i := range order {
				bodies[i] = randomCategorization(rng, amounts[i])
				batch = append(batch, map[string]any{"transaction_id": idsB[i], "categorization": bodies[i]})
			}
			for _, i := range order {
				singles.categorize(e, "PUT", idsA[i], bodies[i], 200)
			}

			// One bad item: nothing of the batch is applied.
			beforeView, beforeBalances, beforeOutbox := bulk.view(idsB), bulk.namedBalances(), e.countRows("outbox")
			bad := slices.Clone(batch)
			k := rng.IntN(len(bad))
			badID := idsB[order[k]]
			wantStatus, wantField := 400, fmt.Sprintf("transactions[%d].categorization", k)
			switch rng.IntN(4) {
			case 0:
				bad[k] = map[string]any{"transaction_id": badID, "categorization": map[string]any{"type": "Split", "entries": []any{
					map[string]any{"category": stable("MEALS"), "amount": amounts[order[k]] + 1}}}}
			case 1:
				bad[k] = map[string]any{"transaction_id": badID, "categorization": single(stable("NO_SUCH_ACCOUNT"))}
			case 2:
				badID = uuid.NewString()
				bad[k] = map[string]any{"transaction_id": badID, "categorization": single(stable("MEALS"))}
				wantStatus, wantField = 404, fmt.Sprintf("transactions[%d].transaction_id", k)
			default:
				badID = idsA[order[k]] // the other business's
				bad[k] = map[string]any{"transaction_id": badID, "categorization": single(stable("MEALS"))}
				wantStatus, wantField = 404, fmt.Sprintf("transactions[%d].transaction_id", k)
			}
			m := e.DoInvalid(req("POST", base(bulk.bid)+"/bank-transactions/bulk-categorize", bulk.tok, map[string]any{"transactions": bad}), wantStatus, "")
			meta := m["meta"].(map[string]any)
			if failed := meta["transaction_ids"].([]any); len(failed) != 1 || failed[0] != badID {
				t.Fatalf("transaction_ids = %v, want [%s] (%v)", failed, badID, m)
			}
			if !slices.ContainsFunc(slices.Collect(maps.Keys(meta["fields"].(map[string]any))), func(f string) bool { return strings.HasPrefix(f, wantField) }) {
				t.Fatalf("fields = %v, want one under %s", meta["fields"], wantField)
			}
			if got := bulk.view(idsB); !slices.Equal(got, beforeView) {
				t.Fatalf("a refused batch changed the transactions:\n%v\nwas\n%v", got, beforeView)
			}
			if got := bulk.namedBalances(); !maps.Equal(got, beforeBalances) {
				t.Fatalf("a refused batch changed the balances: %v, was %v", got, beforeBalances)
			}
			if got := e.countRows("outbox"); got != beforeOutbox {
				t.Fatalf("a refused batch published %d events", got-beforeOutbox)
			}

			// The batch as one call: the same as the single calls.
			res := data(e.Do(req("POST", base(bulk.bid)+"/bank-transactions/bulk-categorize", bulk.tok, map[string]any{"transactions": batch}), 200))
			if results := res["categorized_results"].([]any); len(results) != len(batch) {
				t.Fatalf("%d results for %d items", len(results), len(batch))
			}
			viewA, viewB := singles.view(idsA), bulk.view(idsB)
			for i := range viewA {
				if viewA[i] != viewB[i] {
					t.Errorf("transaction %d: single calls %+v, bulk %+v", i, viewA[i], viewB[i])
				}
			}
			if a, b := singles.namedBalances(), bulk.namedBalances(); !maps.Equal(a, b) {
				t.Fatalf("balances: single calls %v, bulk %v", a, b)
			}

			// Repeated: nothing changes.
			outbox := e.countRows("outbox")
			res = data(e.Do(req("POST", base(bulk.bid)+"/bank-transactions/bulk-categorize", bulk.tok, map[string]any{"transactions": batch}), 200))
			for _, r := range res["categorized_results"].([]any) {
				if r.(map[string]any)["changed"] != false {
					t.Fatalf("a repeated bulk call changed %v", r)
				}
			}
			if got := bulk.view(idsB); !slices.Equal(got, viewB) || e.countRows("outbox") != outbox {
				t.Fatalf("a repeated bulk call changed the books:\n%v\nwas\n%v", got, viewB)
			}
		})
	}
}

// TestBulkMatchOrCategorizeAndUncategorize: the SDK's
// bulk-match-or-categorize body (keyed by transaction id) matches and
// categorizes in one call; bulk-uncategorize brings them back to
// uncategorized (the payment freed), once; bad bodies are 400s.
func TestBulkMatchOrCategorizeAndUncategorize(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("bulk-m", "US")
	dep, out := s.txn(9700, "CREDIT", "2026-03-05"), s.txn(1200, "DEBIT", "2026-03-05")
	pay := uuid.New()
	e.deliver(s.bid, events.TypeInvoicePaymentUpserted, payment(s.bid, pay, 1, 10000, 300, time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC), "PAYMENT_PROCESSOR_CLEARING"))
	match := banking.SuggestionID(uuid.MustParse(dep), pay).String()

	body := map[string]any{"transactions": map[string]any{
		dep: map[string]any{"type": "match", "suggested_match_id": match},
		out: map[string]any{"type": "categorize", "categorization": single(stable("MEALS"))},
	}}
	res := data(e.Do(req("POST", base(s.bid)+"/bank-transactions/bulk-match-or-categorize", s.tok, body), 200))
	if m := res["matched_results"].([]any); len(m) != 1 || m[0].(map[string]any)["suggested_match_id"] != match {
		t.Fatalf("matched_results = %v", m)
	}
	get := func(id string) map[string]any {
		return data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+id, s.tok, nil), 200))
	}
	if get(dep)["categorization_status"] != "MATCHED" || get(out)["categorization_status"] != "CATEGORIZED" {
		t.Fatalf("after the call: %v / %v", get(dep)["categorization_status"], get(out)["categorization_status"])
	}
	if b := e.balances(s.bid, s.tok, ""); b["PAYMENT_PROCESSOR_CLEARING"] != 0 || b["MEALS"] != 1200 {
		t.Fatalf("clearing %d, meals %d", b["PAYMENT_PROCESSOR_CLEARING"], b["MEALS"])
	}
	// Again: nothing changes.
	res = data(e.Do(req("POST", base(s.bid)+"/bank-transactions/bulk-match-or-categorize", s.tok, body), 200))
	if res["matched_results"].([]any)[0].(map[string]any)["changed"] != false || res["categorized_results"].([]any)[0].(map[string]any)["changed"] != false {
		t.Fatalf("repeated call = %v", res)
	}

	un := map[string]any{"transaction_ids": []any{dep, out, dep}}
	res = data(e.Do(req("POST", base(s.bid)+"/bank-transactions/bulk-uncategorize", s.tok, un), 200))
	if r := res["results"].([]any); len(r) != 2 || r[0].(map[string]any)["success"] != true || r[0].(map[string]any)["changed"] != true {
		t.Fatalf("results = %v", r)
	}
	for _, id := range []string{dep, out} {
		if got := get(id); got["categorization_status"] != "READY_FOR_INPUT" || got["category"] != nil || e.liveEntries(s.bid, id) != 1 {
			t.Fatalf("uncategorized = %v, live entries %d", got, e.liveEntries(s.bid, id))
		}
	}
	if b := e.balances(s.bid, s.tok, ""); b["UNCATEGORIZED_REVENUE"] != 9700 || b["UNCATEGORIZED_EXPENSES"] != 1200 || b["PAYMENT_PROCESSOR_CLEARING"] != 9700 {
		t.Fatalf("after uncategorizing: %v", b)
	}
	if len(get(dep)["suggested_matches"].([]any)) != 1 {
		t.Fatal("the payment was not freed")
	}
	res = data(e.Do(req("POST", base(s.bid)+"/bank-transactions/bulk-uncategorize", s.tok, un), 200))
	if res["results"].([]any)[0].(map[string]any)["changed"] != false {
		t.Fatalf("a repeated uncategorize changed %v", res)
	}

	t.Run("bad bodies", func(t *testing.T) {
		e := e.with(t)
		tooMany := make([]any, banking.MaxBulkTransactions+1)
		for i := range tooMany {
			tooMany[i] = uuid.NewString()
		}
		for _, tt := range []struct {
			path string
			body any
			enum string
		}{
			{"bulk-uncategorize", map[string]any{"transaction_ids": tooMany}, banking.EnumTooManyTransactions},
			{"bulk-uncategorize", map[string]any{"transaction_ids": []any{}}, banking.EnumNoTransactions},
			{"bulk-uncategorize", map[string]any{"transaction_ids": []any{"nope"}}, banking.EnumInvalidBulkRequest},
			{"bulk-categorize", map[string]any{"transactions": []any{
				map[string]any{"transaction_id": out, "categorization": single(stable("MEALS"))},
				map[string]any{"transaction_id": out, "categorization": single(stable("RENT"))}}}, banking.EnumDuplicateTransactionID},
			{"bulk-categorize", map[string]any{"transactions": []any{map[string]any{"transaction_id": out, "categorization": map[string]any{"type": "Guess"}}}}, banking.EnumInvalidCategorization},
			{"bulk-match-or-categorize", map[string]any{"transactions": map[string]any{out: map[string]any{"type": "match", "suggested_match_id": match}}}, app.EnumNotMatchable},
			{"bulk-match-or-categorize", map[string]any{"transactions": map[string]any{dep: map[string]any{"type": "match", "suggested_match_id": uuid.NewString()}}}, app.EnumUnknownMatch},
			{"bulk-match-or-categorize", map[string]any{"transactions": map[string]any{"x": map[string]any{"type": "categorize"}}}, banking.EnumInvalidBulkRequest},
		} {
			before := e.counts()
			e.DoInvalid(req("POST", base(s.bid)+"/bank-transactions/"+tt.path, s.tok, tt.body), 400, tt.enum)
			if e.counts() != before {
				t.Fatalf("%s %v wrote rows", tt.path, tt.body)
			}
		}
	})
}
