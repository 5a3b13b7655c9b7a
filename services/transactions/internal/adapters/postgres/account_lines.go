package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// An account's general ledger detail reads two things per page, in one
// statement (one snapshot):
//
//   - the page: the lines of each listed account in (entry_at,
//     entry_number, id) order from the index ledger_lines_account_order_idx,
//     seeked at the cursor's position, merged across the accounts
//     (LATERAL, LIMIT each);
//   - the boundary sums: the debits and credits of every line before the
//     page's start, from ledger_account_day_totals (one row per account,
//     UTC day and stripe, kept by a trigger in the transaction that writes
//     the lines) for the days before the boundary's day, plus that day's
//     lines up to the boundary from the same index.
//
// Both cost the same on any page of an account with millions of lines: the
// day totals of its days and the lines of one day, never the account's
// history.

// scanAccountLines reads the rows of a page (the columns the page
// statement selects, in order) into lines and returns the boundary sums,
// scanning each column into its own variable: no reflection per row, and
// the common empty tag lists are not decoded.
func scanAccountLines(rows *sql.Rows) ([]domain.AccountLine, domain.DebitCredit, error) {
	var out []domain.AccountLine
	var boundary domain.DebitCredit
	var (
		direction, entryType    string
		amount, debits, credits int64
		lineTags, entryTags     []byte
	)
	for rows.Next() {
		var l domain.AccountLine
		if err := rows.Scan(&l.ID, &l.EntryID, &l.Number, &l.Account.ID, &direction, &amount, &l.EntryAt, &l.EntryNumber,
			&l.Memo, &lineTags, &entryType, &l.Source.Type, &l.Source.ID, &l.ReversalOfID, &l.ReversedBy, &l.EntryMemo,
			&entryTags, &debits, &credits); err != nil {
			return nil, boundary, wrap("read account line", err)
		}
		l.Direction, l.Amount, l.EntryType, l.EntryAt = domain.Direction(direction), moneyOf(amount), domain.EntryType(entryType), l.EntryAt.UTC()
		var err error
		if l.Tags, err = jsonbTags(lineTags); err != nil {
			return nil, boundary, fmt.Errorf("tags of line %s: %w", l.ID, err)
		}
		if l.EntryTags, err = jsonbTags(entryTags); err != nil {
			return nil, boundary, fmt.Errorf("tags of entry %s: %w", l.EntryID, err)
		}
		boundary = domain.DebitCredit{Debits: moneyOf(debits), Credits: moneyOf(credits)}
		out = append(out, l)
	}
	return out, boundary, wrap("read account lines", rows.Err())
}

// jsonbTags reads a tag list the database stored (jsonb).
func jsonbTags(raw []byte) ([]tags.Tag, error) {
	if len(raw) == 0 || string(raw) == "[]" || string(raw) == "null" {
		return []tags.Tag{}, nil
	}
	var ts []tags.Tag
	if err := json.Unmarshal(raw, &ts); err != nil {
		return nil, err
	}
	return nonNilTags(ts), nil
}

// linePos is a line's place in the chronological order.
type linePos struct {
	EntryAt     time.Time `bun:"entry_at"`
	EntryNumber int64     `bun:"entry_number"`
	ID          uuid.UUID `bun:"id,type:uuid"`
}

// bound is where a boundary sum stops: every line (none set), the lines
// before an instant (at only), or the lines before a line's position (at
// and pos; inclusive also counts that line).
type bound struct {
	at        *time.Time
	pos       *linePos
	inclusive bool
	zero      bool // no line at all
}

// sqlArgs builds a statement and its arguments side by side.
type sqlArgs struct {
	b    strings.Builder
	args []any
}

func (s *sqlArgs) add(text string, args ...any) {
	s.b.WriteString(text)
	s.args = append(s.args, args...)
}

// sums adds the SELECT of the debits, credits and number of the lines of
// the accounts (ids, an array literal) before b.
func (s *sqlArgs) sums(businessID uuid.UUID, ids any, b bound) {
	if b.zero {
		s.add(`SELECT 0::bigint AS debits, 0::bigint AS credits, 0::bigint AS lines`)
		return
	}
	s.add(`SELECT coalesce(sum(d), 0)::bigint AS debits, coalesce(sum(c), 0)::bigint AS credits, coalesce(sum(n), 0)::bigint AS lines
		FROM (SELECT t.debits AS d, t.credits AS c, t.lines AS n FROM ledger_account_day_totals t
			WHERE t.business_id = ? AND t.account_id = ANY(?::uuid[])`, businessID, ids)
	if b.at == nil {
		s.add(`) s`)
		return
	}
	at := b.at.UTC()
	day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
	s.add(` AND t.day < ?::date
			UNION ALL
			SELECT CASE WHEN l.direction = 'DEBIT' THEN l.amount ELSE 0 END, CASE WHEN l.direction = 'CREDIT' THEN l.amount ELSE 0 END, 1
			FROM ledger_lines l
			WHERE l.business_id = ? AND l.account_id = ANY(?::uuid[]) AND l.entry_at >= ?`,
		day.Format(time.DateOnly), businessID, ids, day)
	switch {
	case b.pos == nil:
		s.add(` AND l.entry_at < ?`, at)
	case b.inclusive:
		s.add(` AND (l.entry_at, l.entry_number, l.id) <= (?, ?, ?)`, b.pos.EntryAt, b.pos.EntryNumber, b.pos.ID)
	default:
		s.add(` AND (l.entry_at, l.entry_number, l.id) < (?, ?, ?)`, b.pos.EntryAt, b.pos.EntryNumber, b.pos.ID)
	}
	s.add(`) s`)
}

// FindAccountLines implements app.Store.
func (s *Store) FindAccountLines(ctx context.Context, f app.AccountLineFilter, p page.Params) ([]domain.AccountLine, domain.DebitCredit, page.Meta, error) {
	db := s.conn(ctx)
	strs := make([]string, len(f.AccountIDs))
	for i, id := range f.AccountIDs {
		strs[i] = id.String()
	}
	ids := pgdialect.Array(strs)
	desc := p.Order == page.Desc
	dir, cmp := "ASC", ">"
	if desc {
		dir, cmp = "DESC", "<"
	}

	// The page starts after the cursor's line; the boundary sum stops there
	// (descending: before it; ascending: with it). A first page starts at
	// the period's end (descending) or start (ascending).
	var after *linePos
	var b bound
	if p.After != nil {
		pos, err := s.linePosition(ctx, db, f.BusinessID, p.After)
		if err != nil {
			return nil, domain.DebitCredit{}, page.Meta{}, err
		}
		after = &pos
		b = bound{at: &pos.EntryAt, pos: &pos, inclusive: !desc}
	} else if desc {
		b = bound{at: f.Until}
	} else {
		b = bound{at: f.From, zero: f.From == nil}
	}

	var q sqlArgs
	q.add(`WITH page AS (
		SELECT x.* FROM unnest(?::uuid[]) AS a(id) CROSS JOIN LATERAL (
			SELECT l.id, l.entry_id, l.line_number, l.account_id, l.direction, l.amount, l.entry_at, l.entry_number,
				l.memo, l.tags
			FROM ledger_lines l
			WHERE l.business_id = ? AND l.account_id = a.id`, ids, f.BusinessID)
	if f.From != nil {
		q.add(` AND l.entry_at >= ?`, *f.From)
	}
	if f.Until != nil {
		q.add(` AND l.entry_at < ?`, *f.Until)
	}
	if after != nil {
		q.add(` AND (l.entry_at, l.entry_number, l.id) `+cmp+` (?, ?, ?)`, after.EntryAt, after.EntryNumber, after.ID)
	}
	order := fmt.Sprintf("entry_at %[1]s, entry_number %[1]s, id %[1]s", dir)
	q.add(`
			ORDER BY l.`+strings.ReplaceAll(order, ", ", ", l.")+` LIMIT ?
		) x
		ORDER BY x.`+strings.ReplaceAll(order, ", ", ", x.")+` LIMIT ?
	), boundary AS MATERIALIZED (`, p.Limit+1, p.Limit+1)
	q.sums(f.BusinessID, ids, b)
	q.add(`)
	SELECT page.id, page.entry_id, page.line_number, page.account_id, page.direction, page.amount, page.entry_at,
		page.entry_number, page.memo, page.tags, e.entry_type, e.source_type, e.source_id, e.reversal_of_id,
		e.reversal_id, e.memo, e.tags, b.debits, b.credits
	FROM page
	JOIN ledger_entries e ON e.business_id = ? AND e.id = page.entry_id
	CROSS JOIN boundary b
	ORDER BY page.`+strings.ReplaceAll(order, ", ", ", page."), f.BusinessID)

	rows, err := db.QueryContext(ctx, q.b.String(), q.args...)
	if err != nil {
		return nil, domain.DebitCredit{}, page.Meta{}, wrap("list account lines", err)
	}
	lines, boundary, err := scanAccountLines(rows)
	rows.Close()
	if err != nil {
		return nil, domain.DebitCredit{}, page.Meta{}, err
	}
	lines, meta, err := page.Finish(lines, p, func(l domain.AccountLine) (any, uuid.UUID) { return l.EntryAt, l.ID })
	if err != nil {
		return nil, domain.DebitCredit{}, page.Meta{}, err
	}
	if p.ShowTotalCount {
		n, err := s.countAccountLines(ctx, db, f, ids)
		if err != nil {
			return nil, domain.DebitCredit{}, page.Meta{}, err
		}
		meta = meta.WithTotal(n)
	}
	return lines, boundary, meta, nil
}

// linePosition is the place of the cursor's line: 400 when the business
// has no such line (a cursor is signed, so only a cursor of another
// database gets there).
func (s *Store) linePosition(ctx context.Context, db bun.IDB, businessID uuid.UUID, after *page.Position) (linePos, error) {
	var pos linePos
	err := db.NewRaw(`SELECT entry_at, entry_number, id FROM ledger_lines WHERE business_id = ? AND id = ?`,
		businessID, after.ID).Scan(ctx, &pos)
	if errors.Is(err, sql.ErrNoRows) {
		return linePos{}, apperr.Field(page.ParamCursor, "is not a cursor issued by this API")
	}
	if err != nil {
		return linePos{}, wrap("cursor line", err)
	}
	if at, ok := after.Value.(time.Time); !ok || !at.Equal(pos.EntryAt) {
		return linePos{}, apperr.Field(page.ParamCursor, "is not a cursor issued by this API")
	}
	return pos, nil
}

// countAccountLines counts the listed lines from the day totals: those
// before the period's end less those before its start.
func (s *Store) countAccountLines(ctx context.Context, db bun.IDB, f app.AccountLineFilter, ids any) (int, error) {
	var q sqlArgs
	q.add(`SELECT (SELECT lines FROM (`)
	q.sums(f.BusinessID, ids, bound{at: f.Until})
	q.add(`) u) - (SELECT lines FROM (`)
	q.sums(f.BusinessID, ids, bound{at: f.From, zero: f.From == nil})
	q.add(`) f)`)
	var n int
	if err := db.NewRaw(q.b.String(), q.args...).Scan(ctx, &n); err != nil {
		return 0, wrap("count account lines", err)
	}
	return n, nil
}
