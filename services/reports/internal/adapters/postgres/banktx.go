package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/services/reports/internal/app"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// UpsertBankTransactions keeps each row (one per transaction) unless the
// read model has a newer version of its transaction, in one statement, and
// returns the businesses it wrote a row of.
func (s *Store) UpsertBankTransactions(ctx context.Context, rows []app.BankTransactionRow) (map[uuid.UUID]bool, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	vals := make([]string, len(rows))
	args := make([]any, 0, 20*len(rows))
	for i, r := range rows {
		b := r.Transaction
		p := b.BankTransactionUpserted
		vals[i] = "(?, ?, ?, ?::date, ?::timestamptz, ?, ?, ?, ?::uuid, ?, ?::bigint, ?::text[], ?, ?, ?::boolean, ?, ?, ?, ?::timestamptz, ?::boolean)"
		args = append(args, p.BusinessID, p.TransactionID, p.Version, r.Day.Format(domain.DateLayout), p.DateTime, p.Description,
			p.CounterpartyName, p.AccountName, p.LedgerAccountID, p.Direction, p.Amount, pgdialect.Array(b.CategoryStableNames), b.CategoryDisplay,
			p.Status, domain.Categorized(p.Status), b.TagsText, p.Memo, p.ReferenceNumber, r.EventTime, p.ArchivedAt != nil)
	}
	var written []uuid.UUID
	err := s.conn(ctx).NewRaw(`WITH written AS (INSERT INTO bank_transactions AS t (business_id, transaction_id, version, day, date_time, description,
			counterparty, account_name, ledger_account_id, direction, amount, category_stable_names, category_display_name,
			categorization_status, categorized, tags, memo, reference_number, event_time, archived)
		VALUES `+strings.Join(vals, ", ")+`
		ON CONFLICT (business_id, transaction_id) DO UPDATE SET
			version = EXCLUDED.version, day = EXCLUDED.day, date_time = EXCLUDED.date_time, description = EXCLUDED.description,
			counterparty = EXCLUDED.counterparty, account_name = EXCLUDED.account_name, ledger_account_id = EXCLUDED.ledger_account_id,
			direction = EXCLUDED.direction, amount = EXCLUDED.amount, category_stable_names = EXCLUDED.category_stable_names,
			category_display_name = EXCLUDED.category_display_name, categorization_status = EXCLUDED.categorization_status,
			categorized = EXCLUDED.categorized, tags = EXCLUDED.tags, memo = EXCLUDED.memo,
			reference_number = EXCLUDED.reference_number, event_time = EXCLUDED.event_time, archived = EXCLUDED.archived
		WHERE t.version < EXCLUDED.version
		RETURNING business_id)
		SELECT DISTINCT business_id FROM written`, args...).Scan(ctx, &written)
	if err != nil {
		return nil, wrap("upsert bank transactions", err)
	}
	out := make(map[uuid.UUID]bool, len(written))
	for _, bid := range written {
		out[bid] = true
	}
	return out, nil
}

// Uncategorized reports, for each period (its days starts[i]..ends[i],
// inclusive), whether business bid has an uncategorized bank transaction
// dated in it.
func (s *Store) Uncategorized(ctx context.Context, bid uuid.UUID, starts, ends []time.Time) ([]bool, error) {
	db := s.conn(ctx)
	var rows []struct {
		Idx int  `bun:"idx"`
		Any bool `bun:"any"`
	}
	if err := db.NewRaw(`SELECT p.idx, EXISTS (SELECT 1 FROM bank_transactions t WHERE t.business_id = ? AND NOT t.categorized AND NOT t.archived
			AND t.day BETWEEN p.start_day AND p.end_day) AS any
		FROM unnest(?::date[], ?::date[]) WITH ORDINALITY AS p(start_day, end_day, idx)`,
		bid, pgdialect.Array(dayStrings(starts)), pgdialect.Array(dayStrings(ends))).Scan(ctx, &rows); err != nil {
		return nil, wrap("read uncategorized", err)
	}
	out := make([]bool, len(starts))
	for _, r := range rows {
		out[r.Idx-1] = r.Any
	}
	return out, nil
}

// TransactionCounts implements app.Store: one statement for every period.
func (s *Store) TransactionCounts(ctx context.Context, bid uuid.UUID, starts, ends []time.Time) ([][2]int, error) {
	db := s.conn(ctx)
	var rows []struct {
		Idx           int `bun:"idx"`
		Uncategorized int `bun:"uncategorized"`
		Categorized   int `bun:"categorized"`
	}
	if err := db.NewRaw(`SELECT p.idx,
			(SELECT count(*) FROM bank_transactions t WHERE t.business_id = ? AND NOT t.categorized AND NOT t.archived
				AND t.day BETWEEN p.start_day AND p.end_day) AS uncategorized,
			(SELECT count(*) FROM bank_transactions t WHERE t.business_id = ? AND t.categorized AND NOT t.archived
				AND t.day BETWEEN p.start_day AND p.end_day) AS categorized
		FROM unnest(?::date[], ?::date[]) WITH ORDINALITY AS p(start_day, end_day, idx)`,
		bid, bid, pgdialect.Array(dayStrings(starts)), pgdialect.Array(dayStrings(ends))).Scan(ctx, &rows); err != nil {
		return nil, wrap("count bank transactions", err)
	}
	out := make([][2]int, len(starts))
	for _, r := range rows {
		out[r.Idx-1] = [2]int{r.Uncategorized, r.Categorized}
	}
	return out, nil
}

// StreamBankTransactions calls fn with every bank transaction of business
// bid that q selects, in date order, row by row from the database cursor:
// nothing is gathered in memory, whatever the number of rows.
func (s *Store) StreamBankTransactions(ctx context.Context, bid uuid.UUID, q domain.ExportQuery, fn func(domain.ExportRow) error) error {
	db := s.conn(ctx)
	query := `SELECT to_char(day, 'YYYY-MM-DD'), description, counterparty, account_name, direction, amount, category_display_name,
			categorization_status, tags, memo, reference_number
		FROM bank_transactions WHERE business_id = ? AND NOT archived AND day BETWEEN ?::date AND ?::date`
	args := []any{bid, q.Start.Format(domain.DateLayout), q.End.Format(domain.DateLayout)}
	if q.Categorized != nil {
		query += ` AND categorized = ?`
		args = append(args, *q.Categorized)
	}
	if q.Category != "" {
		query += ` AND ? = ANY(category_stable_names)`
		args = append(args, q.Category)
	}
	switch q.Status {
	case domain.StatusFilterCategorized:
		query += ` AND categorized`
	case domain.StatusFilterUncategorized:
		query += ` AND NOT categorized`
	case domain.StatusFilterPending:
		query += ` AND categorization_status = 'PENDING'`
	}
	query += ` ORDER BY day, date_time, transaction_id`
	rows, err := db.QueryContext(ctx, db.NewRaw(query, args...).String())
	if err != nil {
		return wrap("read bank transactions", err)
	}
	defer rows.Close()
	// Scanned as raw bytes (no conversion per column) and copied into one
	// string per row that the fields slice: one allocation per row, which
	// is most of an export's CPU otherwise.
	var raw [11]sql.RawBytes
	dest := make([]any, len(raw))
	for i := range raw {
		dest[i] = &raw[i]
	}
	buf := make([]byte, 0, 512)
	var ends [11]int
	var r domain.ExportRow
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return wrap("read bank transaction", err)
		}
		buf = buf[:0]
		for i := range raw {
			buf = append(buf, raw[i]...) // NULL is nil: ""
			ends[i] = len(buf)
		}
		line := string(buf)
		field := func(i int) string {
			if i == 0 {
				return line[:ends[0]]
			}
			return line[ends[i-1]:ends[i]]
		}
		amount, err := strconv.ParseInt(field(5), 10, 64)
		if err != nil {
			return fmt.Errorf("read bank transaction: amount %q: %w", field(5), err)
		}
		r = domain.ExportRow{Day: field(0), Description: field(1), Counterparty: field(2), Account: field(3), Direction: field(4),
			Amount: amount, Category: field(6), Status: field(7), Tags: field(8), Memo: field(9), ReferenceNumber: field(10)}
		if err := fn(r); err != nil {
			return err
		}
	}
	return wrap("read bank transactions", rows.Err())
}

// dayStrings are ts as YYYY-MM-DD, for a date[] parameter.
func dayStrings(ts []time.Time) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Format(domain.DateLayout)
	}
	return out
}
