package service

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// model is the test's own record of what was posted: the oracle the
// service's answers are checked against.
type model struct {
	lines    map[uuid.UUID][]modelLine // by entry
	reversed map[uuid.UUID]bool
}

type modelLine struct {
	account uuid.UUID
	signed  int64 // debit positive
	at      time.Time
}

// TestLedgerInvariants posts many random balanced entries (through the
// HTTP API and through the posting API) and random reversals into two
// businesses, then checks: every entry balances with at least two lines;
// per business debits equal credits; the trial balance is zero (assets +
// expenses = liabilities + equity + revenue); GET /ledger/balances, for
// the whole history and for random periods, equals the balances recomputed
// from the posted lines; every entry published exactly one event whose
// signed amounts sum to zero.
func TestLedgerInvariants(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	rng := rand.New(rand.NewPCG(2026, 7))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	businesses := []uuid.UUID{e.business("client-a", "US"), e.business("client-a", "CA")}
	models := map[uuid.UUID]*model{}
	leaves := map[uuid.UUID][]domain.Account{}
	normal := map[uuid.UUID]map[uuid.UUID]domain.Account{}
	for _, bid := range businesses {
		models[bid] = &model{lines: map[uuid.UUID][]modelLine{}, reversed: map[uuid.UUID]bool{}}
		// A few accounts of the business's own, so the chart is not only the default one.
		for i := range 3 {
			e.Do(req("POST", base(bid)+"/ledger/accounts", tok, map[string]any{
				"name": fmt.Sprintf("Custom %d", i), "account_type": "EXPENSE", "parent_id": stable("OPERATING_EXPENSES")}), 201)
		}
		roots, err := e.S.Ledger.Chart(context.Background(), bid)
		if err != nil {
			t.Fatal(err)
		}
		normal[bid] = map[uuid.UUID]domain.Account{}
		domain.Walk(roots, func(n *domain.Node) {
			normal[bid][n.Account.ID] = n.Account
			if len(n.Children) == 0 {
				leaves[bid] = append(leaves[bid], n.Account)
			}
		})
	}

	const entries = 120
	for i := range entries {
		bid := businesses[rng.IntN(len(businesses))]
		m := models[bid]
		if len(m.lines) > 3 && rng.IntN(5) == 0 {
			// Reverse a random manual entry that is neither reversed nor a reversal.
			var candidates []uuid.UUID
			for id, ls := range m.lines {
				if !m.reversed[id] && len(ls) > 0 {
					candidates = append(candidates, id)
				}
			}
			if len(candidates) > 0 {
				id := candidates[rng.IntN(len(candidates))]
				rev := data(e.Do(req("POST", base(bid)+"/ledger/entries/"+id.String()+"/reverse", tok, nil), 201))
				revID := uuid.MustParse(rev["id"].(string))
				for _, l := range m.lines[id] {
					m.lines[revID] = append(m.lines[revID], modelLine{account: l.account, signed: -l.signed, at: l.at})
				}
				m.reversed[id], m.reversed[revID] = true, true // a reversal is not reversed again
				continue
			}
		}
		at := start.Add(time.Duration(rng.IntN(180*24)) * time.Hour)
		nLines := 2 + rng.IntN(4)
		var lines []domain.JournalLine
		var total int64
		for k := range nLines - 1 {
			amount := 1 + rng.Int64N(1_000_000)
			d := domain.Debit
			if k > 0 && rng.IntN(2) == 0 {
				d = domain.Credit
			}
			acct := leaves[bid][rng.IntN(len(leaves[bid]))]
			lines = append(lines, domain.JournalLine{Account: domain.ByID(acct.ID), Amount: money.Cents(amount), Direction: d})
			if d == domain.Debit {
				total += amount
			} else {
				total -= amount
			}
		}
		last := domain.JournalLine{Account: domain.ByID(leaves[bid][rng.IntN(len(leaves[bid]))].ID), Amount: money.Cents(total), Direction: domain.Credit}
		if total < 0 {
			last.Amount, last.Direction = money.Cents(-total), domain.Debit
		}
		if total == 0 {
			continue // cannot balance with a positive amount
		}
		lines = append(lines, last)

		var id uuid.UUID
		if i%2 == 0 { // through HTTP, validated against the document
			var body []any
			for _, l := range lines {
				amount := any(int64(l.Amount))
				if rng.IntN(2) == 0 {
					amount = fmt.Sprint(int64(l.Amount)) // the SDK's string form
				}
				body = append(body, line(accountID(l.Account.ID.String()), amount, string(l.Direction)))
			}
			j := e.post(bid, tok, map[string]any{"entry_at": at.Format(time.RFC3339), "line_items": body}, 201)
			id = uuid.MustParse(j["entry_id"].(string))
		} else { // through the posting API, as a bank categorization would
			err := e.inTx(func(ctx context.Context) error {
				posted, err := e.S.Ledger.PostEntry(ctx, bid, app.NewEntry{
					EntryType: domain.EntryBank, Agent: domain.AgentServiceAuto, EntryAt: at,
					Source: domain.Source{Type: "BANK_TRANSACTION", ID: uuid.NewString()}, Lines: lines,
				})
				id = posted.ID
				return err
			})
			if err != nil {
				t.Fatalf("post %d: %v", i, err)
			}
			m.reversed[id] = true // owned by its source: not reversed through the API here
		}
		for _, l := range lines {
			signed := int64(l.Amount)
			if l.Direction == domain.Credit {
				signed = -signed
			}
			m.lines[id] = append(m.lines[id], modelLine{account: l.Account.ID, signed: signed, at: at})
		}
	}

	ctx := context.Background()
	t.Run("every entry balances", func(t *testing.T) {
		var bad []string
		err := e.DB.NewRaw(`SELECT e.id::text FROM ledger_entries e LEFT JOIN ledger_lines l ON l.entry_id = e.id
			GROUP BY e.id
			HAVING count(l.id) < 2
			    OR coalesce(sum(l.amount) FILTER (WHERE l.direction = 'DEBIT'), 0)
			    <> coalesce(sum(l.amount) FILTER (WHERE l.direction = 'CREDIT'), 0)`).Scan(ctx, &bad)
		if err != nil {
			t.Fatal(err)
		}
		if len(bad) > 0 {
			t.Fatalf("unbalanced entries: %v", bad)
		}
	})
	t.Run("per business, debits equal credits", func(t *testing.T) {
		var rows []struct {
			BusinessID uuid.UUID `bun:"business_id"`
			Debits     int64     `bun:"debits"`
			Credits    int64     `bun:"credits"`
		}
		err := e.DB.NewRaw(`SELECT business_id,
			sum(amount) FILTER (WHERE direction = 'DEBIT') AS debits, sum(amount) FILTER (WHERE direction = 'CREDIT') AS credits
			FROM ledger_lines GROUP BY business_id`).Scan(ctx, &rows)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 {
			t.Fatalf("%d businesses with lines", len(rows))
		}
		for _, r := range rows {
			if r.Debits != r.Credits || r.Debits == 0 {
				t.Fatalf("business %s: debits %d credits %d", r.BusinessID, r.Debits, r.Credits)
			}
		}
	})
	t.Run("balances equal the recomputation", func(t *testing.T) {
		e := e.with(t)
		periods := []struct{ query string }{{""}}
		for range 4 {
			a := start.Add(time.Duration(rng.IntN(200)) * 24 * time.Hour)
			b := a.Add(time.Duration(rng.IntN(90)) * 24 * time.Hour)
			periods = append(periods,
				struct{ query string }{"?as_of=" + a.Format("2006-01-02")},
				struct{ query string }{"?start_date=" + a.Format("2006-01-02") + "&end_date=" + b.Format("2006-01-02")})
		}
		for _, bid := range businesses {
			for _, p := range periods {
				from, until := parseTestPeriod(t, p.query)
				got := e.balances(bid, tok, p.query)
				want := recompute(models[bid], normal[bid], from, until)
				for id, acct := range normal[bid] {
					if got[id.String()] != want[id] {
						t.Fatalf("business %s %q: %s balance %d, recomputed %d", bid, p.query, acct.Name, got[id.String()], want[id])
					}
				}
				// Trial balance: debit-normal roots equal credit-normal roots.
				if got["ASSETS"]+got["EXPENSES"] != got["LIABILITIES"]+got["EQUITY"]+got["REVENUE"] {
					t.Fatalf("trial balance off for %q: %v", p.query, got)
				}
			}
		}
	})
	t.Run("one event per entry, each summing to zero", func(t *testing.T) {
		var rows [][]byte
		if err := e.DB.NewRaw("SELECT data FROM outbox WHERE type = ?", events.TypeLedgerEntryPosted).Scan(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		seen := map[uuid.UUID]bool{}
		for _, raw := range rows {
			var p events.LedgerEntryPosted
			if err := json.Unmarshal(raw, &p); err != nil {
				t.Fatal(err)
			}
			var sum int64
			for _, l := range p.Lines {
				sum += l.SignedAmount
			}
			if sum != 0 || seen[p.EntryID] {
				t.Fatalf("event of %s: sum %d, duplicate %v", p.EntryID, sum, seen[p.EntryID])
			}
			seen[p.EntryID] = true
		}
		want := len(models[businesses[0]].lines) + len(models[businesses[1]].lines)
		if len(seen) != want {
			t.Fatalf("%d events for %d entries", len(seen), want)
		}
	})
}

// parseTestPeriod mirrors the API's period rules for the oracle.
func parseTestPeriod(t *testing.T, query string) (from, until *time.Time) {
	t.Helper()
	var a, b string
	if _, err := fmt.Sscanf(query, "?as_of=%s", &b); err == nil {
		u := mustDay(t, b).AddDate(0, 0, 1)
		return nil, &u
	}
	if _, err := fmt.Sscanf(query, "?start_date=%10s&end_date=%s", &a, &b); err == nil {
		f, u := mustDay(t, a), mustDay(t, b).AddDate(0, 0, 1)
		return &f, &u
	}
	return nil, nil
}

func mustDay(t *testing.T, s string) time.Time {
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// recompute is every account's balance over [from, until) from the model:
// its lines and its descendants', signed by its own normality.
func recompute(m *model, accounts map[uuid.UUID]domain.Account, from, until *time.Time) map[uuid.UUID]int64 {
	net := map[uuid.UUID]int64{} // debit minus credit, subtree
	for _, ls := range m.lines {
		for _, l := range ls {
			if (from != nil && l.at.Before(*from)) || (until != nil && !l.at.Before(*until)) {
				continue
			}
			for id := l.account; ; {
				net[id] += l.signed
				a := accounts[id]
				if a.ParentID == nil {
					break
				}
				id = *a.ParentID
			}
		}
	}
	out := map[uuid.UUID]int64{}
	for id, a := range accounts {
		out[id] = net[id]
		if a.Normality == domain.Credit {
			out[id] = -net[id]
		}
	}
	return out
}
