package service

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

func TestListBankTransactions(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("client-a", "US")
	other := e.bankSetup("client-a", "US")
	other.txn(999, "DEBIT", "2026-01-15")
	acctID := s.account["id"].(string)
	var items []any
	for i := range 12 {
		dir := "DEBIT"
		if i%3 == 0 {
			dir = "CREDIT"
		}
		it := map[string]any{"external_id": fmt.Sprintf("l-%d", i), "amount": (i + 1) * 100, "direction": dir,
			"date": fmt.Sprintf("2026-01-%02d", i+1), "description": fmt.Sprintf("item %d", i), "counterparty_name": "Shop_" + fmt.Sprint(i%2),
			"reference_number": fmt.Sprintf("REF-%d", i)}
		if i < 4 {
			it["tags"] = []any{map[string]any{"key": "project", "value": fmt.Sprintf("p%d", i%2)}}
		}
		items = append(items, it)
	}
	rows := e.customTxns(s.bid, s.tok, acctID, items, 201)
	id := func(i int) string { return rows[i].(map[string]any)["id"].(string) }
	s.categorize(e, "PUT", id(1), single(stable("MEALS")), 200)
	s.categorize(e, "PUT", id(2), map[string]any{"type": "Split", "entries": []any{
		map[string]any{"category": stable("RENT"), "amount": 100}, map[string]any{"category": stable("MEALS"), "amount": 200}}}, 200)

	list := func(e *env, query string) ([]string, map[string]any) {
		e.T.Helper()
		m := e.Do(req("GET", base(s.bid)+"/bank-transactions?"+query, s.tok, nil), 200)
		var ids []string
		for _, r := range m["data"].([]any) {
			ids = append(ids, r.(map[string]any)["id"].(string))
		}
		return ids, m["meta"].(map[string]any)["pagination"].(map[string]any)
	}

	t.Run("walk every page", func(t *testing.T) {
		for _, sortBy := range []string{"date", "amount", "imported_at"} {
			for _, order := range []string{"ASC", "DESC"} {
				t.Run(sortBy+" "+order, func(t *testing.T) {
					e := e.with(t)
					var got []string
					cursor := ""
					for range 10 {
						q := url.Values{"sort_by": {sortBy}, "sort_order": {order}, "limit": {"5"}, "show_total_count": {"true"}}
						if cursor != "" {
							q.Set("cursor", cursor)
						}
						ids, p := list(e, q.Encode())
						got = append(got, ids...)
						if cents(p["total_count"]) != 12 {
							t.Fatalf("total_count = %v", p["total_count"])
						}
						if p["has_more"] != true {
							break
						}
						cursor = p["cursor"].(string)
					}
					if len(got) != 12 {
						t.Fatalf("walked %d transactions, want 12", len(got))
					}
					if sortBy != "imported_at" {
						first, last := id(0), id(11)
						if order == "DESC" {
							first, last = last, first
						}
						if got[0] != first || got[11] != last {
							t.Fatalf("order: %v", got)
						}
					}
				})
			}
		}
	})

	t.Run("filters", func(t *testing.T) {
		for _, tt := range []struct {
			query string
			want  []int
		}{
			{"direction=INFLOW", []int{0, 3, 6, 9}},
			{"direction=DEBIT&amount_min=500&amount_max=800", []int{4, 5, 7}},
			{"start_date=2026-01-03&end_date=2026-01-04", []int{2, 3}},
			{"categorized=true", []int{1, 2}},
			{"categorization_status=SPLIT", []int{2}},
			{"category=MEALS", []int{1, 2}},
			{"category=RENT", []int{2}},
			{"q=item%2011", []int{11}},
			{"q=shop_1", []int{1, 3, 5, 7, 9, 11}},
			{"reference_number=REF-4", []int{4}},
			{"tag_key=project&tag_values=p1", []int{1, 3}},
			{"tag_key=project", []int{0, 1, 2, 3}},
			{"bank_account_ids=" + acctID + "&amount_max=200", []int{0, 1}},
		} {
			t.Run(tt.query, func(t *testing.T) {
				e := e.with(t)
				got, _ := list(e, tt.query+"&sort_by=date&sort_order=ASC")
				if len(got) != len(tt.want) {
					t.Fatalf("got %d transactions, want %v", len(got), tt.want)
				}
				for i, w := range tt.want {
					if got[i] != id(w) {
						t.Fatalf("item %d = %s, want transaction %d", i, got[i], w)
					}
				}
			})
		}
	})

	t.Run("shape", func(t *testing.T) {
		e := e.with(t)
		m := e.Do(req("GET", base(s.bid)+"/bank-transactions?limit=1&sort_by=date&sort_order=ASC", s.tok, nil), 200)
		r := m["data"].([]any)[0].(map[string]any)
		flow := r["categorization_flow"].(map[string]any)
		if r["source_transaction_id"] != "l-0" || flow["type"] != "ASK_FROM_SUGGESTIONS" || r["suggested_matches"] == nil ||
			len(r["transaction_tags"].([]any)) != 1 || r["document_ids"] == nil || r["projected_income_category"] != "REVENUE" {
			t.Fatalf("row = %v", r)
		}
	})

	t.Run("invalid", func(t *testing.T) {
		e := e.with(t)
		e.DoInvalid(req("GET", base(s.bid)+"/bank-transactions?direction=SIDEWAYS", s.tok, nil), 400, banking.EnumInvalidFilter)
		e.DoInvalid(req("GET", base(s.bid)+"/bank-transactions?limit=501", s.tok, nil), 400, "")
		e.DoInvalid(req("GET", base(s.bid)+"/bank-transactions?sort_by=counterparty", s.tok, nil), 400, "")
		_, p := list(e, "limit=2&direction=DEBIT")
		e.DoInvalid(req("GET", base(s.bid)+"/bank-transactions?limit=2&direction=CREDIT&cursor="+url.QueryEscape(p["cursor"].(string)), s.tok, nil), 400, "")
	})
}
