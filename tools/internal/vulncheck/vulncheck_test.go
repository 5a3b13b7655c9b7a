package vulncheck

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/fixture.json is govulncheck v1.9.0's -format json output for
// tools/internal/vulndb/testdata/vulnfixture (OSV messages cut down to id and
// summary): one called vulnerability (GO-2021-0113, language.Parse of
// golang.org/x/text v0.3.6) and 17 more in the module that are not called.
func fixture(t *testing.T) *Scan {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func accept(t *testing.T, text string) []Acceptance {
	t.Helper()
	a, err := ParseAccept(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestCalledVulnerabilityFails(t *testing.T) {
	s := fixture(t)
	if s.Config.GoVersion != "go1.26.8" || s.Config.ScanLevel != "symbol" {
		t.Fatalf("config = %+v", s.Config)
	}
	r := Evaluate(s, nil)
	if r.Failing() != 1 || len(r.Called) != 1 {
		t.Fatalf("failing = %d, called = %+v; want GO-2021-0113 only", r.Failing(), r.Called)
	}
	c := r.Called[0]
	if c.ID != "GO-2021-0113" || c.Module != "golang.org/x/text" || c.Version != "v0.3.6" || c.Fixed != "v0.3.7" {
		t.Errorf("called = %+v", c)
	}
	if r.Uncalled != 17 {
		t.Errorf("uncalled = %d, want 17", r.Uncalled)
	}
	var out bytes.Buffer
	r.Report(&out, s)
	for _, want := range []string{
		"CALLED GO-2021-0113: Out-of-bounds read in golang.org/x/text/language",
		"found in golang.org/x/text@v0.3.6, fixed in v0.3.7",
		"main.go:13:28: vulnfixture.main calls language/parse.go:33:6: language.Parse",
		"1 called vulnerabilities (0 accepted, 1 not accepted)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestAcceptanceIsScopedToTheVersion(t *testing.T) {
	s := fixture(t)
	r := Evaluate(s, accept(t, "# comment\n\nGO-2021-0113 golang.org/x/text@v0.3.6 no fix we can take yet\n"))
	if r.Failing() != 0 || r.Called[0].Accepted == nil || len(r.Stale) != 0 {
		t.Fatalf("exact acceptance: failing %d, stale %+v", r.Failing(), r.Stale)
	}
	// Another version, another id or another module does not cover the call,
	// and is reported stale.
	for _, line := range []string{
		"GO-2021-0113 golang.org/x/text@v0.3.5 old",
		"GO-2022-1059 golang.org/x/text@v0.3.6 other id",
		"GO-2021-0113 stdlib@go1.26.8 other module",
	} {
		r := Evaluate(s, accept(t, line))
		if r.Failing() != 1 || len(r.Stale) != 1 {
			t.Errorf("%q: failing %d, stale %d; want 1 and 1", line, r.Failing(), len(r.Stale))
		}
		var out bytes.Buffer
		r.Report(&out, s)
		if !strings.Contains(out.String(), "stale acceptance (line 1)") {
			t.Errorf("%q: report does not flag the stale line:\n%s", line, out.String())
		}
	}
}

func TestStandardLibraryAcceptance(t *testing.T) {
	stream := `{"config":{"scanner_version":"v1.9.0","go_version":"go1.26.8","scan_level":"symbol"}}
{"osv":{"id":"GO-2026-6600","summary":"html/template issue"}}
{"finding":{"osv":"GO-2026-6600","fixed_version":"v1.26.9","trace":[{"module":"stdlib","version":"v1.26.8","package":"html/template","function":"Execute","receiver":"*Template"},{"module":"example.com/m","package":"example.com/m/web","function":"serve","position":{"filename":"web/serve.go","line":7,"column":2}}]}}
{"finding":{"osv":"GO-2026-6600","fixed_version":"v1.26.9","trace":[{"module":"stdlib","version":"v1.26.8","package":"html/template"}]}}
`
	s, err := Parse(strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	if r := Evaluate(s, nil); r.Failing() != 1 || len(r.Called[0].Traces) != 1 || r.Uncalled != 0 {
		t.Fatalf("without acceptance: failing %d, called %+v, uncalled %d", r.Failing(), r.Called, r.Uncalled)
	}
	// go1.26.8 in the accept file matches govulncheck's v1.26.8.
	r := Evaluate(s, accept(t, "GO-2026-6600 stdlib@go1.26.8 fixed in go1.26.9"))
	if r.Failing() != 0 {
		t.Fatalf("accepted stdlib finding still fails")
	}
	var out bytes.Buffer
	r.Report(&out, s)
	if !strings.Contains(out.String(), "accepted GO-2026-6600") || !strings.Contains(out.String(), "web/serve.go:7:2: web.serve calls template.Template.Execute") {
		t.Errorf("report:\n%s", out.String())
	}
	// The toolchain moved on: the acceptance no longer applies.
	s.Findings[0].Trace[0].Version = "v1.26.9"
	if r := Evaluate(s, accept(t, "GO-2026-6600 stdlib@go1.26.8 fixed in go1.26.9")); r.Failing() != 1 {
		t.Fatal("acceptance for go1.26.8 covered a finding at another version")
	}
}

func TestParseErrors(t *testing.T) {
	for name, stream := range map[string]string{
		"no config":  `{"osv":{"id":"GO-2026-0001"}}`,
		"not json":   `govulncheck: no go.mod file`,
		"no trace":   `{"config":{"scan_level":"symbol"}} {"finding":{"osv":"GO-2026-0001"}}`,
		"truncation": `{"config":{"scan_level":"symbol"}} {"finding":`,
	} {
		if _, err := Parse(strings.NewReader(stream)); err == nil {
			t.Errorf("%s: Parse accepted %q", name, stream)
		}
	}
	for _, line := range []string{
		"GO-2026-0001 stdlib@go1.26.8",       // no reason
		"GO-2026-0001 stdlib reason",         // no version
		"CVE-2026-1 stdlib@go1.26.8 reason",  // not an OSV id of the Go database
		"GO-2026-0001, stdlib@go1.26.8 why?", // malformed
	} {
		if _, err := ParseAccept(strings.NewReader(line)); err == nil {
			t.Errorf("ParseAccept accepted %q", line)
		}
	}
}
