package domain

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// TestAgingBucket: days past due = effective date − due date; up to 30
// (not yet due included) is current, then 31–60, 61–90, over 90; the
// bucket starts agree with the buckets (a store buckets with them).
func TestAgingBucket(t *testing.T) {
	on := day("2026-03-31")
	for _, c := range []struct {
		due  string
		want int
	}{
		{"2026-06-30", BucketCurrent}, // not yet due
		{"2026-03-31", BucketCurrent}, // due today
		{"2026-03-30", BucketCurrent}, // 1 day
		{"2026-03-01", BucketCurrent}, // 30 days
		{"2026-02-28", Bucket31To60},  // 31 days
		{"2026-01-30", Bucket31To60},  // 60 days
		{"2026-01-29", Bucket61To90},  // 61 days
		{"2025-12-31", Bucket61To90},  // 90 days
		{"2025-12-30", BucketOver90},  // 91 days
		{"2020-01-01", BucketOver90},
	} {
		if got := AgingBucket(day(c.due), on); got != c.want {
			t.Errorf("due %s on %s: bucket %d, want %d", c.due, on.Format(DateLayout), got, c.want)
		}
		starts := AgingBucketStarts(on)
		sql := BucketOver90
		for b := len(starts) - 1; b >= 0; b-- {
			if !day(c.due).Before(starts[b]) {
				sql = b
			}
		}
		if sql != c.want {
			t.Errorf("due %s: the starts bucket it %d, want %d", c.due, sql, c.want)
		}
	}
	// Across a leap day: 2024-03-31 − 30 days is 2024-03-01.
	if got := AgingBucket(day("2024-03-01"), day("2024-03-31")); got != BucketCurrent {
		t.Errorf("leap year, 30 days: %d", got)
	}
	if got := AgingBucket(day("2024-02-29"), day("2024-03-31")); got != Bucket31To60 {
		t.Errorf("leap year, 31 days: %d", got)
	}
}

// TestBuildAging: a row per party by name (unknown party, a party without
// a name shown by its id), the row "Unapplied and other" as current, the
// bold total row summing everything, rows netting to zero left out.
func TestBuildAging(t *testing.T) {
	bid := uuid.New()
	acme, zed, nameless, gone := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	lines := []AgingLine{
		{Party: &zed, PartyName: ptr("zed co"), Bucket: BucketCurrent, Amount: 100},
		{Party: &acme, PartyName: ptr("Acme"), Bucket: Bucket61To90, Amount: 250},
		{Party: &acme, PartyName: ptr("Acme"), Bucket: BucketOver90, Amount: 50},
		{Party: &nameless, Bucket: Bucket31To60, Amount: 7},
		{Party: nil, Bucket: BucketCurrent, Amount: 3},
		{Party: &gone, PartyName: ptr("Gone"), Bucket: BucketCurrent, Amount: 0},
		{Bucket: BucketOther, Amount: -40},
	}
	r := BuildAging(AgingAR, bid, lines)
	keys := []string{}
	for _, c := range r.Columns {
		keys = append(keys, c.ColumnKey)
	}
	if want := "customer current_0_30 days_31_60 days_61_90 days_90_plus total"; strings.Join(keys, " ") != want || !r.Columns[0].IsRowHeader {
		t.Fatalf("columns %v", keys)
	}
	type want struct {
		key, name string
		amounts   [5]int64
	}
	wants := []want{
		{nameless.String(), nameless.String(), [5]int64{0, 7, 0, 0, 7}},
		{acme.String(), "Acme", [5]int64{0, 0, 250, 50, 300}},
		{"unknown_customer", "Unknown customer", [5]int64{3, 0, 0, 0, 3}},
		{zed.String(), "zed co", [5]int64{100, 0, 0, 0, 100}},
		{RowUnappliedAndOther, "Unapplied and other", [5]int64{-40, 0, 0, 0, -40}},
		{"total_ar_aging", "Total", [5]int64{63, 7, 250, 50, 370}},
	}
	// Names sort case-insensitively; an id-named party sorts by its id.
	if nameless.String() > "acme" {
		wants[0], wants[1] = wants[1], wants[0]
	}
	if len(r.Rows) != len(wants) {
		t.Fatalf("%d rows: %+v", len(r.Rows), r.Rows)
	}
	for i, w := range wants {
		row := r.Rows[i]
		if row.RowKey != w.key || row.Cells["customer"].Value.Value != w.name {
			t.Fatalf("row %d: %s %v, want %s %s", i, row.RowKey, row.Cells["customer"].Value, w.key, w.name)
		}
		for j, k := range []string{"current_0_30", "days_31_60", "days_61_90", "days_90_plus", "total"} {
			c := row.Cells[k]
			if got, ok := c.Value.Cents(); !ok || got != w.amounts[j] {
				t.Fatalf("row %s %s: %v, want %d", w.key, k, c.Value, w.amounts[j])
			}
			if bold := c.Format != nil && c.Format.Bold; bold != (w.key == "total_ar_aging") {
				t.Fatalf("row %s %s bold %v", w.key, k, bold)
			}
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	_ = json.Unmarshal(b, &back)
	rows := back["rows"].([]any)
	total := rows[len(rows)-1].(map[string]any)["cells"].(map[string]any)["total"].(map[string]any)
	if v := total["value"].(map[string]any); v["type"] != "Currency" || v["value"] != float64(370) || total["format"].(map[string]any)["bold"] != true {
		t.Fatalf("total cell JSON %v", total)
	}

	// Nothing open: only the total row, of zeros.
	empty := BuildAging(AgingAP, bid, nil)
	if len(empty.Rows) != 1 || empty.Rows[0].RowKey != "total_ap_aging" || empty.Columns[0].ColumnKey != "vendor" {
		t.Fatalf("empty: %+v", empty)
	}
}

// TestAllocationMoves: an allocation leaves its document and goes to its
// payer (a vendor credit's to the VENDOR_CREDIT); a credit's own use and
// unknown kinds move nothing.
func TestAllocationMoves(t *testing.T) {
	pid, inv := uuid.New(), uuid.NewString()
	d := day("2026-03-10")
	ms := AllocationMoves("INVOICE_PAYMENT", pid, []Allocation{{Doc: DocKey{"INVOICE", inv}, Payment: pid, Day: d, Amount: 500}})
	if len(ms) != 2 || ms[0].Holder != (AgingHolder{"AR", "INVOICE", inv}) || ms[0].Amount != -500 ||
		ms[1].Holder != (AgingHolder{"AR", "INVOICE_PAYMENT", pid.String()}) || ms[1].Amount != 500 || ms[0].Day != d {
		t.Fatalf("invoice payment: %+v", ms)
	}
	ms = AllocationMoves(PaymentCreditToBills, pid, []Allocation{{Doc: DocKey{"BILL", "b"}, Payment: pid, Day: d, Amount: 70}})
	if len(ms) != 2 || ms[0].Holder != (AgingHolder{"AP", "BILL", "b"}) || ms[1].Holder != (AgingHolder{"AP", "VENDOR_CREDIT", pid.String()}) {
		t.Fatalf("credit: %+v", ms)
	}
	if ms := AllocationMoves(PaymentCreditUsed, pid, []Allocation{{Doc: DocKey{"VENDOR_CREDIT", pid.String()}, Amount: 70}}); len(ms) != 0 {
		t.Fatalf("credit used: %+v", ms)
	}
	if h := LedgerHolder(AgingAR, SourceInvoiceWriteOff, "w", map[string]string{"w": inv}); h != (AgingHolder{"AR", "INVOICE", inv}) {
		t.Fatalf("known write-off: %+v", h)
	}
	if h := LedgerHolder(AgingAR, SourceInvoiceWriteOff, "w2", map[string]string{"w": inv}); h != (AgingHolder{"AR", SourceInvoiceWriteOff, "w2"}) {
		t.Fatalf("unknown write-off: %+v", h)
	}
}

// TestParseEffectiveDate: absent is today (UTC); a date; anything else,
// empty or repeated is a 400 naming effective_date.
func TestParseEffectiveDate(t *testing.T) {
	now := time.Date(2026, 5, 1, 23, 30, 0, 0, time.FixedZone("x", -5*3600)) // 2026-05-02 UTC
	if d, err := ParseEffectiveDate(url.Values{}, now); err != nil || d != day("2026-05-02") {
		t.Fatalf("default: %v %v", d, err)
	}
	if d, err := ParseEffectiveDate(url.Values{"effective_date": {"2024-02-29"}}, now); err != nil || d != day("2024-02-29") {
		t.Fatalf("date: %v %v", d, err)
	}
	for _, v := range [][]string{{""}, {"2026-02-30"}, {"2026-1-5"}, {"2026-01-05T00:00:00Z"}, {"2026-01-05", "2026-01-06"}} {
		if _, err := ParseEffectiveDate(url.Values{"effective_date": v}, now); err == nil {
			t.Errorf("%q accepted", v)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func FuzzParseEffectiveDate(f *testing.F) {
	for _, s := range []string{"effective_date=2026-03-31", "", "effective_date=", "effective_date=2026-02-30", "effective_date=a&effective_date=b"} {
		f.Add(s)
	}
	today := time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		d, err := ParseEffectiveDate(v, today)
		if err != nil {
			if ae := apperr.From(err); ae == nil || ae.Status() != 400 {
				t.Fatalf("%q: %v", raw, err)
			}
			return
		}
		if d.Hour() != 0 || d.Location() != time.UTC || (!v.Has("effective_date") && !d.Equal(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))) {
			t.Fatalf("%q: %s", raw, d)
		}
	})
}
