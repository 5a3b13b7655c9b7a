package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// dayTotalsMismatch lists the (account, day) whose day totals differ from
// a GROUP BY over the business's lines.
func dayTotalsMismatch(ctx context.Context, t *testing.T, db bun.IDB, bid uuid.UUID) []string {
	t.Helper()
	var diff []string
	err := db.NewRaw(`
		WITH t AS (SELECT account_id, day, sum(debits) AS d, sum(credits) AS c, sum(lines) AS n
			FROM ledger_account_day_totals WHERE business_id = ?0 GROUP BY 1, 2),
		l AS (SELECT account_id, (entry_at AT TIME ZONE 'UTC')::date AS day,
				coalesce(sum(amount) FILTER (WHERE direction = 'DEBIT'), 0) AS d,
				coalesce(sum(amount) FILTER (WHERE direction = 'CREDIT'), 0) AS c, count(*) AS n
			FROM ledger_lines WHERE business_id = ?0 GROUP BY 1, 2)
		SELECT coalesce(t.account_id, l.account_id)::text || ' ' || coalesce(t.day, l.day)::text
		FROM t FULL JOIN l ON t.account_id = l.account_id AND t.day = l.day
		WHERE t.d IS DISTINCT FROM l.d OR t.c IS DISTINCT FROM l.c OR t.n IS DISTINCT FROM l.n`, bid).Scan(ctx, &diff)
	if err != nil {
		t.Fatal(err)
	}
	return diff
}

// TestLinesCarryEntryNumbersAndDayTotals writes lines with raw SQL, as
// code that bypasses the application would: a line without entry_number
// gets its entry's; the day totals stay equal to the lines they sum
// through multi-row statements, many statements per transaction,
// concurrent writers on the same account and day, and a transaction the
// balance check rolls back; and both triggers hold from a session whose
// search_path does not name the schema.
func TestLinesCarryEntryNumbersAndDayTotals(t *testing.T) {
	db, bid := schema(t)
	ctx := context.Background()
	day := time.Date(2026, 5, 4, 23, 59, 0, 0, time.UTC)

	// n two-line entries in one transaction, each line its own statement
	// (multi: all lines of the transaction in one statement).
	post := func(tx bun.Tx, n int, multi bool, at time.Time) error {
		var values []string
		var args []any
		for i := range n {
			entry := uuid.Must(uuid.NewV7())
			if _, err := tx.ExecContext(ctx, `INSERT INTO transactions.ledger_entries (id, business_id, entry_type, agent, date,
				entry_at, source_type, source_id, created_at) VALUES (?, ?, 'MANUAL', 'API', ?, ?, 'RAW', ?, now())`,
				entry, bid, at, at, uuid.NewString()); err != nil {
				return err
			}
			amount := int64(100 + i)
			for k, l := range []struct{ stable, dir string }{{"CASH", "DEBIT"}, {"SALES", "CREDIT"}} {
				values = append(values, "(?, ?, ?, ?, ?, ?, ?, ?, now())")
				args = append(args, uuid.Must(uuid.NewV7()), entry, bid, k+1, domain.DefaultAccountID(bid, l.stable), l.dir, amount, at)
			}
		}
		const cols = `INSERT INTO transactions.ledger_lines (id, entry_id, business_id, line_number, account_id, direction, amount, entry_at, created_at) VALUES `
		if multi {
			_, err := tx.ExecContext(ctx, cols+strings.Join(values, ", "), args...)
			return err
		}
		for i, v := range values {
			if _, err := tx.ExecContext(ctx, cols+v, args[i*8:(i+1)*8]...); err != nil {
				return err
			}
		}
		return nil
	}
	inPublic := func(fn func(tx bun.Tx) error) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, "SET LOCAL search_path = public"); err != nil {
				return err
			}
			return fn(tx)
		})
	}

	if err := inPublic(func(tx bun.Tx) error { return post(tx, 5, false, day) }); err != nil {
		t.Fatal(err)
	}
	if err := inPublic(func(tx bun.Tx) error { return post(tx, 7, true, day.Add(time.Minute)) }); err != nil {
		t.Fatal(err)
	}
	// Concurrent writers on the same accounts and days.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- inPublic(func(tx bun.Tx) error { return post(tx, 10, w%2 == 0, day.Add(time.Duration(w)*time.Hour)) })
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// An unbalanced entry: the commit fails and adds nothing.
	err := inPublic(func(tx bun.Tx) error {
		if err := post(tx, 2, true, day); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO transactions.ledger_lines (id, entry_id, business_id, line_number, account_id,
			direction, amount, entry_at, created_at)
			SELECT ?, entry_id, business_id, 3, account_id, 'DEBIT', 1, entry_at, now() FROM transactions.ledger_lines
			WHERE business_id = ? ORDER BY created_at DESC, id DESC LIMIT 1`, uuid.Must(uuid.NewV7()), bid)
		return err
	})
	if pgdb.Constraint(err) != "ledger_entry_balanced" {
		t.Fatalf("unbalanced entry: %v", err)
	}

	if diff := dayTotalsMismatch(ctx, t, db, bid); len(diff) > 0 {
		t.Fatalf("day totals differ from the lines for %v", diff)
	}
	var wrong, lines int
	if err := db.NewRaw(`SELECT count(*) FILTER (WHERE l.entry_number IS DISTINCT FROM e.entry_number), count(*)
		FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id WHERE l.business_id = ?`, bid).Scan(ctx, &wrong, &lines); err != nil {
		t.Fatal(err)
	}
	if wrong != 0 || lines != 2*(5+7+80) {
		t.Fatalf("%d of %d lines without their entry's number", wrong, lines)
	}
	var stripes int
	if err := db.NewRaw(`SELECT count(DISTINCT stripe) FROM ledger_account_day_totals WHERE business_id = ?`, bid).Scan(ctx, &stripes); err != nil {
		t.Fatal(err)
	}
	if stripes < 1 || stripes > 8 {
		t.Fatalf("%d stripes", stripes)
	}
}

// TestAccountLinesMigrationBackfills applies the migration to a journal
// written before it (the column, its trigger and the day totals dropped
// as its down migration does), then checks that the lines got their
// entries' numbers and the day totals their sums.
func TestAccountLinesMigrationBackfills(t *testing.T) {
	db, bid := schema(t)
	ctx := context.Background()
	down := "migrations/20261127000001_ledger_account_lines.tx.down.sql"
	up := "migrations/20261127000001_ledger_account_lines.tx.up.sql"
	run := func(file string) {
		t.Helper()
		runMigrationFile(t, db, file)
	}
	run(down)
	for i := range 3 {
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			entry := rawEntry(ctx, t, tx, bid, fmt.Sprintf("before-%d", i))
			if err := rawLine(ctx, tx, bid, entry, 1, "CASH", "DEBIT", int64(10+i)); err != nil {
				return err
			}
			return rawLine(ctx, tx, bid, entry, 2, "SALES", "CREDIT", int64(10+i))
		}); err != nil {
			t.Fatal(err)
		}
	}
	run(up)
	if diff := dayTotalsMismatch(ctx, t, db, bid); len(diff) > 0 {
		t.Fatalf("day totals differ from the lines for %v", diff)
	}
	var wrong int
	if err := db.NewRaw(`SELECT count(*) FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
		WHERE l.entry_number IS DISTINCT FROM e.entry_number`).Scan(ctx, &wrong); err != nil || wrong != 0 {
		t.Fatalf("%d lines without their entry's number (%v)", wrong, err)
	}
	// The append-only guard is back.
	if _, err := db.ExecContext(ctx, "UPDATE ledger_lines SET amount = 1"); pgdb.SQLState(err) != "23001" {
		t.Fatalf("update after the migration: %v", err)
	}
}

// splitStatements splits a migration file at its --bun:split markers.
func splitStatements(sql string) []string {
	var out []string
	for _, s := range strings.Split(sql, "--bun:split") {
		if trimmed := strings.TrimSpace(s); trimmed != "" {
			out = append(out, trimmed)
		}
	}
	return out
}

// runMigrationFile runs one of the service's migration files in a
// transaction, statement by statement, as the migrator would.
func runMigrationFile(t *testing.T, db *bun.DB, file string) {
	t.Helper()
	ctx := context.Background()
	sql, err := migrationFiles.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, stmt := range splitStatements(string(sql)) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%w in %.80s", err, stmt)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
