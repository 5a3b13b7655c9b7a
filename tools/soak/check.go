package soak

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// findings are what one check found.
type findings struct {
	mu                                       sync.Mutex
	lost, duplicated, dupEntries, unbalanced int
	ar, ap, pnl                              int
	violations                               []string
}

func (f *findings) add(counter *int, format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if counter != nil {
		*counter++
	}
	f.violations = append(f.violations, fmt.Sprintf(format, args...))
}

// checker verifies the invariants through the gateway.
type checker struct {
	cfg      Config
	verified map[string]bool // ids already fetched one by one
}

// listIDs pages through a listing and returns each item by id.
func listIDs(ctx context.Context, b *business, path string, bound time.Duration) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	cursor := ""
	for {
		q := path
		sep := "?"
		if strings.Contains(q, "?") {
			sep = "&"
		}
		q += sep + "limit=100"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		r, err := b.client.read(ctx, http.MethodGet, q, nil, bound)
		if err != nil {
			return nil, err
		}
		if r.status != http.StatusOK {
			return nil, fmt.Errorf("GET %s: %d %s", q, r.status, truncate(r.body))
		}
		for _, it := range asList(r.json["data"]) {
			m, _ := it.(map[string]any)
			id := str(m, "id")
			if _, dup := out[id]; dup {
				return nil, fmt.Errorf("GET %s listed %s twice", path, id)
			}
			out[id] = m
		}
		meta, _ := r.json["meta"].(map[string]any)
		p, _ := meta["pagination"].(map[string]any)
		if p["has_more"] != true {
			return out, nil
		}
		cursor = str(p, "cursor")
		if cursor == "" {
			return nil, fmt.Errorf("GET %s: has_more without a cursor", path)
		}
	}
}

// checkDocuments: every acknowledged write is there exactly once, with
// the state the model expects. full fetches every object by id; otherwise
// only the ones not fetched yet.
func (c *checker) checkDocuments(ctx context.Context, b *business, full bool, f *findings) {
	bound := c.cfg.UnknownBound
	type listing struct {
		what, path string
		model      []string
		value      func(id string, item map[string]any) string
	}
	keys := func(m map[string]bool) []string { return sortedKeys(m) }
	listings := []listing{
		{"bank transaction", b.base() + "/bank-transactions", sortedKeys(b.bankTxns), func(id string, it map[string]any) string {
			t := b.bankTxns[id]
			if got := num(it, "amount"); got != t.amount {
				return fmt.Sprintf("amount %d, acknowledged %d", got, t.amount)
			}
			if got := str(it, "categorization_status"); t.categorized != "" && got != t.categorized {
				return fmt.Sprintf("categorization_status %s, acknowledged %s", got, t.categorized)
			}
			if docs := strList(it, "document_ids"); t.recorded && (len(docs) != len(t.docs) || !containsAll(docs, t.docs)) {
				return fmt.Sprintf("receipts %v, acknowledged %v", docs, t.docs)
			}
			return ""
		}},
		{"customer", b.base() + "/customers", keys(b.customers), nil},
		{"invoice", b.base() + "/invoices", sortedKeys(b.invoices), func(id string, it map[string]any) string {
			if got, want := num(it, "outstanding_balance"), b.invoices[id].open; got != want {
				return fmt.Sprintf("outstanding %d, acknowledged writes leave %d", got, want)
			}
			return ""
		}},
		{"bill", b.base() + "/bills", sortedKeys(b.bills), func(id string, it map[string]any) string {
			if got, want := num(it, "outstanding_balance"), b.bills[id].open; got != want {
				return fmt.Sprintf("outstanding %d, acknowledged writes leave %d", got, want)
			}
			return ""
		}},
		{"vendor credit", b.base() + "/bills/vendor-credits", sortedKeys(b.credits), func(id string, it map[string]any) string {
			if got, want := num(it, "unapplied_amount"), b.credits[id].open; got != want {
				return fmt.Sprintf("unapplied %d, acknowledged %d", got, want)
			}
			return ""
		}},
		{"trip", b.base() + "/mileage/trips", keys(b.trips), nil},
	}
	for _, l := range listings {
		items, err := listIDs(ctx, b, l.path, bound)
		if err != nil {
			f.add(nil, "%s: list %ss: %v", b.id, l.what, err)
			continue
		}
		inModel := map[string]bool{}
		for _, id := range l.model {
			inModel[id] = true
			it, ok := items[id]
			if !ok {
				f.add(&f.lost, "LOST %s %s of business %s: acknowledged, not listed", l.what, id, b.id)
				continue
			}
			if l.value != nil {
				if msg := l.value(id, it); msg != "" {
					f.add(nil, "%s %s of business %s: %s", l.what, id, b.id, msg)
				}
			}
		}
		for id := range items {
			if !inModel[id] {
				f.add(&f.duplicated, "DUPLICATE/unacknowledged %s %s in business %s (%d listed, %d acknowledged)", l.what, id, b.id, len(items), len(l.model))
			}
		}
	}
	// One by one: what no listing shows (payments, write-offs, bill
	// payments), and at the end everything.
	type get struct{ what, path string }
	var gets []get
	add := func(what, id, path string) {
		if full || !c.verified[id] {
			gets = append(gets, get{what + " " + id, path})
		}
	}
	for _, id := range sortedKeys(b.payments) {
		add("payment", id, b.base()+"/invoices/payments/"+id)
	}
	for _, id := range sortedKeys(b.writeOffs) {
		add("write-off", id, b.base()+"/invoices/"+b.writeOffs[id]+"/write-offs/"+id)
	}
	for _, id := range sortedKeys(b.billPayments) {
		add("bill payment", id, b.base()+"/bills/bill-payments/"+id)
	}
	if full {
		for _, id := range sortedKeys(b.bankTxns) {
			add("bank transaction", id, b.base()+"/bank-transactions/"+id)
		}
		for _, id := range sortedKeys(b.customers) {
			add("customer", id, b.base()+"/customers/"+id)
		}
		for _, id := range sortedKeys(b.invoices) {
			add("invoice", id, b.base()+"/invoices/"+id)
		}
		for _, id := range sortedKeys(b.bills) {
			add("bill", id, b.base()+"/bills/"+id)
		}
		for _, id := range sortedKeys(b.credits) {
			add("vendor credit", id, b.base()+"/bills/vendor-credits/"+id)
		}
		for _, id := range sortedKeys(b.trips) {
			add("trip", id, b.base()+"/mileage/trips/"+id)
		}
	}
	for _, g := range gets {
		r, err := b.client.read(ctx, http.MethodGet, g.path, nil, bound)
		switch {
		case err != nil:
			f.add(nil, "%s: GET %s: %v", b.id, g.path, err)
		case r.status == http.StatusNotFound:
			f.add(&f.lost, "LOST %s of business %s: acknowledged, GET says 404", g.what, b.id)
		case r.status != http.StatusOK:
			f.add(nil, "%s: GET %s: %d %s", b.id, g.path, r.status, truncate(r.body))
		default:
			c.verified[strings.Fields(g.what)[len(strings.Fields(g.what))-1]] = true
		}
	}
}

// ledgerView is what the ledger and the reports say of one business.
type ledgerView struct {
	balanced          bool
	debits, credits   int64
	ar, ap            int64
	revenue, expenses int64 // over 2026, from the journal
	pnlIncome, pnlNet int64 // over 2026, from the reports service
}

// rootSums adds the roots' balances by normal side and by type.
func rootSums(r reply) (debit, credit int64, byType map[string]int64, byStable map[string]int64) {
	byType, byStable = map[string]int64{}, map[string]int64{}
	var walk func(nodes []any)
	walk = func(nodes []any) {
		for _, n := range nodes {
			m, _ := n.(map[string]any)
			if s := str(m, "stable_name"); s != "" {
				byStable[s] = num(m, "balance")
			}
			walk(asList(m["sub_accounts"]))
		}
	}
	accounts := asList(r.data()["accounts"])
	for _, n := range accounts {
		m, _ := n.(map[string]any)
		bal := num(m, "balance")
		if str(m, "normality") == "DEBIT" {
			debit += bal
		} else {
			credit += bal
		}
		t, _ := m["account_type"].(map[string]any)
		byType[str(t, "value")] += bal
	}
	walk(accounts)
	return debit, credit, byType, byStable
}

func (c *checker) view(ctx context.Context, b *business) (ledgerView, error) {
	var v ledgerView
	bound := c.cfg.UnknownBound
	all, err := b.client.read(ctx, http.MethodGet, b.base()+"/ledger/balances", nil, bound)
	if err != nil || all.status != http.StatusOK {
		return v, fmt.Errorf("balances: %v %d %s", err, all.status, truncate(all.body))
	}
	d, cr, _, byStable := rootSums(all)
	v.debits, v.credits, v.balanced = d, cr, d == cr
	v.ar, v.ap = byStable["ACCOUNTS_RECEIVABLE"], byStable["ACCOUNTS_PAYABLE"]
	year, err := b.client.read(ctx, http.MethodGet, b.base()+"/ledger/balances?start_date=2026-01-01&end_date=2026-12-31", nil, bound)
	if err != nil || year.status != http.StatusOK {
		return v, fmt.Errorf("balances of 2026: %v %d %s", err, year.status, truncate(year.body))
	}
	_, _, byType, _ := rootSums(year)
	v.revenue, v.expenses = byType["REVENUE"], byType["EXPENSE"]
	pnl, err := b.client.read(ctx, http.MethodGet, b.base()+"/reports/profit-and-loss?start_date=2026-01-01&end_date=2026-12-31&reporting_basis=ACCRUAL", nil, bound)
	if err != nil || pnl.status != http.StatusOK {
		return v, fmt.Errorf("profit and loss: %v %d %s", err, pnl.status, truncate(pnl.body))
	}
	inc, _ := pnl.data()["income"].(map[string]any)
	v.pnlIncome, v.pnlNet = num(inc, "value"), num(pnl.data(), "net_profit")
	return v, nil
}

// expectedAR and expectedAP are the documents' open balances as the
// acknowledged writes left them: A/R is what the invoices still ask for;
// A/P what the bills still owe less the vendor credits not applied yet
// (a credit debits ACCOUNTS_PAYABLE with its total).
func expectedAR(b *business) int64 {
	var s int64
	for _, i := range b.invoices {
		s += i.open
	}
	return s
}

func expectedAP(b *business) int64 {
	var s int64
	for _, i := range b.bills {
		s += i.open
	}
	for _, c := range b.credits {
		s -= c.open
	}
	return s
}

// waitLedger polls until the ledger and the reports agree with the
// documents (or bound passes) and returns how long it took.
func (c *checker) waitLedger(ctx context.Context, b *business, f *findings, start time.Time) time.Duration {
	var v ledgerView
	var err error
	for {
		v, err = c.view(ctx, b)
		if err == nil && v.balanced && v.ar == expectedAR(b) && v.ap == expectedAP(b) &&
			v.pnlIncome == v.revenue && v.pnlNet == v.revenue-v.expenses {
			return time.Since(start)
		}
		if time.Since(start) > c.cfg.CatchUpBound || ctx.Err() != nil {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	took := time.Since(start)
	if err != nil {
		f.add(nil, "%s: ledger view: %v", b.id, err)
		return took
	}
	if !v.balanced {
		f.add(&f.unbalanced, "UNBALANCED ledger of business %s: debit-normal roots %d, credit-normal roots %d", b.id, v.debits, v.credits)
	}
	if want := expectedAR(b); v.ar != want {
		f.add(&f.ar, "A/R of business %s: ledger %d, invoices' open balances %d (after %s)", b.id, v.ar, want, took.Round(time.Second))
	}
	if want := expectedAP(b); v.ap != want {
		f.add(&f.ap, "A/P of business %s: ledger %d, bills' open balances less unapplied credits %d (after %s)", b.id, v.ap, want, took.Round(time.Second))
	}
	if v.pnlIncome != v.revenue || v.pnlNet != v.revenue-v.expenses {
		f.add(&f.pnl, "P&L of business %s for 2026: reports income %d net %d, journal revenue %d net %d (after %s)",
			b.id, v.pnlIncome, v.pnlNet, v.revenue, v.revenue-v.expenses, took.Round(time.Second))
	}
	return took
}

// checkMonthly compares the reports service's P&L comparison over the
// twelve months of 2026 (accrual basis) with the journal's REVENUE and
// EXPENSE balances of each month.
func (c *checker) checkMonthly(ctx context.Context, b *business, f *findings) {
	bound := c.cfg.UnknownBound
	var months []map[string]any
	for m := 1; m <= 12; m++ {
		months = append(months, map[string]any{"year": 2026, "month": m})
	}
	r, err := b.client.read(ctx, http.MethodPost, b.base()+"/reports/profit-and-loss-comparison", map[string]any{
		"periods": map[string]any{"type": "Comparison_Months", "months": months}, "reporting_basis": "ACCRUAL"}, bound)
	first, _ := r.json["data"].(map[string]any)
	if err != nil || r.status != http.StatusOK || first == nil {
		f.add(nil, "%s: P&L comparison: %v %d %s", b.id, err, r.status, truncate(r.body))
		return
	}
	pnls := asList(first["pnls"])
	if len(pnls) != 12 {
		f.add(&f.pnl, "P&L comparison of business %s: %d periods, want 12", b.id, len(pnls))
		return
	}
	for m := 1; m <= 12; m++ {
		end := time.Date(2026, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
		q := fmt.Sprintf("%s/ledger/balances?start_date=2026-%02d-01&end_date=%s", b.base(), m, end)
		bal, err := b.client.read(ctx, http.MethodGet, q, nil, bound)
		if err != nil || bal.status != http.StatusOK {
			f.add(nil, "%s: %s: %v %d", b.id, q, err, bal.status)
			return
		}
		_, _, byType, _ := rootSums(bal)
		p, _ := pnls[m-1].(map[string]any)
		pnl, _ := p["pnl"].(map[string]any)
		if got, want := num(pnl, "net_profit"), byType["REVENUE"]-byType["EXPENSE"]; got != want {
			f.add(&f.pnl, "P&L comparison of business %s, 2026-%02d: net profit %d, the journal says %d", b.id, m, got, want)
		}
	}
}

// checkJournal lists every entry: each balances, and no source has two
// live entries (an entry posted twice for one document version).
func (c *checker) checkJournal(ctx context.Context, b *business, f *findings) {
	entries, err := listIDs(ctx, b, b.base()+"/ledger/entries?sort_by=entry_number", c.cfg.UnknownBound)
	if err != nil {
		f.add(nil, "%s: list ledger entries: %v", b.id, err)
		return
	}
	live := map[string][]string{}
	for id, e := range entries {
		var dr, cr int64
		for _, l := range asList(e["line_items"]) {
			m, _ := l.(map[string]any)
			if str(m, "direction") == "DEBIT" {
				dr += num(m, "amount")
			} else {
				cr += num(m, "amount")
			}
		}
		if dr != cr {
			f.add(&f.unbalanced, "UNBALANCED entry %s of business %s: debits %d, credits %d", id, b.id, dr, cr)
		}
		if e["reversal_of_id"] != nil || e["reversal_id"] != nil {
			continue
		}
		src := str(e, "source_type") + "/" + str(e, "source_id")
		if str(e, "source_id") == "" {
			continue
		}
		live[src] = append(live[src], id+"@"+str(e, "source_version"))
	}
	for src, ids := range live {
		if len(ids) > 1 {
			f.add(&f.dupEntries, "DUPLICATE journal entries of business %s for %s: %v", b.id, src, ids)
		}
	}
}

// checkDLQ asks every consuming service how many dead letters wait.
func checkDLQ(ctx context.Context, ex Execer, services []string, f *findings, into map[string]int) {
	for _, s := range services {
		out, err := ex.Exec(ctx, s, "dlq", "count")
		if err != nil {
			if strings.Contains(string(out), "consumes no events") {
				continue
			}
			f.add(nil, "%s dlq count: %v: %s", s, err, out)
			continue
		}
		var pending, replayed int
		line := strings.TrimSpace(string(out))
		if i := strings.LastIndex(line, "\n"); i >= 0 {
			line = line[i+1:]
		}
		if _, err := fmt.Sscanf(line, "pending=%d replayed=%d", &pending, &replayed); err != nil {
			f.add(nil, "%s dlq count answered %q", s, out)
			continue
		}
		into[s] = pending
		if pending > 0 {
			f.add(nil, "DLQ of %s holds %d dead letters", s, pending)
		}
	}
}

// Execer runs a service's own command (stack.Stack.Exec).
type Execer interface {
	Exec(ctx context.Context, service string, args ...string) ([]byte, error)
}

// check runs every verification over every business; it returns the
// slowest catch-up.
func (c *checker) check(ctx context.Context, bs []*business, ex Execer, services []string, full bool, dlq map[string]int) (*findings, time.Duration) {
	f := &findings{}
	var mu sync.Mutex
	var slowest time.Duration
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	start := time.Now()
	for _, b := range bs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			took := c.waitLedger(ctx, b, f, start)
			mu.Lock()
			slowest = max(slowest, took)
			mu.Unlock()
		}()
	}
	wg.Wait()
	// verified is shared: documents one business at a time.
	for _, b := range bs {
		c.checkDocuments(ctx, b, full, f)
		c.checkJournal(ctx, b, f)
		if full {
			c.checkMonthly(ctx, b, f)
		}
	}
	checkDLQ(ctx, ex, services, f, dlq)
	return f, slowest
}
