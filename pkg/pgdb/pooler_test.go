package pgdb_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/pgcluster"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/testkit"
)

// TestTransactionPooler opens the suite's connections through PgBouncer in
// transaction pooling mode: a pooler given as DATABASE_URL alone is
// refused (its session settings would land on whichever server connection
// ran them), as it is as DATABASE_DIRECT_URL; with a direct URL beside it,
// the pooled connections must find the service's schema on the pooler's
// server connections, and settings they lack are reported.
func TestTransactionPooler(t *testing.T) {
	ctx := context.Background()
	direct := testkit.NewDatabase(t)
	b := testkit.PgBouncer(t, direct,
		pgcluster.BouncerDB{Alias: "ledger", ConnectQuery: "SET search_path TO ledger; SET lock_timeout TO 5000; " +
			"SET max_parallel_workers_per_gather TO 0; SET idle_in_transaction_session_timeout TO 60000"},
		pgcluster.BouncerDB{Alias: "bare"})
	base := pgdb.Config{Schema: "ledger", MaxConns: 4, LockTimeout: 5 * time.Second, IdleInTransactionTimeout: time.Minute,
		DirectMaxConns: 4}

	cases := []struct {
		name      string
		url, dURL string
		open      func(context.Context, pgdb.Config) (*bun.DB, error)
		wantErr   []string
	}{
		{"a pooler as DATABASE_URL alone", b.URL("ledger"), "", pgdb.Open,
			[]string{"DATABASE_URL", "does not keep its session", "set DATABASE_DIRECT_URL"}},
		{"a pooler as DATABASE_DIRECT_URL", b.URL("ledger"), b.URL("ledger"), pgdb.OpenSession,
			[]string{"DATABASE_DIRECT_URL", "does not keep its session"}},
		{"a pooler without the schema", b.URL("bare"), direct, pgdb.Open,
			[]string{`current schema is "public", not "ledger"`, "connect_query", "search_path"}},
		{"a direct URL", direct, "", pgdb.Open, nil},
		{"a direct URL for sessions", b.URL("ledger"), direct, pgdb.OpenSession, nil},
		{"the pooler with the schema", b.URL("ledger"), direct, pgdb.Open, nil},
	}
	// The schema exists (a service's session connections create it first).
	if db, err := pgdb.OpenSession(ctx, pgdb.Config{URL: direct, Schema: "ledger"}); err != nil {
		t.Fatal(err)
	} else {
		db.Close()
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := base
			cfg.URL, cfg.DirectURL = c.url, c.dURL
			db, err := c.open(ctx, cfg)
			if c.wantErr == nil {
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				defer db.Close()
				if err := pgdb.CheckSchema(ctx, db, "ledger"); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				db.Close()
				t.Fatal("opened, want an error")
			}
			for _, w := range c.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}

	t.Run("drift", func(t *testing.T) {
		cfg := base
		cfg.URL, cfg.DirectURL = b.URL("ledger"), direct
		cfg.StatementTimeout = 30 * time.Second // the pooler does not set it
		db, err := pgdb.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		drift, err := pgdb.PoolerDrift(ctx, db, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(drift) != 1 || drift[0] != "statement_timeout: have 0, want 30000" {
			t.Fatalf("drift = %q, want only statement_timeout", drift)
		}
		// Transactions work through the pooler, in the schema.
		if _, err := db.ExecContext(ctx, "CREATE TABLE t (n int)"); err != nil {
			t.Fatal(err)
		}
		if err := pgdb.InTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (1), (2)")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM ledger.t").Scan(&n); err != nil || n != 2 {
			t.Fatalf("rows = %d, %v; want 2", n, err)
		}
	})
}
