package soak

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// logRecord is one line of the write log: an acknowledged write and what
// it is expected to have done.
type logRecord struct {
	At       time.Time      `json:"at"`
	Client   int            `json:"client"`
	Business string         `json:"business"`
	Kind     string         `json:"kind"`
	IDs      []string       `json:"ids"`
	Key      string         `json:"idempotency_key,omitempty"`
	Attempts int            `json:"attempts"`
	Replayed bool           `json:"retried_to_ack,omitempty"`
	Effect   map[string]any `json:"effect,omitempty"`
}

// writeLog appends records to a JSONL file.
type writeLog struct {
	mu sync.Mutex
	f  *os.File
	w  *bufio.Writer
	n  int
}

func openLog(path string) (*writeLog, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &writeLog{f: f, w: bufio.NewWriter(f)}, nil
}

func (l *writeLog) add(r logRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, _ := json.Marshal(r)
	_, _ = l.w.Write(append(b, '\n'))
	l.n++
}

func (l *writeLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.w.Flush(); err != nil {
		return err
	}
	return l.f.Close()
}

// FaultReport is one injected fault and what the checker found after it.
type FaultReport struct {
	Kind   string    `json:"kind"`   // kill9, broker_outage, postgres_restart, relay_leader_kill, receiver_downtime
	Target string    `json:"target"` // the process
	At     time.Time `json:"at"`
	// Downtime is from the fault to the process (or server) answering again.
	Downtime Duration `json:"downtime"`
	// CatchUp is from the recovery to every read model (ledger, reports)
	// agreeing with the documents again.
	CatchUp Duration `json:"catch_up"`
	// Takeover is, for a relay leader kill, how long until a standby led.
	Takeover Duration `json:"takeover,omitempty"`
	// RefusedAttempts is, for a receiver downtime, how many delivery
	// attempts the webhooks service saw refused meanwhile (to retry).
	RefusedAttempts int    `json:"refused_attempts,omitempty"`
	Note            string `json:"note,omitempty"`
	// Violations the check after the fault found.
	Violations []string `json:"violations,omitempty"`
}

// Duration marshals as seconds.
type Duration time.Duration

// MarshalJSON writes seconds with a millisecond precision.
func (d Duration) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("%.3f", time.Duration(d).Seconds())), nil
}

func (d Duration) String() string { return time.Duration(d).Round(10 * time.Millisecond).String() }

// Stats is the run's summary (also written as JSON next to the log).
type Stats struct {
	Seed         uint64   `json:"seed"`
	Duration     Duration `json:"duration"`
	Clients      int      `json:"clients"`
	Businesses   int      `json:"businesses"`
	Rate         float64  `json:"rate_per_second"`
	CatchUpBound Duration `json:"catch_up_bound"`
	UnknownBound Duration `json:"unknown_outcome_bound"`
	Log          string   `json:"log"`

	Acknowledged         map[string]int `json:"writes_acknowledged"`
	Reads                map[string]int `json:"reads"`
	Retried              map[string]int `json:"writes_retried"`
	Unknown              map[string]int `json:"unknown_outcome"`
	CutAtEnd             map[string]int `json:"cut_by_the_end_of_the_load"`
	ResolvedAcknowledged map[string]int `json:"unknown_resolved_acknowledged"`
	Unresolved           []string       `json:"unknown_unresolved"`
	Rejected             []string       `json:"writes_rejected"`
	ReadErrors           []string       `json:"read_errors"`
	Mismatches           []string       `json:"answer_mismatches"`

	Faults           []FaultReport  `json:"faults"`
	FaultsByKind     map[string]int `json:"faults_by_kind"`
	Lost             int            `json:"lost"`
	Duplicated       int            `json:"duplicated"`
	DuplicateEntries int            `json:"duplicate_journal_entries"`
	Unbalanced       int            `json:"ledger_balance_violations"`
	ARMismatches     int            `json:"ar_mismatches"`
	APMismatches     int            `json:"ap_mismatches"`
	PnLMismatches    int            `json:"pnl_mismatches"`
	DLQ              map[string]int `json:"dlq_pending"`
	MaxCatchUp       Duration       `json:"max_catch_up"`
	Webhooks         WebhookStats   `json:"webhooks"`
	Violations       []string       `json:"violations"`
}

func newStats() *Stats {
	return &Stats{Acknowledged: map[string]int{}, Reads: map[string]int{}, Retried: map[string]int{}, Unknown: map[string]int{}, CutAtEnd: map[string]int{},
		ResolvedAcknowledged: map[string]int{}, FaultsByKind: map[string]int{}, DLQ: map[string]int{}}
}

// OK reports whether the run found nothing wrong.
func (s *Stats) OK() bool { return len(s.Violations) == 0 }

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func fmtMap(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// Print writes the human summary.
func (s *Stats) Print(w io.Writer) {
	fmt.Fprintf(w, "soak summary (seed %d, %s, %d clients × %d businesses, %.1f ops/s)\n", s.Seed, s.Duration,
		s.Clients, s.Businesses/max(s.Clients, 1), s.Rate)
	fmt.Fprintf(w, "  writes acknowledged: %d (%s)\n", total(s.Acknowledged), fmtMap(s.Acknowledged))
	fmt.Fprintf(w, "  reads: %d (%s), read errors: %d\n", total(s.Reads), fmtMap(s.Reads), len(s.ReadErrors))
	fmt.Fprintf(w, "  writes retried (same Idempotency-Key): %d (%s)\n", total(s.Retried), fmtMap(s.Retried))
	fmt.Fprintf(w, "  unknown-outcome writes: %d past the %s bound (%s), %d cut by the end of the load (%s); resolved as acknowledged: %d; unresolved: %d\n",
		total(s.Unknown), s.UnknownBound, fmtMap(s.Unknown), total(s.CutAtEnd), fmtMap(s.CutAtEnd), total(s.ResolvedAcknowledged), len(s.Unresolved))
	fmt.Fprintf(w, "  writes refused: %d\n", len(s.Rejected))
	fmt.Fprintf(w, "  faults injected: %d (%s)\n", len(s.Faults), fmtMap(s.FaultsByKind))
	for _, f := range s.Faults {
		extra := ""
		if f.Takeover > 0 {
			extra = fmt.Sprintf(", standby took over in %s", f.Takeover)
		}
		if f.Note != "" {
			extra += ", " + f.Note
		}
		fmt.Fprintf(w, "    %-18s %-20s down %-8s caught up in %-8s (bound %s)%s%s\n", f.Kind, f.Target, f.Downtime, f.CatchUp,
			s.CatchUpBound, extra, map[bool]string{true: "", false: fmt.Sprintf(" — %d violations", len(f.Violations))}[len(f.Violations) == 0])
	}
	fmt.Fprintf(w, "  lost: %d, duplicated: %d, duplicate journal entries: %d\n", s.Lost, s.Duplicated, s.DuplicateEntries)
	fmt.Fprintf(w, "  ledger balance violations: %d, A/R mismatches: %d, A/P mismatches: %d, P&L mismatches: %d\n",
		s.Unbalanced, s.ARMismatches, s.APMismatches, s.PnLMismatches)
	fmt.Fprintf(w, "  DLQ pending: %s\n", fmtMap(s.DLQ))
	fmt.Fprintf(w, "  slowest read-model catch-up: %s (bound %s)\n", s.MaxCatchUp, s.CatchUpBound)
	wh := s.Webhooks
	fmt.Fprintf(w, "  webhooks (%d receivers): expected %d (%s)\n", wh.Receivers, wh.Expected, fmtMap(wh.ExpectedByType))
	fmt.Fprintf(w, "    received %d distinct webhook-ids in %d deliveries; missing %d, duplicates %d (same webhook-id again: allowed), rejected %d (bad signature), created twice %d, foreign %d; waited %s\n",
		wh.Received, wh.Deliveries, wh.Missing, wh.Duplicates, wh.Rejected, wh.CreatedTwice, wh.Foreign, wh.Waited)
	if s.OK() {
		fmt.Fprintln(w, "  result: OK — no violation")
		return
	}
	fmt.Fprintf(w, "  result: %d VIOLATIONS\n", len(s.Violations))
	for i, v := range s.Violations {
		if i == 50 {
			fmt.Fprintf(w, "    ... %d more (see the JSON summary)\n", len(s.Violations)-50)
			break
		}
		fmt.Fprintf(w, "    %s\n", v)
	}
}

// WriteJSON writes the summary as JSON.
func (s *Stats) WriteJSON(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
