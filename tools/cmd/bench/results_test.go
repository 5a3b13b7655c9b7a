package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestResultRatio(t *testing.T) {
	tests := []struct {
		name   string
		r      result
		want   float64
		wantOK bool
	}{
		{"rate over its baseline", result{Value: 2000, Baseline: "COPY", BaselineValue: 40000}, 0.05, true},
		{"latency over its baseline", result{Value: 18.48, Baseline: "raw", BaselineValue: 218.73}, 18.48 / 218.73, true},
		{"no baseline", result{Value: 47.5}, 0, false},
		{"baseline named but zero", result{Value: 3, Baseline: "pgbench", BaselineValue: 0}, 0, false},
		{"baseline not finite", result{Value: 3, Baseline: "pgbench", BaselineValue: math.Inf(1)}, 0, false},
		{"value not finite", result{Value: math.NaN(), Baseline: "pgbench", BaselineValue: 3}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.r.ratio()
			if ok != tt.wantOK || math.Abs(got-tt.want) > 1e-12 {
				t.Fatalf("ratio() = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestResultVerdict(t *testing.T) {
	withBase := func(v, base float64, b ...bound) result {
		return result{Value: v, Baseline: "baseline", BaselineValue: base, Target: b}
	}
	tests := []struct {
		name string
		r    result
		want string
	}{
		// Rates: the higher the better.
		{"rate above a ratio target", withBase(30, 100, ratioAtLeast(0.25)), verdictMet},
		{"rate exactly at a ratio target", withBase(25, 100, ratioAtLeast(0.25)), verdictMet},
		{"rate under a ratio target", withBase(6, 100, ratioAtLeast(0.25)), verdictNotMet},
		// Latencies: the lower the better.
		{"latency under a ratio ceiling", withBase(18.48, 218.73, ratioAtMost(0.1)), verdictMet},
		{"latency over a ratio ceiling", withBase(26, 218.73, ratioAtMost(0.1)), verdictNotMet},
		{"both bounds hold", withBase(18.48, 218.73, absolute(atMost, 40), ratioAtMost(0.1)), verdictMet},
		{"ratio holds, absolute does not", withBase(45, 500, absolute(atMost, 40), ratioAtMost(0.1)), verdictNotMet},
		{"absolute holds, ratio does not", withBase(30, 200, absolute(atMost, 40), ratioAtMost(0.1)), verdictNotMet},
		{"margin over the baseline: within", withBase(11.74, 5.19, margin(2, 2)), verdictMet},
		{"margin over the baseline: at the limit", withBase(12.38, 5.19, margin(2, 2)), verdictMet},
		{"margin over the baseline: beyond", withBase(10.92, 3.67, margin(2, 2)), verdictNotMet},
		{"baseline plus a constant", withBase(0.5, 0.31, margin(1, 0.2)), verdictMet},
		{"baseline plus a constant, beyond", withBase(0.52, 0.31, margin(1, 0.2)), verdictNotMet},
		// A latency within a constant of the same run without a disturbance
		// (webhooks isolation: p99 within 100 ms of the run without the slow endpoint).
		{"within 100 ms of the baseline", withBase(480, 390, margin(1, 100)), verdictMet},
		{"more than 100 ms over the baseline", withBase(495, 390, margin(1, 100)), verdictNotMet},
		// Strict ceilings.
		{"strictly below: under", result{Value: 47.5, Target: []bound{absolute(below, 150)}}, verdictMet},
		{"strictly below: equal is not met", result{Value: 150, Target: []bound{absolute(below, 150)}}, verdictNotMet},
		// No target, failures, missing baselines.
		{"no target", withBase(378, 356), verdictNoTarget},
		{"no target but requests failed", result{Value: 378, Failure: "3 bills failed"}, verdictNotMet},
		{"target met but requests failed", result{Value: 30, Baseline: "b", BaselineValue: 100, Target: []bound{ratioAtLeast(0.25)}, Failure: "2 failed"}, verdictNotMet},
		{"relative target without a baseline", result{Value: 30, Target: []bound{ratioAtLeast(0.25)}}, verdictNotMet},
		{"relative target, baseline zero", withBase(30, 0, ratioAtLeast(0.25)), verdictNotMet},
		{"value not finite", withBase(math.NaN(), 100, ratioAtLeast(0.25)), verdictNotMet},
		{"absolute target needs no baseline", result{Value: 2.5, Target: []bound{absolute(atMost, 30)}}, verdictMet},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.verdict(); got != tt.want {
				t.Fatalf("verdict() = %q, want %q (%+v)", got, tt.want, tt.r)
			}
		})
	}
}

func TestTargetText(t *testing.T) {
	tests := []struct {
		name string
		r    result
		want string
	}{
		{"ratio floor", result{Target: []bound{ratioAtLeast(0.25)}}, "≥ 0.25× baseline"},
		{"absolute and ratio", result{Unit: "ms", Target: []bound{absolute(atMost, 40), ratioAtMost(0.1)}}, "≤ 40 ms and ≤ 0.1× baseline"},
		{"margin", result{Unit: "ms", Target: []bound{margin(2, 2)}}, "≤ 2× baseline + 2 ms"},
		{"baseline plus", result{Unit: "ms", Target: []bound{margin(1, 0.2)}}, "≤ baseline + 0.2 ms"},
		{"strict ceiling", result{Unit: "MB", Target: []bound{absolute(below, 150)}}, "< 150 MB"},
		{"with a note", result{Unit: "min", Target: []bound{absolute(below, 30)}, TargetNote: "minutes"}, "< 30 min (minutes)"},
		{"none", result{}, "none"},
		{"none, why", result{TargetNote: "none in the issue"}, "none (none in the issue)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.targetText(); got != tt.want {
				t.Fatalf("targetText() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{1_000_000, "1,000,000"},
		{36291.4, "36,291"},
		{-1234.6, "-1,235"},
		{999.5, "1,000"},
		{100, "100"},
		{18.48, "18.48"},
		{20, "20"},
		{1.5, "1.5"},
		{0.25, "0.25"},
		{0.0626, "0.063"},
		{0, "0"},
	}
	for _, tt := range tests {
		if got := formatNumber(tt.in); got != tt.want {
			t.Errorf("formatNumber(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := formatRatio(0.084); got != "0.084×" {
		t.Errorf("formatRatio(0.084) = %q", got)
	}
	if got := formatRatio(1.06); got != "1.06×" {
		t.Errorf("formatRatio(1.06) = %q", got)
	}
}

// fixture runs and figures for the merge and rendering tests.
var (
	runFull = runInfo{ID: "full", Date: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), Commit: "aaaaaaa",
		Machine: "2 cores", LoadStart: "1.00 1.00 1.00", Command: "bin/bench -root . -only all",
		Parts: []partRun{{Part: "gateway", DurationS: 200}, {Part: "mileage", DurationS: 70}}, DurationS: 300}
	runMileage1 = runInfo{ID: "mileage-1", Date: time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC), Commit: "bbbbbbb",
		Machine: "2 cores", LoadStart: "5.5 4 3", Command: "bin/bench -root . -only mileage",
		Parts: []partRun{{Part: "mileage", DurationS: 65}}, DurationS: 80}
	runMileage2 = runInfo{ID: "mileage-2", Date: time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC), Commit: "ccccccc",
		Machine: "2 cores", LoadStart: "2 2 2", Command: "bin/bench -root . -only mileage",
		Parts: []partRun{{Part: "mileage", DurationS: 61}}, DurationS: 75}
	runTxList = runInfo{ID: "tx-list", Date: time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC), Commit: "ddddddd",
		Parts: []partRun{{Part: "transactions", DurationS: 100}}}
)

func fig(part, section, name string, v float64) result {
	return result{Part: part, Section: section, Name: name, Unit: "ms", Value: v}
}

func TestMerge(t *testing.T) {
	full := []result{
		fig("gateway", "access logs off", "whoami", 1),
		fig("transactions", "import", "import", 2),
		fig("transactions", "listing", "page 1,001", 3),
		fig("mileage", "summary", "filter a", 4),
		fig("mileage", "summary", "filter b", 5),
	}
	base := merge(record{}, runFull, full)
	type row struct{ part, section, name, run string }
	rows := func(rec record) []row {
		var out []row
		for _, r := range rec.Results {
			out = append(out, row{r.Part, r.Section, r.Name, r.Run})
		}
		return out
	}
	runIDs := func(rec record) []string {
		var out []string
		for _, r := range rec.Runs {
			out = append(out, r.ID)
		}
		return out
	}
	tests := []struct {
		name     string
		steps    func() record
		wantRows []row
		wantRuns []string
	}{
		{
			name:  "a full run into an empty record keeps every figure, in section order",
			steps: func() record { return base },
			wantRows: []row{
				{"gateway", "access logs off", "whoami", "full"}, {"transactions", "import", "import", "full"},
				{"transactions", "listing", "page 1,001", "full"}, {"mileage", "summary", "filter a", "full"}, {"mileage", "summary", "filter b", "full"},
			},
			wantRuns: []string{"full"},
		},
		{
			name: "a partial run replaces its section's rows (even renamed or fewer) and keeps the others",
			steps: func() record {
				return merge(base, runMileage1, []result{fig("mileage", "summary", "filter a (renamed)", 9)})
			},
			wantRows: []row{
				{"gateway", "access logs off", "whoami", "full"}, {"transactions", "import", "import", "full"},
				{"transactions", "listing", "page 1,001", "full"}, {"mileage", "summary", "filter a (renamed)", "mileage-1"},
			},
			wantRuns: []string{"full", "mileage-1"},
		},
		{
			name: "a run no row refers to any more is dropped",
			steps: func() record {
				r := merge(base, runMileage1, []result{fig("mileage", "summary", "filter a", 9)})
				return merge(r, runMileage2, []result{fig("mileage", "summary", "filter a", 8)})
			},
			wantRows: []row{
				{"gateway", "access logs off", "whoami", "full"}, {"transactions", "import", "import", "full"},
				{"transactions", "listing", "page 1,001", "full"}, {"mileage", "summary", "filter a", "mileage-2"},
			},
			wantRuns: []string{"full", "mileage-2"},
		},
		{
			name: "a part run in part (-tx-parts list) replaces only the sections it measured",
			steps: func() record {
				return merge(base, runTxList, []result{fig("transactions", "listing", "page 1,001", 7)})
			},
			wantRows: []row{
				{"gateway", "access logs off", "whoami", "full"}, {"transactions", "import", "import", "full"},
				{"transactions", "listing", "page 1,001", "tx-list"}, {"mileage", "summary", "filter a", "full"}, {"mileage", "summary", "filter b", "full"},
			},
			wantRuns: []string{"full", "tx-list"},
		},
		{
			name: "an older run merged later is listed in date order",
			steps: func() record {
				r := merge(record{}, runMileage2, []result{fig("mileage", "summary", "filter a", 8)})
				return merge(r, runFull, []result{fig("gateway", "access logs off", "whoami", 1)})
			},
			wantRows: []row{{"gateway", "access logs off", "whoami", "full"}, {"mileage", "summary", "filter a", "mileage-2"}},
			wantRuns: []string{"full", "mileage-2"},
		},
		{
			name:  "a run that measured nothing changes nothing",
			steps: func() record { return merge(base, runMileage1, nil) },
			wantRows: []row{
				{"gateway", "access logs off", "whoami", "full"}, {"transactions", "import", "import", "full"},
				{"transactions", "listing", "page 1,001", "full"}, {"mileage", "summary", "filter a", "full"}, {"mileage", "summary", "filter b", "full"},
			},
			wantRuns: []string{"full"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.steps()
			if g := rows(got); !equalRows(g, tt.wantRows) {
				t.Fatalf("rows:\n got %v\nwant %v", g, tt.wantRows)
			}
			if g := runIDs(got); strings.Join(g, ",") != strings.Join(tt.wantRuns, ",") {
				t.Fatalf("runs: got %v, want %v", g, tt.wantRuns)
			}
		})
	}
}

func equalRows[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRenderMarkdown(t *testing.T) {
	rec := merge(record{}, runFull, []result{
		{Part: "reports", Section: "comparison", Name: "P&L comparison p50", Unit: "ms", Value: 18.48, Note: "p99 22.51ms",
			Baseline: "raw GROUP BY", BaselineValue: 218.73, Target: []bound{absolute(atMost, 40), ratioAtMost(0.1)}},
		{Part: "transactions", Section: "import", Name: "bulk import", Unit: "rows/s", Value: 1935, Baseline: "COPY",
			BaselineValue: 33379, Target: []bound{ratioAtLeast(0.25)}},
		{Part: "bills", Section: "create", Name: "bill creation | 32 clients", Unit: "bills/s", Value: 378, Baseline: "pgbench",
			BaselineValue: 356, TargetNote: "none in the issue", Failure: "2 bills failed"},
	})
	rec = merge(rec, runMileage1, []result{{Part: "mileage", Section: "summary", Name: "summary p50", Unit: "ms", Value: 1.37,
		Baseline: "raw GROUP BY", BaselineValue: 9.85, Target: []bound{absolute(atMost, 20), ratioAtMost(0.2)}}})
	md := renderMarkdown(rec)
	wantLines := []string{
		"| transactions | bulk import | 1,935 rows/s | COPY: 33,379 rows/s | 0.058× | ≥ 0.25× baseline | **not met** | 2026-11-20 10:00 UTC, `aaaaaaa` |",
		"| reports | P&L comparison p50 | 18.48 ms (p99 22.51ms) | raw GROUP BY: 219 ms | 0.084× | ≤ 40 ms and ≤ 0.1× baseline | **met** | 2026-11-20 10:00 UTC, `aaaaaaa` |",
		"| mileage | summary p50 | 1.37 ms | raw GROUP BY: 9.85 ms | 0.14× | ≤ 20 ms and ≤ 0.2× baseline | **met** | 2026-11-21 09:30 UTC, `bbbbbbb` |",
		`| bills | bill creation \| 32 clients | 378 bills/s; FAILED: 2 bills failed | pgbench: 356 bills/s | 1.06× | none (none in the issue) | **not met** | 2026-11-20 10:00 UTC, ` + "`aaaaaaa` |",
		"| gateway | access logs off: GET /whoami through the gateway vs nginx, access logs off: throughput, p50 at a fixed rate, proxy CPU | not measured yet (`make bench-gateway`) | – | – | – | – | – |",
		"| invoicing | payments: payment creation at 32 clients vs pgbench of the same statements (target ≥ 0.5×) | not measured yet (`make bench-invoicing`) | – | – | – | – | – |",
		"| 2026-11-20 10:00 UTC | `aaaaaaa` | 2 cores | 1.00 1.00 1.00 | `bin/bench -root . -only all` | gateway 3 min 20 s; mileage 1 min 10 s; total 5 min 00 s |",
		"| 2026-11-21 09:30 UTC | `bbbbbbb` | 2 cores | 5.5 4 3 | `bin/bench -root . -only mileage` | mileage 1 min 05 s; total 1 min 20 s |",
	}
	lines := strings.Split(md, "\n")
	index := func(want string) int {
		for i, l := range lines {
			if l == want {
				return i
			}
		}
		return -1
	}
	last := -1
	for _, want := range wantLines[:4] {
		i := index(want)
		if i < 0 {
			t.Fatalf("missing line\n%s\nin\n%s", want, md)
		}
		if i < last {
			t.Fatalf("line out of section order: %s", want)
		}
		last = i
	}
	for _, want := range wantLines[4:] {
		if index(want) < 0 {
			t.Fatalf("missing line\n%s\nin\n%s", want, md)
		}
	}
	// A section without figures says so, once; a measured one does not.
	for _, s := range sections {
		n := strings.Count(md, "| "+s.part+" | "+s.name+": "+s.what+" | not measured yet")
		measured := false
		for _, r := range rec.Results {
			measured = measured || (r.Part == s.part && r.Section == s.name)
		}
		if want := map[bool]int{true: 0, false: 1}[measured]; n != want {
			t.Errorf("section %s/%s: %d \"not measured yet\" rows, want %d", s.part, s.name, n, want)
		}
	}
	if got := renderMarkdown(record{}); !strings.Contains(got, "No run yet") || strings.Count(got, "not measured yet") != len(sections) {
		t.Errorf("empty record:\n%s", got)
	}
}

func TestWriteTable(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "docs", "benchmarks.md")
	if err := writeTable(md, runFull, []result{fig("gateway", "access logs off", "whoami", 1), fig("mileage", "summary", "a", 4)}); err != nil {
		t.Fatal(err)
	}
	if err := writeTable(md, runMileage1, []result{{Part: "mileage", Section: "summary", Name: "a", Unit: "ms", Value: 2,
		Baseline: "raw", BaselineValue: 10, Target: []bound{ratioAtMost(0.2)}}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "docs", "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"op": "<="`) {
		t.Fatalf("the JSON's targets are not readable:\n%s", data)
	}
	var rec record
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Results) != 2 || rec.Results[0].Run != "full" || rec.Results[1].Run != "mileage-1" {
		t.Fatalf("results after two runs: %+v", rec.Results)
	}
	if got := rec.Results[1]; got.Met != verdictMet || math.Abs(got.Ratio-0.2) > 1e-12 {
		t.Fatalf("derived fields: ratio %v met %q", got.Ratio, got.Met)
	}
	text, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if string(text) != renderMarkdown(rec) {
		t.Fatalf("the Markdown is not the rendering of the JSON")
	}
	// A corrupt record is an error and is left as it is.
	if err := os.WriteFile(filepath.Join(dir, "docs", "benchmarks.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeTable(md, runMileage2, []result{fig("mileage", "summary", "a", 3)}); err == nil {
		t.Fatal("a corrupt benchmarks.json was overwritten")
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "docs", "benchmarks.json")); string(data) != "{not json" {
		t.Fatalf("benchmarks.json changed: %s", data)
	}
}

func TestSelectParts(t *testing.T) {
	tests := []struct {
		only    string
		want    string
		wantErr bool
	}{
		{"all", "gateway,transactions,invoicing,reports,mileage,bills,receipts,webhooks,outbox", false},
		{"outbox", "outbox", false},
		{"receipts", "receipts", false},
		{"webhooks", "webhooks", false},
		{"reports", "reports", false},
		{"gateway", "gateway", false},
		{"", "", true},
		{"everything", "", true},
	}
	for _, tt := range tests {
		got, err := selectParts(tt.only)
		if (err != nil) != tt.wantErr || strings.Join(got, ",") != tt.want {
			t.Errorf("selectParts(%q) = %v, %v", tt.only, got, err)
		}
	}
	// Every part has at least one section in the table.
	for _, p := range benchParts {
		found := false
		for _, s := range sections {
			found = found || s.part == p
		}
		if !found {
			t.Errorf("part %s has no section", p)
		}
	}
}

func TestCommandLineAndFirstLine(t *testing.T) {
	if got := commandLine([]string{"bin/bench", "-root", ".", "-gateway-env", "GOGC=200 X=1"}); got != `bin/bench -root . -gateway-env "GOGC=200 X=1"` {
		t.Errorf("commandLine = %s", got)
	}
	if got := firstLine("pgbench: exit 1\nlots of output", 200); got != "pgbench: exit 1" {
		t.Errorf("firstLine = %q", got)
	}
	if got := firstLine("ééééé", 3); got != "ééé…" {
		t.Errorf("firstLine cut = %q", got)
	}
}

// TestGatewaySectionsKnown: the gateway part's results land in their
// sections (a name the table does not know would leave them "not
// measured yet" at the top and list the figures at the bottom).
func TestGatewaySectionsKnown(t *testing.T) {
	for _, s := range []string{"access logs off", "access logs on", "database read"} {
		if sectionIndex("gateway", s) == len(sections) {
			t.Errorf("gateway section %q is not in the table's sections", s)
		}
	}
}
