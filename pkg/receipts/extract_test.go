package receipts

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/receipts/receiptpdf"
)

// fakeOCR answers a fixed text, counting the calls running at once.
type fakeOCR struct {
	text    string
	delay   time.Duration
	running atomic.Int32
	peak    atomic.Int32
	calls   atomic.Int32
}

func (f *fakeOCR) Recognize(ctx context.Context, _ []byte) (string, error) {
	f.calls.Add(1)
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	select {
	case <-time.After(f.delay):
		return f.text, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	img.SetGray(w/2, h/2, color.Gray{0})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pngHeader is a PNG of only a signature and an IHDR chunk claiming w×h:
// what a decompression bomb shows before its pixels.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 0 // 8-bit gray
	chunk := append([]byte("IHDR"), ihdr...)
	binary.Write(&b, binary.BigEndian, uint32(13))
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func textPDFBytes(lines ...string) []byte {
	var c strings.Builder
	y := 700
	for _, l := range lines {
		fmt.Fprintf(&c, "BT /F1 10 Tf 1 0 0 1 40 %d Tm (%s) Tj ET\n", y, l)
		y -= 14
	}
	return receiptpdf.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 800] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>",
		receiptpdf.Stream("", []byte(c.String())),
	)
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want Kind
	}{
		{"pdf", textPDFBytes("x"), KindPDF},
		{"png", pngBytes(t, 20, 20), KindPNG},
		{"jpeg", jpegBytes(t, 20, 20), KindJPEG},
		{"pdf after junk", append([]byte("junk\n"), textPDFBytes("x")...), KindPDF},
	}
	for _, tc := range tests {
		if got, err := Detect(tc.data); err != nil || got != tc.want {
			t.Errorf("%s: Detect = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	for name, data := range map[string][]byte{
		"gif":           []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"),
		"text":          []byte("TOTAL 12.34\n"),
		"html":          []byte("<html><body>receipt</body></html>"),
		"zip":           []byte("PK\x03\x04\x14\x00\x00\x00"),
		"png name only": []byte("not really a png"),
		"binary":        {0x00, 0x01, 0x02, 0x03},
	} {
		if _, err := Detect(data); !errors.Is(err, ErrUnsupportedType) {
			t.Errorf("%s: Detect err = %v, want ErrUnsupportedType", name, err)
		}
	}
}

func TestExtractRejects(t *testing.T) {
	ocr := &fakeOCR{text: "CITY BOOKS\nTOTAL 4.99"}
	x := NewExtractor(Config{OCR: ocr, MaxBytes: 1 << 20})
	truncated := pngBytes(t, 200, 200)
	truncated = truncated[:len(truncated)-30]
	deflateBomb := func() []byte { // 64 MB of spaces in a few KB
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		chunk := bytes.Repeat([]byte(" "), 1<<20)
		for range 64 {
			zw.Write(chunk)
		}
		zw.Close()
		return z.Bytes()
	}()
	var kids []string
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", ""}
	for i := range 11 {
		kids = append(kids, fmt.Sprintf("%d 0 R", i+3))
		objs = append(objs, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>")
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count 11 >>", strings.Join(kids, " "))

	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrUnsupportedType},
		{"too large", append(pngBytes(t, 20, 20), make([]byte, 1<<20)...), ErrTooLarge},
		{"gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), ErrUnsupportedType},
		{"truncated png", truncated, ErrBadInput},
		{"png header only", pngHeader(100, 100), ErrBadInput},
		{"absurd width", pngHeader(100_000, 10), ErrBadInput},
		{"too many pixels", pngHeader(9000, 9000), ErrBadInput},
		{"max dimensions", pngHeader(1<<31-1, 1<<31-1), ErrBadInput},
		{"tiny image", pngBytes(t, 4, 4), ErrBadInput},
		{"corrupt jpeg", jpegBytes(t, 64, 64)[:100], ErrBadInput},
		{"pdf header only", []byte("%PDF-1.7\n"), ErrBadInput},
		{"pdf garbage", append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("garbage "), 500)...), ErrBadInput},
		{"pdf too many pages", receiptpdf.PDF(objs...), ErrBadInput},
		{"pdf cyclic page tree", receiptpdf.PDF(
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [2 0 R] /Count 1 >>",
		), ErrBadInput},
		{"pdf no pages", receiptpdf.PDF(
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [] /Count 0 >>",
		), ErrBadInput},
		{"pdf flate bomb", receiptpdf.PDF(
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] /Contents 4 0 R >>",
			receiptpdf.Stream("/Filter /FlateDecode", deflateBomb),
		), ErrBadInput},
		{"pdf unknown filter", receiptpdf.PDF(
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] /Contents 4 0 R >>",
			receiptpdf.Stream("/Filter /JBIG2Decode", []byte("xxxx")),
		), ErrBadInput},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := x.Extract(context.Background(), tc.data)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Extract err = %v, want %v", err, tc.want)
			}
			if Reason(err) == "" {
				t.Fatalf("no reason in %v", err)
			}
		})
	}
	if ocr.calls.Load() != 0 {
		t.Errorf("OCR ran %d times on rejected files", ocr.calls.Load())
	}
}

func TestExtractTextPDF(t *testing.T) {
	x := NewExtractor(Config{OCR: &fakeOCR{text: "never"}})
	got, err := x.Extract(context.Background(), textPDFBytes("CITY BOOKS", "Date: 03/14/2026", "Notebook      4.99", "TOTAL         4.99"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != KindPDF || got.Source != SourceTextLayer || got.Pages != 1 {
		t.Errorf("got %+v", got)
	}
	want := "CITY BOOKS\nDate: 03/14/2026\nNotebook      4.99\nTOTAL         4.99"
	if got.Content != want {
		t.Errorf("content %q, want %q", got.Content, want)
	}
}

func TestExtractImageThroughOCRPool(t *testing.T) {
	ocr := &fakeOCR{text: "CITY BOOKS\r\n\n  Notebook 4.99  \n\fTOTAL 4.99\n", delay: 20 * time.Millisecond}
	x := NewExtractor(Config{OCR: ocr, Workers: 2})
	img := pngBytes(t, 64, 64)
	done := make(chan error, 8)
	for range 8 {
		go func() {
			got, err := x.Extract(context.Background(), img)
			if err == nil && (got.Content != "CITY BOOKS\n  Notebook 4.99\nTOTAL 4.99" || got.Source != SourceOCR) {
				err = fmt.Errorf("got %+v", got)
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if p := ocr.peak.Load(); p > 2 || p < 1 {
		t.Errorf("peak concurrent OCR calls %d, want ≤ 2", p)
	}
	if _, err := x.Extract(context.Background(), jpegBytes(t, 64, 64)); err != nil {
		t.Errorf("jpeg: %v", err)
	}
}

func TestExtractOCRTimeoutAndEmpty(t *testing.T) {
	slow := &fakeOCR{text: "late", delay: time.Minute}
	x := NewExtractor(Config{OCR: slow, OCRTimeout: 50 * time.Millisecond})
	start := time.Now()
	_, err := x.Extract(context.Background(), pngBytes(t, 64, 64))
	if !errors.Is(err, ErrUnreadable) || !strings.Contains(Reason(err), "timed out") || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v, want ErrUnreadable timed out", err, time.Since(start))
	}
	blank := NewExtractor(Config{OCR: &fakeOCR{text: " . , \n"}})
	if _, err := blank.Extract(context.Background(), pngBytes(t, 64, 64)); !errors.Is(err, ErrUnreadable) {
		t.Fatalf("blank: err = %v, want ErrUnreadable", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := x.Extract(ctx, pngBytes(t, 64, 64)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v", err)
	}
}

// TestTesseractKilledOnTimeout runs a stand-in binary that hangs: the
// process group is killed at the deadline.
func TestTesseractKilledOnTimeout(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "hang")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nsleep 30 &\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	x := NewExtractor(Config{OCR: Tesseract{Path: bin}, OCRTimeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := x.Extract(context.Background(), pngBytes(t, 64, 64))
	if !errors.Is(err, ErrUnreadable) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
}

func TestScannedPDFWithoutRasterizer(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "r06.pdf")) // an image-only PDF
	if err != nil {
		t.Skip(err)
	}
	x := NewExtractor(Config{OCR: &fakeOCR{text: "x"}, Rasterizer: Pdftoppm{Path: filepath.Join(t.TempDir(), "missing")}})
	if _, err := x.Extract(context.Background(), data); !errors.Is(err, ErrUnreadable) {
		t.Fatalf("err = %v, want ErrUnreadable", err)
	}
}

// turnedOCR reads noise until it has been asked the image's turn (as
// Tesseract reads a receipt photographed upside down), then the receipt.
type turnedOCR struct {
	poor, good string
	turn       int
	asked      atomic.Int32
}

func (f *turnedOCR) Recognize(ctx context.Context, _ []byte) (string, error) {
	if f.asked.Load() > 0 {
		return f.good, nil
	}
	return f.poor, nil
}

func (f *turnedOCR) Orientation(ctx context.Context, _ []byte) (int, error) {
	f.asked.Add(1)
	return f.turn, nil
}

// TestExtractTurnedImage: a read too poor to find a total asks the OCR
// how the image is turned and reads it turned upright; a fair read does
// not ask.
func TestExtractTurnedImage(t *testing.T) {
	good := "CITY BOOKS\nDate: 03/14/2026\nNotebook 4.99\nTOTAL 4.99"
	for _, c := range []struct {
		name, poor string
		turn       int
		want       string
		asked      int32
	}{
		{"upside down", "6r'8 SdTud 93y\n404 MOA WNyHL", 180, good, 1},
		{"sideways", "BL0Z 6:02 v2", 90, good, 1},
		{"upright after all", "6r'8 SdTud 93y", 0, "6r'8 SdTud 93y", 1},
		{"a fair read is not turned", "CITY BOOKS\nNotebook 4.99\nTOTAL 4.99", 180, "CITY BOOKS\nNotebook 4.99\nTOTAL 4.99", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ocr := &turnedOCR{poor: c.poor, good: good, turn: c.turn}
			got, err := NewExtractor(Config{OCR: ocr}).Extract(context.Background(), pngBytes(t, 64, 48))
			if err != nil || got.Content != c.want || ocr.asked.Load() != c.asked {
				t.Fatalf("got %q, %v (asked %d); want %q (asked %d)", got.Content, err, ocr.asked.Load(), c.want, c.asked)
			}
		})
	}
}

// sparseOCR reads poor as one block of text and sparse as sparse text,
// counting the sparse reads.
type sparseOCR struct {
	poor, sparse string
	asked        atomic.Int32
}

func (f *sparseOCR) Recognize(context.Context, []byte) (string, error) { return f.poor, nil }

func (f *sparseOCR) RecognizeSparse(context.Context, []byte, string) (string, error) {
	f.asked.Add(1)
	return f.sparse, nil
}

// TestExtractSparseRead: a read that found no total is read again as
// sparse text, kept when Parse trusts it more; a read with a total is
// not read again.
func TestExtractSparseRead(t *testing.T) {
	for _, c := range []struct {
		name, poor, sparse, want string
		asked                    int32
	}{
		{"the total found sparse", "CITY BOOKS\nNotebk ~~ :\nTOTAL", "CITY BOOKS\nNotebook 4.99\nTOTAL\n4.99",
			"CITY BOOKS\nNotebook 4.99\nTOTAL\n4.99", 1},
		{"no better sparse", "CITY BOOKS\nNotebk ~~ :\nTOTAL", "CITY BOOKS\n~~ ::: ~~~~",
			"CITY BOOKS\nNotebk ~~ :\nTOTAL", 1},
		{"a read with a total is kept", "CITY BOOKS\nNotebook 4.99\nTOTAL 4.99", "CITY BOOKS\nTOTAL 9.99",
			"CITY BOOKS\nNotebook 4.99\nTOTAL 4.99", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ocr := &sparseOCR{poor: c.poor, sparse: c.sparse}
			got, err := NewExtractor(Config{OCR: ocr}).Extract(context.Background(), pngBytes(t, 64, 48))
			if err != nil || got.Content != c.want || ocr.asked.Load() != c.asked {
				t.Fatalf("got %q, %v (asked %d); want %q (asked %d)", got.Content, err, ocr.asked.Load(), c.want, c.asked)
			}
		})
	}
}
