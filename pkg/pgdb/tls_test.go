package pgdb_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/testkit"
)

// TestVerifyFull connects with sslmode=verify-full against the server's
// CA, from the URL or from DB_SSLMODE/DB_SSLROOTCERT over a URL that names
// neither (CloudNativePG's Secret), and is refused with another CA.
func TestVerifyFull(t *testing.T) {
	ctx := context.Background()
	tlsURL, ca := testkit.DatabaseTLS(t)
	plainURL := strings.Split(tlsURL, "?")[0]
	encrypted := func(t *testing.T, cfg pgdb.Config) {
		t.Helper()
		db, err := pgdb.Open(ctx, cfg)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		defer db.Close()
		var ssl bool
		if err := db.QueryRowContext(ctx, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&ssl); err != nil {
			t.Fatal(err)
		}
		if !ssl {
			t.Fatal("the connection is not encrypted")
		}
	}
	t.Run("from the URL", func(t *testing.T) {
		encrypted(t, pgdb.Config{URL: tlsURL, MaxConns: 2})
	})
	t.Run("from DB_SSLMODE and DB_SSLROOTCERT", func(t *testing.T) {
		encrypted(t, pgdb.Config{URL: plainURL, SSLMode: "verify-full", SSLRootCert: ca, MaxConns: 2})
	})
	t.Run("another CA is refused", func(t *testing.T) {
		other := testkit.NewTLS(t)
		octx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		db, err := pgdb.Open(octx, pgdb.Config{URL: plainURL, SSLMode: "verify-full", SSLRootCert: other.CAFile, MaxConns: 2})
		if err == nil {
			db.Close()
			t.Fatal("connected although the server's certificate is not signed by the given CA")
		}
		if !strings.Contains(err.Error(), "certificate") {
			t.Fatalf("refusal %v does not name the certificate", err)
		}
	})
	t.Run("bad settings", func(t *testing.T) {
		for _, cfg := range []pgdb.Config{
			{URL: plainURL, SSLMode: "verify-everything", MaxConns: 1},
			{URL: plainURL, SSLMode: "verify-full", SSLRootCert: "/nonexistent/ca.pem", MaxConns: 1},
		} {
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "DB_SSL") {
				t.Errorf("Validate(%+v) = %v, want an error naming DB_SSLMODE/DB_SSLROOTCERT", cfg, err)
			}
		}
	})
}

// TestSessionTimeouts: the statement and idle-in-transaction timeouts
// reach every connection of the pool.
func TestSessionTimeouts(t *testing.T) {
	ctx := context.Background()
	db, err := pgdb.Open(ctx, pgdb.Config{URL: testkit.NewDatabase(t), MaxConns: 2,
		StatementTimeout: 1500 * time.Millisecond, IdleInTransactionTimeout: 700 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for name, want := range map[string]string{"statement_timeout": "1500ms", "idle_in_transaction_session_timeout": "700ms"} {
		var got string
		if err := db.QueryRowContext(ctx, "SELECT current_setting('"+name+"')").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	if _, err := db.ExecContext(ctx, "SELECT pg_sleep(3)"); pgdb.SQLState(err) != "57014" {
		t.Errorf("a statement past the timeout: %v, want SQLSTATE 57014 (query_canceled)", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if _, err := tx.ExecContext(ctx, "SELECT 1"); err == nil {
		t.Error("a transaction left idle past the timeout still runs statements")
	}
	_ = tx.Rollback()
}
