package vulndb

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func entry(id, modified string, affected ...string) string {
	return `{"schema_version":"1.3.1","id":"` + id + `","modified":"` + modified + `","published":"2024-01-01T00:00:00Z",` +
		`"aliases":["CVE-` + id[3:] + `"],"summary":"s","details":"d","affected":[` + strings.Join(affected, ",") + `]}`
}

func affected(module string, events ...string) string {
	return `{"package":{"name":"` + module + `","ecosystem":"Go"},"ranges":[{"type":"SEMVER","events":[` + strings.Join(events, ",") + `]}]}`
}

func writeOSV(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestLoadWriteCheck(t *testing.T) {
	const zero = "0001-01-01T00:00:00Z"
	e1 := entry("GO-2024-0001", zero,
		affected("example.com/a", `{"introduced":"0"}`, `{"fixed":"1.2.0"}`),
		affected("stdlib", `{"introduced":"0"}`, `{"fixed":"1.21.9"}`, `{"introduced":"1.22.0-0"}`, `{"fixed":"1.22.2"}`))
	// Still open after a re-introduction: no fixed version.
	e2 := entry("GO-2024-0002", "2025-03-04T05:06:07Z",
		affected("example.com/a", `{"introduced":"0"}`, `{"fixed":"1.1.0"}`, `{"introduced":"1.3.0"}`))
	osv := writeOSV(t, map[string]string{
		"GO-2024-0001.json": e1,
		"GO-2024-0002.json": e2,
		"README.md":         "ignored",
	})
	snapshot := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	db, err := Load(osv, snapshot)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	// A stale entry from an earlier build must not survive a rebuild.
	if err := os.MkdirAll(filepath.Join(out, "ID"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "ID", "GO-2000-0001.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(out); err != nil {
		t.Fatal(err)
	}
	n, err := Check(out)
	if err != nil || n != 2 {
		t.Fatalf("Check = %d, %v; want 2 entries", n, err)
	}

	var meta DBMeta
	readJSON(t, filepath.Join(out, "index", "db.json"), &meta)
	if want := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC); !meta.Modified.Equal(want) {
		t.Errorf("db.json modified = %v, want the latest entry's %v", meta.Modified, want)
	}
	var modules []Module
	readJSON(t, filepath.Join(out, "index", "modules.json"), &modules)
	want := []Module{
		{Path: "example.com/a", Vulns: []ModuleVuln{
			{ID: "GO-2024-0001", Fixed: "1.2.0"},
			{ID: "GO-2024-0002", Modified: time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)},
		}},
		{Path: "stdlib", Vulns: []ModuleVuln{{ID: "GO-2024-0001", Fixed: "1.22.2"}}},
	}
	if !reflect.DeepEqual(modules, want) {
		t.Errorf("modules.json = %+v\nwant %+v", modules, want)
	}
	var vulns []Vuln
	readJSON(t, filepath.Join(out, "index", "vulns.json"), &vulns)
	if len(vulns) != 2 || vulns[0].ID != "GO-2024-0001" || !reflect.DeepEqual(vulns[0].Aliases, []string{"CVE-2024-0001"}) {
		t.Errorf("vulns.json = %+v", vulns)
	}
	b, err := os.ReadFile(filepath.Join(out, "ID", "GO-2024-0001.json"))
	if err != nil || string(b) != e1 {
		t.Errorf("ID/GO-2024-0001.json = %q, %v; want the entry byte for byte", b, err)
	}

	// Only a snapshot time later than every entry moves db.json's time.
	db, err = Load(osv, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if got := db.Meta.Modified; !got.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("modified = %v, want the snapshot time", got)
	}
}

func TestLoadRejects(t *testing.T) {
	ok := affected("example.com/a", `{"introduced":"0"}`, `{"fixed":"1.2.0"}`)
	cases := map[string]struct {
		files map[string]string
		want  string
	}{
		"empty":        {map[string]string{"README": "x"}, "no OSV entries"},
		"not json":     {map[string]string{"GO-2024-0001.json": "{"}, "GO-2024-0001.json"},
		"wrong name":   {map[string]string{"GO-2024-0009.json": entry("GO-2024-0001", "2024-01-01T00:00:00Z", ok)}, "holds entry GO-2024-0001"},
		"bad id":       {map[string]string{"CVE-1.json": strings.Replace(entry("GO-2024-0001", "2024-01-01T00:00:00Z", ok), "GO-2024-0001", "CVE-1", 1)}, "not of the form"},
		"no affected":  {map[string]string{"GO-2024-0001.json": entry("GO-2024-0001", "2024-01-01T00:00:00Z")}, "no affected module"},
		"bad version":  {map[string]string{"GO-2024-0001.json": entry("GO-2024-0001", "2024-01-01T00:00:00Z", affected("m", `{"introduced":"0"}`, `{"fixed":"v1.2"}`))}, `invalid version "v1.2"`},
		"no name":      {map[string]string{"GO-2024-0001.json": entry("GO-2024-0001", "2024-01-01T00:00:00Z", affected("", `{"introduced":"0"}`))}, "without a name"},
		"git range":    {map[string]string{"GO-2024-0001.json": strings.Replace(entry("GO-2024-0001", "2024-01-01T00:00:00Z", ok), "SEMVER", "GIT", 1)}, `range type "GIT"`},
		"bad modified": {map[string]string{"GO-2024-0001.json": entry("GO-2024-0001", "yesterday", ok)}, "GO-2024-0001.json"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Load(writeOSV(t, c.files), time.Time{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestLatestFixed(t *testing.T) {
	r := func(events ...Event) Range { return Range{Type: "SEMVER", Events: events} }
	in, fx := func(v string) Event { return Event{Introduced: v} }, func(v string) Event { return Event{Fixed: v} }
	cases := []struct {
		ranges []Range
		want   string
	}{
		{nil, ""},
		{[]Range{r(in("0"))}, ""},
		{[]Range{r(in("0"), fx("1.0.1"))}, "1.0.1"},
		{[]Range{r(in("0"), fx("1.9.0"), in("1.10.0"), fx("1.10.2"))}, "1.10.2"},
		{[]Range{r(in("0"), fx("1.2.0")), r(in("2.0.0"), fx("2.0.3"))}, "2.0.3"},
		{[]Range{r(in("0"), fx("1.2.0"), in("1.5.0"))}, ""},
		// Semantic, not lexical, order; pre-releases and pseudo-versions.
		{[]Range{r(in("0"), fx("1.9.0"), in("1.10.0-0"), fx("1.10.0"))}, "1.10.0"},
		{[]Range{r(in("0"), fx("0.0.0-20220101000000-abcdefabcdef"))}, "0.0.0-20220101000000-abcdefabcdef"},
		{[]Range{r(in("0"), fx("1.11.0-alpha.0.0.20260225185322-738bad662b20"))}, "1.11.0-alpha.0.0.20260225185322-738bad662b20"},
	}
	for _, c := range cases {
		if got := LatestFixed(c.ranges); got != c.want {
			t.Errorf("LatestFixed(%+v) = %q, want %q", c.ranges, got, c.want)
		}
	}
}

func TestCheckDetectsIncompleteDatabase(t *testing.T) {
	osv := writeOSV(t, map[string]string{
		"GO-2024-0001.json": entry("GO-2024-0001", "2024-01-01T00:00:00Z", affected("example.com/a", `{"introduced":"0"}`)),
	})
	db, err := Load(osv, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := db.Write(out); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(out, "ID", "GO-2024-0001.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := Check(out); err == nil {
		t.Fatal("Check accepted a database whose entry file is missing")
	}
	if err := os.WriteFile(filepath.Join(out, "ID", "GO-2099-0001.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Check(out); err == nil || !strings.Contains(err.Error(), "GO-2099-0001") {
		t.Fatalf("Check error = %v, want the unindexed entry named", err)
	}
}
