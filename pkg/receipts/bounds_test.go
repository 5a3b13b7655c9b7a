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
	gray := image.NewGray(image.Rect(0, 0, 200, 200))   // 40,000 bytes decoded
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

// occupied is an Extractor of cfg (its OCR a blockingOCR) whose one
// worker a read holds until the OCR's release is closed; that read's
// outcome comes on the channel.
func occupied(t *testing.T, cfg Config) (*Extractor, *blockingOCR, <-chan error) {
	t.Helper()
	ocr := &blockingOCR{started: make(chan struct{}), release: make(chan struct{})}
	cfg.OCR, cfg.Workers = ocr, 1
	x := NewExtractor(cfg)
	first := make(chan error, 1)
	go func() {
		_, err := x.Extract(context.Background(), pngBytes(t, 64, 64))
		first <- err
	}()
	<-ocr.started
	return x, ocr, first
}

// TestImageDecodedInItsSlot: an image waits for a worker slot before it
// is decoded (at most Workers decoded images in memory): with the only
// slot taken, an import of a corrupt image runs out of time waiting, and
// once the slot is free the same file is refused as corrupt.
func TestImageDecodedInItsSlot(t *testing.T) {
	x, ocr, first := occupied(t, Config{})
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

// TestBusy: with every worker taken, MaxQueued reads wait and one more is
// refused at once; a read that waits MaxWait without a worker is refused
// too, both with ErrBusy (the caller's 503), nothing read.
func TestBusy(t *testing.T) {
	x, ocr, first := occupied(t, Config{MaxQueued: 1, MaxWait: 300 * time.Millisecond})
	img := pngBytes(t, 64, 64)
	waiting := make(chan error, 1)
	go func() {
		_, err := x.Extract(context.Background(), img)
		waiting <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for x.waiting.Load() != 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if _, err := x.Extract(context.Background(), img); !errors.Is(err, ErrBusy) || !strings.Contains(Reason(err), "waiting") {
		t.Fatalf("with the queue full: %v, want ErrBusy at once", err)
	}
	if err := <-waiting; !errors.Is(err, ErrBusy) || !strings.Contains(Reason(err), "within 300ms") {
		t.Fatalf("after MaxWait: %v, want ErrBusy", err)
	}
	close(ocr.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if _, err := x.Extract(context.Background(), img); err != nil {
		t.Fatalf("with a worker free again: %v", err)
	}
}

// TestExtractTimeout: a read that outlasts Config.Timeout is given up,
// the receipt unreadable in time (its OCR killed).
func TestExtractTimeout(t *testing.T) {
	ocr := &fakeOCR{text: "TOTAL 1.00", delay: 5 * time.Second}
	x := NewExtractor(Config{OCR: ocr, Timeout: 150 * time.Millisecond})
	start := time.Now()
	_, err := x.Extract(context.Background(), pngBytes(t, 64, 64))
	if !errors.Is(err, ErrUnreadable) || !strings.Contains(Reason(err), "longer than 150ms") {
		t.Fatalf("err = %v, want ErrUnreadable naming the bound", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("gave up after %s", d)
	}
}

// TestProcessLimits: the OCR and rendering processes run with their
// address space and CPU time bounded (prlimit, util-linux).
func TestProcessLimits(t *testing.T) {
	if !ProcessLimitsAvailable() {
		t.Fatal("prlimit (util-linux) is not installed: the OCR processes would run without memory and CPU limits")
	}
	cmd := limitedCommand(t.Context(), ProcessLimits{Memory: 1 << 30, CPU: 7 * time.Second}, "/bin/sh", "-c", "ulimit -v; ulimit -t")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(out)); len(got) != 2 || got[0] != "1048576" || got[1] != "7" {
		t.Fatalf("limits seen by the process: %q, want 1048576 KiB and 7 s", out)
	}
	if l := (ProcessLimits{}).or(DefaultOCRLimits); l != DefaultOCRLimits {
		t.Fatalf("defaults: %+v", l)
	}
}

// TestBusyWhenTheReadBoundEndsTheWait: a read whose Timeout runs out
// while it waits for a worker read nothing: ErrBusy, not unreadable.
func TestBusyWhenTheReadBoundEndsTheWait(t *testing.T) {
	x := NewExtractor(Config{OCR: &fakeOCR{text: "TOTAL 1.00"}, Workers: 1, Timeout: 200 * time.Millisecond, MaxWait: time.Minute})
	x.sem <- struct{}{} // the only worker, taken for the whole wait
	_, err := x.Extract(context.Background(), pngBytes(t, 64, 64))
	<-x.sem
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("a wait the read's bound ended: %v, want ErrBusy", err)
	}
}
