package vulndb

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// govulncheckBin is the govulncheck `make vulncheck` builds (GOVULNCHECK_BIN,
// set by make), else one on PATH. Without it the test fails in CI and is
// skipped locally.
func govulncheckBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("GOVULNCHECK_BIN"); p != "" {
		return p
	}
	if p, err := exec.LookPath("govulncheck"); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("govulncheck not found: set GOVULNCHECK_BIN (make test does: `make govulncheck` builds it)")
	}
	t.Skip("govulncheck not found: run through `make test-go` or set GOVULNCHECK_BIN")
	return ""
}

// runGovulncheck scans the fixture module (which calls language.Parse of
// golang.org/x/text v0.3.6) against the database in dbDir, in govulncheck's
// default symbol-level mode, and returns its exit code and output.
func runGovulncheck(t *testing.T, bin, dbDir string) (int, string) {
	t.Helper()
	abs, err := filepath.Abs(dbDir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-db", "file://"+filepath.ToSlash(abs), "./...")
	cmd.Dir = filepath.Join("testdata", "vulnfixture")
	// The fixture is its own module, outside the workspace.
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String()
	default:
		t.Fatalf("govulncheck: %v\n%s", err, out.String())
		return 0, ""
	}
}

// TestGovulncheckReportsCalledVulnerability proves the vulncheck step can
// fail: govulncheck, reading a database this package wrote, exits 3 and names
// GO-2021-0113 for a module that calls the vulnerable function. It runs
// against a database built here from the one real entry in testdata/osv and,
// when VULNDB_DIR is set (make does), against the full offline database.
func TestGovulncheckReportsCalledVulnerability(t *testing.T) {
	bin := govulncheckBin(t)
	dbs := map[string]func(t *testing.T) string{
		"one-entry": func(t *testing.T) string {
			db, err := Load(filepath.Join("testdata", "osv"), time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := db.Write(dir); err != nil {
				t.Fatal(err)
			}
			return dir
		},
		"offline": func(t *testing.T) string {
			dir := os.Getenv("VULNDB_DIR")
			if dir == "" {
				if os.Getenv("CI") != "" {
					t.Fatal("VULNDB_DIR not set: run through `make test-go`, which builds the offline database")
				}
				t.Skip("VULNDB_DIR not set: run through `make test-go`")
			}
			if n, err := Check(dir); err != nil || n < 1000 {
				t.Fatalf("%s: %d entries, %v; want a complete database", dir, n, err)
			}
			return dir
		},
	}
	for name, build := range dbs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out := runGovulncheck(t, bin, build(t))
			if code != 3 {
				t.Fatalf("govulncheck exit code %d, want 3 (called vulnerable function):\n%s", code, out)
			}
			for _, want := range []string{"GO-2021-0113", "language.Parse", "Fixed in: golang.org/x/text@v0.3.7"} {
				if !strings.Contains(out, want) {
					t.Errorf("govulncheck output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
