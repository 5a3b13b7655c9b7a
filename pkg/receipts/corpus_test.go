package receipts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

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
	msg := "tesseract is not on PATH: apt-get install -y tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu poppler-utils"
	if os.Getenv("RECEIPTS_REQUIRE_OCR") == "1" {
		t.Fatal(msg + " (RECEIPTS_REQUIRE_OCR=1)")
	}
	t.Skip(msg + " (set RECEIPTS_REQUIRE_OCR=1 to fail instead)")
}

// itemsMatch: the same number of line items, in order, every amount
// exact and every description a looseMatch.
func itemsMatch(got []LineItem, want []truthItem) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if int64(got[i].AmountCents) != want[i].AmountCents || !NamesMatch(got[i].Description, want[i].Description) {
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

func fmtCents(c *money.Cents) string {
	if c == nil {
		return "<nil>"
	}
	return c.String()
}
