package main

// The performance summary: every part of the bench returns its figures as
// results (a figure, the baseline measured in the same run, the target);
// a run is merged into docs/benchmarks.json (the rows of the sections it
// measured replace theirs, the others are kept with the run they came
// from) and docs/benchmarks.md is rendered from it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// op is the direction of a target's bound.
type op string

const (
	atLeast op = ">=" // the figure must reach the limit (a rate)
	atMost  op = "<=" // the figure must stay at or under it (a latency)
	below   op = "<"  // strictly under it (a memory ceiling)
)

// bound is one condition of a target: value op times × baseline + plus
// (plus in the figure's unit). times 0 is an absolute limit ("<= 40 ms"),
// plus 0 a ratio to the baseline (">= 0.25×"), both a margin over it
// ("<= 2× baseline + 2 ms").
type bound struct {
	Op    op      `json:"op"`
	Times float64 `json:"times,omitempty"`
	Plus  float64 `json:"plus,omitempty"`
}

// ratioAtLeast, ratioAtMost and absolute are the usual bounds.
func ratioAtLeast(x float64) bound       { return bound{Op: atLeast, Times: x} }
func ratioAtMost(x float64) bound        { return bound{Op: atMost, Times: x} }
func absolute(o op, limit float64) bound { return bound{Op: o, Plus: limit} }
func margin(times, plus float64) bound   { return bound{Op: atMost, Times: times, Plus: plus} }
func durationMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func durationUS(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// msText is d in milliseconds as the table writes figures ("35.19 ms").
func msText(d time.Duration) string { return formatValue(durationMS(d), "ms") }

// result is one figure of a run.
type result struct {
	Part    string  `json:"part"`    // gateway, transactions, invoicing, reports, mileage, bills, receipts, webhooks, outbox
	Section string  `json:"section"` // what a partial run replaces: the rows of the sections it measured
	Name    string  `json:"name"`
	Unit    string  `json:"unit"`
	Value   float64 `json:"value"`
	Note    string  `json:"note,omitempty"` // other figures of the same measurement (p99, sizes)
	// Baseline is what the figure is compared with, measured in the same
	// run; empty when there is none.
	Baseline      string  `json:"baseline,omitempty"`
	BaselineValue float64 `json:"baseline_value,omitempty"`
	// Target: every bound must hold; none means the issue sets no target
	// (TargetNote says so, or what the figure is for).
	Target     []bound `json:"target,omitempty"`
	TargetNote string  `json:"target_note,omitempty"`
	// Failure, when set, makes the figure "not met" whatever its value
	// (requests that failed during the measurement).
	Failure string `json:"failure,omitempty"`
	// Run is the id of the run that measured it (set by merge).
	Run string `json:"run,omitempty"`
	// Ratio and Met are derived (written for readers of the JSON, recomputed
	// on load).
	Ratio float64 `json:"ratio,omitempty"`
	Met   string  `json:"met,omitempty"`
}

// ratio is the figure over its baseline, and whether there is one.
func (r result) ratio() (float64, bool) {
	if r.Baseline == "" || r.BaselineValue == 0 || !finite(r.Value) || !finite(r.BaselineValue) {
		return 0, false
	}
	return r.Value / r.BaselineValue, true
}

// Verdicts of a figure against its target.
const (
	verdictMet      = "met"
	verdictNotMet   = "not met"
	verdictNoTarget = "no target"
)

// verdict is met, not met or no target. A bound relative to a baseline the
// run did not measure cannot be met.
func (r result) verdict() string {
	if len(r.Target) == 0 {
		if r.Failure != "" {
			return verdictNotMet
		}
		return verdictNoTarget
	}
	if r.Failure != "" || !finite(r.Value) {
		return verdictNotMet
	}
	for _, b := range r.Target {
		if b.Times != 0 && (r.Baseline == "" || !finite(r.BaselineValue) || r.BaselineValue == 0) {
			return verdictNotMet
		}
		limit := b.Times*r.BaselineValue + b.Plus
		ok := false
		switch b.Op {
		case atLeast:
			ok = r.Value >= limit
		case atMost:
			ok = r.Value <= limit
		case below:
			ok = r.Value < limit
		}
		if !ok {
			return verdictNotMet
		}
	}
	return verdictMet
}

func roundTenth(x float64) float64 { return math.Round(x*10) / 10 }

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// targetText is the target as the table shows it.
func (r result) targetText() string {
	if len(r.Target) == 0 {
		if r.TargetNote != "" {
			return "none (" + r.TargetNote + ")"
		}
		return "none"
	}
	var parts []string
	for _, b := range r.Target {
		sym := map[op]string{atLeast: "≥", atMost: "≤", below: "<"}[b.Op]
		switch {
		case b.Times == 0:
			parts = append(parts, sym+" "+formatValue(b.Plus, r.Unit))
		case b.Plus == 0:
			parts = append(parts, sym+" "+formatNumber(b.Times)+"× baseline")
		case b.Times == 1:
			parts = append(parts, sym+" baseline + "+formatValue(b.Plus, r.Unit))
		default:
			parts = append(parts, sym+" "+formatNumber(b.Times)+"× baseline + "+formatValue(b.Plus, r.Unit))
		}
	}
	s := strings.Join(parts, " and ")
	if r.TargetNote != "" {
		s += " (" + r.TargetNote + ")"
	}
	return s
}

// formatNumber: thousands separated, no decimals from 100 on, two under
// 100, three under 1 (ratios and small latencies stay readable).
func formatNumber(x float64) string {
	if !finite(x) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	a := math.Abs(x)
	switch {
	case a >= 100:
		s := strconv.FormatFloat(math.Round(a), 'f', 0, 64)
		var out []byte
		for i := range s {
			if i > 0 && (len(s)-i)%3 == 0 {
				out = append(out, ',')
			}
			out = append(out, s[i])
		}
		if x < 0 {
			return "-" + string(out)
		}
		return string(out)
	case a >= 1 || a == 0:
		return trimZeros(strconv.FormatFloat(x, 'f', 2, 64))
	default:
		return trimZeros(strconv.FormatFloat(x, 'f', 3, 64))
	}
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func formatValue(x float64, unit string) string {
	if unit == "" {
		return formatNumber(x)
	}
	return formatNumber(x) + " " + unit
}

func formatRatio(x float64) string {
	if math.Abs(x) < 0.1 {
		return strconv.FormatFloat(x, 'f', 3, 64) + "×"
	}
	return strconv.FormatFloat(x, 'f', 2, 64) + "×"
}

// runInfo is one invocation of the bench.
type runInfo struct {
	ID         string    `json:"id"`
	Date       time.Time `json:"date"`
	Commit     string    `json:"commit"`
	Machine    string    `json:"machine"`
	LoadStart  string    `json:"load_average_start"`
	LoadEnd    string    `json:"load_average_end,omitempty"`
	Command    string    `json:"command"`
	Parts      []partRun `json:"parts"`
	DurationS  float64   `json:"duration_s"`
	Incomplete bool      `json:"incomplete,omitempty"` // a part failed or the run was interrupted
}

// partRun is how long one part of a run took, and its error if it failed.
type partRun struct {
	Part      string  `json:"part"`
	DurationS float64 `json:"duration_s"`
	Error     string  `json:"error,omitempty"`
}

// record is docs/benchmarks.json: the latest figure of every section with
// the runs they came from.
type record struct {
	Runs    []runInfo `json:"runs"`
	Results []result  `json:"results"`
}

// section is a part's unit of replacement, in the table's order, with
// what it measures and the make target that measures it.
type section struct{ part, name, what, make string }

// sections are every section of the suite's benchmarks, in table order;
// a section no run has measured yet appears as such in the table.
var sections = []section{
	{"gateway", "access logs off", "GET /whoami through the gateway vs nginx, access logs off: throughput, p50 at a fixed rate, proxy CPU", "make bench-gateway"},
	{"gateway", "access logs on", "the same with both proxies' access logs on", "make bench-gateway"},
	{"gateway", "database read", "GET /v1/businesses/{id} through the gateway vs auth-tokens directly", "make bench-gateway"},
	{"transactions", "import", "bulk import of 200,000 rows through the gateway vs COPY (target ≥ 0.25×)", "make bench-transactions"},
	{"transactions", "categorize", "categorize at 32 clients vs pgbench of the same statements (target ≥ 0.5×)", "make bench-transactions"},
	{"transactions", "listing", "listing over 1,000,000 rows: page 1,001 vs page 1 (p50 ≤ 1.2×, p99 < 25 ms)", "make bench-transactions"},
	{"transactions", "general ledger", "an account's lines with running balance, 1,000,000 lines: first, middle and last page of 150 vs their keyset SQL (p99 ≤ 25 ms)", "make bench-transactions"},
	{"invoicing", "listing", "invoice listing with 3 filters over 500,000 invoices vs its SQL (≤ 2× SQL + 2 ms)", "make bench-invoicing"},
	{"invoicing", "payments", "payment creation at 32 clients vs pgbench of the same statements (target ≥ 0.5×)", "make bench-invoicing"},
	{"reports", "catch-up", "catch-up of 1,000,000 ledger lines from the broker vs COPY (minutes, not 30+)", "make bench-reports"},
	{"reports", "comparison", "P&L comparison over 1,000,000 lines vs raw GROUP BY (≤ 40 ms and ≤ 0.1×)", "make bench-reports"},
	{"reports", "aging", "A/R aging over 100,000 open invoices through the gateway (≤ 100 ms)", "make bench-reports"},
	{"reports", "statements", "balance sheet over 1,000,000 lines vs raw SUM GROUP BY (≤ 20 ms and ≤ 0.05×); cash flows 12 months (≤ 40 ms), trial balance (≤ 20 ms), P&L summaries 24 months (≤ 30 ms)", "make bench-reports"},
	{"reports", "export", "CSV export of 1,000,000 rows vs COPY TO (≥ 0.5×), peak RSS (< 150 MB)", "make bench-reports"},
	{"mileage", "summary", "GET /mileage/summary over 200,000 trips vs raw GROUP BY (≤ 20 ms and ≤ 0.2×)", "make bench-mileage"},
	{"bills", "receipts", "receipts parsed per second: text PDFs vs pdftotext, OCR vs tesseract (≥ 0.8×)", "make bench-bills"},
	{"bills", "create", "bill creation at 32 clients vs pgbench of the same statements", "make bench-bills"},
	{"receipts", "accuracy", "real receipts no one here made (photographed, scanned, PDF): total, date and vendor right (targets 90%, 90%, 80%)", "make bench-receipts"},
	{"receipts", "time", "time per real receipt, one at a time, vs a bare tesseract (or pdftotext) on the same file (photographed: p50 ≤ 2×)", "make bench-receipts"},
	{"webhooks", "throughput", "deliveries per second to a local receiver from a backlog of 20,000 vs a plain net/http client posting the same signed payloads at concurrency 64 (target ≥ 0.5×)", "make bench-webhooks"},
	{"webhooks", "latency", "event-to-delivery p99 of customers created at 200/s through the gateway (target ≤ 1 s), beside the writes' own round trip", "make bench-webhooks"},
	{"webhooks", "isolation", "healthy endpoints' p99 while another endpoint answers after 10 s vs the same load without it (target ≤ baseline + 100 ms)", "make bench-webhooks"},
	{"outbox", "relay", "the outbox relay draining 500,000 events queued with stale statistics into the broker vs the Kafka writer alone (target ≥ 5,000 events/s)", "make bench-outbox"},
}

func sectionIndex(part, name string) int {
	for i, s := range sections {
		if s.part == part && s.name == name {
			return i
		}
	}
	return len(sections)
}

// merge folds a run into rec: the rows of every section the run measured
// are replaced by the run's (marked with its id), every other row is kept
// as it was; runs no row refers to any more are dropped.
func merge(rec record, run runInfo, results []result) record {
	measured := map[[2]string]bool{}
	for _, r := range results {
		measured[[2]string{r.Part, r.Section}] = true
	}
	var out record
	for _, r := range rec.Results {
		if !measured[[2]string{r.Part, r.Section}] {
			out.Results = append(out.Results, r)
		}
	}
	for _, r := range results {
		r.Run = run.ID
		out.Results = append(out.Results, r)
	}
	sort.SliceStable(out.Results, func(i, j int) bool {
		return sectionIndex(out.Results[i].Part, out.Results[i].Section) < sectionIndex(out.Results[j].Part, out.Results[j].Section)
	})
	used := map[string]bool{}
	for _, r := range out.Results {
		used[r.Run] = true
	}
	for _, ri := range append(append([]runInfo(nil), rec.Runs...), run) {
		if used[ri.ID] && !containsRun(out.Runs, ri.ID) {
			out.Runs = append(out.Runs, ri)
		}
	}
	sort.SliceStable(out.Runs, func(i, j int) bool { return out.Runs[i].Date.Before(out.Runs[j].Date) })
	return out
}

func containsRun(runs []runInfo, id string) bool {
	for _, r := range runs {
		if r.ID == id {
			return true
		}
	}
	return false
}

// loadRecord reads docs/benchmarks.json; a missing file is an empty record,
// an unreadable one an error (it is not overwritten).
func loadRecord(path string) (record, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return record{}, nil
	}
	if err != nil {
		return record{}, err
	}
	var rec record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return record{}, fmt.Errorf("%s: %w (fix or remove it; it is not overwritten)", path, err)
	}
	return rec, nil
}

// derive fills each result's ratio and verdict (for readers of the JSON).
func (rec *record) derive() {
	for i := range rec.Results {
		r := &rec.Results[i]
		r.Ratio, _ = r.ratio()
		r.Met = r.verdict()
	}
	for i := range rec.Runs {
		rec.Runs[i].DurationS = roundTenth(rec.Runs[i].DurationS)
		for j := range rec.Runs[i].Parts {
			rec.Runs[i].Parts[j].DurationS = roundTenth(rec.Runs[i].Parts[j].DurationS)
		}
	}
}

// writeTable merges run into the record next to mdPath (same name, .json)
// and writes both files (each to a temporary file renamed into place).
func writeTable(mdPath string, run runInfo, results []result) error {
	jsonPath := strings.TrimSuffix(mdPath, filepath.Ext(mdPath)) + ".json"
	rec, err := loadRecord(jsonPath)
	if err != nil {
		return err
	}
	rec = merge(rec, run, results)
	rec.derive()
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false) // "<=" stays readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(rec); err != nil {
		return err
	}
	if err := writeFileAtomic(jsonPath, data.Bytes()); err != nil {
		return err
	}
	return writeFileAtomic(mdPath, []byte(renderMarkdown(rec)))
}

func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// cell escapes a table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

func formatSeconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d >= time.Minute:
		return fmt.Sprintf("%d min %02d s", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
}

// runLabel is how a row names its run: its date and commit.
func runLabel(runs []runInfo, id string) string {
	for _, r := range runs {
		if r.ID == id {
			return r.Date.UTC().Format("2006-01-02 15:04") + " UTC, `" + r.Commit + "`"
		}
	}
	return id
}

// renderMarkdown is docs/benchmarks.md: the figures in section order (a
// section never measured says so), then the runs they came from.
func renderMarkdown(rec record) string {
	var b strings.Builder
	b.WriteString(`# Benchmarks

Written by the bench (` + "`tools/cmd/bench`" + `); do not edit by hand. ` + "`make bench`" + ` runs every part and
rewrites every row; ` + "`make bench-<part>`" + ` (` + "`bin/bench -root . -only <part>`" + `) replaces only the rows of the
sections it measured and keeps the others, so each row names the run it came from (see "Runs" below for
that run's commit, machine, load and command). The data is ` + "`docs/benchmarks.json`" + ` next to this file.

Each figure is compared with a baseline measured in the same run on the same machine (ratio = figure ÷
baseline): the machines are shared and noisy, ratios move much less than absolute figures. The targets
are the project's (see benchmarking.md beside this file for how each part measures).

`)
	b.WriteString("| part | figure | measured | baseline in the same run | ratio | target | met | run |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	byPart := map[[2]string][]result{}
	var extra []result
	for _, r := range rec.Results {
		if sectionIndex(r.Part, r.Section) == len(sections) {
			extra = append(extra, r)
			continue
		}
		k := [2]string{r.Part, r.Section}
		byPart[k] = append(byPart[k], r)
	}
	row := func(r result) {
		measured := formatValue(r.Value, r.Unit)
		if r.Note != "" {
			measured += " (" + r.Note + ")"
		}
		if r.Failure != "" {
			measured += "; FAILED: " + r.Failure
		}
		base, ratio := "–", "–"
		if r.Baseline != "" {
			base = r.Baseline + ": " + formatValue(r.BaselineValue, r.Unit)
		}
		if x, ok := r.ratio(); ok {
			ratio = formatRatio(x)
		}
		met := map[string]string{verdictMet: "**met**", verdictNotMet: "**not met**", verdictNoTarget: "–"}[r.verdict()]
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", cell(r.Part), cell(r.Name), cell(measured), cell(base),
			ratio, cell(r.targetText()), met, cell(runLabel(rec.Runs, r.Run)))
	}
	for _, s := range sections {
		rows := byPart[[2]string{s.part, s.name}]
		if len(rows) == 0 {
			fmt.Fprintf(&b, "| %s | %s: %s | not measured yet (`%s`) | – | – | – | – | – |\n", s.part, s.name, cell(s.what), s.make)
			continue
		}
		for _, r := range rows {
			row(r)
		}
	}
	for _, r := range extra {
		row(r)
	}
	b.WriteString("\n## Runs\n\n")
	if len(rec.Runs) == 0 {
		b.WriteString("No run yet: `make bench` measures every part.\n")
		return b.String()
	}
	b.WriteString("| run | commit | machine | load average at start (end) | command | duration of each part |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, r := range rec.Runs {
		var parts []string
		for _, p := range r.Parts {
			s := p.Part + " " + formatSeconds(p.DurationS)
			if p.Error != "" {
				s += " (failed: " + p.Error + ")"
			}
			parts = append(parts, s)
		}
		durations := strings.Join(parts, "; ") + "; total " + formatSeconds(r.DurationS)
		if r.Incomplete {
			durations += " (incomplete)"
		}
		load := r.LoadStart
		if r.LoadEnd != "" {
			load += " (" + r.LoadEnd + ")"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | `%s` | %s |\n", r.Date.UTC().Format("2006-01-02 15:04 UTC"), cell(r.Commit),
			cell(r.Machine), cell(load), cell(r.Command), cell(durations))
	}
	return b.String()
}
