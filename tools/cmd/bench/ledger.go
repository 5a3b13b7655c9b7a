package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// The general ledger benchmark (part 4 of transactions): GET
// /ledger/accounts/{id}/lines as the client asks for it (150 lines, newest
// first, sub-accounts included) on an account with ledgerLines lines.
const (
	ledgerPage    = 150
	ledgerBatch   = 10_000 // entries per loading transaction
	ledgerDays    = 1_095  // the lines span three years, bank-style (midnight)
	ledgerSamples = 300    // per measured page, alternating
)

// ledgerLine is what the bench reads of a line of the answer.
type ledgerLine struct {
	ID             string    `json:"id"`
	EntryNumber    int64     `json:"entry_number"`
	Amount         int64     `json:"amount"`
	Direction      string    `json:"direction"`
	Date           time.Time `json:"date"`
	RunningBalance int64     `json:"running_balance"`
}

// ledgerPosition is where a page starts: after the last line of the page
// before (nil for the first page).
type ledgerPosition struct {
	cursor string
	after  *ledgerLine
}

// benchLedger is part 4: a business whose bank account (the ledger account
// of an imported external account) has n lines, loaded by COPY into the
// service's own tables (their triggers keep the day totals); then every
// page walked once with its cursor (each page timed, and the running
// balance checked to continue from page to page and to end at the
// account's balance), then the first, middle and last pages sampled
// alternately, each against its keyset SQL alone (the page's lines from
// the index, no entries, no running balance) run by the bench on the same
// database.
func (b *txbench) benchLedger(ctx context.Context, n int) (string, []result, error) {
	fmt.Printf("4. general ledger: %d lines on one account, pages of %d (newest first, sub-accounts included)\n", n, ledgerPage)
	biz, err := b.newBusiness(ctx, "bench-ledger")
	if err != nil {
		return "", nil, err
	}
	if err := b.firstBatch(ctx, biz, "ledger"); err != nil {
		return "", nil, err
	}
	var account, office uuid.UUID
	if err := b.db.QueryRow(ctx, `SELECT ledger_account_id FROM transactions.external_accounts WHERE business_id = $1`, biz).Scan(&account); err != nil {
		return "", nil, fmt.Errorf("ledger account of %s: %w", biz, err)
	}
	if err := b.db.QueryRow(ctx, `SELECT id FROM transactions.ledger_accounts WHERE business_id = $1 AND stable_name = 'OFFICE_EXPENSES'`, biz).Scan(&office); err != nil {
		return "", nil, fmt.Errorf("OFFICE_EXPENSES of %s: %w", biz, err)
	}
	start := time.Now()
	if err := b.loadLedger(ctx, uuid.MustParse(biz), account, office, n); err != nil {
		return "", nil, err
	}
	for _, t := range []string{"ledger_entries", "ledger_lines", "ledger_account_day_totals"} {
		if _, err := b.db.Exec(ctx, "VACUUM ANALYZE transactions."+t); err != nil {
			return "", nil, fmt.Errorf("vacuum %s: %w", t, err)
		}
	}
	fmt.Printf("  loaded %d entries (%d lines on the account) by COPY in %s\n", n, n, time.Since(start).Round(time.Millisecond))
	if err := b.settle(ctx); err != nil {
		return "", nil, err
	}
	var want int64 // the account's balance (debit normal), by a plain SUM
	if err := b.db.QueryRow(ctx, `SELECT coalesce(sum(CASE direction WHEN 'DEBIT' THEN amount ELSE -amount END), 0)
		FROM transactions.ledger_lines WHERE business_id = $1 AND account_id = $2`, biz, account).Scan(&want); err != nil {
		return "", nil, fmt.Errorf("account balance: %w", err)
	}

	path := fmt.Sprintf("/v1/businesses/%s/ledger/accounts/%s/lines", biz, account)
	query := url.Values{"include_child_account_lines": {"true"}, "sort_by": {"entry_at"}, "sort_order": {"DESC"}, "limit": {fmt.Sprint(ledgerPage)}}
	pageURL := func(p ledgerPosition) string {
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		if p.cursor != "" {
			q.Set("cursor", p.cursor)
		}
		return path + "?" + q.Encode()
	}

	// Every page once, newest first.
	var positions []ledgerPosition
	var walk []time.Duration
	var prev *ledgerLine
	var failure string
	pos := ledgerPosition{}
	start = time.Now()
	for {
		t0 := time.Now()
		lines, next, err := b.ledgerPage(ctx, pageURL(pos))
		if err != nil {
			return "", nil, fmt.Errorf("page %d: %w", len(positions)+1, err)
		}
		walk = append(walk, time.Since(t0))
		positions = append(positions, pos)
		for i := range lines {
			l := lines[i]
			switch {
			case prev == nil && l.RunningBalance != want && failure == "":
				failure = fmt.Sprintf("the newest line's running balance is %d, the account's balance %d", l.RunningBalance, want)
			case prev != nil && l.RunningBalance != prev.RunningBalance-effect(*prev) && failure == "":
				failure = fmt.Sprintf("page %d: running balance %d after line %s, want %d", len(positions), l.RunningBalance, l.ID, prev.RunningBalance-effect(*prev))
			}
			prev = &lines[i]
		}
		if next == "" {
			break
		}
		last := lines[len(lines)-1]
		pos = ledgerPosition{cursor: next, after: &last}
	}
	if prev != nil && prev.RunningBalance != effect(*prev) && failure == "" {
		failure = fmt.Sprintf("the oldest line's running balance is %d, want its own amount %d", prev.RunningBalance, effect(*prev))
	}
	if failure != "" {
		fmt.Printf("  WRONG: %s\n", failure)
	}
	all := percentiles(walk)
	fmt.Printf("  walked %d pages in %s: p50 %s p99 %s\n", len(positions), time.Since(start).Round(time.Millisecond), all.p50, all.p99)

	// The first, middle and last pages, alternating, each with its keyset SQL.
	named := []struct {
		name string
		pos  ledgerPosition
	}{{"first", positions[0]}, {"middle", positions[len(positions)/2]}, {"last", positions[len(positions)-1]}}
	api := make([][]time.Duration, len(named))
	sql := make([][]time.Duration, len(named))
	for range ledgerSamples {
		for i, p := range named {
			t0 := time.Now()
			if _, _, err := b.ledgerPage(ctx, pageURL(p.pos)); err != nil {
				return "", nil, err
			}
			api[i] = append(api[i], time.Since(t0))
			t0 = time.Now()
			if err := b.keysetPage(ctx, biz, account, p.pos.after); err != nil {
				return "", nil, err
			}
			sql[i] = append(sql[i], time.Since(t0))
		}
	}
	// The first page straight to the service: what the gateway hop adds.
	if svc := b.st.ServiceURLs["transactions"]; svc != "" {
		var direct []time.Duration
		for range ledgerSamples / 3 {
			t0 := time.Now()
			if _, err := b.doAt(ctx, svc, "GET", pageURL(named[0].pos), nil, nil); err != nil {
				return "", nil, err
			}
			direct = append(direct, time.Since(t0))
		}
		d := percentiles(direct)
		fmt.Printf("  first page straight to the service: p50 %s p99 %s (%d requests)\n", d.p50, d.p99, len(direct))
	}
	size := formatNumber(float64(n)) + " lines"
	var res []result
	summary := fmt.Sprintf("  general ledger (%s): every page p99 %s", size, all.p99)
	for i, p := range named {
		a, s := percentiles(api[i]), percentiles(sql[i])
		fmt.Printf("  %-6s page (%d of %d): p50 %s p99 %s; keyset SQL alone p50 %s p99 %s\n",
			p.name, map[string]int{"first": 1, "middle": len(positions)/2 + 1, "last": len(positions)}[p.name], len(positions), a.p50, a.p99, s.p50, s.p99)
		r := result{Part: "transactions", Section: "general ledger",
			Name: fmt.Sprintf("general ledger p99, %s page of %d lines with running balance (%s on the account)", p.name, ledgerPage, size),
			Unit: "ms", Value: durationMS(a.p99), Note: fmt.Sprintf("p50 %s; SQL p50 %s", msText(a.p50), msText(s.p50)),
			Baseline: "the page's keyset SQL alone (no entries, no running balance), p99", BaselineValue: durationMS(s.p99),
			Target: []bound{absolute(atMost, 25)}, Failure: failure}
		res = append(res, r)
		summary += fmt.Sprintf("; %s p99 %s (SQL %s)", p.name, a.p99, s.p99)
	}
	res = append(res, result{Part: "transactions", Section: "general ledger",
		Name: fmt.Sprintf("general ledger p99 over every page walked once (%s pages of %d, %s)", formatNumber(float64(len(positions))), ledgerPage, size),
		Unit: "ms", Value: durationMS(all.p99), Note: "p50 " + msText(all.p50), Target: []bound{absolute(atMost, 25)}, Failure: failure})
	ok := failure == ""
	for _, r := range res {
		ok = ok && r.verdict() == verdictMet
	}
	return summary + fmt.Sprintf(" (target <= 25 ms) %s\n", verdict(ok)), res, nil
}

// effect is what a line adds to the (debit-normal) account's balance.
func effect(l ledgerLine) int64 {
	if l.Direction == "DEBIT" {
		return l.Amount
	}
	return -l.Amount
}

// ledgerPage GETs one page through the gateway and returns its lines and
// next cursor.
func (b *txbench) ledgerPage(ctx context.Context, path string) ([]ledgerLine, string, error) {
	var out struct {
		Data []ledgerLine `json:"data"`
		Meta struct {
			Pagination struct {
				Cursor *string `json:"cursor"`
			} `json:"pagination"`
		} `json:"meta"`
	}
	if _, err := b.do(ctx, "GET", path, nil, &out); err != nil {
		return nil, "", err
	}
	if len(out.Data) == 0 {
		return nil, "", fmt.Errorf("%s: empty page", path)
	}
	next := ""
	if out.Meta.Pagination.Cursor != nil {
		next = *out.Meta.Pagination.Cursor
	}
	return out.Data, next, nil
}

// keysetPage runs the baseline: the page's lines straight from the index,
// as a client of the database would read them, after the given line.
func (b *txbench) keysetPage(ctx context.Context, biz string, account uuid.UUID, after *ledgerLine) error {
	q := `SELECT l.id, l.entry_id, l.account_id, l.direction, l.amount, l.entry_at, l.entry_number, l.memo, l.tags
		FROM transactions.ledger_lines l WHERE l.business_id = $1 AND l.account_id = $2`
	args := []any{biz, account}
	if after != nil {
		q += ` AND (l.entry_at, l.entry_number, l.id) < ($3, $4, $5)`
		args = append(args, after.Date, after.EntryNumber, after.ID)
	}
	q += fmt.Sprintf(` ORDER BY l.entry_at DESC, l.entry_number DESC, l.id DESC LIMIT %d`, ledgerPage+1)
	rows, err := b.db.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("keyset page: %w", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("keyset page: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("keyset page after %v: no rows", after)
	}
	return nil
}

// loadLedger writes n two-line entries into the service's tables by COPY,
// ledgerBatch per transaction: line 1 on account (a debit, every third a
// credit), line 2 on counter; dates spread over ledgerDays days at
// midnight, as bank transactions are. Ids are UUIDv7 and entry numbers
// come from the service's sequence; the tables' triggers (balance checks,
// day totals) run as for any writer.
func (b *txbench) loadLedger(ctx context.Context, biz, account, counter uuid.UUID, n int) error {
	day0 := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	now := time.Now().UTC()
	tags := json.RawMessage("[]")
	for off := 0; off < n; off += ledgerBatch {
		m := min(ledgerBatch, n-off)
		err := pgx.BeginFunc(ctx, b.db, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `SELECT nextval('transactions.ledger_entry_number_seq') FROM generate_series(1, $1)`, m)
			if err != nil {
				return err
			}
			nums, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				return err
			}
			entries := make([][]any, m)
			lines := make([][]any, 0, 2*m)
			for k := range m {
				i := off + k
				id := uuid.Must(uuid.NewV7())
				at := day0.AddDate(0, 0, int(int64(i)*ledgerDays/int64(n)))
				amount := int64(100 + i%100_000)
				dir, other := "DEBIT", "CREDIT"
				if i%3 == 0 {
					dir, other = other, dir
				}
				entries[k] = []any{id, biz, nums[k], "MANUAL", "API", at, at, "BENCH", fmt.Sprint(i), "1", tags, now}
				lines = append(lines,
					[]any{uuid.Must(uuid.NewV7()), id, biz, 1, account, dir, amount, at, nums[k], tags, now},
					[]any{uuid.Must(uuid.NewV7()), id, biz, 2, counter, other, amount, at, nums[k], tags, now})
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"transactions", "ledger_entries"},
				[]string{"id", "business_id", "entry_number", "entry_type", "agent", "date", "entry_at", "source_type", "source_id", "source_version", "tags", "created_at"},
				pgx.CopyFromRows(entries)); err != nil {
				return fmt.Errorf("COPY entries: %w", err)
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"transactions", "ledger_lines"},
				[]string{"id", "entry_id", "business_id", "line_number", "account_id", "direction", "amount", "entry_at", "entry_number", "tags", "created_at"},
				pgx.CopyFromRows(lines)); err != nil {
				return fmt.Errorf("COPY lines: %w", err)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("load entries %d..%d: %w", off, off+m, err)
		}
	}
	return nil
}
