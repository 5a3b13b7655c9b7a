package archtest

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ServicesPrefix starts the module path of every service
// (services/<name>/go.mod declares ServicesPrefix + name).
const ServicesPrefix = "github.com/acctsuite/acct/services/"

// Rule is one of the import rules of the package comment.
type Rule int

const (
	RuleDomain   Rule = 1 // internal/domain imports no Fiber, Bun, kafka-go or OpenTelemetry
	RuleApp      Rule = 2 // internal/app imports no Bun or Fiber
	RuleCrossSvc Rule = 3 // a service imports no other service
	RulePkgSvc   Rule = 4 // pkg/ imports no service
	RuleToolsSvc Rule = 5 // tools/ and e2e/ import no service
	RuleHTTPPg   Rule = 6 // internal/adapters/http imports no postgres adapter
	firstRule         = RuleDomain
	lastRule          = RuleHTTPPg
)

// Rules lists every rule, in order.
func Rules() []Rule {
	var rs []Rule
	for r := firstRule; r <= lastRule; r++ {
		rs = append(rs, r)
	}
	return rs
}

func (r Rule) String() string {
	switch r {
	case RuleDomain:
		return "rule 1: a domain package (services/*/…/internal/domain) must not import Fiber, Bun, kafka-go or OpenTelemetry"
	case RuleApp:
		return "rule 2: an application package (services/*/…/internal/app) must not import Bun or Fiber"
	case RuleCrossSvc:
		return "rule 3: a service must not import another service's packages"
	case RulePkgSvc:
		return "rule 4: pkg/ must not import a service"
	case RuleToolsSvc:
		return "rule 5: tools/ and e2e/ must not import a service's packages"
	case RuleHTTPPg:
		return "rule 6: an HTTP adapter (internal/adapters/http) must not import the postgres adapter (what both need lives in app)"
	}
	return fmt.Sprintf("rule %d", int(r))
}

// Violation is one import of one file that breaks one or more rules.
type Violation struct {
	File   string // slash-separated, relative to the root
	Line   int    // of the import spec
	Import string
	Rules  []Rule
}

// Key is the violation as a line of the allow-list.
func (v Violation) Key() string { return v.File + " imports " + v.Import }

func (v Violation) String() string {
	rs := make([]string, len(v.Rules))
	for i, r := range v.Rules {
		rs[i] = r.String()
	}
	return fmt.Sprintf("%s:%d imports %s: %s", v.File, v.Line, v.Import, strings.Join(rs, "; "))
}

// Allowed is one line of the allow-list.
type Allowed struct {
	Line int // in the list file, from 1
	Key  string
}

// ParseAllowList reads an allow-list: one "<file> imports <import path>" a
// line; blank lines and lines starting with # are ignored. A malformed or
// repeated line is an error.
func ParseAllowList(r io.Reader) ([]Allowed, error) {
	var out []Allowed
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 || f[1] != "imports" {
			return nil, fmt.Errorf("line %d: %q is not \"<file> imports <import path>\"", n, line)
		}
		key := f[0] + " imports " + f[2]
		if prev, ok := seen[key]; ok {
			return nil, fmt.Errorf("line %d: %q repeats line %d", n, key, prev)
		}
		seen[key] = n
		out = append(out, Allowed{Line: n, Key: key})
	}
	return out, sc.Err()
}

// Result is what Check finds.
type Result struct {
	Files int         // production Go files read
	All   []Violation // every violation, sorted by Key
	New   []Violation // violations the allow-list does not name
	Stale []Allowed   // allow-list lines that are no longer violations
}

// Check scans the tree at root and compares it with the allow-list.
func Check(root string, allow []Allowed) (Result, error) {
	all, files, err := Scan(root)
	if err != nil {
		return Result{}, err
	}
	res := Result{Files: files, All: all}
	listed := map[string]bool{}
	for _, a := range allow {
		listed[a.Key] = true
	}
	found := map[string]bool{}
	for _, v := range all {
		found[v.Key()] = true
		if !listed[v.Key()] {
			res.New = append(res.New, v)
		}
	}
	for _, a := range allow {
		if !found[a.Key] {
			res.Stale = append(res.Stale, a)
		}
	}
	return res, nil
}

// Scan returns every violation of the tree at root, sorted by Key, and
// the number of production Go files it read.
func Scan(root string) ([]Violation, int, error) {
	mods := map[string]string{} // service name -> module path, cached
	moduleOf := func(svc string) (string, error) {
		if m, ok := mods[svc]; ok {
			return m, nil
		}
		m, err := modulePath(filepath.Join(root, "services", svc, "go.mod"))
		if err != nil {
			return "", err
		}
		if m == "" {
			m = ServicesPrefix + svc
		}
		mods[svc] = m
		return m, nil
	}
	byKey := map[string]*Violation{}
	files := 0
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") ||
			strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return fmt.Errorf("parsing %s: %w", rel, err)
		}
		files++
		for _, spec := range f.Imports {
			imp, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: import %s: %w", rel, spec.Path.Value, err)
			}
			rules, err := broken(rel, imp, moduleOf)
			if err != nil {
				return err
			}
			if len(rules) == 0 {
				continue
			}
			v := Violation{File: rel, Line: fset.Position(spec.Pos()).Line, Import: imp, Rules: rules}
			if _, dup := byKey[v.Key()]; !dup { // the same path imported twice under two names
				byKey[v.Key()] = &v
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	out := make([]Violation, 0, len(byKey))
	for _, v := range byKey {
		out = append(out, *v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out, files, nil
}

// broken returns the rules the import imp of the file rel breaks.
func broken(rel, imp string, moduleOf func(svc string) (string, error)) ([]Rule, error) {
	dir := "/" + path.Dir(rel) + "/"
	top, rest, _ := strings.Cut(rel, "/")
	var rules []Rule
	switch top {
	case "services":
		svc, _, inSvc := strings.Cut(rest, "/")
		if strings.Contains(dir, "/internal/domain/") && (isFiber(imp) || isBun(imp) || isKafkaGo(imp) || isOTel(imp)) {
			rules = append(rules, RuleDomain)
		}
		if strings.Contains(dir, "/internal/app/") && (isFiber(imp) || isBun(imp)) {
			rules = append(rules, RuleApp)
		}
		if inSvc && strings.HasPrefix(imp, ServicesPrefix) {
			own, err := moduleOf(svc)
			if err != nil {
				return nil, err
			}
			if !within(imp, own) {
				rules = append(rules, RuleCrossSvc)
			}
			if strings.Contains(dir, "/internal/adapters/http/") && within(imp, own) &&
				strings.Contains("/"+strings.TrimPrefix(imp, own)+"/", "/internal/adapters/postgres/") {
				rules = append(rules, RuleHTTPPg)
			}
		}
	case "pkg":
		if strings.HasPrefix(imp, ServicesPrefix) {
			rules = append(rules, RulePkgSvc)
		}
	case "tools", "e2e":
		if strings.HasPrefix(imp, ServicesPrefix) {
			rules = append(rules, RuleToolsSvc)
		}
	}
	return rules, nil
}

// within reports whether import path imp is mod or a package under it.
func within(imp, mod string) bool { return imp == mod || strings.HasPrefix(imp, mod+"/") }

func isFiber(imp string) bool   { return strings.HasPrefix(imp, "github.com/gofiber/") }
func isBun(imp string) bool     { return within(imp, "github.com/uptrace/bun") }
func isKafkaGo(imp string) bool { return within(imp, "github.com/segmentio/kafka-go") }
func isOTel(imp string) bool    { return strings.HasPrefix(imp, "go.opentelemetry.io/") }

// modulePath reads the module path of a go.mod file; "" when there is no
// such file.
func modulePath(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			rest = strings.TrimSpace(rest)
			if i := strings.Index(rest, "//"); i >= 0 {
				rest = strings.TrimSpace(rest[:i])
			}
			if u, err := strconv.Unquote(rest); err == nil {
				rest = u
			}
			if rest == "" {
				break
			}
			return rest, nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}
