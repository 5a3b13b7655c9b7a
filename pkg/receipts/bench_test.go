package receipts

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkExtractParse measures receipts read and parsed per second:
// a text PDF (pure Go), an image through Tesseract, and a scanned PDF
// (pdftoppm then Tesseract), one at a time and through the pool of 2.
//
//	go test ./pkg/receipts -run '^$' -bench BenchmarkExtractParse -benchtime 20x
func BenchmarkExtractParse(b *testing.B) {
	cases := []struct {
		name, file string
		ocr        bool
	}{
		{"text-pdf", "r03.pdf", false},
		{"image-ocr", "r02.png", true},
		{"scanned-pdf-ocr", "r06.pdf", true},
	}
	now := time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join(corpusDir, c.file))
		if err != nil {
			b.Fatal(err)
		}
		run := func(b *testing.B, parallel bool) {
			if c.ocr {
				requireOCR(b)
			}
			x := NewExtractor(Config{Workers: 2})
			one := func() {
				text, err := x.Extract(context.Background(), data)
				if err != nil {
					b.Fatal(err)
				}
				if r := Parse(text.Content, now); r.ProposedAmountCents == nil {
					b.Fatal("no total")
				}
			}
			start := time.Now()
			if parallel {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						one()
					}
				})
			} else {
				for b.Loop() {
					one()
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "receipts/s")
		}
		b.Run(c.name, func(b *testing.B) { run(b, false) })
		if c.ocr {
			b.Run(c.name+"-pool2", func(b *testing.B) { run(b, true) })
		}
	}
}
