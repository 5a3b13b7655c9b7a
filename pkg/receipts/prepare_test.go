package receipts

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"slices"
	"strings"
	"testing"
)

// photo is a receipt photographed on a table: a dark background, the
// paper (x 200–500, y 100–900) lit unevenly (bright at the top, in
// shadow at the bottom), with dark strokes of text on it.
func photo() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 800, 1000))
	for y := range 1000 {
		for x := range 800 {
			v := uint8(35)
			if x >= 200 && x < 500 && y >= 100 && y < 900 {
				v = uint8(235 - (y-100)*110/800) // 235 down to 125: the shadow
				if (y/20)%2 == 1 && y%20 < 6 && x >= 230 && x < 470 && (x/9)%2 == 0 {
					v = uint8(int(v) * 35 / 100) // a stroke, as dark relative to its paper
				}
			}
			img.Set(x, y, color.RGBA{v, v, v, 255})
		}
	}
	return img
}

func TestPaperBounds(t *testing.T) {
	got := paperBounds(grayOf(photo()))
	want := image.Rect(200, 100, 500, 900)
	if d := 12; abs(got.Min.X-want.Min.X) > d || abs(got.Min.Y-want.Min.Y) > d || abs(got.Max.X-want.Max.X) > d || abs(got.Max.Y-want.Max.Y) > d {
		t.Fatalf("paper at %v, want about %v", got, want)
	}
	// A scan (paper everywhere) is not cropped.
	scan := image.NewGray(image.Rect(0, 0, 400, 600))
	for i := range scan.Pix {
		scan.Pix[i] = 240
	}
	if got := paperBounds(scan); got != scan.Bounds() {
		t.Fatalf("scan cropped to %v", got)
	}
}

func TestPrepare(t *testing.T) {
	g := newPrepared(photo()).at()
	// Cropped to the paper (300 px wide, with a margin) and scaled up
	// towards prepWidth, at most prepMaxScale times.
	if w := g.Bounds().Dx(); w < 850 || w > 1000 {
		t.Fatalf("prepared width %d, want about 3 × 300", w)
	}
	scale := float64(g.Bounds().Dx()) / float64(paperBounds(grayOf(photo())).Dx())
	at := func(x, y int) uint8 {
		b := paperBounds(grayOf(photo()))
		return g.GrayAt(int(float64(x-b.Min.X)*scale), int(float64(y-b.Min.Y)*scale)).Y
	}
	// Black and white only; strokes black and paper white in the light
	// and in the shadow alike.
	for _, p := range g.Pix {
		if p != 0 && p != 255 {
			t.Fatalf("gray pixel %d left", p)
		}
	}
	for _, c := range []struct {
		x, y int
		want uint8
		what string
	}{
		{234, 142, 0, "a stroke in the light"},
		{234, 862, 0, "a stroke in the shadow"},
		{350, 110, 255, "paper in the light"},
		{350, 890, 255, "paper in the shadow"},
	} {
		if got := at(c.x, c.y); got != c.want {
			t.Errorf("%s at (%d,%d): %d, want %d", c.what, c.x, c.y, got, c.want)
		}
	}
}

func TestPGM(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 3, 2))
	copy(g.Pix, []uint8{0, 128, 255, 1, 2, 3})
	b := pgm(g)
	if !bytes.HasPrefix(b, []byte("P5\n3 2\n255\n")) || !bytes.HasSuffix(b, []byte{0, 128, 255, 1, 2, 3}) || len(b) != len("P5\n3 2\n255\n")+6 {
		t.Fatalf("pgm: %q", b)
	}
}

// answers is an OCR answering texts in turn, recording what it was given.
type answers struct {
	texts []string
	got   [][]byte
}

func (a *answers) Recognize(_ context.Context, img []byte) (string, error) {
	a.got = append(a.got, img)
	t := a.texts[0]
	if len(a.texts) > 1 {
		a.texts = a.texts[1:]
	}
	return t, nil
}

const (
	poorRead = "gIb 3,l0\n.:;"
	goodText = "CITY BOOKS\nDate: 03/14/2026\nNotebook 4.99\nPen 1.00\nSubtotal 5.99\nTax 0.48\nTotal 6.47"
)

// TestReadAttempts: a scan read well once is read once, as sent; read
// poorly, it is read again prepared, and the better read is kept; a
// photo is prepared and read once.
func TestReadAttempts(t *testing.T) {
	scan := pngBytes(t, 400, 600)
	for _, c := range []struct {
		name  string
		data  []byte
		texts []string
		calls int
		want  string
	}{
		{"a good first read", scan, []string{goodText}, 1, goodText},
		{"a poor first read, a better second", scan, []string{poorRead, goodText}, 2, goodText},
		{"a poor first read, a worse second", scan, []string{"Total 6.47\nDate: 03/14/2026", poorRead}, 2, "Total 6.47\nDate: 03/14/2026"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ocr := &answers{texts: c.texts}
			x := NewExtractor(Config{OCR: ocr})
			got, err := x.Extract(t.Context(), c.data)
			if err != nil || got.Content != c.want || len(ocr.got) != c.calls {
				t.Fatalf("read %q (%v) in %d calls, want %q in %d", got.Content, err, len(ocr.got), c.want, c.calls)
			}
			if !bytes.Equal(ocr.got[0], c.data) {
				t.Fatal("the first read was not of the file as sent")
			}
			if c.calls == 2 && !bytes.HasPrefix(ocr.got[1], []byte("P5\n")) {
				t.Fatal("the second read was not of the prepared image")
			}
		})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, photo()); err != nil {
		t.Fatal(err)
	}
	ocr := &answers{texts: []string{"Total 6.47"}}
	if _, err := NewExtractor(Config{OCR: ocr}).Extract(t.Context(), b.Bytes()); err != nil || len(ocr.got) != 1 ||
		!bytes.HasPrefix(ocr.got[0], []byte("P5\n")) {
		t.Fatalf("a photo: %d reads (%v), want one of the prepared image", len(ocr.got), err)
	}
}

func TestLinesOfTSV(t *testing.T) {
	row := func(block, line, left, width int, conf float64, text string) string {
		return fmt.Sprintf("5\t1\t%d\t1\t%d\t1\t%d\t10\t%d\t30\t%.1f\t%s", block, line, left, width, conf, text)
	}
	tsv := strings.Join([]string{
		"level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext",
		"4\t1\t1\t1\t1\t0\t0\t0\t500\t30\t-1\t",
		row(1, 1, 10, 60, 12, "Sa"), row(1, 1, 80, 90, 20, "ppelts"), // a noisy line of words: kept as read
		row(1, 2, 10, 70, 95, "TOTAL"), row(1, 2, 90, 20, 8, "|~"), row(1, 2, 400, 60, 91, "30.58"), row(1, 2, 470, 20, 10, "Be"),
		row(1, 3, 10, 60, 96, "PAIN"), row(1, 3, 80, 100, 14, "RELIEVER"), row(1, 3, 300, 50, 90, "19.63"),
		row(2, 1, 10, 40, 90, "Tax"), row(2, 1, 60, 40, 90, "0.70"),
	}, "\n")
	got := linesOfTSV(tsv, minWordConf)
	want := []string{
		"Sa ppelts",
		"TOTAL" + strings.Repeat(" ", 24) + "30.58",         // the junk dropped, the gap kept as spaces (320 px of 13 px characters)
		"PAIN RELIEVER" + strings.Repeat(" ", 10) + "19.63", // a word read with low confidence kept

		"Tax 0.70",
	}
	if lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n"); !slices.Equal(lines, want) {
		t.Fatalf("linesOfTSV:\n%q\nwant\n%q", lines, want)
	}
}

// langOCR is an OCR that takes languages, answering in turn and
// recording the languages it was asked for.
type langOCR struct {
	answers
	langs []string
}

func (l *langOCR) RecognizeIn(ctx context.Context, img []byte, lang string) (string, error) {
	l.langs = append(l.langs, lang)
	return l.Recognize(ctx, img)
}

// TestGermanSecondRead: a poor first read that looks German is read
// again in English and German; one that does not, in the OCR's own
// language; a photo that does not look German is read once.
func TestGermanSecondRead(t *testing.T) {
	scan := pngBytes(t, 400, 600)
	for _, c := range []struct {
		first string
		want  []string // the languages asked for: none is the OCR's own
	}{
		{"SUMME 4,17\nMwSt", []string{europeanLangs}},
		{"TOTAL 4.17\nthanks", nil},
	} {
		ocr := &langOCR{answers: answers{texts: []string{c.first, goodText}}}
		if _, err := NewExtractor(Config{OCR: ocr}).Extract(t.Context(), scan); err != nil || len(ocr.got) != 2 || !slices.Equal(ocr.langs, c.want) {
			t.Fatalf("first read %q: %d reads, the second in %q (%v), want %q", c.first, len(ocr.got), ocr.langs, err, c.want)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, photo()); err != nil {
		t.Fatal(err)
	}
	ocr := &langOCR{answers: answers{texts: []string{"TOTAL 4.17"}}}
	if _, err := NewExtractor(Config{OCR: ocr}).Extract(t.Context(), b.Bytes()); err != nil || len(ocr.got) != 1 {
		t.Fatalf("a photo read %d times (%v)", len(ocr.got), err)
	}
}

func TestRotated(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 3, 2))
	copy(g.Pix, []uint8{1, 2, 3, 4, 5, 6}) // 1 2 3 / 4 5 6
	for _, c := range []struct {
		deg  int
		w, h int
		pix  []uint8
	}{
		{90, 2, 3, []uint8{4, 1, 5, 2, 6, 3}},
		{180, 3, 2, []uint8{6, 5, 4, 3, 2, 1}},
		{270, 2, 3, []uint8{3, 6, 2, 5, 1, 4}},
		{0, 3, 2, []uint8{1, 2, 3, 4, 5, 6}},
	} {
		r := rotated(g, c.deg)
		if r.Bounds().Dx() != c.w || r.Bounds().Dy() != c.h || !bytes.Equal(r.Pix, c.pix) {
			t.Errorf("rotated %d: %dx%d %v, want %dx%d %v", c.deg, r.Bounds().Dx(), r.Bounds().Dy(), r.Pix, c.w, c.h, c.pix)
		}
	}
}
