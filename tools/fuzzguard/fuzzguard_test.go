package fuzzguard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exempt are parsers that need no fuzz target, each with its reason. Keep
// it short: a parser of untrusted input never belongs here.
var exempt = map[string]string{
	"github.com/acctsuite/acct/pkg/secretbox.ParseKey":                                     "operator configuration (an environment variable read at start), never request or event input",
	"github.com/acctsuite/acct/pkg/telemetry.ParseLevel":                                   "operator configuration (LOG_LEVEL read at start), never request or event input",
	"github.com/acctsuite/acct/pkg/storage.parseBaseURL":                                   "operator configuration (the storage base URL read at start), never request or event input",
	"github.com/acctsuite/acct/pkg/storage.decodeHeader":                                   "reads the header the filesystem store itself wrote next to each object, never client bytes",
	"github.com/acctsuite/acct/services/auth-tokens/internal/signing.ParseEncryptionKey":   "operator configuration (the signing-key encryption key read at start), never request or event input",
	"github.com/acctsuite/acct/services/transactions/internal/acctsync.ParseEncryptionKey": "operator configuration (the provider-token encryption key read at start), never request or event input",
}

func scan(t *testing.T) Report {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestEveryParserHasAFuzzTarget fails naming each parser (see the package
// comment for the rule) that no Fuzz* target reaches.
func TestEveryParserHasAFuzzTarget(t *testing.T) {
	rep := scan(t)
	if len(rep.Parsers) < 50 || len(rep.Targets) < 40 {
		t.Fatalf("scan found %d parsers and %d fuzz targets: the walk or the rule is broken", len(rep.Parsers), len(rep.Targets))
	}
	used := map[string]bool{}
	for _, p := range rep.Parsers {
		if reason, ok := exempt[p.Key]; ok {
			used[p.Key] = true
			if len(p.Targets) > 0 {
				t.Errorf("%s (%s) is exempt (%s) but fuzz target %s reaches it: drop the exemption", p.Key, p.Pos, reason, p.Targets[0])
			}
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("%s (%s) parses untrusted input but no Fuzz* target calls it: add one next to it (docs/fuzzing.md)", p.Key, p.Pos)
		}
	}
	for k := range exempt {
		if !used[k] {
			t.Errorf("exemption %s names no parser any more: remove it", k)
		}
	}
	t.Logf("%d parsers, %d fuzz targets", len(rep.Parsers), len(rep.Targets))
}

// TestRuleFindsKnownParsers keeps the rule honest: parsers of each kind
// (JSON body, query string, multipart, event envelope, fiber body binding,
// provider answer) must be found, and a non-parser must not.
func TestRuleFindsKnownParsers(t *testing.T) {
	rep := scan(t)
	found := map[string]bool{}
	for _, p := range rep.Parsers {
		found[p.Key] = true
	}
	for _, k := range []string{
		"github.com/acctsuite/acct/pkg/httpx.DecodeJSON",
		"github.com/acctsuite/acct/pkg/httpx.BindJSON",
		"github.com/acctsuite/acct/pkg/page.Parse",
		"github.com/acctsuite/acct/pkg/events.FromMessage",
		"github.com/acctsuite/acct/pkg/events.Event.Decode",
		"github.com/acctsuite/acct/services/transactions/internal/domain/banking.ParseRecordRequest",
		"github.com/acctsuite/acct/services/transactions/internal/acctsync/qbo.ParseAccountsPage",
		"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice.ParseInvoice",
	} {
		if !found[k] {
			t.Errorf("the rule no longer finds %s", k)
		}
	}
	for _, k := range []string{
		"github.com/acctsuite/acct/pkg/httpx.JSONBody", // a reader of raw bytes, not a parser
		"github.com/acctsuite/acct/services/auth-tokens/internal/domain.Opt.UnmarshalJSON",
	} {
		if found[k] {
			t.Errorf("the rule counts %s as a parser", k)
		}
	}
}

// TestPrintTable writes the parser → target table of docs/fuzzing.md when
// FUZZGUARD_TABLE names a file.
func TestPrintTable(t *testing.T) {
	out := os.Getenv("FUZZGUARD_TABLE")
	if out == "" {
		t.Skip("set FUZZGUARD_TABLE=path to write the table")
	}
	rep := scan(t)
	var b strings.Builder
	fmt.Fprintf(&b, "| Parser | Where | Fuzz targets reaching it |\n|---|---|---|\n")
	for _, p := range rep.Parsers {
		name := strings.TrimPrefix(p.Key, "github.com/acctsuite/acct/")
		ts := make([]string, 0, 3)
		for i, tg := range p.Targets {
			if i == 3 {
				ts = append(ts, fmt.Sprintf("… %d more", len(p.Targets)-3))
				break
			}
			ts = append(ts, "`"+tg[strings.LastIndex(tg, "/")+1:]+"`")
		}
		if reason, ok := exempt[p.Key]; ok {
			ts = []string{"exempt: " + reason}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, p.Pos, strings.Join(ts, ", "))
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
