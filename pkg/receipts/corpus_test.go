package receipts

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/acctsuite/acct/pkg/money"
)

// corpusDir holds the receipts written by tools/receiptgen and their
// ground truth (go run ./tools/receiptgen -out pkg/receipts/testdata/corpus).
const corpusDir = "testdata/corpus"

// corpusNow is the "now" of the corpus: after every receipt's date.
var corpusNow = time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)

// The thresholds: the accuracy test fails below them.
const (
	minTotalAccuracy  = 0.95
	minDateAccuracy   = 0.95
	minVendorAccuracy = 0.90
	minItemsAccuracy  = 0.80
)

type truthItem struct {
	Description string `json:"description"`
	AmountCents int64  `json:"amount_cents"`
}

type truth struct {
	File       string      `json:"file"`
	Format     string      `json:"format"`
	Vendor     string      `json:"vendor"`
	Date       string      `json:"date"`
	TotalCents int64       `json:"total_cents"`
	LineItems  []truthItem `json:"line_items"`
}

func loadCorpus(t testing.TB) []truth {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "r*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in %s (go run ./tools/receiptgen -out pkg/receipts/testdata/corpus): %v", corpusDir, err)
	}
	sort.Strings(files)
	var out []truth
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tr truth
		if err := json.Unmarshal(b, &tr); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, tr)
	}
	return out
}

// requireOCR skips a test that needs tesseract when it is missing, or
// fails it when RECEIPTS_REQUIRE_OCR=1 (CI sets it, so a CI machine
// without Tesseract cannot pass by skipping).
func requireOCR(t testing.TB) {
	t.Helper()
	if TesseractAvailable() {
		return
	}
	msg := "tesseract is not on PATH: apt-get install -y tesseract-ocr tesseract-ocr-eng poppler-utils"
	if os.Getenv("RECEIPTS_REQUIRE_OCR") == "1" {
		t.Fatal(msg + " (RECEIPTS_REQUIRE_OCR=1)")
	}
	t.Skip(msg + " (set RECEIPTS_REQUIRE_OCR=1 to fail instead)")
}

// normalizeName lower-cases a name and keeps its letters and digits, one
// space between words ("JOE'S  DINER;" → "joes diner").
func normalizeName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case r == '\'' || r == '’':
		default:
			b.WriteRune(' ')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// looseMatch is the accuracy test's rule for names read through OCR: after
// normalizeName, the two match when they are within an edit distance of 2
// (or a quarter of the expected length, if longer), or when every word of
// the expected name is in the proposed one within one edit each (so
// "Blue Bottle Coffee" matches "Blue Bottle Coffee 2").
func looseMatch(got, want string) bool {
	g, w := normalizeName(got), normalizeName(want)
	if g == "" || w == "" {
		return g == w
	}
	if editDistance(g, w) <= max(2, len(w)/4) {
		return true
	}
	gw := strings.Fields(g)
	for _, ww := range strings.Fields(w) {
		found := false
		for _, x := range gw {
			if x == ww || len(ww) >= 4 && editDistance(x, ww) <= 1 {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// itemsMatch: the same number of line items, in order, every amount
// exact and every description a looseMatch.
func itemsMatch(got []LineItem, want []truthItem) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if int64(got[i].AmountCents) != want[i].AmountCents || !looseMatch(got[i].Description, want[i].Description) {
			return false
		}
	}
	return true
}

type fieldScore struct{ total, date, vendor, items, n int }

func (s *fieldScore) add(o fieldScore) {
	s.total += o.total
	s.date += o.date
	s.vendor += o.vendor
	s.items += o.items
	s.n += o.n
}

func pct(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(a) / float64(n)
}

func TestCorpusAccuracy(t *testing.T) {
	requireOCR(t)
	corpus := loadCorpus(t)
	// RECEIPTS_TESSERACT_PSM tries another page segmentation mode.
	psm, _ := strconv.Atoi(os.Getenv("RECEIPTS_TESSERACT_PSM"))
	x := NewExtractor(Config{Workers: 2, OCR: Tesseract{PSM: psm}})
	dump := os.Getenv("RECEIPTS_DUMP_DIR") // to look at the extracted texts while tuning the parser

	type outcome struct {
		tr   truth
		text Text
		res  Result
		err  error
		dur  time.Duration
	}
	outs := make([]outcome, len(corpus))
	var wg sync.WaitGroup
	start := time.Now()
	for i, tr := range corpus {
		wg.Add(1)
		go func() { // the Extractor's pool runs at most 2 OCR processes
			defer wg.Done()
			data, err := os.ReadFile(filepath.Join(corpusDir, tr.File))
			if err != nil {
				outs[i] = outcome{tr: tr, err: err}
				return
			}
			t0 := time.Now()
			text, err := x.Extract(context.Background(), data)
			outs[i] = outcome{tr: tr, text: text, err: err, dur: time.Since(t0)}
			if err == nil {
				outs[i].res = Parse(text.Content, corpusNow)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	var all fieldScore
	byFormat := map[string]*fieldScore{}
	for _, o := range outs {
		var s fieldScore
		s.n = 1
		var miss []string
		if o.err != nil {
			miss = append(miss, "extract: "+o.err.Error())
		} else {
			if o.res.ProposedAmountCents != nil && int64(*o.res.ProposedAmountCents) == o.tr.TotalCents {
				s.total = 1
			} else {
				miss = append(miss, fmt.Sprintf("total %v want %s", fmtCents(o.res.ProposedAmountCents), money.Cents(o.tr.TotalCents)))
			}
			if o.res.ProposedPaidAt != nil && o.res.ProposedPaidAt.Format(time.DateOnly) == o.tr.Date {
				s.date = 1
			} else {
				miss = append(miss, fmt.Sprintf("date %v want %s", o.res.ProposedPaidAt, o.tr.Date))
			}
			if looseMatch(o.res.ProposedVendorDisplay, o.tr.Vendor) {
				s.vendor = 1
			} else {
				miss = append(miss, fmt.Sprintf("vendor %q want %q", o.res.ProposedVendorDisplay, o.tr.Vendor))
			}
			if itemsMatch(o.res.ProposedLineItems, o.tr.LineItems) {
				s.items = 1
			} else {
				miss = append(miss, fmt.Sprintf("items %v want %v", o.res.ProposedLineItems, o.tr.LineItems))
			}
		}
		all.add(s)
		if byFormat[o.tr.Format] == nil {
			byFormat[o.tr.Format] = &fieldScore{}
		}
		byFormat[o.tr.Format].add(s)
		if len(miss) > 0 {
			t.Logf("%s (%s, %v): %s", o.tr.File, o.tr.Format, o.dur.Round(time.Millisecond), strings.Join(miss, "; "))
		}
		if dump != "" {
			_ = os.MkdirAll(dump, 0o755)
			_ = os.WriteFile(filepath.Join(dump, o.tr.File+".txt"), []byte(o.text.Content), 0o644)
		}
	}
	formats := make([]string, 0, len(byFormat))
	for f := range byFormat {
		formats = append(formats, f)
	}
	sort.Strings(formats)
	for _, f := range formats {
		s := byFormat[f]
		t.Logf("%-9s n=%2d  total %5.1f%%  date %5.1f%%  vendor %5.1f%%  items %5.1f%%", f, s.n,
			100*pct(s.total, s.n), 100*pct(s.date, s.n), 100*pct(s.vendor, s.n), 100*pct(s.items, s.n))
	}
	summary := fmt.Sprintf("receipts accuracy over %d receipts: total %.1f%% (min %.0f%%), date %.1f%% (min %.0f%%), vendor %.1f%% (min %.0f%%), line items %.1f%% (min %.0f%%); %v",
		all.n, 100*pct(all.total, all.n), 100*minTotalAccuracy, 100*pct(all.date, all.n), 100*minDateAccuracy,
		100*pct(all.vendor, all.n), 100*minVendorAccuracy, 100*pct(all.items, all.n), 100*minItemsAccuracy, elapsed.Round(time.Millisecond))
	t.Log(summary)
	fmt.Println(summary) // the summary line, also without -v
	if len(corpus) < 40 {
		t.Errorf("corpus has %d receipts, want at least 40", len(corpus))
	}
	check := func(field string, got int, min float64) {
		if pct(got, all.n) < min {
			t.Errorf("%s accuracy %.1f%% is below %.0f%%", field, 100*pct(got, all.n), 100*min)
		}
	}
	check("total amount", all.total, minTotalAccuracy)
	check("date", all.date, minDateAccuracy)
	check("vendor", all.vendor, minVendorAccuracy)
	check("line items", all.items, minItemsAccuracy)
}

func fmtCents(c *money.Cents) string {
	if c == nil {
		return "<nil>"
	}
	return c.String()
}
