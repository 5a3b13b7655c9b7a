package receipts

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/acctsuite/acct/pkg/receipts/receiptpdf"
)

// FuzzParse: Parse never panics, proposes no negative amount, at most
// MaxLineItems items, no date after now, and a confidence within [0, 1].
// go test ./pkg/receipts -run '^$' -fuzz FuzzParse -fuzztime 30s
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"",
		"BLUE BOTTLE COFFEE\n123 Main St\nDate: 03/14/2026\nLatte 4.50\nSubtotal 4.50\nTax 0.37\nTOTAL 4.87\nVISA ****1234 4.87",
		"CAFE CENTRAL\n10115 Berlin\n14.03.2026\nCappuccino 3,20\nSUMME 3,20",
		"HARDWARE DEPOT\nDATE Mar 14 2026\nWOOD SCREWS $ 1O.5O T\nT0TAL $ l0.50",
		"Welcome to\nJoe's Diner\n14 Mar 2026\n2 x Burger 12.00\nTip 2.00\nGrand Total 14.00\nCASH 20.00\nCHANGE 6.00",
		"Whole Milk\n  2 @ 3.49   6.98\nTOTAL\n6.98",
		"Circular Saw 1  1,299.00  1,299.00\nBALANCE DUE 1.412,64",
		"TOTAL -5.00\nDiscount -1.00\nItem 99999999999999999999.99",
		"31/02/2026 00/00/0000 2026-13-45 Feb 30 2026 9999-99-99",
		"\x00\xff\xfe TOTAL 1.00\r\n\t",
		strings.Repeat("Item 1.00\n", 300),
		strings.Repeat("9", 5000) + ".99",
		"$ . , : 12:34 .12 12. 1,2 1.234.567,89 €",
	} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, text string) {
		r := Parse(text, now)
		if r.ProposedAmountCents != nil && *r.ProposedAmountCents < 0 {
			t.Fatalf("negative total %d", *r.ProposedAmountCents)
		}
		if len(r.ProposedLineItems) > MaxLineItems {
			t.Fatalf("%d line items", len(r.ProposedLineItems))
		}
		for _, it := range r.ProposedLineItems {
			if it.AmountCents < 0 || it.Description == "" || !utf8.ValidString(it.Description) {
				t.Fatalf("bad item %+v", it)
			}
		}
		if r.ProposedPaidAt != nil && r.ProposedPaidAt.After(now.AddDate(0, 0, 2)) {
			t.Fatalf("date %v after now", r.ProposedPaidAt)
		}
		if r.Confidence < 0 || r.Confidence > 1 {
			t.Fatalf("confidence %v", r.Confidence)
		}
		if !utf8.ValidString(r.ProposedVendorDisplay) {
			t.Fatalf("vendor %q", r.ProposedVendorDisplay)
		}
	})
}

// FuzzExtract: whatever the bytes, Extract returns text or one of the
// package's typed errors, without panicking (OCR is faked).
// go test ./pkg/receipts -run '^$' -fuzz FuzzExtract -fuzztime 30s
func FuzzExtract(f *testing.F) {
	f.Add(textPDFBytes("CITY BOOKS", "TOTAL 4.99"))
	f.Add(receiptpdf.PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [2 0 R] /Count 1 >>"))
	f.Add(pngBytes(f, 20, 20))
	f.Add(jpegBytes(f, 20, 20))
	f.Add(pngHeader(100000, 100000))
	f.Add([]byte("%PDF-1.4\n1 0 obj << >> endobj trailer << /Root 1 0 R >>"))
	f.Add([]byte("GIF89a"))
	x := NewExtractor(Config{
		OCR:        &fakeOCR{text: "CITY BOOKS\nTOTAL 4.99"},
		Rasterizer: fakeRasterizer{},
		PDFTimeout: 2 * time.Second,
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := x.Extract(context.Background(), data)
		if err != nil && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrUnsupportedType) &&
			!errors.Is(err, ErrBadInput) && !errors.Is(err, ErrUnreadable) {
			t.Fatalf("untyped error %v", err)
		}
	})
}

type fakeRasterizer struct{}

func (fakeRasterizer) Rasterize(context.Context, []byte, int, int) ([]byte, error) {
	return []byte("png"), nil
}
