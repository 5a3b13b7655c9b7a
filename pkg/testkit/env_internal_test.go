package testkit

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

// TestNewDatabaseUsesTestDatabaseURL points TEST_DATABASE_URL at the
// private cluster and checks databases are made there, not elsewhere.
func TestNewDatabaseUsesTestDatabaseURL(t *testing.T) {
	admin, err := adminURL()
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", "from_env")
	u.RawQuery = q.Encode()
	t.Setenv(EnvTestDatabaseURL, u.String())

	got, err := url.Parse(NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	if got.Host != u.Host || got.Query().Get("application_name") != "from_env" || !strings.HasPrefix(got.Path, "/t_") {
		t.Fatalf("database url %s does not derive from %s", got, u)
	}
	if err := execAdmin(context.Background(), got.String(), "SELECT 1"); err != nil {
		t.Fatalf("connect: %v", err)
	}
}
