// Package vulncheck reads govulncheck's JSON stream (-format json) and
// decides the outcome of `make vulncheck` the way govulncheck's default
// symbol-level mode does (exit 3 when the code calls a vulnerable function),
// except for findings listed in an accept file: each line names an OSV id and
// the exact module version it is accepted for, with the reason, e.g.
//
//	GO-2026-6617 stdlib@go1.26.8 fixed in go1.26.9, which this machine cannot install; go1.27.3 fixes it
//
// An acceptance covers only that id at that version: once the toolchain or
// the module is upgraded it no longer matches anything, and it is reported as
// stale so it can be deleted.
package vulncheck

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// Config is govulncheck's config message.
type Config struct {
	ScannerVersion string `json:"scanner_version"`
	DB             string `json:"db"`
	DBLastModified string `json:"db_last_modified"`
	GoVersion      string `json:"go_version"`
	ScanLevel      string `json:"scan_level"`
}

// Frame is one frame of a finding's trace; the first is the vulnerable
// symbol (Function empty when the finding is only at package or module
// level), the last the entry point in our code.
type Frame struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Package  string `json:"package"`
	Function string `json:"function"`
	Receiver string `json:"receiver"`
	Position *struct {
		Filename string `json:"filename"`
		Line     int    `json:"line"`
		Column   int    `json:"column"`
	} `json:"position"`
}

// Finding is govulncheck's finding message.
type Finding struct {
	OSV          string   `json:"osv"`
	FixedVersion string   `json:"fixed_version"`
	Trace        []*Frame `json:"trace"`
}

// OSV is the part of an OSV entry the report prints.
type OSV struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
}

type message struct {
	Config  *Config  `json:"config"`
	OSV     *OSV     `json:"osv"`
	Finding *Finding `json:"finding"`
}

// Scan is a decoded govulncheck JSON stream.
type Scan struct {
	Config   Config
	Summary  map[string]string // OSV id -> summary
	Findings []*Finding
}

// Parse decodes a govulncheck -format json stream (a sequence of JSON
// objects).
func Parse(r io.Reader) (*Scan, error) {
	s := &Scan{Summary: map[string]string{}}
	dec := json.NewDecoder(r)
	sawConfig := false
	for {
		var m message
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("govulncheck output: %w", err)
		}
		switch {
		case m.Config != nil:
			s.Config, sawConfig = *m.Config, true
		case m.OSV != nil:
			s.Summary[m.OSV.ID] = m.OSV.Summary
		case m.Finding != nil:
			if len(m.Finding.Trace) == 0 {
				return nil, fmt.Errorf("govulncheck output: finding %s without a trace", m.Finding.OSV)
			}
			s.Findings = append(s.Findings, m.Finding)
		}
	}
	if !sawConfig {
		return nil, errors.New("govulncheck output: no config message (not a govulncheck JSON stream?)")
	}
	return s, nil
}

// Acceptance is one line of the accept file.
type Acceptance struct {
	ID, Module, Version, Reason string
	Line                        int
}

var acceptLine = regexp.MustCompile(`^(GO-\d{4}-\d{4,})\s+(\S+)@(\S+)\s+(\S.*)$`)

// ParseAccept reads an accept file: "ID MODULE@VERSION REASON" per line;
// blank lines and lines starting with # are ignored. A reason is required.
func ParseAccept(r io.Reader) ([]Acceptance, error) {
	var out []Acceptance
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := acceptLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("line %d: %q: want \"GO-YYYY-NNNN MODULE@VERSION REASON\"", n, line)
		}
		out = append(out, Acceptance{ID: m[1], Module: m[2], Version: m[3], Reason: m[4], Line: n})
	}
	return out, sc.Err()
}

// ReadAccept is ParseAccept of a file; "" means no acceptances.
func ReadAccept(path string) ([]Acceptance, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := ParseAccept(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// Called is one vulnerability our code calls, with every finding of it.
type Called struct {
	ID, Summary     string
	Module, Version string // of the vulnerable symbol
	Fixed           string
	Traces          []*Finding
	Accepted        *Acceptance
}

// Result is the outcome of a scan.
type Result struct {
	Called []*Called // sorted by id
	// Imported counts vulnerabilities whose package is imported or module
	// required but whose vulnerable symbols are not called (not failing).
	Uncalled int
	Stale    []Acceptance // acceptances that matched no finding
}

// Failing is the number of called vulnerabilities not accepted.
func (r *Result) Failing() int {
	n := 0
	for _, c := range r.Called {
		if c.Accepted == nil {
			n++
		}
	}
	return n
}

// normVersion makes "go1.26.8" and "v1.26.8" comparable.
func normVersion(v string) string {
	return strings.TrimPrefix(strings.TrimPrefix(v, "go"), "v")
}

// Evaluate groups the symbol-level findings (the trace starts at a function)
// by OSV id and applies the acceptances.
func Evaluate(s *Scan, accept []Acceptance) *Result {
	called := map[string]*Called{}
	uncalled := map[string]bool{}
	for _, f := range s.Findings {
		top := f.Trace[0]
		if top.Function == "" {
			uncalled[f.OSV] = true
			continue
		}
		key := f.OSV + " " + top.Module + "@" + top.Version
		c := called[key]
		if c == nil {
			c = &Called{ID: f.OSV, Summary: s.Summary[f.OSV], Module: top.Module, Version: top.Version, Fixed: f.FixedVersion}
			called[key] = c
		}
		c.Traces = append(c.Traces, f)
	}
	r := &Result{}
	used := make([]bool, len(accept))
	for _, c := range called {
		delete(uncalled, c.ID)
		for i, a := range accept {
			if a.ID == c.ID && a.Module == c.Module && normVersion(a.Version) == normVersion(c.Version) {
				c.Accepted, used[i] = &accept[i], true
				break
			}
		}
		r.Called = append(r.Called, c)
	}
	sort.Slice(r.Called, func(i, j int) bool {
		if r.Called[i].ID != r.Called[j].ID {
			return r.Called[i].ID < r.Called[j].ID
		}
		return r.Called[i].Module < r.Called[j].Module
	})
	r.Uncalled = len(uncalled)
	for i, a := range accept {
		if !used[i] {
			r.Stale = append(r.Stale, a)
		}
	}
	return r
}

func (f *Frame) String() string {
	name := f.Function
	if f.Receiver != "" {
		name = strings.TrimPrefix(f.Receiver, "*") + "." + name
	}
	pkg := f.Package
	if i := strings.LastIndex(pkg, "/"); i >= 0 {
		pkg = pkg[i+1:]
	}
	s := pkg + "." + name
	if f.Position != nil && f.Position.Filename != "" {
		s = fmt.Sprintf("%s:%d:%d: %s", f.Position.Filename, f.Position.Line, f.Position.Column, s)
	}
	return s
}

// Report writes a readable account of r: every called vulnerability with an
// example trace, accepted or not, and the stale acceptances.
func (r *Result) Report(w io.Writer, s *Scan) {
	c := s.Config
	fmt.Fprintf(w, "govulncheck %s (%s level), %s, database %s (modified %s)\n", c.ScannerVersion, c.ScanLevel, c.GoVersion, c.DB, c.DBLastModified)
	for _, v := range r.Called {
		status := "CALLED"
		if v.Accepted != nil {
			status = "accepted"
		}
		fixed := v.Fixed
		if fixed == "" {
			fixed = "no fix yet"
		}
		fmt.Fprintf(w, "%s %s: %s\n    found in %s@%s, fixed in %s\n", status, v.ID, v.Summary, v.Module, v.Version, fixed)
		if v.Accepted != nil {
			fmt.Fprintf(w, "    accepted (accept file line %d): %s\n", v.Accepted.Line, v.Accepted.Reason)
		}
		t := v.Traces[0].Trace
		fmt.Fprintf(w, "    e.g. %s calls %s (%d trace(s))\n", t[len(t)-1], t[0], len(v.Traces))
	}
	for _, a := range r.Stale {
		fmt.Fprintf(w, "stale acceptance (line %d): %s %s@%s no longer found: delete it\n", a.Line, a.ID, a.Module, a.Version)
	}
	fmt.Fprintf(w, "%d called vulnerabilities (%d accepted, %d not accepted); %d more in imported packages or required modules but not called\n",
		len(r.Called), len(r.Called)-r.Failing(), r.Failing(), r.Uncalled)
}
