package archtest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// plant is one file of a fake tree: the imports it has and, for each
// import that breaks a rule, that rule.
type plant struct {
	file    string
	imports []string
	want    map[string]Rule // import -> rule it breaks; absent: clean
}

const (
	bun    = "github.com/uptrace/bun"
	bunPg  = "github.com/uptrace/bun/dialect/pgdialect"
	fiber  = "github.com/gofiber/fiber/v2"
	kafka  = "github.com/segmentio/kafka-go"
	otel   = "go.opentelemetry.io/otel"
	otelTr = "go.opentelemetry.io/otel/trace"
	pkgX   = "github.com/acctsuite/acct/pkg/money"
	fooApp = "github.com/acctsuite/acct/services/foo/internal/app"
	fooDom = "github.com/acctsuite/acct/services/foo/internal/domain"
	barApp = "github.com/acctsuite/acct/services/bar/internal/app"
	barBaz = "github.com/acctsuite/acct/services/bar-baz/internal/domain"
	barMod = "github.com/acctsuite/acct/services/bar"
	fooPg  = "github.com/acctsuite/acct/services/foo/internal/adapters/postgres"
)

// plants has a planted violation of each rule and clean files next to
// them, including near misses (internal/apidocs is not internal/app,
// services/bar-baz is not services/bar, _test.go and testdata are not
// production code).
var plants = []plant{
	// Rule 1.
	{"services/foo/internal/domain/x.go", []string{"errors", pkgX, bun}, map[string]Rule{bun: RuleDomain}},
	{"services/foo/internal/domain/sub/y.go", []string{fiber, kafka, otelTr}, map[string]Rule{fiber: RuleDomain, kafka: RuleDomain, otelTr: RuleDomain}},
	{"services/foo/internal/domain/clean.go", []string{"time", pkgX}, nil},
	{"services/foo/internal/domain/x_test.go", []string{bun, fiber, barApp}, nil},
	{"services/foo/internal/domain/testdata/gen.go", []string{bun}, nil},
	// Rule 2.
	{"services/foo/internal/app/y.go", []string{"context", fooDom, fiber}, map[string]Rule{fiber: RuleApp}},
	{"services/foo/internal/app/store/z.go", []string{bunPg}, map[string]Rule{bunPg: RuleApp}},
	{"services/foo/internal/app/clean.go", []string{fooDom, kafka, otel, pkgX}, nil},
	{"services/foo/internal/apidocs/docs.go", []string{fiber}, nil},
	{"services/foo/internal/adapters/postgres/repo.go", []string{bun, fooApp, otel}, nil},
	// Rule 3.
	{"services/foo/internal/adapters/z.go", []string{fooApp, barApp}, map[string]Rule{barApp: RuleCrossSvc}},
	{"services/foo/internal/domain/w.go", []string{barMod}, map[string]Rule{barMod: RuleCrossSvc}},
	{"services/bar/internal/adapters/a.go", []string{barBaz}, map[string]Rule{barBaz: RuleCrossSvc}},
	{"services/bar-baz/internal/adapters/b.go", []string{barBaz, pkgX}, nil},
	{"services/bar/cmd/bar/main.go", []string{barApp, barMod, fiber, bun}, nil},
	// Rule 4.
	{"pkg/q/q.go", []string{"fmt", fooApp}, map[string]Rule{fooApp: RulePkgSvc}},
	{"pkg/clean/c.go", []string{pkgX, bun, fiber}, nil},
	// Rule 5.
	{"tools/t/t.go", []string{pkgX, barMod}, map[string]Rule{barMod: RuleToolsSvc}},
	{"e2e/cmd/e/main.go", []string{fooDom}, map[string]Rule{fooDom: RuleToolsSvc}},
	{"tools/clean/c.go", []string{pkgX, fiber}, nil},
	{"e2e/x_test.go", []string{fooApp}, nil},
	// Rule 6.
	{"services/foo/internal/adapters/http/h.go", []string{fooApp, fooPg, fiber}, map[string]Rule{fooPg: RuleHTTPPg}},
	{"services/foo/internal/adapters/http/sub/h.go", []string{fooPg + "/sub"}, map[string]Rule{fooPg + "/sub": RuleHTTPPg}},
	{"services/foo/internal/adapters/kafka/k.go", []string{fooPg}, nil},
	{"services/foo/internal/adapters/http/clean.go", []string{fooApp, fooDom, pkgX}, nil},
}

// writeTree writes the plants (and the go.mod of each service) under a
// new temporary directory.
func writeTree(t *testing.T, plants []plant) string {
	t.Helper()
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.work", "go 1.26\n")
	for _, s := range []string{"foo", "bar", "bar-baz"} {
		write("services/"+s+"/go.mod", "module "+ServicesPrefix+s+"\n\ngo 1.26.0\n")
	}
	for _, p := range plants {
		var b strings.Builder
		fmt.Fprintf(&b, "package %s\n\nimport (\n", filepath.Base(filepath.Dir(p.file)))
		for i, imp := range p.imports {
			fmt.Fprintf(&b, "\t_%d %q\n", i, imp)
		}
		b.WriteString(")\n")
		write(p.file, b.String())
	}
	return root
}

// TestCheckFindsPlantedViolations proves each rule can fail: every planted
// violation is reported with its file, import and rule, and nothing else
// is.
func TestCheckFindsPlantedViolations(t *testing.T) {
	root := writeTree(t, plants)
	res, err := Check(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Violation{}
	for _, v := range res.New {
		got[v.Key()] = v
	}
	wanted := map[string]bool{}
	rulesSeen := map[Rule]bool{}
	for _, p := range plants {
		t.Run(p.file, func(t *testing.T) {
			for _, imp := range p.imports {
				rule, bad := p.want[imp]
				key := p.file + " imports " + imp
				v, found := got[key]
				switch {
				case !bad && found:
					t.Errorf("clean import reported: %s", v)
				case bad && !found:
					t.Errorf("planted violation %s (%s) not reported", key, rule)
				case bad:
					if len(v.Rules) != 1 || v.Rules[0] != rule {
						t.Errorf("%s reported as %v, want only %s", key, v.Rules, rule)
					}
					msg := v.String()
					for _, s := range []string{p.file + ":", " imports " + imp + ":", fmt.Sprintf("rule %d:", rule)} {
						if !strings.Contains(msg, s) {
							t.Errorf("message %q does not name %q", msg, s)
						}
					}
				}
			}
		})
		for imp, rule := range p.want {
			if !slices.Contains(p.imports, imp) {
				t.Fatalf("plant %s: want names %s, which it does not import", p.file, imp)
			}
			wanted[p.file+" imports "+imp] = true
			rulesSeen[rule] = true
		}
	}
	for k, v := range got {
		if !wanted[k] {
			t.Errorf("reported but not planted: %s", v)
		}
	}
	for _, r := range Rules() {
		if !rulesSeen[r] {
			t.Errorf("no planted violation of %s", r)
		}
	}
	if len(res.Stale) != 0 {
		t.Errorf("stale lines with an empty allow-list: %v", res.Stale)
	}
}

// TestCheckAllowList covers the ratchet: listed violations pass, unlisted
// ones fail, and a listed line that is no longer a violation is stale.
func TestCheckAllowList(t *testing.T) {
	root := writeTree(t, plants)
	const (
		domBun   = "services/foo/internal/domain/x.go imports " + bun
		appFiber = "services/foo/internal/app/y.go imports " + fiber
		pkgSvc   = "pkg/q/q.go imports " + fooApp
	)
	all := 0
	for _, p := range plants {
		all += len(p.want)
	}
	for _, tc := range []struct {
		name      string
		list      string
		wantNew   int
		wantStale []string
		notNew    []string
	}{
		{name: "empty", list: "", wantNew: all},
		{name: "listed violations pass", list: "# header\n\n" + domBun + "\n" + appFiber + "\n", wantNew: all - 2, notNew: []string{domBun, appFiber}},
		{name: "gone file is stale", list: domBun + "\nservices/foo/internal/app/gone.go imports " + bun + "\n", wantNew: all - 1,
			wantStale: []string{"services/foo/internal/app/gone.go imports " + bun}},
		{name: "clean import is stale", list: "services/foo/internal/app/clean.go imports " + kafka + "\n" + pkgSvc + "\n", wantNew: all - 1,
			wantStale: []string{"services/foo/internal/app/clean.go imports " + kafka}},
		{name: "import not in the file is stale", list: "services/foo/internal/domain/x.go imports " + fiber + "\n", wantNew: all,
			wantStale: []string{"services/foo/internal/domain/x.go imports " + fiber}},
		{name: "test file is stale", list: "services/foo/internal/domain/x_test.go imports " + bun + "\n", wantNew: all,
			wantStale: []string{"services/foo/internal/domain/x_test.go imports " + bun}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			allow, err := ParseAllowList(strings.NewReader(tc.list))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Check(root, allow)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.New) != tc.wantNew {
				t.Errorf("%d new violations, want %d: %v", len(res.New), tc.wantNew, res.New)
			}
			for _, v := range res.New {
				for _, k := range tc.notNew {
					if v.Key() == k {
						t.Errorf("listed violation reported as new: %s", v)
					}
				}
			}
			var stale []string
			for _, a := range res.Stale {
				stale = append(stale, a.Key)
			}
			if strings.Join(stale, "\n") != strings.Join(tc.wantStale, "\n") {
				t.Errorf("stale lines %q, want %q", stale, tc.wantStale)
			}
		})
	}
}

func TestParseAllowList(t *testing.T) {
	for _, tc := range []struct {
		name, list string
		want       []Allowed
		err        string
	}{
		{name: "comments and blanks", list: "# a\n\n  # b\na.go imports x/y\n", want: []Allowed{{Line: 4, Key: "a.go imports x/y"}}},
		{name: "extra spaces", list: "a.go   imports\tx/y  \n", want: []Allowed{{Line: 1, Key: "a.go imports x/y"}}},
		{name: "no verb", list: "a.go x/y\n", err: "line 1"},
		{name: "wrong verb", list: "a.go uses x/y\n", err: "line 1"},
		{name: "trailing words", list: "# h\na.go imports x/y because\n", err: "line 2"},
		{name: "repeated", list: "a.go imports x/y\nb.go imports x/y\na.go imports x/y\n", err: "line 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseAllowList(strings.NewReader(tc.list))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
