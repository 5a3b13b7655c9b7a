package testkit

import (
	"errors"
	"net/url"
	"os"
	"strconv"
	"testing"

	"github.com/acctsuite/acct/pkg/pgcluster"
)

// EnvRequirePgBouncer, set to 1 (CI sets it), makes PgBouncer fail a test
// on a machine without pgbouncer instead of skipping it.
const EnvRequirePgBouncer = "ACCT_REQUIRE_PGBOUNCER"

// PgBouncer starts PgBouncer in transaction pooling mode in front of the
// database at dbURL (a NewDatabase URL), serving it under each entry's
// alias (BouncerDB.DBName is filled in), stopped when the test ends. Use
// its URL(alias) as a pooled DATABASE_URL. Without pgbouncer installed the
// test is skipped, or fails under ACCT_REQUIRE_PGBOUNCER=1.
func PgBouncer(t testing.TB, dbURL string, dbs ...pgcluster.BouncerDB) *pgcluster.PgBouncer {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatalf("testkit: port of %s: %v", u.Redacted(), err)
	}
	for i := range dbs {
		dbs[i].DBName = u.Path[1:]
	}
	listen, err := freePort()
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	b, err := pgcluster.StartPgBouncer(t.TempDir(), listen, u.Hostname(), port, dbs)
	if errors.Is(err, pgcluster.ErrNoPgBouncer) && os.Getenv(EnvRequirePgBouncer) != "1" {
		t.Skipf("testkit: %v (set %s=1 to fail instead)", err, EnvRequirePgBouncer)
	}
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	t.Cleanup(b.Stop)
	return b
}
