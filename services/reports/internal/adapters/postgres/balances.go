package postgres

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// Balances implements app.Store: per range, the signed cents per account
// (all tag sets) on basis, in one statement. Each range is read as
// domain.Segments: its whole months from the month totals (account_months,
// plus cash_months on the cash basis) and at most two partial months from
// the day totals, so a balance reads a few rows per account and month
// whatever the number of lines.
func (s *Store) Balances(ctx context.Context, bid uuid.UUID, basis string, ranges []domain.DayRange) ([]map[uuid.UUID]int64, error) {
	db := s.conn(ctx)
	out := make([]map[uuid.UUID]int64, len(ranges))
	var idx []int
	var monthly []bool
	var lo, hi []string
	for i, r := range ranges {
		out[i] = map[uuid.UUID]int64{}
		for _, sg := range domain.Segments(r) {
			idx = append(idx, i+1)
			monthly = append(monthly, sg.Monthly)
			lo, hi = append(lo, sg.Lo.Format(domain.DateLayout)), append(hi, sg.Hi.Format(domain.DateLayout))
		}
	}
	if len(idx) == 0 {
		return out, nil
	}
	months, days := "SELECT month, account_id, amount FROM account_months WHERE business_id = ?0",
		"SELECT day, account_id, amount FROM account_days WHERE business_id = ?0"
	if basis == domain.BasisCash {
		months += " UNION ALL SELECT month, account_id, amount FROM cash_months WHERE business_id = ?0"
		days += " UNION ALL SELECT day, account_id, amount FROM cash_days WHERE business_id = ?0"
	}
	// Each segment is a lateral subquery so that its range reaches the
	// primary keys' (business_id, month|day) prefix.
	q := `WITH seg AS (SELECT * FROM unnest(?1::int[], ?2::boolean[], ?3::date[], ?4::date[]) AS s(idx, monthly, lo, hi))
		SELECT seg.idx, x.account_id, sum(x.amount)::bigint AS amount FROM seg,
		LATERAL (
			SELECT m.account_id, m.amount FROM (` + months + `) AS m WHERE seg.monthly AND m.month BETWEEN seg.lo AND seg.hi
			UNION ALL
			SELECT d.account_id, d.amount FROM (` + days + `) AS d WHERE NOT seg.monthly AND d.day BETWEEN seg.lo AND seg.hi
		) AS x
		GROUP BY seg.idx, x.account_id HAVING sum(x.amount) <> 0`
	var rows []struct {
		Idx       int       `bun:"idx"`
		AccountID uuid.UUID `bun:"account_id"`
		Amount    int64     `bun:"amount"`
	}
	if err := db.NewRaw(q, bid, pgdialect.Array(idx), pgdialect.Array(monthly), pgdialect.Array(lo), pgdialect.Array(hi)).Scan(ctx, &rows); err != nil {
		return nil, wrap("read balances", err)
	}
	for _, r := range rows {
		out[r.Idx-1][r.AccountID] = r.Amount
	}
	return out, nil
}
