package postgres

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// AddCashDays adds amounts to the cash basis's difference from the
// accrual basis (cash_days).
func (s *Store) AddCashDays(ctx context.Context, bid uuid.UUID, amounts map[domain.DayKey]int64) error {
	db := s.conn(ctx)
	days := map[dayKey]int64{}
	var order []dayKey
	for k, amt := range amounts {
		if amt == 0 {
			continue
		}
		dk := dayKey{bid, k.Day.Format(domain.DateLayout), k.Account, k.TagSet}
		if _, ok := days[dk]; !ok {
			order = append(order, dk)
		}
		days[dk] += amt
	}
	if len(order) == 0 {
		return nil
	}
	slices.SortFunc(order, func(a, b dayKey) int { // a stable statement, rows locked in one order
		return cmp.Or(strings.Compare(a.day, b.day), bytes.Compare(a.account[:], b.account[:]), bytes.Compare(a.tagSet[:], b.tagSet[:]))
	})
	vals := make([]string, 0, len(order))
	args := make([]any, 0, 5*len(order))
	for _, k := range order {
		vals = append(vals, "(?, ?::date, ?, ?, ?::bigint)")
		args = append(args, bid, k.day, k.account, k.tagSet, days[k])
	}
	if _, err := db.NewRaw(`INSERT INTO cash_days AS d (business_id, day, account_id, tag_set_id, amount) VALUES `+strings.Join(vals, ", ")+`
		ON CONFLICT (business_id, day, account_id, tag_set_id) DO UPDATE SET amount = d.amount + EXCLUDED.amount`, args...).Exec(ctx); err != nil {
		return wrap("add cash days", err)
	}
	sums, keys := monthsOf(order, days)
	return addMonths(ctx, db, "cash_months", sums, keys)
}

// AddDocLines adds an entry's lines (summed per account, tag set and
// role) and control amount to deferred document doc.
func (s *Store) AddDocLines(ctx context.Context, bid uuid.UUID, doc domain.DocKey, lines []domain.DocLine, total int64) error {
	db := s.conn(ctx)
	type key struct {
		account, tagSet uuid.UUID
		role            domain.LineRole
	}
	sums := map[key]int64{}
	var order []key
	for _, l := range lines {
		k := key{l.Account, l.TagSet, l.Role}
		if _, ok := sums[k]; !ok {
			order = append(order, k)
		}
		sums[k] += l.Amount
	}
	if len(order) > 0 {
		vals := make([]string, 0, len(order))
		args := make([]any, 0, 7*len(order))
		for _, k := range order {
			vals = append(vals, "(?, ?, ?, ?, ?, ?::smallint, ?::bigint)")
			args = append(args, bid, doc.SourceType, doc.SourceID, k.account, k.tagSet, k.role, sums[k])
		}
		if _, err := db.NewRaw(`INSERT INTO cash_doc_lines AS l (business_id, source_type, source_id, account_id, tag_set_id, role, amount)
			VALUES `+strings.Join(vals, ", ")+`
			ON CONFLICT (business_id, source_type, source_id, account_id, tag_set_id) DO UPDATE SET amount = l.amount + EXCLUDED.amount, role = EXCLUDED.role`,
			args...).Exec(ctx); err != nil {
			return wrap("add document lines", err)
		}
	}
	_, err := db.NewRaw(`INSERT INTO cash_docs AS d (business_id, source_type, source_id, total) VALUES (?, ?, ?, ?::bigint)
		ON CONFLICT (business_id, source_type, source_id) DO UPDATE SET total = d.total + EXCLUDED.total`,
		bid, doc.SourceType, doc.SourceID, total).Exec(ctx)
	return wrap("add document total", err)
}

// CashDoc is deferred document doc as the cash basis needs it: its lines
// (non-zero, in account then tag set order), its total (0 before any of
// its entries) and the allocations of its live payments (in day, payment
// and ordinal order).
func (s *Store) CashDoc(ctx context.Context, bid uuid.UUID, doc domain.DocKey) ([]domain.DocLine, int64, []domain.Allocation, error) {
	db := s.conn(ctx)
	var lines []struct {
		AccountID uuid.UUID `bun:"account_id"`
		TagSetID  uuid.UUID `bun:"tag_set_id"`
		Role      int16     `bun:"role"`
		Amount    int64     `bun:"amount"`
	}
	if err := db.NewRaw(`SELECT account_id, tag_set_id, role, amount FROM cash_doc_lines
		WHERE business_id = ? AND source_type = ? AND source_id = ? AND amount <> 0 ORDER BY account_id, tag_set_id`,
		bid, doc.SourceType, doc.SourceID).Scan(ctx, &lines); err != nil {
		return nil, 0, nil, wrap("read document lines", err)
	}
	var totals []int64
	if err := db.NewRaw(`SELECT total FROM cash_docs WHERE business_id = ? AND source_type = ? AND source_id = ?`,
		bid, doc.SourceType, doc.SourceID).Scan(ctx, &totals); err != nil {
		return nil, 0, nil, wrap("read document total", err)
	}
	var allocs []struct {
		PaymentID uuid.UUID `bun:"payment_id"`
		Day       time.Time `bun:"day"`
		Amount    int64     `bun:"amount"`
	}
	if err := db.NewRaw(`SELECT payment_id, day, amount FROM cash_allocations
		WHERE business_id = ? AND source_type = ? AND source_id = ? ORDER BY day, payment_id, ordinal`,
		bid, doc.SourceType, doc.SourceID).Scan(ctx, &allocs); err != nil {
		return nil, 0, nil, wrap("read document allocations", err)
	}
	outLines := make([]domain.DocLine, len(lines))
	for i, l := range lines {
		outLines[i] = domain.DocLine{Account: l.AccountID, TagSet: l.TagSetID, Role: domain.LineRole(l.Role), Amount: l.Amount}
	}
	var total int64
	if len(totals) > 0 {
		total = totals[0]
	}
	outAllocs := make([]domain.Allocation, len(allocs))
	for i, a := range allocs {
		outAllocs[i] = domain.Allocation{Doc: doc, Payment: a.PaymentID, Day: a.Day.UTC(), Amount: a.Amount}
	}
	return outLines, total, outAllocs, nil
}

// ReplaceRecognized makes rows what document doc's payments recognize and
// returns what it recognized before.
func (s *Store) ReplaceRecognized(ctx context.Context, bid uuid.UUID, doc domain.DocKey, rows map[domain.DayKey]int64) (map[domain.DayKey]int64, error) {
	db := s.conn(ctx)
	var old []struct {
		Day       time.Time `bun:"day"`
		AccountID uuid.UUID `bun:"account_id"`
		TagSetID  uuid.UUID `bun:"tag_set_id"`
		Amount    int64     `bun:"amount"`
	}
	if err := db.NewRaw(`DELETE FROM cash_recognized WHERE business_id = ? AND source_type = ? AND source_id = ?
		RETURNING day, account_id, tag_set_id, amount`, bid, doc.SourceType, doc.SourceID).Scan(ctx, &old); err != nil {
		return nil, wrap("clear recognized", err)
	}
	out := make(map[domain.DayKey]int64, len(old))
	for _, o := range old {
		out[domain.DayKey{Day: o.Day.UTC(), Account: o.AccountID, TagSet: o.TagSetID}] += o.Amount
	}
	if len(rows) == 0 {
		return out, nil
	}
	vals := make([]string, 0, len(rows))
	args := make([]any, 0, 7*len(rows))
	for k, amt := range rows {
		vals = append(vals, "(?, ?, ?, ?::date, ?, ?, ?::bigint)")
		args = append(args, bid, doc.SourceType, doc.SourceID, k.Day.Format(domain.DateLayout), k.Account, k.TagSet, amt)
	}
	_, err := db.NewRaw(`INSERT INTO cash_recognized (business_id, source_type, source_id, day, account_id, tag_set_id, amount)
		VALUES `+strings.Join(vals, ", "), args...).Exec(ctx)
	return out, wrap("insert recognized", err)
}

// UpsertPayment keeps version of payment (its allocations; none when
// deleted) unless the same or a newer version is already there. It
// returns whether it changed anything and the documents whose allocations
// changed (before and after).
func (s *Store) UpsertPayment(ctx context.Context, bid uuid.UUID, paymentType string, id uuid.UUID, version int64, deleted bool, allocs []domain.Allocation) (bool, []domain.DocKey, error) {
	db := s.conn(ctx)
	res, err := db.NewRaw(`INSERT INTO cash_payments AS p (business_id, payment_type, payment_id, version, deleted) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (business_id, payment_type, payment_id) DO UPDATE SET version = EXCLUDED.version, deleted = EXCLUDED.deleted
		WHERE p.version < EXCLUDED.version`, bid, paymentType, id, version, deleted).Exec(ctx)
	if err != nil {
		return false, nil, wrap("upsert payment", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, nil, wrap("upsert payment", err)
	}
	var old []struct {
		SourceType string `bun:"source_type"`
		SourceID   string `bun:"source_id"`
	}
	if err := db.NewRaw(`DELETE FROM cash_allocations WHERE business_id = ? AND payment_type = ? AND payment_id = ?
		RETURNING source_type, source_id`, bid, paymentType, id).Scan(ctx, &old); err != nil {
		return false, nil, wrap("clear allocations", err)
	}
	var docs []domain.DocKey
	seen := map[domain.DocKey]bool{}
	add := func(d domain.DocKey) {
		if !seen[d] {
			seen[d] = true
			docs = append(docs, d)
		}
	}
	for _, o := range old {
		add(domain.DocKey{SourceType: o.SourceType, SourceID: o.SourceID})
	}
	if len(allocs) > 0 {
		vals := make([]string, 0, len(allocs))
		args := make([]any, 0, 8*len(allocs))
		for i, a := range allocs {
			vals = append(vals, "(?, ?, ?, ?, ?, ?, ?::date, ?::bigint)")
			args = append(args, bid, paymentType, id, i, a.Doc.SourceType, a.Doc.SourceID, a.Day.Format(domain.DateLayout), a.Amount)
			add(a.Doc)
		}
		if _, err := db.NewRaw(`INSERT INTO cash_allocations (business_id, payment_type, payment_id, ordinal, source_type, source_id, day, amount)
			VALUES `+strings.Join(vals, ", "), args...).Exec(ctx); err != nil {
			return false, nil, wrap("insert allocations", err)
		}
	}
	return true, docs, nil
}

// CashDocs is every deferred document of business bid with lines or
// allocations.
func (s *Store) CashDocs(ctx context.Context, bid uuid.UUID) ([]domain.DocKey, error) {
	db := s.conn(ctx)
	var rows []struct {
		SourceType string `bun:"source_type"`
		SourceID   string `bun:"source_id"`
	}
	err := db.NewRaw(`SELECT source_type, source_id FROM cash_docs WHERE business_id = ?
		UNION SELECT source_type, source_id FROM cash_allocations WHERE business_id = ?
		ORDER BY 1, 2`, bid, bid).Scan(ctx, &rows)
	out := make([]domain.DocKey, len(rows))
	for i, r := range rows {
		out[i] = domain.DocKey{SourceType: r.SourceType, SourceID: r.SourceID}
	}
	return out, wrap("list documents", err)
}

// TouchFreshness records that an event of eventTime was applied for
// business bid.
func (s *Store) TouchFreshness(ctx context.Context, bid uuid.UUID, eventTime time.Time) error {
	db := s.conn(ctx)
	_, err := db.NewRaw(`INSERT INTO freshness AS f (business_id, last_event_at) VALUES (?, ?)
		ON CONFLICT (business_id) DO UPDATE SET last_event_at = GREATEST(f.last_event_at, EXCLUDED.last_event_at)`,
		bid, eventTime).Exec(ctx)
	return wrap("freshness", err)
}
