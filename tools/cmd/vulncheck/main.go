// Command vulncheck runs govulncheck in its default symbol-level mode over
// the given packages and fails (exit 3, as govulncheck does) when our code
// calls a vulnerable function, unless that exact finding is in the accept
// file (see tools/internal/vulncheck). It is `make vulncheck`:
//
//	vulncheck -govulncheck BIN -db URL [-accept FILE] [-C DIR] [-json OUT] PATTERN...
//
// Exit codes: 0 clean (or every call accepted), 3 a call not accepted, 1 the
// scan itself failed.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"

	"github.com/acctsuite/acct/tools/internal/vulncheck"
)

func main() {
	bin := flag.String("govulncheck", "govulncheck", "govulncheck binary")
	db := flag.String("db", "https://vuln.go.dev", "vulnerability database (file:///DIR or https://vuln.go.dev)")
	acceptFile := flag.String("accept", "", "accept file (ID MODULE@VERSION REASON per line)")
	dir := flag.String("C", "", "directory to run govulncheck in (a module of the workspace)")
	jsonOut := flag.String("json", "", "also write govulncheck's JSON stream to this file")
	flag.Parse()
	code, err := run(*bin, *db, *acceptFile, *dir, *jsonOut, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "vulncheck:", err)
	}
	os.Exit(code)
}

func run(bin, db, acceptFile, dir, jsonOut string, patterns []string) (int, error) {
	if len(patterns) == 0 {
		return 1, fmt.Errorf("no package patterns")
	}
	accept, err := vulncheck.ReadAccept(acceptFile)
	if err != nil {
		return 1, err
	}
	cmd := exec.Command(bin, append([]string{"-db", db, "-format", "json"}, patterns...)...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	// In JSON mode govulncheck exits 0 whatever it finds; non-zero is a
	// failure of the scan itself.
	if err := cmd.Run(); err != nil {
		return 1, fmt.Errorf("%s: %w", bin, err)
	}
	if jsonOut != "" {
		if err := os.WriteFile(jsonOut, out.Bytes(), 0o644); err != nil {
			return 1, err
		}
	}
	scan, err := vulncheck.Parse(&out)
	if err != nil {
		return 1, err
	}
	if scan.Config.ScanLevel != "symbol" {
		return 1, fmt.Errorf("scan level %q, want symbol", scan.Config.ScanLevel)
	}
	res := vulncheck.Evaluate(scan, accept)
	res.Report(os.Stdout, scan)
	if res.Failing() > 0 {
		return 3, nil
	}
	return 0, nil
}
