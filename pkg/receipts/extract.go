package receipts

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	_ "image/jpeg" // registers the JPEG decoder for image.DecodeConfig/Decode
	_ "image/png"  // registers the PNG decoder
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Kind is the detected type of a receipt file.
type Kind string

// The kinds of file Extract reads.
const (
	KindPDF  Kind = "pdf"
	KindPNG  Kind = "png"
	KindJPEG Kind = "jpeg"
)

// Source says where the text came from.
type Source string

// The sources of a Text.
const (
	SourceTextLayer Source = "text_layer" // a PDF's own text, read in pure Go
	SourceOCR       Source = "ocr"        // OCR of an image or of rendered PDF pages
	SourceMixed     Source = "mixed"      // a PDF with some text pages and some scanned pages
)

// Text is what Extract read from a receipt file.
type Text struct {
	Content string // the text, one line per line of the receipt
	Kind    Kind   // the detected file type
	Source  Source // text layer or OCR
	Pages   int    // pages read (1 for an image)
}

// Config bounds the work and the resources of an Extractor. Zero fields
// take the defaults (DefaultConfig).
type Config struct {
	// MaxBytes is the largest file accepted (ErrTooLarge beyond).
	MaxBytes int
	// MaxSide and MaxPixels bound an image's dimensions, read from its
	// header before anything is decoded (ErrBadInput beyond).
	MaxSide   int
	MaxPixels int
	// MaxDecodedBytes bounds the memory an image takes once decoded
	// (width × height × the bytes of a pixel in its color model, read
	// from its header): a small file of 16-bit pixels decodes to 8 bytes
	// a pixel (ErrBadInput beyond).
	MaxDecodedBytes int64
	// MaxPDFPages bounds a PDF's page count (ErrBadInput beyond).
	MaxPDFPages int
	// MaxPDFContentBytes bounds the decompressed content streams of one PDF
	// page: a flate bomb is stopped there (ErrBadInput).
	MaxPDFContentBytes int64
	// Workers is the number of OCR or rasterizing processes run at once
	// across all calls of the Extractor (a semaphore).
	Workers int
	// OCRTimeout bounds one OCR or rasterizing process; the process is
	// killed when it (or the caller's context) runs out.
	OCRTimeout time.Duration
	// Timeout bounds a whole Extract, its waits for a worker included
	// (ErrUnreadable beyond: the receipt could not be read in time).
	Timeout time.Duration
	// MaxQueued is how many reads may wait for a worker at once; one
	// more is ErrBusy at once. MaxWait is how long a read waits for a
	// worker before ErrBusy (so is a wait that Timeout ends).
	MaxQueued int
	MaxWait   time.Duration
	// PDFTimeout bounds reading a PDF's text layer.
	PDFTimeout time.Duration
	// OCR reads text from an image; nil: Tesseract{} (the tesseract binary).
	OCR OCR
	// Rasterizer renders PDF pages without a text layer to images for OCR;
	// nil: Pdftoppm{} (poppler-utils), which reports ErrUnreadable when the
	// binary is missing.
	Rasterizer Rasterizer
}

// DefaultConfig is the configuration of a zero Config.
func DefaultConfig() Config {
	return Config{
		MaxBytes:           10 << 20,
		MaxSide:            10_000,
		MaxPixels:          40_000_000,
		MaxDecodedBytes:    96 << 20,
		MaxPDFPages:        10,
		MaxPDFContentBytes: 2 << 20,
		Workers:            2,
		OCRTimeout:         60 * time.Second,
		Timeout:            2 * time.Minute,
		MaxQueued:          16,
		MaxWait:            30 * time.Second,
		PDFTimeout:         10 * time.Second,
	}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.MaxBytes <= 0 {
		c.MaxBytes = d.MaxBytes
	}
	if c.MaxSide <= 0 {
		c.MaxSide = d.MaxSide
	}
	if c.MaxPixels <= 0 {
		c.MaxPixels = d.MaxPixels
	}
	if c.MaxDecodedBytes <= 0 {
		c.MaxDecodedBytes = d.MaxDecodedBytes
	}
	if c.MaxPDFPages <= 0 {
		c.MaxPDFPages = d.MaxPDFPages
	}
	if c.MaxPDFContentBytes <= 0 {
		c.MaxPDFContentBytes = d.MaxPDFContentBytes
	}
	if c.Workers <= 0 {
		c.Workers = d.Workers
	}
	if c.OCRTimeout <= 0 {
		c.OCRTimeout = d.OCRTimeout
	}
	if c.Timeout <= 0 {
		c.Timeout = d.Timeout
	}
	if c.MaxQueued <= 0 {
		c.MaxQueued = d.MaxQueued
	}
	if c.MaxWait <= 0 {
		c.MaxWait = d.MaxWait
	}
	if c.PDFTimeout <= 0 {
		c.PDFTimeout = d.PDFTimeout
	}
	if c.OCR == nil {
		c.OCR = Tesseract{}
	}
	if c.Rasterizer == nil {
		c.Rasterizer = Pdftoppm{}
	}
	return c
}

// Extractor reads the text of receipt files. It is safe for concurrent use;
// its OCR and rasterizing processes share one pool of Config.Workers slots.
type Extractor struct {
	cfg     Config
	sem     chan struct{}
	waiting atomic.Int64 // reads waiting for a worker
}

// NewExtractor returns an Extractor with cfg (zero fields take defaults).
func NewExtractor(cfg Config) *Extractor {
	cfg = cfg.withDefaults()
	return &Extractor{cfg: cfg, sem: make(chan struct{}, cfg.Workers)}
}

var (
	defaultOnce      sync.Once
	defaultExtractor *Extractor
)

// Extract reads a receipt file with a shared Extractor of DefaultConfig.
func Extract(ctx context.Context, data []byte) (Text, error) {
	defaultOnce.Do(func() { defaultExtractor = NewExtractor(Config{}) })
	return defaultExtractor.Extract(ctx, data)
}

// Detect tells the kind of a receipt file by its content (never its name):
// net/http.DetectContentType confirmed by the format's magic bytes.
// Anything else is ErrUnsupportedType.
func Detect(data []byte) (Kind, error) {
	ct := http.DetectContentType(data)
	switch {
	case ct == "application/pdf" && bytes.HasPrefix(data, []byte("%PDF-")):
		return KindPDF, nil
	case ct == "image/png" && bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return KindPNG, nil
	case ct == "image/jpeg" && bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return KindJPEG, nil
	}
	// Some PDF writers put a few bytes before the header; the format allows
	// the header within the first 1024 bytes.
	head := data[:min(len(data), 1024)]
	if i := bytes.Index(head, []byte("%PDF-")); i >= 0 && !bytes.ContainsAny(head[:i], "\x00") {
		return KindPDF, nil
	}
	ct, _, _ = strings.Cut(ct, ";")
	return "", newErr(ErrUnsupportedType, nil, "content is %s, not a PDF, PNG or JPEG", ct)
}

// Extract detects the type of data by content and reads its text: a PDF's
// text layer in pure Go, images and PDF pages without text through OCR.
// Errors are *Error of the kinds ErrTooLarge, ErrUnsupportedType,
// ErrBadInput and ErrUnreadable (or the context's error).
func (x *Extractor) Extract(ctx context.Context, data []byte) (Text, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, x.cfg.Timeout, errReadTimeout)
	defer cancel()
	t, err := x.extract(ctx, data)
	if err != nil && errors.Is(context.Cause(ctx), errReadTimeout) && !errors.Is(err, ErrBusy) {
		return Text{}, newErr(ErrUnreadable, err, "reading the receipt took longer than %s", x.cfg.Timeout)
	}
	return t, err
}

// errReadTimeout is the cause of an Extract's context ending at
// Config.Timeout.
var errReadTimeout = errors.New("receipt read timeout")

func (x *Extractor) extract(ctx context.Context, data []byte) (Text, error) {
	if len(data) > x.cfg.MaxBytes {
		return Text{}, newErr(ErrTooLarge, nil, "%d bytes, over the limit of %d", len(data), x.cfg.MaxBytes)
	}
	if len(data) == 0 {
		return Text{}, newErr(ErrUnsupportedType, nil, "empty file")
	}
	kind, err := Detect(data)
	if err != nil {
		return Text{}, err
	}
	if kind == KindPDF {
		return x.extractPDF(ctx, data)
	}
	if err := x.checkImageHeader(data); err != nil {
		return Text{}, err
	}
	// The image is decoded, prepared and read in one worker slot: at
	// most Workers images are in memory at once, whatever the number of
	// imports waiting.
	release, err := x.acquire(ctx)
	if err != nil {
		return Text{}, err
	}
	defer release()
	img, format, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return Text{}, newErr(ErrBadInput, err, "corrupt %s image", format)
	}
	text, err := x.readImage(ctx, img, data)
	if err != nil {
		return Text{}, err
	}
	return Text{Content: text, Kind: kind, Source: SourceOCR, Pages: 1}, nil
}

// checkImageHeader reads the image header, so absurd dimensions or a
// decoded size over MaxDecodedBytes (the usual decompression bomb) are
// refused before any pixel is allocated; the image is decoded whole
// afterwards, so a corrupt file is a 400 rather than a vague OCR failure.
func (x *Extractor) checkImageHeader(data []byte) error {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return newErr(ErrBadInput, err, "corrupt image header")
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return newErr(ErrBadInput, nil, "image of %d×%d px", cfg.Width, cfg.Height)
	}
	if cfg.Width > x.cfg.MaxSide || cfg.Height > x.cfg.MaxSide ||
		int64(cfg.Width)*int64(cfg.Height) > int64(x.cfg.MaxPixels) {
		return newErr(ErrBadInput, nil, "image of %d×%d px is over the limit (%d px a side, %d px in all)",
			cfg.Width, cfg.Height, x.cfg.MaxSide, x.cfg.MaxPixels)
	}
	if cfg.Width < 16 || cfg.Height < 16 {
		return newErr(ErrBadInput, nil, "image of %d×%d px is too small to hold a receipt", cfg.Width, cfg.Height)
	}
	if n := int64(cfg.Width) * int64(cfg.Height) * pixelBytes(cfg.ColorModel) / 8; n > x.cfg.MaxDecodedBytes {
		return newErr(ErrBadInput, nil, "image of %d×%d px would take %d MiB decoded, over the limit of %d MiB",
			cfg.Width, cfg.Height, n>>20, x.cfg.MaxDecodedBytes>>20)
	}
	return nil
}

// pixelBytes is eight times the bytes a decoded pixel of color model m
// takes (a 4:2:0 JPEG pixel takes 1.5); an unknown model counts as 16-bit
// RGBA, the largest the standard decoders make.
func pixelBytes(m color.Model) int64 {
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 8
	case color.Gray16Model, color.Alpha16Model:
		return 16
	case color.YCbCrModel:
		return 24 // at most 4:4:4; 4:2:0 takes half of it
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel:
		return 32
	}
	if _, ok := m.(color.Palette); ok {
		return 8
	}
	return 64
}

// goodRead is the Parse confidence of a read that needs no second
// attempt: a date, a total that agrees with the other amounts, and a
// vendor or line items.
const goodRead = 0.9

// turnBelow is the Parse confidence under which a read is so poor
// (no total found) that the image may be turned.
const turnBelow = 0.5

// europeanLangs are the languages of a second read of a receipt whose
// first read looks German (Tesseract's deu pack, tesseract-ocr-deu:
// umlauts, ß and the words of German receipts read right).
const europeanLangs = "eng+deu"

// germanMarks are words and letters of a German receipt.
var germanMarks = regexp.MustCompile(`(?i)\b(summe|mwst|netto|brutto|betrag|gegeben|zur[uü]ck|kasse|bon|vielen dank|ihr einkauf)\b|[äöüß]`)

// readImage reads img (data as sent) in one or two attempts, in the
// worker slot the caller holds. A photo
// (the paper on a background) is cropped, scaled up and binarised
// (prepared.at) and read; a scan or a rendered image is read first as it
// is. When that read is poor (Parse's confidence under goodRead), the
// prepared image is read again, in English and German when the first
// read looks German, and the better read is kept. A read that found no
// total is tried turned, then as sparse text.
func (x *Extractor) readImage(ctx context.Context, img image.Image, data []byte) (string, error) {
	p := newPrepared(img)
	now := time.Now()
	text, err := x.readUpright(ctx, p, data, now)
	spent := time.Since(now)
	if err != nil && !errors.Is(err, ErrUnreadable) {
		return "", err
	}
	conf := 0.0
	if err == nil {
		if conf = Parse(text, now).Confidence; conf >= goodRead {
			return text, nil
		}
	}
	// A read this poor may be of a receipt photographed upside down or
	// sideways: the OCR tells the turn, the turned image is read, and
	// the read Parse trusts more is kept. (Only then: the turn costs a
	// process, and a fair read is upright.)
	if o, ok := x.cfg.OCR.(Orienter); ok && conf < turnBelow {
		lang := ""
		if germanMarks.MatchString(text) {
			lang = europeanLangs
		}
		// (A clear gain only, a tenth or more: the turn is a guess.)
		if turned, tconf, ok := x.readTurned(ctx, o, p, lang, now); ok && (err != nil || tconf > conf+0.05) {
			return turned, nil
		}
	}
	// Still no total: the prepared image is read as sparse text (every
	// word where it stands), which finds the few lines a noisy photo
	// lets through, and the read Parse trusts more is kept. (It may
	// take half the time the first read took, or sparseMinTime: on a
	// photo of noise sparse text is slow, and the readers are shared.)
	if so, ok := x.cfg.OCR.(SparseOCR); ok && conf < turnBelow {
		lang := ""
		if germanMarks.MatchString(text) {
			lang = europeanLangs
		}
		limit := min(x.cfg.OCRTimeout, max(sparseMinTime, spent/2))
		if sparse, serr := x.sparseInSlot(ctx, so, pgm(p.at()), lang, limit); serr == nil &&
			(err != nil || Parse(sparse, now).Confidence > conf) {
			return sparse, nil
		}
	}
	return text, err
}

// sparseMinTime is the least time a sparse read is given, however
// fast the first read was.
const sparseMinTime = 2 * time.Second

// sparseInSlot reads img as sparse text within limit; the caller holds
// a worker slot.
func (x *Extractor) sparseInSlot(ctx context.Context, so SparseOCR, img []byte, lang string, limit time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	text, err := so.RecognizeSparse(ctx, img, lang)
	if err != nil {
		return "", err
	}
	text = normalizeText(text)
	if !hasText(text) {
		return "", newErr(ErrUnreadable, nil, "no text found in the image")
	}
	return text, nil
}

// readUpright reads the image as it is turned, in one or two attempts
// (readImage).
func (x *Extractor) readUpright(ctx context.Context, p prepared, data []byte, now time.Time) (string, error) {
	var prepared []byte
	first, err := "", error(nil)
	if p.photo() {
		prepared = pgm(p.at())
		first, err = x.ocrInSlot(ctx, prepared, "")
	} else {
		first, err = x.ocrInSlot(ctx, data, "")
	}
	if err != nil && !errors.Is(err, ErrUnreadable) {
		return "", err
	}
	var firstConf float64
	if err == nil {
		if firstConf = Parse(first, now).Confidence; firstConf >= goodRead {
			return first, nil
		}
	}
	lang := ""
	if germanMarks.MatchString(first) {
		lang = europeanLangs
	} else if p.photo() {
		return first, err // read prepared already, in English
	}
	if prepared == nil {
		prepared = pgm(p.at())
	}
	second, err2 := x.ocrInSlot(ctx, prepared, lang)
	switch {
	case err2 != nil && err != nil:
		return "", err2
	case err2 != nil:
		return first, nil
	case err != nil || Parse(second, now).Confidence >= firstConf:
		return second, nil
	}
	return first, nil
}

// readTurned asks o how far the prepared image is turned and, when it
// is, reads it turned upright (in lang): its text and Parse's
// confidence in it; ok is false when the image is upright or the turn
// unknown.
func (x *Extractor) readTurned(ctx context.Context, o Orienter, p prepared, lang string, now time.Time) (text string, conf float64, ok bool) {
	upright := p.at()
	octx, cancel := context.WithTimeout(ctx, x.cfg.OCRTimeout)
	rot, err := o.Orientation(octx, pgm(upright))
	cancel()
	if err != nil || rot != 90 && rot != 180 && rot != 270 {
		return "", 0, false
	}
	text, err = x.ocrInSlot(ctx, pgm(rotated(upright, rot)), lang)
	if err != nil {
		return "", 0, false
	}
	return text, Parse(text, now).Confidence, true
}

// acquire takes a worker slot; ErrBusy when MaxQueued reads wait
// already or none frees within MaxWait; or gives up with the context.
func (x *Extractor) acquire(ctx context.Context) (release func(), err error) {
	release = func() { <-x.sem }
	select {
	case x.sem <- struct{}{}:
		return release, nil
	default:
	}
	if n := x.waiting.Add(1); n > int64(x.cfg.MaxQueued) {
		x.waiting.Add(-1)
		return nil, newErr(ErrBusy, nil, "%d receipts are waiting to be read; try again shortly", n-1)
	}
	defer x.waiting.Add(-1)
	wait := time.NewTimer(x.cfg.MaxWait)
	defer wait.Stop()
	select {
	case x.sem <- struct{}{}:
		return release, nil
	case <-wait.C:
		return nil, newErr(ErrBusy, nil, "no receipt reader was free within %s; try again shortly", x.cfg.MaxWait)
	case <-ctx.Done():
		if errors.Is(context.Cause(ctx), errReadTimeout) {
			// The read's own bound ran out while it waited: nothing was
			// read, the readers are busy.
			return nil, newErr(ErrBusy, nil, "no receipt reader was free within %s; try again shortly", x.cfg.Timeout)
		}
		return nil, ctx.Err()
	}
}

// ocr runs the OCR on one image in a worker slot (ocrInSlot).
func (x *Extractor) ocr(ctx context.Context, img []byte, lang string) (string, error) {
	release, err := x.acquire(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return x.ocrInSlot(ctx, img, lang)
}

// ocrInSlot runs the OCR on one image with the OCR timeout, in lang when
// the OCR takes languages ("" for its own); the caller holds a worker
// slot.
func (x *Extractor) ocrInSlot(ctx context.Context, img []byte, lang string) (string, error) {
	var err error
	ctx, cancel := context.WithTimeout(ctx, x.cfg.OCRTimeout)
	defer cancel()
	var text string
	if lo, ok := x.cfg.OCR.(LanguageOCR); ok && lang != "" {
		text, err = lo.RecognizeIn(ctx, img, lang)
	} else {
		text, err = x.cfg.OCR.Recognize(ctx, img)
	}
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return "", err
		}
		if ctx.Err() != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return "", newErr(ErrUnreadable, err, "OCR timed out")
			}
			return "", ctx.Err()
		}
		return "", newErr(ErrUnreadable, err, "OCR failed")
	}
	text = normalizeText(text)
	if !hasText(text) {
		return "", newErr(ErrUnreadable, nil, "no text found in the image")
	}
	return text, nil
}

// normalizeText drops control characters, trailing spaces and the blank
// lines OCR leaves between blocks.
func normalizeText(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		line = strings.Map(func(r rune) rune {
			switch {
			case r == '\t':
				return ' '
			case r < 0x20 || r == 0x7f || r == '\uFFFD' || r == '\f':
				return -1
			}
			return r
		}, line)
		line = strings.TrimRight(line, " ")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
	}
	return b.String()
}

// hasText reports whether s has a few letters or digits: less is noise.
func hasText(s string) bool {
	n := 0
	for _, r := range s {
		if r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' {
			n++
			if n >= 8 {
				return true
			}
		}
	}
	return false
}
