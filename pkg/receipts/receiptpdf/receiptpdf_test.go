package receiptpdf_test

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/acctsuite/acct/pkg/receipts"
	"github.com/acctsuite/acct/pkg/receipts/receiptpdf"
)

// TestCrossReferences: every offset of the xref table points at its
// object, and startxref at the table.
func TestCrossReferences(t *testing.T) {
	pdf := receiptpdf.PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>", receiptpdf.Stream("/Filter /None", []byte("x(y)")))
	table := regexp.MustCompile(`(\d{10}) 00000 n `).FindAllSubmatch(pdf, -1)
	if len(table) != 3 {
		t.Fatalf("%d xref entries, want 3", len(table))
	}
	for i, m := range table {
		off, _ := strconv.Atoi(string(m[1]))
		if want := strconv.Itoa(i+1) + " 0 obj\n"; !bytes.HasPrefix(pdf[off:], []byte(want)) {
			t.Fatalf("entry %d points at %q", i+1, pdf[off:off+12])
		}
	}
	start := regexp.MustCompile(`startxref\n(\d+)\n`).FindSubmatch(pdf)
	off, _ := strconv.Atoi(string(start[1]))
	if !bytes.HasPrefix(pdf[off:], []byte("xref\n")) {
		t.Fatalf("startxref points at %q", pdf[off:off+8])
	}
	if !strings.Contains(string(pdf), "<< /Filter /None /Length 4 >>\nstream\nx(y)\nendstream") {
		t.Fatalf("stream object: %s", pdf)
	}
}

// TestTextIsReadBack: the receipts extractor reads the text layer back,
// parentheses and backslashes escaped.
func TestTextIsReadBack(t *testing.T) {
	lines := []string{"Corner Cafe (Main St)", `Latte \ oat`, "TOTAL 12.40"}
	got, err := receipts.Extract(context.Background(), receiptpdf.Text(lines...))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if !strings.Contains(got.Content, l) {
			t.Fatalf("text %q lacks %q", got.Content, l)
		}
	}
}
