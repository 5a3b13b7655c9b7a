// Package pagebun runs page's keyset pagination on Bun: queries ordered by
// (sort column, id) so ties never skip or repeat rows, with the cursor's
// position bound as query parameters (a keyset built from a subquery made
// PostgreSQL scan instead of seek).
package pagebun

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/page"
)

// Apply adds the keyset condition, the (sort column, id) order and a limit
// of p.Limit+1 (the extra row tells whether there is a next page).
// idColumn must be unique so the order is total.
func Apply(q *bun.SelectQuery, p page.Params, idColumn string) *bun.SelectQuery {
	col, id := bun.Safe(p.Key.Column), bun.Safe(idColumn)
	if p.After != nil {
		op := bun.Safe(">")
		if p.Order == page.Desc {
			op = bun.Safe("<")
		}
		q = q.Where("(?, ?) ? (?, ?)", col, id, op, p.After.Value, p.After.ID)
	}
	dir := bun.Safe(string(p.Order))
	return q.OrderExpr("? ?, ? ?", col, dir, id, dir).Limit(int64(p.Limit) + 1)
}

// Fetch runs a filtered listing query as one page: the total count when
// requested, then Apply, Scan into []T and Finish. q must select rows
// scannable into T (for example NewSelect().Model((*row)(nil)).Where(...)).
func Fetch[T any](ctx context.Context, q *bun.SelectQuery, p page.Params, idColumn string,
	key func(T) (any, uuid.UUID)) ([]T, page.Meta, error) {
	var total int
	if p.ShowTotalCount {
		n, err := q.Clone().Count(ctx)
		if err != nil {
			return nil, page.Meta{}, fmt.Errorf("count: %w", err)
		}
		total = int(n)
	}
	rows := make([]T, 0, p.Limit+1)
	if err := Apply(q, p, idColumn).Scan(ctx, &rows); err != nil {
		return nil, page.Meta{}, fmt.Errorf("list: %w", err)
	}
	rows, meta, err := page.Finish(rows, p, key)
	if err != nil {
		return nil, page.Meta{}, err
	}
	if p.ShowTotalCount {
		meta = meta.WithTotal(total)
	}
	return rows, meta, nil
}
