package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// fontSpec is one Debian font (fonts-dejavu-core and -extra) and its bold
// variant for the header.
type fontSpec struct {
	name, regular, bold string
}

var fontSpecs = []fontSpec{
	{"DejaVuSansMono", "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf"},
	{"DejaVuSans", "DejaVuSans.ttf", "DejaVuSans-Bold.ttf"},
	{"DejaVuSerif", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf"},
	{"DejaVuSansCondensed", "DejaVuSansCondensed.ttf", "DejaVuSansCondensed-Bold.ttf"},
	{"DejaVuSerifCondensed", "DejaVuSerifCondensed.ttf", "DejaVuSerifCondensed-Bold.ttf"},
	{"DejaVuSansMono-Bold", "DejaVuSansMono-Bold.ttf", "DejaVuSansMono-Bold.ttf"},
}

// fontDir is where Debian puts the DejaVu fonts.
var fontDir = "/usr/share/fonts/truetype/dejavu"

func loadFace(file string, size float64) (font.Face, error) {
	b, err := os.ReadFile(filepath.Join(fontDir, file))
	if err != nil {
		return nil, fmt.Errorf("font %s (apt-get install fonts-dejavu-core fonts-dejavu-extra): %w", file, err)
	}
	f, err := opentype.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("font %s: %w", file, err)
	}
	return opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
}

// renderOptions vary the look of one rendered receipt.
type renderOptions struct {
	font     fontSpec
	size     float64 // px
	boldHead bool
	ink      uint8   // gray level of the text
	rotation float64 // degrees
	specks   int     // dark specks of noise
}

// renderImage draws the lines on a white paper-like canvas, then rotates it
// slightly and adds specks of noise.
func renderImage(ls []line, o renderOptions, rng *rand.Rand) (*image.Gray, error) {
	face, err := loadFace(o.font.regular, o.size)
	if err != nil {
		return nil, err
	}
	defer face.Close()
	headFile := o.font.regular
	if o.boldHead {
		headFile = o.font.bold
	}
	head, err := loadFace(headFile, o.size*1.3)
	if err != nil {
		return nil, err
	}
	defer head.Close()

	lineH := int(o.size * 1.45)
	margin := int(o.size * 1.2)
	// Width: the widest line plus a gap between its columns, at least 30
	// columns of "0".
	width := font.MeasureString(face, "000000000000000000000000000000").Ceil()
	for _, l := range ls {
		f := face
		if l.big {
			f = head
		}
		w := font.MeasureString(f, l.left).Ceil()
		if l.right != "" {
			w += font.MeasureString(f, l.right).Ceil() + int(o.size*2)
		}
		width = max(width, w)
	}
	W := width + 2*margin
	H := len(ls)*lineH + 2*margin + int(o.size)
	img := image.NewGray(image.Rect(0, 0, W, H))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.Gray{255}), image.Point{}, draw.Src)
	ink := image.NewUniform(color.Gray{o.ink})
	y := margin + int(o.size)
	for _, l := range ls {
		f := face
		if l.big {
			f = head
			y += int(o.size * 0.3)
		}
		d := &font.Drawer{Dst: img, Src: ink, Face: f}
		x := margin
		if l.align == alignCenter {
			x = (W - font.MeasureString(f, l.left).Ceil()) / 2
		}
		d.Dot = fixed.P(x, y)
		d.DrawString(l.left)
		if l.right != "" {
			d.Dot = fixed.P(W-margin-font.MeasureString(f, l.right).Ceil(), y)
			d.DrawString(l.right)
		}
		y += lineH
	}
	out := rotate(img, o.rotation)
	for i := 0; i < o.specks; i++ {
		x, y := rng.IntN(out.Bounds().Dx()), rng.IntN(out.Bounds().Dy())
		r := 1 + rng.IntN(2)
		for dy := 0; dy < r; dy++ {
			for dx := 0; dx < r; dx++ {
				out.SetGray(x+dx, y+dy, color.Gray{uint8(60 + rng.IntN(120))})
			}
		}
	}
	return out, nil
}

// rotate turns the image by deg degrees around its center (bilinear), on a
// white background large enough for the corners.
func rotate(src *image.Gray, deg float64) *image.Gray {
	if deg == 0 {
		return src
	}
	th := deg * math.Pi / 180
	sin, cos := math.Sin(th), math.Cos(th)
	w, h := float64(src.Bounds().Dx()), float64(src.Bounds().Dy())
	nw := int(math.Ceil(math.Abs(w*cos) + math.Abs(h*sin)))
	nh := int(math.Ceil(math.Abs(w*sin) + math.Abs(h*cos)))
	dst := image.NewGray(image.Rect(0, 0, nw, nh))
	cx, cy := w/2, h/2
	ncx, ncy := float64(nw)/2, float64(nh)/2
	at := func(x, y int) float64 {
		if x < 0 || y < 0 || x >= src.Bounds().Dx() || y >= src.Bounds().Dy() {
			return 255
		}
		return float64(src.Pix[y*src.Stride+x])
	}
	for y := 0; y < nh; y++ {
		for x := 0; x < nw; x++ {
			dx, dy := float64(x)-ncx, float64(y)-ncy
			sx := cos*dx + sin*dy + cx
			sy := -sin*dx + cos*dy + cy
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			fx, fy := sx-float64(x0), sy-float64(y0)
			v := at(x0, y0)*(1-fx)*(1-fy) + at(x0+1, y0)*fx*(1-fy) + at(x0, y0+1)*(1-fx)*fy + at(x0+1, y0+1)*fx*fy
			dst.Pix[y*dst.Stride+x] = uint8(math.Round(v))
		}
	}
	return dst
}
