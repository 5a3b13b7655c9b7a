package postgres

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/idempotency"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/testkit"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// schema opens a fresh database with the service's schema and a seeded
// US business; it returns the business id.
func schema(t *testing.T) (*bun.DB, uuid.UUID) {
	t.Helper()
	db := testkit.DB(t, "transactions", outbox.Migrations, idempotency.Migrations, consumer.Migrations, Migrations)
	bid := uuid.New()
	if _, err := New(db).SeedAccounts(context.Background(), domain.SeedChart(bid, "US", time.Now())); err != nil {
		t.Fatal(err)
	}
	return db, bid
}

// rawEntry inserts an entry row with raw SQL, as code that bypasses the
// application would.
func rawEntry(ctx context.Context, t *testing.T, tx bun.IDB, bid uuid.UUID, sourceID string) uuid.UUID {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	_, err := tx.ExecContext(ctx, `INSERT INTO ledger_entries (id, business_id, entry_type, agent, date, entry_at,
		source_type, source_id, created_at) VALUES (?, ?, 'MANUAL', 'API', now(), now(), 'RAW', ?, now())`, id, bid, sourceID)
	if err != nil {
		t.Fatalf("insert entry: %v", err)
	}
	return id
}

func rawLine(ctx context.Context, tx bun.IDB, bid, entry uuid.UUID, n int, stable, direction string, amount int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO ledger_lines (id, entry_id, business_id, line_number, account_id, direction,
		amount, entry_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, now(), now())`,
		uuid.Must(uuid.NewV7()), entry, bid, n, domain.DefaultAccountID(bid, stable), direction, amount)
	return err
}

// rawPosting commits, with raw SQL, a balanced entry of two lines (CASH
// debited, SALES credited 100) and returns its id.
func rawPosting(ctx context.Context, t *testing.T, db *bun.DB, bid uuid.UUID, sourceID string) (uuid.UUID, error) {
	t.Helper()
	var entry uuid.UUID
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		entry = rawEntry(ctx, t, tx, bid, sourceID)
		if err := rawLine(ctx, tx, bid, entry, 1, "CASH", "DEBIT", 100); err != nil {
			return err
		}
		return rawLine(ctx, tx, bid, entry, 2, "SALES", "CREDIT", 100)
	})
	return entry, err
}

// TestDatabaseRefusesUnbalancedEntries commits entries written with raw SQL:
// only balanced ones with at least two lines survive the commit.
func TestDatabaseRefusesUnbalancedEntries(t *testing.T) {
	db, bid := schema(t)
	ctx := context.Background()
	type line struct {
		stable, dir string
		amount      int64
	}
	tests := []struct {
		name  string
		lines []line
		ok    bool
	}{
		{"balanced", []line{{"CASH", "DEBIT", 500}, {"SALES", "CREDIT", 500}}, true},
		{"balanced three lines", []line{{"CASH", "DEBIT", 500}, {"SALES", "CREDIT", 300}, {"TIPS", "CREDIT", 200}}, true},
		{"unbalanced", []line{{"CASH", "DEBIT", 500}, {"SALES", "CREDIT", 499}}, false},
		{"one line", []line{{"CASH", "DEBIT", 500}}, false},
		{"no lines", nil, false},
		{"debits only", []line{{"CASH", "DEBIT", 500}, {"SALES", "DEBIT", 500}}, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
				entry := rawEntry(ctx, t, tx, bid, tt.name)
				for n, l := range tt.lines {
					if err := rawLine(ctx, tx, bid, entry, n+1, l.stable, l.dir, l.amount); err != nil {
						return err
					}
				}
				return nil // the check runs at COMMIT
			})
			if tt.ok != (err == nil) {
				t.Fatalf("commit error = %v, want success %v", err, tt.ok)
			}
			if err != nil && (!pgdb.IsCheckViolation(err) || pgdb.Constraint(err) != "ledger_entry_balanced") {
				t.Fatalf("error %v: state %s constraint %s", err, pgdb.SQLState(err), pgdb.Constraint(err))
			}
			n, _ := db.NewSelect().Table("ledger_entries").Where("source_id = ?", tt.name).Count(ctx)
			if want := map[bool]int64{true: 1, false: 0}[tt.ok]; int64(n) != want {
				t.Fatalf("%d entries after commit, want %d (case %d)", n, want, i)
			}
		})
	}

	t.Run("lines added to a committed entry", func(t *testing.T) {
		entry, err := rawPosting(ctx, t, db, bid, "later")
		if err != nil {
			t.Fatal(err)
		}
		err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			return rawLine(ctx, tx, bid, entry, 3, "CASH", "DEBIT", 1)
		})
		if pgdb.Constraint(err) != "ledger_entry_balanced" {
			t.Fatalf("adding an unbalancing line later: %v", err)
		}
	})

	t.Run("checked immediately when constraints are immediate", func(t *testing.T) {
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, "SET CONSTRAINTS ALL IMMEDIATE"); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO ledger_entries (id, business_id, entry_type, agent, date, entry_at,
				source_type, source_id, created_at) VALUES (?, ?, 'MANUAL', 'API', now(), now(), 'RAW', 'immediate', now())`,
				uuid.New(), bid)
			return err
		})
		if pgdb.Constraint(err) != "ledger_entry_balanced" {
			t.Fatalf("immediate check: %v", err)
		}
	})

	t.Run("amounts must be positive", func(t *testing.T) {
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			entry := rawEntry(ctx, t, tx, bid, "negative")
			if err := rawLine(ctx, tx, bid, entry, 1, "CASH", "DEBIT", -5); err != nil {
				return err
			}
			return rawLine(ctx, tx, bid, entry, 2, "SALES", "DEBIT", 5)
		})
		if !pgdb.IsCheckViolation(err) {
			t.Fatalf("negative amount: %v", err)
		}
	})

	t.Run("another business's account", func(t *testing.T) {
		other := uuid.New()
		if _, err := New(db).SeedAccounts(ctx, domain.SeedChart(other, "US", time.Now())); err != nil {
			t.Fatal(err)
		}
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			entry := rawEntry(ctx, t, tx, bid, "foreign")
			if err := rawLine(ctx, tx, bid, entry, 1, "CASH", "DEBIT", 5); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO ledger_lines (id, entry_id, business_id, line_number, account_id,
				direction, amount, entry_at, created_at) VALUES (?, ?, ?, 2, ?, 'CREDIT', 5, now(), now())`,
				uuid.New(), entry, bid, domain.DefaultAccountID(other, "SALES"))
			return err
		})
		if !pgdb.IsForeignKeyViolation(err) {
			t.Fatalf("line on another business's account: %v", err)
		}
	})
}

// TestEntriesCheckedOnceStayClosed covers what the entry's single deferred
// check relies on: lines join only an entry of their own transaction
// (savepoints included), and lines written after the checks were forced
// to run (SET CONSTRAINTS ... IMMEDIATE) are checked by their statement.
func TestEntriesCheckedOnceStayClosed(t *testing.T) {
	db, bid := schema(t)
	ctx := context.Background()
	balanced := func(tx bun.IDB, entry uuid.UUID, from int) error {
		if err := rawLine(ctx, tx, bid, entry, from, "CASH", "DEBIT", 100); err != nil {
			return err
		}
		return rawLine(ctx, tx, bid, entry, from+1, "SALES", "CREDIT", 100)
	}
	lineCount := func(entry uuid.UUID) int {
		t.Helper()
		var n int
		if err := db.NewRaw("SELECT count(*) FROM ledger_lines WHERE entry_id = ?", entry).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var committed uuid.UUID
	t.Run("entry and lines in savepoints of one transaction", func(t *testing.T) {
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, "SAVEPOINT a"); err != nil {
				return err
			}
			committed = rawEntry(ctx, t, tx, bid, "savepoints")
			if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT a; SAVEPOINT b"); err != nil {
				return err
			}
			if err := balanced(tx, committed, 1); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT b")
			return err
		})
		if err != nil || lineCount(committed) != 2 {
			t.Fatalf("commit: %v, %d lines", err, lineCount(committed))
		}
	})
	t.Run("balanced lines added to a committed entry", func(t *testing.T) {
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO ledger_lines (id, entry_id, business_id, line_number, account_id, direction,
				amount, entry_at, created_at) VALUES (?0, ?2, ?3, 3, ?4, 'DEBIT', 7, now(), now()), (?1, ?2, ?3, 4, ?5, 'CREDIT', 7, now(), now())`,
				uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7()), committed, bid, domain.DefaultAccountID(bid, "CASH"), domain.DefaultAccountID(bid, "SALES"))
			return err
		})
		if !pgdb.IsCheckViolation(err) || pgdb.Constraint(err) != "ledger_entry_balanced" {
			t.Fatalf("lines added to a committed entry: %v", err)
		}
		if n := lineCount(committed); n != 2 {
			t.Fatalf("%d lines", n)
		}
	})
	t.Run("a line of an entry that does not exist, or of another business", func(t *testing.T) {
		other := uuid.New()
		if _, err := New(db).SeedAccounts(ctx, domain.SeedChart(other, "US", time.Now())); err != nil {
			t.Fatal(err)
		}
		for name, entry := range map[string]func(tx bun.IDB) uuid.UUID{
			"missing":        func(bun.IDB) uuid.UUID { return uuid.New() },
			"other business": func(tx bun.IDB) uuid.UUID { return rawEntry(ctx, t, tx, other, "theirs") },
		} {
			err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
				// With its entry_number given: a line without one takes its
				// entry's, and with no entry fails on NOT NULL first.
				_, err := tx.ExecContext(ctx, `INSERT INTO ledger_lines (id, entry_id, business_id, line_number, account_id, direction,
					amount, entry_at, created_at, entry_number) VALUES (?, ?, ?, 1, ?, 'DEBIT', 5, now(), now(), 1)`,
					uuid.Must(uuid.NewV7()), entry(tx), bid, domain.DefaultAccountID(bid, "CASH"))
				return err
			})
			if !pgdb.IsForeignKeyViolation(err) || pgdb.Constraint(err) != "ledger_lines_entry_fkey" {
				t.Fatalf("%s entry: %v (constraint %q)", name, err, pgdb.Constraint(err))
			}
		}
	})
	// Lines written after the checks were forced to run are checked by
	// their statement; forced in a savepoint rolled back, the checks run
	// again at commit.
	for name, force := range map[string]string{
		"an unbalancing line after the checks ran":                     "SET CONSTRAINTS ALL IMMEDIATE",
		"checks forced in a savepoint rolled back run again at commit": "SAVEPOINT s; SET CONSTRAINTS ALL IMMEDIATE; ROLLBACK TO SAVEPOINT s",
	} {
		t.Run(name, func(t *testing.T) {
			var entry uuid.UUID
			err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
				entry = rawEntry(ctx, t, tx, bid, name)
				if err := balanced(tx, entry, 1); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, force); err != nil {
					return fmt.Errorf("the balanced entry failed its check: %w", err)
				}
				return rawLine(ctx, tx, bid, entry, 3, "CASH", "DEBIT", 1)
			})
			if pgdb.Constraint(err) != "ledger_entry_balanced" || lineCount(entry) != 0 {
				t.Fatalf("unbalancing line after %q: %v, %d lines", force, err, lineCount(entry))
			}
		})
	}
	t.Run("many entries in one statement each", func(t *testing.T) {
		entries := make([]uuid.UUID, 50)
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for i := range entries {
				entries[i] = rawEntry(ctx, t, tx, bid, fmt.Sprintf("bulk-%d", i))
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO ledger_lines (id, entry_id, business_id, line_number, account_id, direction,
				amount, entry_at, created_at)
				SELECT gen_random_uuid(), e, ?, n, CASE n WHEN 1 THEN ?::uuid ELSE ?::uuid END, CASE n WHEN 1 THEN 'DEBIT' ELSE 'CREDIT' END,
				       CASE WHEN e = ? AND n = 2 THEN 99 ELSE 100 END, now(), now()
				  FROM unnest(?::uuid[]) e, generate_series(1, 2) n`,
				bid, domain.DefaultAccountID(bid, "CASH"), domain.DefaultAccountID(bid, "SALES"), entries[37], pgdialect.Array(entries))
			return err
		})
		if pgdb.Constraint(err) != "ledger_entry_balanced" || !strings.Contains(err.Error(), entries[37].String()) {
			t.Fatalf("one unbalanced entry among 50: %v", err)
		}
		var n int
		if err := db.NewRaw("SELECT count(*) FROM ledger_entries WHERE source_id LIKE 'bulk-%'").Scan(ctx, &n); err != nil || n != 0 {
			t.Fatalf("%d entries kept (%v)", n, err)
		}
	})
}

// TestDatabaseKeepsTheJournalAppendOnly changes committed rows with raw SQL.
func TestDatabaseKeepsTheJournalAppendOnly(t *testing.T) {
	db, bid := schema(t)
	ctx := context.Background()
	post := func(source string) uuid.UUID {
		entry, err := rawPosting(ctx, t, db, bid, source)
		if err != nil {
			t.Fatal(err)
		}
		return entry
	}
	entry := post("orig")
	other := post("other")
	exec := func(query string, args ...any) error {
		_, err := db.ExecContext(ctx, query, args...)
		return err
	}
	refused := []struct {
		name  string
		query string
		args  []any
	}{
		{"update a line's amount", "UPDATE ledger_lines SET amount = 1 WHERE entry_id = ?", []any{entry}},
		{"move a line to another account", "UPDATE ledger_lines SET account_id = ? WHERE entry_id = ? AND line_number = 1",
			[]any{domain.DefaultAccountID(bid, "TIPS"), entry}},
		{"delete a line", "DELETE FROM ledger_lines WHERE entry_id = ? AND line_number = 2", []any{entry}},
		{"truncate lines", "TRUNCATE ledger_lines CASCADE", nil},
		{"delete an entry", "DELETE FROM ledger_entries WHERE id = ?", []any{entry}},
		{"truncate entries", "TRUNCATE ledger_entries CASCADE", nil},
		{"change an entry's date", "UPDATE ledger_entries SET entry_at = entry_at - interval '1 day' WHERE id = ?", []any{entry}},
		{"change an entry's memo", "UPDATE ledger_entries SET memo = 'edited' WHERE id = ?", []any{entry}},
		{"point reversal_id at an unrelated entry", "UPDATE ledger_entries SET reversal_id = ? WHERE id = ?", []any{other, entry}},
		{"set reversal_id and change more", "UPDATE ledger_entries SET reversal_id = ?, memo = 'x' WHERE id = ?", []any{other, entry}},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			err := exec(tt.query, tt.args...)
			if err == nil {
				t.Fatal("the database allowed it")
			}
			if s := pgdb.SQLState(err); s != "23001" && s != "23503" { // restrict_violation (or a FK first)
				t.Fatalf("error %v (state %s)", err, s)
			}
		})
	}
	var n int
	if err := db.NewRaw("SELECT count(*) FROM ledger_lines WHERE entry_id = ? AND amount = 100", entry).Scan(ctx, &n); err != nil || n != 2 {
		t.Fatalf("lines changed: %d %v", n, err)
	}

	// The one allowed change: recording the reversal, once.
	var reversal uuid.UUID
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		reversal = uuid.Must(uuid.NewV7())
		if _, err := tx.ExecContext(ctx, `INSERT INTO ledger_entries (id, business_id, entry_type, agent, date, entry_at,
			source_type, source_id, reversal_of_id, created_at) VALUES (?, ?, 'MANUAL', 'API', now(), now(), 'RAW', 'orig', ?, now())`,
			reversal, bid, entry); err != nil {
			return err
		}
		if err := rawLine(ctx, tx, bid, reversal, 1, "CASH", "CREDIT", 100); err != nil {
			return err
		}
		if err := rawLine(ctx, tx, bid, reversal, 2, "SALES", "DEBIT", 100); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "UPDATE ledger_entries SET reversal_id = ? WHERE business_id = ? AND id = ?", reversal, bid, entry)
		return err
	})
	if err != nil {
		t.Fatalf("recording a reversal: %v", err)
	}
	if err := exec("UPDATE ledger_entries SET reversal_id = ? WHERE id = ?", reversal, entry); err == nil {
		t.Fatal("reversal_id set twice")
	}
	if err := exec("UPDATE ledger_entries SET reversal_id = NULL WHERE id = ?", entry); err == nil {
		t.Fatal("reversal_id cleared")
	}
	// A second reversal of the same entry is refused by its unique index.
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO ledger_entries (id, business_id, entry_type, agent, date, entry_at,
			source_type, source_id, reversal_of_id, created_at) VALUES (?, ?, 'MANUAL', 'API', now(), now(), 'RAW', 'orig', ?, now())`,
			uuid.New(), bid, entry)
		return err
	})
	if !pgdb.IsUniqueViolation(err) || !strings.Contains(pgdb.Constraint(err), "reversal_of") {
		t.Fatalf("second reversal: %v", err)
	}
}

// TestSourceIndexes checks the two source rules: one entry per source
// version, one live entry per source.
func TestSourceIndexes(t *testing.T) {
	db, bid := schema(t)
	ctx := context.Background()
	insert := func(version string) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			id := uuid.Must(uuid.NewV7())
			if _, err := tx.ExecContext(ctx, `INSERT INTO ledger_entries (id, business_id, entry_type, agent, date, entry_at,
				source_type, source_id, source_version, created_at) VALUES (?, ?, 'BANK', 'API', now(), now(), 'BANK_TRANSACTION', 'tx-1', ?, now())`,
				id, bid, version); err != nil {
				return err
			}
			if err := rawLine(ctx, tx, bid, id, 1, "MEALS", "DEBIT", 100); err != nil {
				return err
			}
			return rawLine(ctx, tx, bid, id, 2, "CASH", "CREDIT", 100)
		})
	}
	if err := insert("1"); err != nil {
		t.Fatal(err)
	}
	if err := insert("1"); !pgdb.IsUniqueViolation(err) {
		t.Fatalf("same version twice: %v", err)
	}
	if err := insert("2"); !pgdb.IsUniqueViolation(err) || pgdb.Constraint(err) != "ledger_entries_source_live_key" {
		t.Fatalf("second live entry of a source: %v", err)
	}
}

// TestLedgerGuardsHoldUnderAnySearchPath writes with schema-qualified
// names from a session whose search_path is public, as a script or a
// report tool would: a balanced entry and its reversal commit, an
// unbalanced entry and an edit are still refused (the guard functions
// find their tables whatever the session's search_path).
func TestLedgerGuardsHoldUnderAnySearchPath(t *testing.T) {
	db, bid := schema(t)
	ctx := context.Background()
	inPublic := func(fn func(tx bun.Tx) error) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, "SET LOCAL search_path = public"); err != nil {
				return err
			}
			return fn(tx)
		})
	}
	entry := func(tx bun.Tx, source string, reversalOf *uuid.UUID) (uuid.UUID, error) {
		id := uuid.Must(uuid.NewV7())
		_, err := tx.ExecContext(ctx, `INSERT INTO transactions.ledger_entries (id, business_id, entry_type, agent, date,
			entry_at, source_type, source_id, reversal_of_id, created_at) VALUES (?, ?, 'MANUAL', 'API', now(), now(), 'RAW', ?, ?, now())`,
			id, bid, source, reversalOf)
		return id, err
	}
	line := func(tx bun.Tx, e uuid.UUID, n int, stable, direction string, amount int64) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO transactions.ledger_lines (id, entry_id, business_id, line_number, account_id,
			direction, amount, entry_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, now(), now())`,
			uuid.Must(uuid.NewV7()), e, bid, n, domain.DefaultAccountID(bid, stable), direction, amount)
		return err
	}
	var orig uuid.UUID
	err := inPublic(func(tx bun.Tx) error {
		var err error
		if orig, err = entry(tx, "sp", nil); err != nil {
			return err
		}
		if err := line(tx, orig, 1, "CASH", "DEBIT", 250); err != nil {
			return err
		}
		return line(tx, orig, 2, "SALES", "CREDIT", 250)
	})
	if err != nil {
		t.Fatalf("balanced entry: %v", err)
	}
	err = inPublic(func(tx bun.Tx) error {
		rev, err := entry(tx, "sp", &orig)
		if err != nil {
			return err
		}
		if err := line(tx, rev, 1, "CASH", "CREDIT", 250); err != nil {
			return err
		}
		if err := line(tx, rev, 2, "SALES", "DEBIT", 250); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "UPDATE transactions.ledger_entries SET reversal_id = ? WHERE business_id = ? AND id = ?", rev, bid, orig)
		return err
	})
	if err != nil {
		t.Fatalf("reversal: %v", err)
	}
	err = inPublic(func(tx bun.Tx) error {
		e, err := entry(tx, "sp-unbalanced", nil)
		if err != nil {
			return err
		}
		if err := line(tx, e, 1, "CASH", "DEBIT", 250); err != nil {
			return err
		}
		return line(tx, e, 2, "SALES", "CREDIT", 249)
	})
	if pgdb.SQLState(err) != "23514" { // check_violation from the balance trigger
		t.Fatalf("unbalanced entry: %v (state %s), want the balance check", err, pgdb.SQLState(err))
	}
	err = inPublic(func(tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, "UPDATE transactions.ledger_lines SET amount = 1 WHERE entry_id = ?", orig)
		return err
	})
	if pgdb.SQLState(err) != "23001" {
		t.Fatalf("edit of a line: %v (state %s), want restrict_violation", err, pgdb.SQLState(err))
	}
}

// TestBalanceOnceMigrationRoundTrip takes the journal back to per-line
// checks (the down migration: the foreign key and the per-line trigger
// return), writes an entry there, and migrates up again: the entry written
// before is closed (no created_xid), new entries post as usual.
func TestBalanceOnceMigrationRoundTrip(t *testing.T) {
	db, bid := schema(t)
	ctx := context.Background()
	run := func(direction string) {
		t.Helper()
		runMigrationFile(t, db, "migrations/20261406000001_ledger_balance_once.tx."+direction+".sql")
	}
	post := func(source string) (uuid.UUID, error) { return rawPosting(ctx, t, db, bid, source) }
	addPair := func(entry uuid.UUID) error {
		return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if err := rawLine(ctx, tx, bid, entry, 3, "CASH", "DEBIT", 5); err != nil {
				return err
			}
			return rawLine(ctx, tx, bid, entry, 4, "SALES", "CREDIT", 5)
		})
	}

	run("down")
	var fk int
	if err := db.NewRaw("SELECT count(*) FROM pg_constraint WHERE conname = 'ledger_lines_entry_fkey'").Scan(ctx, &fk); err != nil || fk != 1 {
		t.Fatalf("down: foreign key %d (%v)", fk, err)
	}
	before, err := post("before")
	if err != nil {
		t.Fatal(err)
	}
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		e := rawEntry(ctx, t, tx, bid, "unbalanced-down")
		if err := rawLine(ctx, tx, bid, e, 1, "CASH", "DEBIT", 100); err != nil {
			return err
		}
		return rawLine(ctx, tx, bid, e, 2, "SALES", "CREDIT", 99)
	})
	if pgdb.Constraint(err) != "ledger_entry_balanced" {
		t.Fatalf("down: unbalanced entry: %v", err)
	}

	run("up")
	if err := addPair(before); pgdb.Constraint(err) != "ledger_entry_balanced" {
		t.Fatalf("lines added to an entry written before the migration: %v", err)
	}
	after, err := post("after")
	if err != nil {
		t.Fatal(err)
	}
	if err := addPair(after); pgdb.Constraint(err) != "ledger_entry_balanced" {
		t.Fatalf("lines added to a committed entry: %v", err)
	}
	var n int
	if err := db.NewRaw("SELECT count(*) FROM ledger_lines WHERE entry_id IN (?, ?)", before, after).Scan(ctx, &n); err != nil || n != 4 {
		t.Fatalf("%d lines (%v)", n, err)
	}
}
