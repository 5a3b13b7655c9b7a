package receipts

import (
	"bytes"
	"image"
	"math"
	"strconv"

	"golang.org/x/image/draw"
)

// Image preparation: what a phone photo or a scan goes through before
// Tesseract reads it. A photo shows the receipt on a table, at an angle,
// under uneven light, its text a few pixels high; Tesseract reads black
// text about 30 px high on white best. So the image is turned to gray,
// cropped to the paper (the largest bright region), scaled so the
// paper is about prepWidth px wide, and binarised against the light
// around each pixel (a global threshold loses the shadowed half of a
// photo).

const (
	// prepWidth is the width the paper is scaled to (up to prepMaxScale
	// times, never down): a receipt's characters end up about 25 to 40 px
	// high.
	prepWidth    = 1400
	prepMaxScale = 3.0
	// prepMaxPixels bounds the prepared image (what Tesseract reads); its
	// running sums (4 bytes a pixel) fit in uint32 below 16 Mpx.
	prepMaxPixels = 8 << 20
	// cropMinShare: a bright region smaller than this share of the image
	// is not taken for the paper (nothing is cropped).
	cropMinShare = 0.08
)

// grayOf is img in 8-bit gray (the luma plane of a JPEG as it is).
func grayOf(img image.Image) *image.Gray {
	b := img.Bounds()
	if y, ok := img.(*image.YCbCr); ok {
		g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
		for row := 0; row < b.Dy(); row++ {
			off := (b.Min.Y+row-y.Rect.Min.Y)*y.YStride + (b.Min.X - y.Rect.Min.X)
			copy(g.Pix[row*g.Stride:row*g.Stride+b.Dx()], y.Y[off:off+b.Dx()])
		}
		return g
	}
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(g, g.Bounds(), img, b.Min, draw.Src)
	return g
}

// otsu is the threshold that best splits hist in two classes.
func otsu(hist *[256]int) int {
	total, sum := 0, 0
	for i, n := range hist {
		total += n
		sum += i * n
	}
	best, bestVar := 128, -1.0
	wB, sumB := 0, 0
	for t := range 256 {
		wB += hist[t]
		if wB == 0 {
			continue
		}
		wF := total - wB
		if wF == 0 {
			break
		}
		sumB += t * hist[t]
		mB := float64(sumB) / float64(wB)
		mF := float64(sum-sumB) / float64(wF)
		v := float64(wB) * float64(wF) * (mB - mF) * (mB - mF)
		if v > bestVar {
			bestVar, best = v, t
		}
	}
	return best
}

// paperBounds is the bounding box of the largest bright region of g
// (the receipt on a darker background), or g's bounds when there is no
// such region or it covers nearly everything (a scan).
func paperBounds(g *image.Gray) image.Rectangle {
	full := g.Bounds()
	// Work on a small copy: blocks of step×step pixels averaged.
	step := max(1, max(full.Dx(), full.Dy())/300)
	w, h := full.Dx()/step, full.Dy()/step
	if w < 8 || h < 8 {
		return full
	}
	small := make([]uint8, w*h)
	var hist [256]int
	for y := range h {
		for x := range w {
			s := 0
			for dy := range step {
				row := g.Pix[(y*step+dy)*g.Stride+x*step:]
				for dx := range step {
					s += int(row[dx])
				}
			}
			v := uint8(s / (step * step))
			small[y*w+x] = v
			hist[v]++
		}
	}
	t := otsu(&hist)
	// Label the bright 4-connected regions; keep the largest.
	label := make([]int32, w*h)
	var stack []int
	bestN := 0
	var bestBox image.Rectangle
	next := int32(0)
	for i := range small {
		if label[i] != 0 || int(small[i]) <= t {
			continue
		}
		next++
		label[i] = next
		stack = append(stack[:0], i)
		n := 0
		box := image.Rect(i%w, i/w, i%w+1, i/w+1)
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			n++
			x, y := p%w, p/w
			box = box.Union(image.Rect(x, y, x+1, y+1))
			for _, q := range [4]int{p - 1, p + 1, p - w, p + w} {
				if q < 0 || q >= len(small) || (q == p-1 && x == 0) || (q == p+1 && x == w-1) {
					continue
				}
				if label[q] == 0 && int(small[q]) > t {
					label[q] = next
					stack = append(stack, q)
				}
			}
		}
		if n > bestN {
			bestN, bestBox = n, box
		}
	}
	if bestN < int(cropMinShare*float64(w*h)) || bestBox.Dx()*bestBox.Dy() > w*h*9/10 {
		return full
	}
	// Back to full size, with a margin of a block or two.
	r := image.Rect((bestBox.Min.X-2)*step, (bestBox.Min.Y-2)*step, (bestBox.Max.X+2)*step, (bestBox.Max.Y+2)*step)
	return r.Intersect(full)
}

// prepared is an image being prepared: its gray pixels and the paper's
// bounds in them.
type prepared struct {
	gray  *image.Gray
	paper image.Rectangle
}

// newPrepared finds the paper of img.
func newPrepared(img image.Image) prepared {
	g := grayOf(img)
	return prepared{gray: g, paper: paperBounds(g)}
}

// photo reports whether the paper was found on a background (a photo),
// not filling the image (a scan or a rendered image).
func (p prepared) photo() bool { return p.paper != p.gray.Bounds() }

// at is the paper cropped, scaled towards prepWidth px wide (up to
// prepMaxScale times, never down) and binarised: what Tesseract reads.
func (p prepared) at() *image.Gray {
	crop := p.paper
	scale := min(prepMaxScale, max(1, float64(prepWidth)/float64(crop.Dx())))
	if area := scale * scale * float64(crop.Dx()*crop.Dy()); area > prepMaxPixels {
		scale = max(1, scale*math.Sqrt(prepMaxPixels/area))
	}
	var out *image.Gray
	if scale > 1.01 {
		out = image.NewGray(image.Rect(0, 0, int(float64(crop.Dx())*scale), int(float64(crop.Dy())*scale)))
		draw.BiLinear.Scale(out, out.Bounds(), p.gray, crop, draw.Src, nil)
	} else {
		out = image.NewGray(image.Rect(0, 0, crop.Dx(), crop.Dy()))
		draw.Draw(out, out.Bounds(), p.gray, crop.Min, draw.Src)
	}
	adaptiveThreshold(out)
	return out
}

// adaptiveThreshold binarises g in place (Bradley and Roth): a pixel is
// black when it is darker than the mean of the window around it by more
// than a share of that mean; the window is about a twelfth of the width.
// Uneven light and shadows then do not matter, only local contrast.
func adaptiveThreshold(g *image.Gray) {
	w, h := g.Bounds().Dx(), g.Bounds().Dy()
	if w == 0 || h == 0 {
		return
	}
	integral := make([]uint32, (w+1)*(h+1))
	for y := range h {
		var rowSum uint32
		for x := range w {
			rowSum += uint32(g.Pix[y*g.Stride+x])
			integral[(y+1)*(w+1)+x+1] = integral[y*(w+1)+x+1] + rowSum
		}
	}
	half := max(8, w/24)
	const share = 0.15
	for y := range h {
		y0, y1 := max(0, y-half), min(h, y+half+1)
		for x := range w {
			x0, x1 := max(0, x-half), min(w, x+half+1)
			n := int64((x1 - x0) * (y1 - y0))
			sum := int64(integral[y1*(w+1)+x1]) - int64(integral[y0*(w+1)+x1]) - int64(integral[y1*(w+1)+x0]) + int64(integral[y0*(w+1)+x0])
			i := y*g.Stride + x
			if int64(g.Pix[i])*n*100 < sum*(100-share*100) {
				g.Pix[i] = 0
			} else {
				g.Pix[i] = 255
			}
		}
	}
}

// pgm encodes g as a binary PGM (what Tesseract reads fastest: no
// compression to undo).
func pgm(g *image.Gray) []byte {
	w, h := g.Bounds().Dx(), g.Bounds().Dy()
	var b bytes.Buffer
	b.Grow(w*h + 32)
	b.WriteString("P5\n" + strconv.Itoa(w) + " " + strconv.Itoa(h) + "\n255\n")
	for y := range h {
		b.Write(g.Pix[y*g.Stride : y*g.Stride+w])
	}
	return b.Bytes()
}

// rotated is g turned clockwise by deg degrees (90, 180 or 270; any
// other value leaves it as it is).
func rotated(g *image.Gray, deg int) *image.Gray {
	w, h := g.Bounds().Dx(), g.Bounds().Dy()
	var out *image.Gray
	switch deg {
	case 90, 270:
		out = image.NewGray(image.Rect(0, 0, h, w))
	case 180:
		out = image.NewGray(image.Rect(0, 0, w, h))
	default:
		return g
	}
	for y := range h {
		row := g.Pix[y*g.Stride : y*g.Stride+w]
		for x, v := range row {
			switch deg {
			case 90: // (x, y) → (h-1-y, x)
				out.Pix[x*out.Stride+h-1-y] = v
			case 180:
				out.Pix[(h-1-y)*out.Stride+w-1-x] = v
			case 270: // (x, y) → (y, w-1-x)
				out.Pix[(w-1-x)*out.Stride+y] = v
			}
		}
	}
	return out
}
