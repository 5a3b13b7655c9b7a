package main

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"image"
	"strings"
)

// pdfDoc writes a minimal, valid one-page PDF: numbered objects and a
// cross-reference table with their byte offsets.
type pdfDoc struct {
	objs []string
}

func (d *pdfDoc) add(body string) int {
	d.objs = append(d.objs, body)
	return len(d.objs)
}

func (d *pdfDoc) bytes() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(d.objs))
	for i, o := range d.objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(d.objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(d.objs)+1, xref)
	return b.Bytes()
}

func stream(dict string, data []byte) string {
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

// pdfEscape escapes a PDF literal string.
func pdfEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
}

// textPDF lays the lines out on an 80 mm wide page in a standard font
// (Courier or Helvetica, not embedded), each column as its own text
// object so the amounts are right-aligned like on a printed receipt.
func textPDF(ls []line, fontName string) []byte {
	const size = 9.0
	const pageW = 227.0 // 80 mm
	lead := size * 1.4
	pageH := float64(len(ls))*lead + 60
	charW := 0.6 * size // Courier; Helvetica's digits are 0.556 em too
	if fontName == "Helvetica" {
		charW = 0.53 * size
	}
	var c strings.Builder
	y := pageH - 30
	for _, l := range ls {
		fs := size
		if l.big {
			fs = size * 1.3
		}
		if l.left != "" {
			x := 14.0
			if l.align == alignCenter {
				x = (pageW - float64(len(l.left))*charW*fs/size) / 2
			}
			fmt.Fprintf(&c, "BT /F1 %.1f Tf 1 0 0 1 %.2f %.2f Tm (%s) Tj ET\n", fs, x, y, pdfEscape(l.left))
		}
		if l.right != "" {
			x := pageW - 14 - float64(len(l.right))*charW
			fmt.Fprintf(&c, "BT /F1 %.1f Tf 1 0 0 1 %.2f %.2f Tm (%s) Tj ET\n", size, x, y, pdfEscape(l.right))
		}
		y -= lead
	}
	var d pdfDoc
	d.add("<< /Type /Catalog /Pages 2 0 R >>")
	d.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	d.add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.0f %.0f] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>", pageW, pageH))
	d.add(fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /%s /Encoding /WinAnsiEncoding >>", fontName))
	d.add(stream("", []byte(c.String())))
	return d.bytes()
}

// imagePDF wraps a gray image in a one-page PDF as a scanner would: no
// text layer, the pixels Flate-compressed, the page sized at dpi.
func imagePDF(img *image.Gray, dpi float64) []byte {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	for y := 0; y < h; y++ {
		zw.Write(img.Pix[y*img.Stride : y*img.Stride+w])
	}
	zw.Close()
	pw, ph := float64(w)*72/dpi, float64(h)*72/dpi
	content := fmt.Sprintf("q %.2f 0 0 %.2f 0 0 cm /Im1 Do Q", pw, ph)
	var d pdfDoc
	d.add("<< /Type /Catalog /Pages 2 0 R >>")
	d.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	d.add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.2f %.2f] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>", pw, ph))
	d.add(stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode", w, h), z.Bytes()))
	d.add(stream("", []byte(content)))
	return d.bytes()
}
