package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// StreamExportLines implements app.Store: one statement whose rows are
// read from the database cursor one at a time, so nothing is gathered in
// memory whatever the number of lines.
func (s *Store) StreamExportLines(ctx context.Context, businessID uuid.UUID, f app.PeriodFilter, fn func(domain.ExportLine) error) error {
	db := s.conn(ctx)
	query := `SELECT e.entry_at, e.entry_number, e.id, e.entry_type, e.source_type, e.source_id,
			a.name, a.stable_name, a.account_number, l.direction, l.amount, coalesce(l.memo, e.memo),
			l.tags, e.tags, e.reversal_of_id, e.reversal_id
		FROM ledger_entries e
		JOIN ledger_lines l ON l.business_id = e.business_id AND l.entry_id = e.id
		JOIN ledger_accounts a ON a.business_id = l.business_id AND a.id = l.account_id
		WHERE e.business_id = ?`
	args := []any{businessID}
	if f.From != nil {
		query += ` AND e.entry_at >= ?`
		args = append(args, *f.From)
	}
	if f.Until != nil {
		query += ` AND e.entry_at < ?`
		args = append(args, *f.Until)
	}
	query += ` ORDER BY e.entry_at, e.entry_number, l.line_number`
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return wrap("read ledger lines", err)
	}
	defer rows.Close()
	var (
		r                    domain.ExportLine
		entryType, direction string
		amount               int64
		lineTags, entryTags  []byte
	)
	for rows.Next() {
		r = domain.ExportLine{}
		if err := rows.Scan(&r.EntryAt, &r.EntryNumber, &r.EntryID, &entryType, &r.Source.Type, &r.Source.ID,
			&r.AccountName, &r.AccountStableName, &r.AccountNumber, &direction, &amount, &r.Memo,
			&lineTags, &entryTags, &r.ReversalOfID, &r.ReversedBy); err != nil {
			return wrap("read ledger line", err)
		}
		r.EntryType, r.Direction, r.Amount = domain.EntryType(entryType), domain.Direction(direction), moneyOf(amount)
		own, err := jsonbTags(lineTags)
		if err != nil {
			return fmt.Errorf("tags of a line of entry %s: %w", r.EntryID, err)
		}
		entry, err := jsonbTags(entryTags)
		if err != nil {
			return fmt.Errorf("tags of entry %s: %w", r.EntryID, err)
		}
		r.Tags = domain.AppliedTags(own, entry)
		r.EntryAt = r.EntryAt.In(time.UTC)
		if err := fn(r); err != nil {
			return err
		}
	}
	return wrap("read ledger lines", rows.Err())
}
