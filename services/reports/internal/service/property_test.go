package service

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// randomHistory is n random balanced entries of bid over 60 days from
// 2026-01-01 (fixture accounts and one custom account without a stable
// name, random dept/proj tags), about a fifth of them reversals of
// earlier ones.
func randomHistory(r *rand.Rand, bid uuid.UUID, n int) []events.LedgerEntryPosted {
	pl := []string{"SALES", "UNCATEGORIZED_REVENUE", "DISCOUNTS", "MATERIALS", "RENT", "UNCATEGORIZED_EXPENSES", "BANK_FEES", "INCOME_TAXES", "CUSTOM"}
	day := func() string { return time.Date(2026, 1, 1+r.IntN(60), 0, 0, 0, 0, time.UTC).Format(domain.DateLayout) }
	customID := uuid.NewSHA1(uuid.NameSpaceOID, []byte(bid.String()+":custom"))
	var out []events.LedgerEntryPosted
	for len(out) < n {
		if len(out) > 0 && r.IntN(5) == 0 {
			out = append(out, reversal(out[r.IntN(len(out))], day()))
			continue
		}
		var lines []events.LedgerLine
		var total int64
		for range 1 + r.IntN(3) {
			name := pl[r.IntN(len(pl))]
			amt := int64(1 + r.IntN(100000))
			var kv []string
			if r.IntN(3) > 0 {
				kv = append(kv, "dept", []string{"retail", "wholesale"}[r.IntN(2)])
			}
			if r.IntN(3) == 0 {
				kv = append(kv, "proj", "x")
			}
			var l events.LedgerLine
			if name == "CUSTOM" {
				l = line(bid, "RENT", "DEBIT", amt, kv...)
				l.AccountID, l.StableName, l.AccountName = customID, nil, "Custom expenses"
			} else {
				dir := "DEBIT"
				if chart[name].normality == "CREDIT" {
					dir = "CREDIT"
				}
				if r.IntN(6) == 0 { // the other side now and then
					dir = map[string]string{"DEBIT": "CREDIT", "CREDIT": "DEBIT"}[dir]
				}
				l = line(bid, name, dir, amt, kv...)
			}
			total += l.SignedAmount
			lines = append(lines, l)
		}
		if total > 0 {
			lines = append(lines, line(bid, "CASH", "CREDIT", total))
		} else if total < 0 {
			lines = append(lines, line(bid, "CASH", "DEBIT", -total))
		}
		out = append(out, entry(bid, day(), lines...))
	}
	return out
}

// naive is the report recomputed straight from the entries.
func naive(entries []events.LedgerEntryPosted, q domain.PnLQuery) (domain.PnL, int64) {
	return naiveMatching(entries, q.Start, q.End, q.Filter.Matches)
}

// naiveMatching is naive over the days start..end for the lines whose tags
// match selects.
func naiveMatching(entries []events.LedgerEntryPosted, start, end time.Time, match func(domain.TagSet) bool) (domain.PnL, int64) {
	accounts := map[uuid.UUID]domain.Account{}
	amounts := map[uuid.UUID]int64{}
	var pnlSum int64
	for _, e := range entries {
		for _, l := range e.Lines {
			var path []uuid.UUID
			for _, a := range l.Ancestors {
				accounts[a.AccountID] = domain.Account{ID: a.AccountID, StableName: a.StableName, Name: a.Name, Type: l.AccountType, Path: path}
				path = append(path, a.AccountID)
			}
			accounts[l.AccountID] = domain.Account{ID: l.AccountID, StableName: l.StableName, Name: l.AccountName, Type: l.AccountType,
				Subtype: &l.AccountSubtype, Normality: &l.Normality, Path: path}
		}
	}
	for _, e := range entries {
		d, _ := time.Parse(domain.DateLayout, e.Date)
		if d.Before(start) || d.After(end) {
			continue
		}
		for _, l := range e.Lines {
			tags := make([]domain.Tag, len(l.Tags))
			for i, t := range l.Tags {
				tags[i] = domain.Tag{Key: t.Key, Value: t.Value}
			}
			if !match(domain.NewTagSet(tags)) {
				continue
			}
			amounts[l.AccountID] += l.SignedAmount
			if l.AccountType == "REVENUE" || l.AccountType == "EXPENSE" {
				pnlSum += l.SignedAmount
			}
		}
	}
	return domain.BuildPnL(accounts, amounts, domain.StructureDefault), pnlSum
}

// TestProfitAndLossProperty: for random histories delivered in a random
// order with every event twice (one by one, or in batches as the
// consumer's), the read model's report equals the naive
// recomputation from the entries for random periods and tag filters, its
// net profit is minus the sum of the P&L lines, and a rebuild changes
// nothing.
func TestProfitAndLossProperty(t *testing.T) {
	e := newEnv(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 9))
	for round := range 4 {
		client := fmt.Sprintf("client-%d", round)
		bid := e.Svc.SeedBusiness(t, client)
		tok := e.Svc.Tokens.Platform(t, client)
		entries := randomHistory(r, bid, 30+r.IntN(30))
		var evts []events.Event
		for _, p := range entries {
			evt := event(t, p)
			evts = append(evts, evt, evt)
		}
		r.Shuffle(len(evts), func(i, j int) { evts[i], evts[j] = evts[j], evts[i] })
		if round%2 == 0 {
			e.deliver(evts...)
		} else {
			e.deliverInBatches(r, 40, evts...) // as the consumer's batches
		}

		check := func(stage string) {
			for range 8 {
				a, b := r.IntN(62), r.IntN(62)
				if a > b {
					a, b = b, a
				}
				start := time.Date(2026, 1, 1+a, 0, 0, 0, 0, time.UTC)
				end := time.Date(2026, 1, 1+b, 0, 0, 0, 0, time.UTC)
				q := domain.PnLQuery{Start: start, End: end}
				params := period(start.Format(domain.DateLayout), end.Format(domain.DateLayout))
				switch r.IntN(4) {
				case 1:
					q.Filter = domain.TagFilter{Key: "dept", Values: []string{"retail"}}
					params.Set("tag_key", "dept")
					params.Set("tag_values", "retail")
				case 2:
					q.Filter = domain.TagFilter{Key: "proj"}
					params.Set("tag_key", "proj")
				case 3:
					q.Filter = domain.TagFilter{Key: "dept", Values: []string{"wholesale", "retail"}}
					params.Set("tag_key", "dept")
					params.Set("tag_values", "wholesale,retail")
				}
				want, sum := naive(entries, q)
				got := e.pnl(tok, bid, params).Data
				gotPnL := domain.PnL{Income: got.Income, CostOfGoodsSold: got.CostOfGoodsSold, Expenses: got.Expenses, Taxes: got.Taxes,
					GrossProfit: got.GrossProfit, ProfitBeforeTaxes: got.ProfitBeforeTaxes, NetProfit: got.NetProfit, FullyCategorized: got.FullyCategorized}
				if !reflect.DeepEqual(gotPnL, want) {
					t.Fatalf("%s, round %d, %s: read model\n%+v\nnaive\n%+v", stage, round, params.Encode(), gotPnL, want)
				}
				if got.NetProfit != -sum {
					t.Fatalf("%s, round %d, %s: net profit %d, lines sum %d", stage, round, params.Encode(), got.NetProfit, sum)
				}
			}
		}
		check("incremental")
		if _, err := e.S.Reports.Rebuild(t.Context(), bid); err != nil {
			t.Fatal(err)
		}
		check("rebuilt")
	}
}
