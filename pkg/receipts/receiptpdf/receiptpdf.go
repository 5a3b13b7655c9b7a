// Package receiptpdf writes small, valid PDF files: the receipts of the
// tests and of the generated corpus (tools/receiptgen). A PDF is its
// numbered objects and a cross-reference table of their byte offsets.
package receiptpdf

import (
	"bytes"
	"fmt"
	"strings"
)

// PDF is a PDF file of objs, object 1 first (the catalog), with a correct
// cross-reference table.
func PDF(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// Stream is a stream object of data with the dictionary entries dict
// (its /Length added).
func Stream(dict string, data []byte) string {
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

// Escape is s as a PDF literal string's content.
func Escape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
}

// Text is a one-page PDF whose text layer holds lines, one under the
// other, in Helvetica (a standard font, not embedded).
func Text(lines ...string) []byte {
	var c strings.Builder
	c.WriteString("BT /F1 12 Tf 20 380 Td 14 TL\n")
	for _, l := range lines {
		fmt.Fprintf(&c, "(%s) Tj T*\n", Escape(l))
	}
	c.WriteString("ET")
	return PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		Stream("", []byte(c.String())),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	)
}
