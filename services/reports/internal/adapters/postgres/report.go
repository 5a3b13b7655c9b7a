package postgres

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// Accounts is every account of business bid.
func (s *Store) Accounts(ctx context.Context, bid uuid.UUID) (map[uuid.UUID]domain.Account, error) {
	db := s.conn(ctx)
	var rows []struct {
		ID          uuid.UUID `bun:"id"`
		StableName  *string   `bun:"stable_name"`
		Name        string    `bun:"name"`
		AccountType string    `bun:"account_type"`
		Subtype     *string   `bun:"subtype"`
		Normality   *string   `bun:"normality"`
		Path        []string  `bun:"path,array"`
	}
	if err := db.NewRaw(`SELECT id, stable_name, name, account_type, subtype, normality, path::text[] AS path
		FROM accounts WHERE business_id = ?`, bid).Scan(ctx, &rows); err != nil {
		return nil, wrap("read accounts", err)
	}
	out := make(map[uuid.UUID]domain.Account, len(rows))
	for _, r := range rows {
		path := make([]uuid.UUID, 0, len(r.Path))
		for _, p := range r.Path {
			id, err := uuid.Parse(p)
			if err != nil {
				return nil, wrap("read account path", err)
			}
			path = append(path, id)
		}
		out[r.ID] = domain.Account{ID: r.ID, StableName: r.StableName, Name: r.Name, Type: r.AccountType,
			Subtype: r.Subtype, Normality: r.Normality, Path: path}
	}
	return out, nil
}

// daysOf is the relation of per-day amounts of a basis: account_days for
// the accrual basis; for the cash basis, account_days plus cash_days (the
// cash basis's difference from it).
func daysOf(basis string) string {
	if basis == domain.BasisCash {
		return `(SELECT business_id, day, account_id, tag_set_id, amount FROM account_days
			UNION ALL SELECT business_id, day, account_id, tag_set_id, amount FROM cash_days)`
	}
	return "account_days"
}

// Amounts is the signed cents per account of business bid on basis on the
// days start..end (inclusive) of the lines f selects (accounts netting to
// zero left out).
func (s *Store) Amounts(ctx context.Context, bid uuid.UUID, basis string, start, end time.Time, f domain.TagFilter) (map[uuid.UUID]int64, error) {
	out, err := s.FilteredPeriodAmounts(ctx, bid, basis, []time.Time{start}, []time.Time{end}, f)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// periodRows is the FROM item "d" of a statement over periods: the day
// rows of business bid on basis between first and last (the periods'
// bounds), each with idx, the 1-based index of the period (its days
// starts[i]..ends[i], inclusive) it falls in, and its account_id,
// tag_set_id and amount; then the arguments of its placeholders.
// Periods in order and disjoint (months, quarters, years: what the
// reports ask for) are told apart by width_bucket over their first days,
// one pass over the rows; any others are joined on the day, which
// compares every row with every period.
func periodRows(basis string, bid uuid.UUID, starts, ends []time.Time, first, last time.Time) (string, []any) {
	s, e := dayStrings(starts), dayStrings(ends)
	ordered := true
	for i := 1; i < len(s) && ordered; i++ {
		ordered = s[i] > s[i-1] && s[i] > e[i-1] // YYYY-MM-DD: text order is date order
	}
	if ordered {
		return `(SELECT b.idx, b.account_id, b.tag_set_id, b.amount
			FROM (SELECT width_bucket(r.day, ?::date[]) AS idx, r.day, r.account_id, r.tag_set_id, r.amount
				FROM ` + daysOf(basis) + ` AS r WHERE r.business_id = ? AND r.day BETWEEN ? AND ?) AS b
			WHERE b.idx > 0 AND b.day <= (?::date[])[b.idx]) AS d`,
			[]any{pgdialect.Array(s), bid, first, last, pgdialect.Array(e)}
	}
	return `(SELECT p.idx, r.account_id, r.tag_set_id, r.amount
		FROM unnest(?::date[], ?::date[]) WITH ORDINALITY AS p(start_day, end_day, idx)
		JOIN ` + daysOf(basis) + ` AS r ON r.business_id = ? AND r.day BETWEEN ? AND ? AND r.day BETWEEN p.start_day AND p.end_day) AS d`,
		[]any{pgdialect.Array(s), pgdialect.Array(e), bid, first, last}
}

// FilteredPeriodAmounts implements app.Store: every period's amounts by
// account, of the lines f selects, in one statement (periodRows).
func (s *Store) FilteredPeriodAmounts(ctx context.Context, bid uuid.UUID, basis string, starts, ends []time.Time, f domain.TagFilter) ([]map[uuid.UUID]int64, error) {
	db := s.conn(ctx)
	out := make([]map[uuid.UUID]int64, len(starts))
	for i := range out {
		out[i] = map[uuid.UUID]int64{}
	}
	if len(starts) == 0 {
		return out, nil
	}
	first, last := starts[0], ends[0]
	for i := range starts {
		first, last = minTime(first, starts[i]), maxTime(last, ends[i])
	}
	from, args := periodRows(basis, bid, starts, ends, first, last)
	q := `SELECT d.idx, d.account_id, sum(d.amount)::bigint AS amount FROM ` + from + ` WHERE true`
	switch {
	case f.Key != "" && len(f.Values) > 0:
		kvs := make([]string, len(f.Values))
		for i, v := range f.Values {
			kvs[i] = domain.KV(f.Key, v)
		}
		q += ` AND d.tag_set_id IN (SELECT id FROM tag_sets WHERE business_id = ? AND kv && ?::text[])`
		args = append(args, bid, pgdialect.Array(kvs))
	case f.Key != "":
		q += ` AND d.tag_set_id IN (SELECT id FROM tag_sets WHERE business_id = ? AND keys && ?::text[])`
		args = append(args, bid, pgdialect.Array([]string{f.Key}))
	}
	q += ` GROUP BY d.idx, d.account_id HAVING sum(d.amount) <> 0`
	var rows []struct {
		Idx       int       `bun:"idx"`
		AccountID uuid.UUID `bun:"account_id"`
		Amount    int64     `bun:"amount"`
	}
	if err := db.NewRaw(q, args...).Scan(ctx, &rows); err != nil {
		return nil, wrap("read amounts", err)
	}
	for _, r := range rows {
		out[r.Idx-1][r.AccountID] = r.Amount
	}
	return out, nil
}

// LastEventAt is the time of the last event applied for business bid (nil
// before any).
func (s *Store) LastEventAt(ctx context.Context, bid uuid.UUID) (*time.Time, error) {
	db := s.conn(ctx)
	var ts []time.Time
	if err := db.NewRaw("SELECT last_event_at FROM freshness WHERE business_id = ?", bid).Scan(ctx, &ts); err != nil {
		return nil, wrap("read freshness", err)
	}
	if len(ts) == 0 {
		return nil, nil
	}
	t := ts[0].UTC()
	return &t, nil
}

// PeriodAmounts is, for each tag filter and each period (its days
// starts[i]..ends[i], inclusive), the signed cents per account of business
// bid on basis of the lines carrying every tag of the filter (every line
// for an empty filter), in one statement grouped by filter and period
// (accounts netting to zero left out): out[filter][period].
func (s *Store) PeriodAmounts(ctx context.Context, bid uuid.UUID, basis string, starts, ends []time.Time, filters []domain.RequiredTags) ([][]map[uuid.UUID]int64, error) {
	db := s.conn(ctx)
	out := make([][]map[uuid.UUID]int64, len(filters))
	for j := range out {
		out[j] = make([]map[uuid.UUID]int64, len(starts))
		for i := range out[j] {
			out[j][i] = map[uuid.UUID]int64{}
		}
	}
	if len(filters) == 0 || len(starts) == 0 {
		return out, nil
	}
	first, last := starts[0], ends[0]
	for i := range starts {
		first, last = minTime(first, starts[i]), maxTime(last, ends[i])
	}
	var q string
	from, args := periodRows(basis, bid, starts, ends, first, last)
	if len(filters) == 1 && len(filters[0]) == 0 {
		q = `SELECT 1 AS fidx, d.idx, d.account_id, sum(d.amount)::bigint AS amount FROM ` + from + `
		GROUP BY d.idx, d.account_id HAVING sum(d.amount) <> 0`
	} else {
		var fis []int
		var kvs []string
		for j, f := range filters {
			for _, kv := range f.KVs() {
				fis = append(fis, j+1)
				kvs = append(kvs, kv)
			}
		}
		q = `WITH req AS (SELECT r.fidx, array_agg(r.kv) AS kvs FROM unnest(?::int[], ?::text[]) AS r(fidx, kv) GROUP BY r.fidx),
		sel AS (SELECT req.fidx, t.id FROM req JOIN tag_sets t ON t.business_id = ? AND t.kv @> req.kvs)
		SELECT sel.fidx, d.idx, d.account_id, sum(d.amount)::bigint AS amount
		FROM ` + from + ` JOIN sel ON sel.id = d.tag_set_id
		GROUP BY sel.fidx, d.idx, d.account_id HAVING sum(d.amount) <> 0`
		args = append([]any{pgdialect.Array(fis), pgdialect.Array(kvs), bid}, args...)
	}
	var rows []struct {
		Fidx      int       `bun:"fidx"`
		Idx       int       `bun:"idx"`
		AccountID uuid.UUID `bun:"account_id"`
		Amount    int64     `bun:"amount"`
	}
	if err := db.NewRaw(q, args...).Scan(ctx, &rows); err != nil {
		return nil, wrap("read period amounts", err)
	}
	for _, r := range rows {
		out[r.Fidx-1][r.Idx-1][r.AccountID] = r.Amount
	}
	return out, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
