package receipts

import (
	"bytes"
	"image"
	"image/color"
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
	g := prepare(photo())
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
