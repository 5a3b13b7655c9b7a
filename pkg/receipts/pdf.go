package receipts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/ledongthuc/pdf"
)

// pdfPage is one page of a PDF: its text layer (possibly empty).
type pdfPage struct {
	num  int
	text string
	w, h float64 // the MediaBox, in points
}

// maxPageTreeNodes and maxPageTreeDepth bound the walk of a PDF's page
// tree, which a hostile file can make cyclic or endless.
const (
	maxPageTreeNodes = 1000
	maxPageTreeDepth = 16
)

// extractPDF reads the text layer of each page in pure Go and sends pages
// without text to the rasterizer and OCR.
func (x *Extractor) extractPDF(ctx context.Context, data []byte) (Text, error) {
	pages, err := x.readPDFText(ctx, data)
	if err != nil {
		return Text{}, err
	}
	var scanned []int
	for _, p := range pages {
		if !hasText(p.text) {
			scanned = append(scanned, p.num)
		}
	}
	source := SourceTextLayer
	if len(scanned) > 0 {
		texts, err := x.ocrPDFPages(ctx, data, pages, scanned)
		if err != nil {
			return Text{}, err
		}
		for i, n := range scanned {
			pages[n-1].text = texts[i]
		}
		source = SourceOCR
		if len(scanned) < len(pages) {
			source = SourceMixed
		}
	}
	var parts []string
	for _, p := range pages {
		if t := normalizeText(p.text); t != "" {
			parts = append(parts, t)
		}
	}
	content := strings.Join(parts, "\n")
	if !hasText(content) {
		return Text{}, newErr(ErrUnreadable, nil, "no text found in the PDF")
	}
	return Text{Content: content, Kind: KindPDF, Source: source, Pages: len(pages)}, nil
}

// ocrPDFPages renders the pages and reads each through OCR, every process
// in a worker slot.
func (x *Extractor) ocrPDFPages(ctx context.Context, data []byte, all []pdfPage, pages []int) ([]string, error) {
	// Page by page: one rendered page in memory at a time.
	texts := make([]string, len(pages))
	var firstErr error
	for i, n := range pages {
		img, err := x.rasterize(ctx, data, n, renderDPI(all[n-1], x.cfg.MaxSide, x.cfg.MaxPixels))
		if err != nil {
			return nil, err
		}
		t, err := x.ocr(ctx, img, "")
		if err != nil && !errors.Is(err, ErrUnreadable) {
			return nil, err
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
		// A blank page among others is not an error.
		texts[i] = t
	}
	if firstErr != nil && len(pages) == len(all) && !hasText(strings.Join(texts, "\n")) {
		return nil, firstErr // why nothing could be read (no tesseract, a timeout...)
	}
	return texts, nil
}

// renderDPI is 300 dpi, less for a page whose longer side would be over
// maxSide pixels or whose area would be over maxPixels (a hostile
// MediaBox cannot make a huge image).
func renderDPI(p pdfPage, maxSide, maxPixels int) int {
	side := math.Max(p.w, p.h)
	area := p.w * p.h
	if side <= 0 || math.IsNaN(side) || math.IsInf(side, 0) || area <= 0 || math.IsInf(area, 0) {
		return 72
	}
	dpi := math.Min(300, float64(maxSide)*72/side)
	dpi = math.Min(dpi, 72*math.Sqrt(float64(maxPixels)/area))
	return max(int(dpi), 1)
}

// pageSize is the page's MediaBox width and height in points.
func pageSize(p pdf.Page) (w, h float64) {
	var box pdf.Value
	// Inherited from the page tree; checkPage bounded the Parent chain.
	for v := p.V; !v.IsNull(); v = v.Key("Parent") {
		if b := v.Key("MediaBox"); !b.IsNull() {
			box = b
			break
		}
	}
	if box.Len() != 4 {
		return 612, 792 // US Letter
	}
	w = math.Abs(box.Index(2).Float64() - box.Index(0).Float64())
	h = math.Abs(box.Index(3).Float64() - box.Index(1).Float64())
	return w, h
}

func (x *Extractor) rasterize(ctx context.Context, data []byte, page, dpi int) ([]byte, error) {
	release, err := x.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, x.cfg.OCRTimeout)
	defer cancel()
	img, err := x.cfg.Rasterizer.Rasterize(ctx, data, page, dpi)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, err
		}
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, newErr(ErrUnreadable, err, "rendering PDF page %d timed out", page)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, newErr(ErrUnreadable, err, "PDF page %d could not be rendered", page)
	}
	if len(img) == 0 {
		return nil, newErr(ErrUnreadable, nil, "PDF page %d could not be rendered", page)
	}
	return img, nil
}

// readPDFText parses the PDF with github.com/ledongthuc/pdf in a goroutine
// bounded by PDFTimeout, recovering the library's panics. The goroutine
// cannot be stopped from outside, so everything it does is bounded first:
// the page tree is walked here with a node and depth limit, the Parent
// chains are checked, and every page's content is decompressed once with a
// byte limit before the library interprets it.
func (x *Extractor) readPDFText(ctx context.Context, data []byte) ([]pdfPage, error) {
	type result struct {
		pages []pdfPage
		err   error
	}
	done := make(chan result, 1)
	go func() {
		var res result
		defer func() {
			if r := recover(); r != nil {
				res = result{err: newErr(ErrBadInput, fmt.Errorf("%v", r), "corrupt PDF")}
			}
			done <- res
		}()
		res.pages, res.err = x.readPDFTextUnsafe(data)
	}()
	ctx, cancel := context.WithTimeout(ctx, x.cfg.PDFTimeout)
	defer cancel()
	select {
	case r := <-done:
		return r.pages, r.err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, newErr(ErrBadInput, ctx.Err(), "reading the PDF took too long")
		}
		return nil, ctx.Err()
	}
}

func (x *Extractor) readPDFTextUnsafe(data []byte) ([]pdfPage, error) {
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) || strings.Contains(err.Error(), "encrypt") {
			return nil, newErr(ErrBadInput, err, "encrypted PDF")
		}
		return nil, newErr(ErrBadInput, err, "corrupt PDF")
	}
	leaves, err := x.pdfPages(r)
	if err != nil {
		return nil, err
	}
	pages := make([]pdfPage, 0, len(leaves))
	for i, leaf := range leaves {
		if err := x.checkPage(leaf, i+1); err != nil {
			return nil, err
		}
		p := pdf.Page{V: leaf}
		w, h := pageSize(p)
		pages = append(pages, pdfPage{num: i + 1, text: pageText(p), w: w, h: h})
	}
	return pages, nil
}

// pdfPages walks the page tree depth-first, in order.
func (x *Extractor) pdfPages(r *pdf.Reader) ([]pdf.Value, error) {
	root := r.Trailer().Key("Root").Key("Pages")
	if root.IsNull() {
		return nil, newErr(ErrBadInput, nil, "corrupt PDF: no page tree")
	}
	var leaves []pdf.Value
	nodes := 0
	var walk func(v pdf.Value, depth int) error
	walk = func(v pdf.Value, depth int) error {
		nodes++
		if nodes > maxPageTreeNodes || depth > maxPageTreeDepth {
			return newErr(ErrBadInput, nil, "PDF page tree too large or cyclic")
		}
		switch v.Key("Type").Name() {
		case "Pages":
			kids := v.Key("Kids")
			for i := 0; i < kids.Len(); i++ {
				if err := walk(kids.Index(i), depth+1); err != nil {
					return err
				}
			}
		case "Page":
			leaves = append(leaves, v)
			if len(leaves) > x.cfg.MaxPDFPages {
				return newErr(ErrBadInput, nil, "PDF has more than %d pages", x.cfg.MaxPDFPages)
			}
		}
		return nil
	}
	if err := walk(root, 0); err != nil {
		return nil, err
	}
	if len(leaves) == 0 {
		return nil, newErr(ErrBadInput, nil, "PDF has no pages")
	}
	return leaves, nil
}

// checkPage bounds what the library will do with a page: the Parent chain
// it follows for inherited resources, and the decompressed size of the
// content it interprets.
func (x *Extractor) checkPage(page pdf.Value, num int) error {
	v := page
	for i := 0; !v.IsNull(); i++ {
		if i > maxPageTreeDepth {
			return newErr(ErrBadInput, nil, "PDF page %d: cyclic page tree", num)
		}
		v = v.Key("Parent")
	}
	contents := page.Key("Contents")
	streams := []pdf.Value{contents}
	if contents.Kind() == pdf.Array {
		if contents.Len() > 1000 {
			return newErr(ErrBadInput, nil, "PDF page %d: too many content streams", num)
		}
		streams = streams[:0]
		for i := 0; i < contents.Len(); i++ {
			streams = append(streams, contents.Index(i))
		}
	}
	var total int64
	for _, s := range streams {
		if s.Kind() != pdf.Stream {
			continue
		}
		rc := s.Reader()
		n, err := io.Copy(io.Discard, io.LimitReader(rc, x.cfg.MaxPDFContentBytes-total+1))
		rc.Close()
		total += n
		if total > x.cfg.MaxPDFContentBytes {
			return newErr(ErrBadInput, nil, "PDF page %d: content over %d bytes decompressed", num, x.cfg.MaxPDFContentBytes)
		}
		if err != nil {
			return newErr(ErrBadInput, err, "PDF page %d: corrupt content", num)
		}
	}
	return nil
}

// pageText lays out the page's glyphs as lines: glyphs on the same
// baseline (within a third of the font size) form a line, ordered left to
// right, with a space where the gap between two glyphs is wider than a
// fifth of the font size (and more spaces for a wide gap, so columns stay
// apart).
func pageText(p pdf.Page) string {
	glyphs := dropPhantoms(p, p.Content().Text)
	if len(glyphs) == 0 {
		return ""
	}
	sort.SliceStable(glyphs, func(i, j int) bool { return glyphs[i].Y > glyphs[j].Y })
	type line struct {
		y      float64
		glyphs []pdf.Text
	}
	var lines []*line
	for _, g := range glyphs {
		tol := math.Max(g.FontSize/3, 1)
		if n := len(lines); n > 0 && math.Abs(lines[n-1].y-g.Y) <= tol {
			lines[n-1].glyphs = append(lines[n-1].glyphs, g)
			continue
		}
		lines = append(lines, &line{y: g.Y, glyphs: []pdf.Text{g}})
	}
	var b strings.Builder
	for _, l := range lines {
		sort.SliceStable(l.glyphs, func(i, j int) bool { return l.glyphs[i].X < l.glyphs[j].X })
		end := math.Inf(-1)
		for _, g := range l.glyphs {
			fs := math.Max(g.FontSize, 1)
			if gap := g.X - end; gap > fs/5 && !math.IsInf(end, -1) {
				n := 1
				if gap > 2*fs {
					n = 3 // a column break
				}
				b.WriteString(strings.Repeat(" ", n))
			}
			b.WriteString(g.S)
			w := g.W
			if w <= 0 {
				w = fs * 0.5
			}
			end = g.X + w
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// dropPhantoms removes the glyphs the PDF library adds after each TJ
// operator: it shows a line feed there, decoded through the font, and in
// a subset font whose code 10 is a letter that makes a stray letter at
// the end of every run ("FACTUURb.", "29 maart 2014z"). Such a glyph is
// the font's decoding of a line feed, and the next glyph (in content
// order) does not follow it on its line.
func dropPhantoms(p pdf.Page, glyphs []pdf.Text) []pdf.Text {
	phantom := map[string]string{}
	for _, name := range p.Fonts() {
		f := p.Font(name)
		d := f.Encoder().Decode("\n")
		if d == "" || d == "\n" || strings.TrimSpace(d) == "" {
			continue
		}
		base := f.BaseFont()
		if i := strings.Index(base, "+"); i >= 0 {
			base = base[i+1:]
		}
		phantom[base] = d
	}
	if len(phantom) == 0 {
		return glyphs
	}
	out := glyphs[:0:0]
	for i, g := range glyphs {
		if d, ok := phantom[g.Font]; ok && g.S == d {
			follows := false
			if i+1 < len(glyphs) {
				n := glyphs[i+1]
				fs := math.Max(g.FontSize, 1)
				after := math.Abs(n.X - (g.X + g.W))
				follows = math.Abs(n.Y-g.Y) < fs/3 && after < fs/2 && after < math.Abs(n.X-g.X)
			}
			if !follows {
				continue
			}
		}
		out = append(out, g)
	}
	return out
}
