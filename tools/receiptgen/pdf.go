package main

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"image"
	"strings"

	"github.com/acctsuite/acct/pkg/receipts/receiptpdf"
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
			fmt.Fprintf(&c, "BT /F1 %.1f Tf 1 0 0 1 %.2f %.2f Tm (%s) Tj ET\n", fs, x, y, receiptpdf.Escape(l.left))
		}
		if l.right != "" {
			x := pageW - 14 - float64(len(l.right))*charW
			fmt.Fprintf(&c, "BT /F1 %.1f Tf 1 0 0 1 %.2f %.2f Tm (%s) Tj ET\n", size, x, y, receiptpdf.Escape(l.right))
		}
		y -= lead
	}
	var d pdfDoc
	d.add("<< /Type /Catalog /Pages 2 0 R >>")
	d.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	d.add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.0f %.0f] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>", pageW, pageH))
	d.add(fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /%s /Encoding /WinAnsiEncoding >>", fontName))
	d.add(receiptpdf.Stream("", []byte(c.String())))
	return receiptpdf.PDF(d.objs...)
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
	d.add(receiptpdf.Stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode", w, h), z.Bytes()))
	d.add(receiptpdf.Stream("", []byte(content)))
	return receiptpdf.PDF(d.objs...)
}
