// Package vulndb builds a Go vulnerability database in the v1 layout that
// `govulncheck -db file:///DIR` reads, from a folder of OSV entries such as
// data/osv of the golang.org/x/vulndb module (which the Go module proxy
// serves, so no access to vuln.go.dev is needed).
//
// The layout (https://go.dev/security/vuln/database, "API"):
//
//	index/db.json       {"modified": T}: when the database last changed
//	index/modules.json  [{"path", "vulns": [{"id", "modified", "fixed"}]}]: per module, its
//	                    entries and the version that fixes every one of its ranges ("" if none)
//	index/vulns.json    [{"id", "modified", "aliases"}]
//	ID/<id>.json        the OSV entry itself, byte for byte as read
//
// This is what x/vulndb's own cmd/indexdb writes (without the .gz twins,
// which only an HTTP server of the database needs); building it here takes
// seconds, where installing indexdb and its cloud dependencies takes minutes.
package vulndb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/semver"
)

// Entry is the part of an OSV entry the indexes need.
type Entry struct {
	ID       string     `json:"id"`
	Modified time.Time  `json:"modified"`
	Aliases  []string   `json:"aliases,omitempty"`
	Affected []Affected `json:"affected"`
}

// Affected is one affected module of an entry.
type Affected struct {
	Package struct {
		Name      string `json:"name"`
		Ecosystem string `json:"ecosystem"`
	} `json:"package"`
	Ranges []Range `json:"ranges"`
}

// Range is an OSV range; the Go database uses SEMVER ranges only.
type Range struct {
	Type   string  `json:"type"`
	Events []Event `json:"events"`
}

// Event is an OSV range event (versions without the "v" prefix).
type Event struct {
	Introduced string `json:"introduced,omitempty"`
	Fixed      string `json:"fixed,omitempty"`
}

// DBMeta is index/db.json.
type DBMeta struct {
	Modified time.Time `json:"modified"`
}

// ModuleVuln is one entry of a module in index/modules.json.
type ModuleVuln struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Fixed    string    `json:"fixed,omitempty"`
}

// Module is one element of index/modules.json.
type Module struct {
	Path  string       `json:"path"`
	Vulns []ModuleVuln `json:"vulns"`
}

// Vuln is one element of index/vulns.json.
type Vuln struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Aliases  []string  `json:"aliases,omitempty"`
}

// Database is a loaded set of entries with their raw bytes.
type Database struct {
	Meta    DBMeta
	Modules []Module
	Vulns   []Vuln
	raw     map[string][]byte // id -> entry file bytes
}

var idPattern = regexp.MustCompile(`^GO-\d{4}-\d{4,}$`)

// Load reads every <ID>.json OSV entry of dir (not recursive). Other files
// are ignored. An entry whose id does not match its file name, a duplicate
// id, an entry without affected modules or with an invalid SEMVER version is
// an error: a database that silently drops entries would hide
// vulnerabilities. modified, when later than every entry's own modified
// time, becomes the database's modified time (the x/vulndb snapshot's
// commit time; the entries of data/osv carry no times of their own).
func Load(dir string, modified time.Time) (*Database, error) {
	files, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	db := &Database{Meta: DBMeta{Modified: modified.UTC()}, raw: map[string][]byte{}}
	modules := map[string]*Module{}
	for _, f := range files {
		name := f.Name()
		if f.IsDir() || filepath.Ext(name) != ".json" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		var e Entry
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if err := validate(name, &e); err != nil {
			return nil, err
		}
		if _, dup := db.raw[e.ID]; dup {
			return nil, fmt.Errorf("%s: id %s appears twice", name, e.ID)
		}
		db.raw[e.ID] = b
		if e.Modified.After(db.Meta.Modified) {
			db.Meta.Modified = e.Modified
		}
		db.Vulns = append(db.Vulns, Vuln{ID: e.ID, Modified: e.Modified, Aliases: e.Aliases})
		for _, a := range e.Affected {
			m := modules[a.Package.Name]
			if m == nil {
				m = &Module{Path: a.Package.Name, Vulns: []ModuleVuln{}}
				modules[a.Package.Name] = m
			}
			m.Vulns = append(m.Vulns, ModuleVuln{ID: e.ID, Modified: e.Modified, Fixed: LatestFixed(a.Ranges)})
		}
	}
	if len(db.raw) == 0 {
		return nil, fmt.Errorf("%s: no OSV entries (<ID>.json)", dir)
	}
	sort.Slice(db.Vulns, func(i, j int) bool { return db.Vulns[i].ID < db.Vulns[j].ID })
	for _, m := range modules {
		sort.SliceStable(m.Vulns, func(i, j int) bool { return m.Vulns[i].ID < m.Vulns[j].ID })
		db.Modules = append(db.Modules, *m)
	}
	sort.Slice(db.Modules, func(i, j int) bool { return db.Modules[i].Path < db.Modules[j].Path })
	return db, nil
}

func validate(name string, e *Entry) error {
	if !idPattern.MatchString(e.ID) {
		return fmt.Errorf("%s: id %q is not of the form GO-YYYY-NNNN", name, e.ID)
	}
	if name != e.ID+".json" {
		return fmt.Errorf("%s: holds entry %s (file names must be <ID>.json)", name, e.ID)
	}
	if len(e.Affected) == 0 {
		return fmt.Errorf("%s: no affected module", name)
	}
	for _, a := range e.Affected {
		if a.Package.Name == "" {
			return fmt.Errorf("%s: affected module without a name", name)
		}
		for _, r := range a.Ranges {
			if r.Type != "SEMVER" {
				return fmt.Errorf("%s: %s: range type %q (only SEMVER is used by the Go database)", name, a.Package.Name, r.Type)
			}
			for _, ev := range r.Events {
				for _, v := range []string{ev.Introduced, ev.Fixed} {
					if v != "" && v != "0" && !semver.IsValid("v"+v) {
						return fmt.Errorf("%s: %s: invalid version %q", name, a.Package.Name, v)
					}
				}
			}
		}
	}
	return nil
}

// LatestFixed is the latest version fixing every range, or "" when a range
// is still open: the latest "fixed" event across ranges, unless some range
// re-introduces the vulnerability after it (same rule as x/vulndb's
// osvutils.LatestFixed, which govulncheck relies on to skip entries).
func LatestFixed(ranges []Range) string {
	var latest string
	for _, r := range ranges {
		if r.Type != "SEMVER" {
			continue
		}
		for _, e := range r.Events {
			if e.Fixed != "" && before(latest, e.Fixed) {
				latest = e.Fixed
			}
		}
		for _, e := range r.Events {
			if e.Introduced != "" && e.Introduced != "0" && before(latest, e.Introduced) {
				latest = ""
				break
			}
		}
	}
	return latest
}

// before reports v1 < v2 for OSV versions without the "v" prefix; "" sorts
// first.
func before(v1, v2 string) bool {
	if v1 == "" {
		return v2 != ""
	}
	return semver.Compare("v"+v1, "v"+v2) < 0
}

// Write writes the database into dir (created; an existing index/ or ID/ in
// it is replaced).
func (db *Database) Write(dir string) error {
	for _, sub := range []string{"index", "ID"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	for name, v := range map[string]any{"db.json": db.Meta, "modules.json": db.Modules, "vulns.json": db.Vulns} {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "index", name), b, 0o644); err != nil {
			return err
		}
	}
	for id, b := range db.raw {
		if err := os.WriteFile(filepath.Join(dir, "ID", id+".json"), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Entries is the number of OSV entries.
func (db *Database) Entries() int { return len(db.raw) }

// Check verifies that dir holds a complete database as Write leaves it: the
// three indexes decode, every id of vulns.json and modules.json has its
// entry file and every entry file is indexed. It returns the entry count.
func Check(dir string) (int, error) {
	var meta DBMeta
	var modules []Module
	var vulns []Vuln
	for name, v := range map[string]any{"db.json": &meta, "modules.json": &modules, "vulns.json": &vulns} {
		b, err := os.ReadFile(filepath.Join(dir, "index", name))
		if err != nil {
			return 0, err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return 0, fmt.Errorf("index/%s: %w", name, err)
		}
	}
	if meta.Modified.IsZero() {
		return 0, errors.New("index/db.json: no modified time")
	}
	ids := map[string]bool{}
	for _, v := range vulns {
		ids[v.ID] = true
	}
	for _, m := range modules {
		for _, v := range m.Vulns {
			if !ids[v.ID] {
				return 0, fmt.Errorf("index/modules.json: %s lists %s, absent from index/vulns.json", m.Path, v.ID)
			}
		}
	}
	files, err := os.ReadDir(filepath.Join(dir, "ID"))
	if err != nil {
		return 0, err
	}
	seen := 0
	for _, f := range files {
		id, ok := strings.CutSuffix(f.Name(), ".json")
		if !ok {
			continue
		}
		if !ids[id] {
			return 0, fmt.Errorf("ID/%s: not in index/vulns.json", f.Name())
		}
		seen++
	}
	if seen != len(ids) {
		return 0, fmt.Errorf("ID/: %d entries, index/vulns.json lists %d", seen, len(ids))
	}
	return seen, nil
}
