package receipts

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/receipts/receiptpdf"
)

// TestDecodedBytesBound: an image whose pixels would take more memory
// than MaxDecodedBytes once decoded is refused from its header, before
// any OCR; 16-bit pixels count eight bytes, 8-bit gray one.
func TestDecodedBytesBound(t *testing.T) {
	encode := func(img image.Image) []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	deep := image.NewRGBA64(image.Rect(0, 0, 200, 200)) // 320,000 bytes decoded
	gray := image.NewGray(image.Rect(0, 0, 200, 200))    // 40,000 bytes decoded
	for i := range gray.Pix {
		gray.Pix[i] = 255
	}
	gray.SetGray(100, 100, color.Gray{})
	ocr := &fakeOCR{text: "CITY BOOKS\nTOTAL 4.99"}
	x := NewExtractor(Config{OCR: ocr, MaxDecodedBytes: 100_000})
	if _, err := x.Extract(t.Context(), encode(deep)); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "decoded") {
		t.Fatalf("16-bit image over the bound: %v, want ErrBadInput naming the decoded size", err)
	}
	if ocr.calls.Load() != 0 {
		t.Fatalf("OCR ran %d times on a refused image", ocr.calls.Load())
	}
	if _, err := x.Extract(t.Context(), encode(gray)); err != nil {
		t.Fatalf("gray image under the bound: %v", err)
	}
	if _, err := NewExtractor(Config{OCR: ocr}).Extract(t.Context(), encode(deep)); err != nil {
		t.Fatalf("16-bit image under the default bound: %v", err)
	}
}

// blockingOCR holds its first call until release is closed.
type blockingOCR struct {
	started, release chan struct{}
	once             sync.Once
}

func (b *blockingOCR) Recognize(ctx context.Context, _ []byte) (string, error) {
	b.once.Do(func() { close(b.started) })
	select {
	case <-b.release:
		return "CITY BOOKS\nTOTAL 4.99", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// TestImageDecodedInItsSlot: an image waits for a worker slot before it
// is decoded (at most Workers decoded images in memory): with the only
// slot taken, an import of a corrupt image runs out of time waiting, and
// once the slot is free the same file is refused as corrupt.
func TestImageDecodedInItsSlot(t *testing.T) {
	ocr := &blockingOCR{started: make(chan struct{}), release: make(chan struct{})}
	x := NewExtractor(Config{OCR: ocr, Workers: 1})
	first := make(chan error, 1)
	go func() {
		_, err := x.Extract(context.Background(), pngBytes(t, 64, 64))
		first <- err
	}()
	<-ocr.started
	corrupt := pngBytes(t, 200, 200)
	corrupt = corrupt[:len(corrupt)-30]
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := x.Extract(ctx, corrupt); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("while the slot is taken: %v, want the wait to run out (no decoding before the slot)", err)
	}
	close(ocr.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if _, err := x.Extract(context.Background(), corrupt); !errors.Is(err, ErrBadInput) {
		t.Fatalf("with the slot free: %v, want ErrBadInput", err)
	}
}

func TestRenderDPI(t *testing.T) {
	tests := []struct {
		name string
		w, h float64
		want int
	}{
		{"a receipt page renders at 300 dpi", 226, 600, 300},
		{"a long side is bounded by the side limit", 72, 7200, 100},
		{"a huge square is bounded by its pixels", 7000, 7000, 65},
		{"an empty box renders at 72 dpi", 0, 0, 72},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dpi := renderDPI(pdfPage{w: tt.w, h: tt.h}, 10_000, 40_000_000)
			if dpi != tt.want {
				t.Fatalf("dpi %d, want %d", dpi, tt.want)
			}
			px := tt.w * float64(dpi) / 72 * tt.h * float64(dpi) / 72
			if px > 40_000_000 || math.Max(tt.w, tt.h)*float64(dpi)/72 > 10_000 {
				t.Fatalf("%d dpi renders %.0f px", dpi, px)
			}
		})
	}
}

// orderedRasterizer records the calls of a rasterizer and an OCR in
// order.
type orderedRasterizer struct {
	mu    sync.Mutex
	calls []string
}

func (o *orderedRasterizer) Rasterize(_ context.Context, _ []byte, page, _ int) ([]byte, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, "render")
	var b bytes.Buffer
	img := image.NewGray(image.Rect(0, 0, 32, 32))
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (o *orderedRasterizer) Recognize(_ context.Context, _ []byte) (string, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, "ocr")
	return "TOTAL 1.00", nil
}

// TestScannedPDFPageByPage: a scanned PDF's pages are rendered and read
// one after the other, one rendered page in memory at a time.
func TestScannedPDFPageByPage(t *testing.T) {
	pdf := receiptpdf.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 400] >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 400] >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 400] >>",
	)
	o := &orderedRasterizer{}
	got, err := NewExtractor(Config{OCR: o, Rasterizer: o}).Extract(t.Context(), pdf)
	if err != nil {
		t.Fatal(err)
	}
	if want := "render ocr render ocr render ocr"; strings.Join(o.calls, " ") != want || got.Pages != 3 {
		t.Fatalf("calls %v, pages %d; want %q over 3 pages", o.calls, got.Pages, want)
	}
}
