package archtest

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const knownFile = "known_violations.txt"

// knownCeiling bounds the lines of known_violations.txt. Every rule is
// met, so the list is empty; a new rule may list its violations on the day
// it is added (raising the ceiling by their number), and they then go.
const knownCeiling = 0

// repoRoot is the repository root, two levels above this package's
// folder, checked by its go.work.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		t.Fatalf("%s is not the repository root (no go.work): %v", root, err)
	}
	return root
}

func loadKnown(t *testing.T) []Allowed {
	t.Helper()
	f, err := os.Open(knownFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	allow, err := ParseAllowList(f)
	if err != nil {
		t.Fatalf("%s: %v", knownFile, err)
	}
	return allow
}

// TestArchitecture applies the rules of the package comment to the
// repository, less the known violations.
func TestArchitecture(t *testing.T) {
	root := repoRoot(t)
	res, err := Check(root, loadKnown(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.Files < 200 {
		t.Fatalf("read only %d Go files under %s: the walk is broken", res.Files, root)
	}
	for _, v := range res.New {
		t.Errorf("%s\n\tfix the import; adding it to tools/archtest/%s is not allowed (the list only shrinks)", v, knownFile)
	}
	for _, a := range res.Stale {
		t.Errorf("tools/archtest/%s:%d: %q is no longer a violation: delete the line", knownFile, a.Line, a.Key)
	}
	per := map[Rule]int{}
	for _, v := range res.All {
		for _, r := range v.Rules {
			per[r]++
		}
	}
	t.Logf("%d production Go files; %d violations, %d of them listed in %s (rule 1: %d, rule 2: %d, rule 3: %d, rule 4: %d, rule 5: %d, rule 6: %d)",
		res.Files, len(res.All), len(res.All)-len(res.New), knownFile, per[RuleDomain], per[RuleApp], per[RuleCrossSvc], per[RulePkgSvc], per[RuleToolsSvc], per[RuleHTTPPg])
}

// TestKnownViolationsFile keeps the list tidy: a header, sorted lines, and
// no more lines than when the ratchet was set.
func TestKnownViolationsFile(t *testing.T) {
	data, err := os.ReadFile(knownFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("#")) {
		t.Errorf("%s must start with its comment header", knownFile)
	}
	allow := loadKnown(t)
	keys := make([]string, len(allow))
	for i, a := range allow {
		keys[i] = a.Key
	}
	if !sort.StringsAreSorted(keys) {
		t.Errorf("%s is not sorted: sort its lines (LC_ALL=C sort)", knownFile)
	}
	if len(allow) > knownCeiling {
		t.Errorf("%s has %d lines, more than the %d it started with: the list only shrinks, fix the import instead", knownFile, len(allow), knownCeiling)
	}
}

// TestModuleLayout checks what the rules assume of go.work and the go.mod
// files: every module of the workspace is pkg, tools, e2e or a service
// whose module path is ServicesPrefix + its folder name. A new kind of
// module needs its rules here first.
func TestModuleLayout(t *testing.T) {
	root := repoRoot(t)
	f, err := os.Open(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var uses []string
	inUse := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "use (":
			inUse = true
		case inUse && line == ")":
			inUse = false
		case inUse && line != "" && !strings.HasPrefix(line, "//"):
			uses = append(uses, line)
		case strings.HasPrefix(line, "use "):
			uses = append(uses, strings.TrimSpace(strings.TrimPrefix(line, "use ")))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"pkg":   "github.com/acctsuite/acct/pkg",
		"tools": "github.com/acctsuite/acct/tools",
		"e2e":   "github.com/acctsuite/acct/e2e",
	}
	services := 0
	for _, u := range uses {
		dir := strings.TrimPrefix(filepath.ToSlash(filepath.Clean(u)), "./")
		mod, err := modulePath(filepath.Join(root, dir, "go.mod"))
		if err != nil || mod == "" {
			t.Errorf("go.work uses %s: module path: %q, %v", u, mod, err)
			continue
		}
		if svc, ok := strings.CutPrefix(dir, "services/"); ok && !strings.Contains(svc, "/") {
			services++
			if mod != ServicesPrefix+svc {
				t.Errorf("%s/go.mod declares %s, the rules assume %s", dir, mod, ServicesPrefix+svc)
			}
			continue
		}
		w, ok := want[dir]
		if !ok {
			t.Errorf("go.work uses %s (module %s), which archtest does not know: give it its rules", u, mod)
			continue
		}
		if mod != w {
			t.Errorf("%s/go.mod declares %s, the rules assume %s", dir, mod, w)
		}
		delete(want, dir)
	}
	for dir := range want {
		t.Errorf("go.work does not use ./%s", dir)
	}
	if services < 7 {
		t.Errorf("go.work uses %d service modules, want the 7 of services/", services)
	}
}
