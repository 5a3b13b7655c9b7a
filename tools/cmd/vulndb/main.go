// Command vulndb builds the offline Go vulnerability database that `make
// vulncheck` hands to govulncheck (-db file:///DIR), from the OSV entries of
// a golang.org/x/vulndb snapshot fetched from the Go module proxy:
//
//	vulndb -osv $(go mod download -json golang.org/x/vulndb@VERSION → Dir)/data/osv \
//	       -version VERSION -out .cache/vulndb/VERSION
//
// -version (a pseudo-version) sets the database's modified time to the
// snapshot's commit time. The result is checked after writing; the last line
// printed is "vulndb: N entries, M modules, modified T → DIR".
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"golang.org/x/mod/module"

	"github.com/acctsuite/acct/tools/internal/vulndb"
)

func main() {
	osvDir := flag.String("osv", "", "folder of OSV entries <ID>.json (data/osv of golang.org/x/vulndb)")
	out := flag.String("out", "", "folder to write the database to")
	version := flag.String("version", "", "pseudo-version of the golang.org/x/vulndb snapshot (sets the modified time)")
	flag.Parse()
	if err := run(*osvDir, *out, *version); err != nil {
		fmt.Fprintln(os.Stderr, "vulndb:", err)
		os.Exit(1)
	}
}

func run(osvDir, out, version string) error {
	if osvDir == "" || out == "" {
		return fmt.Errorf("-osv and -out are required")
	}
	var modified time.Time
	if version != "" {
		t, err := module.PseudoVersionTime(version)
		if err != nil {
			return fmt.Errorf("-version %q: %w", version, err)
		}
		modified = t
	}
	db, err := vulndb.Load(osvDir, modified)
	if err != nil {
		return err
	}
	if err := db.Write(out); err != nil {
		return err
	}
	n, err := vulndb.Check(out)
	if err != nil {
		return fmt.Errorf("written database does not check: %w", err)
	}
	fmt.Printf("vulndb: %d entries, %d modules, modified %s → %s\n", n, len(db.Modules), db.Meta.Modified.Format(time.RFC3339), out)
	return nil
}
