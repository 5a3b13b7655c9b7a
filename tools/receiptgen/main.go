// Command receiptgen writes the receipt corpus of pkg/receipts: synthetic
// receipts with varied layouts (header styles, column alignment, date
// formats, with and without tax and tips, US and EU number formats),
// rendered with Debian's DejaVu fonts, slightly rotated and speckled, as
// PNG, JPEG, scanned (image-only) PDF and text PDF, each with its ground
// truth in a JSON file beside it.
//
// Output is deterministic for a seed (same Go version and fonts):
//
//	go run ./tools/receiptgen -out pkg/receipts/testdata/corpus
//
// It needs the fonts of fonts-dejavu-core and fonts-dejavu-extra.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"image/jpeg"
	"image/png"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("out", "pkg/receipts/testdata/corpus", "output folder (its old r*.* files are replaced)")
	n := flag.Int("n", 48, "number of receipts")
	seed := flag.Uint64("seed", 20260314, "random seed")
	flag.Parse()
	if err := run(*out, *n, *seed); err != nil {
		log.Fatal(err)
	}
}

// format of receipt i: 8 text PDFs, 8 scanned PDFs, 6 JPEGs, the rest PNG
// (for 48).
func format(i int) string {
	switch {
	case i%6 == 2:
		return "pdf-text"
	case i%6 == 5:
		return "pdf-scan"
	case i%8 == 0:
		return "jpeg"
	}
	return "png"
}

func run(out string, n int, seed uint64) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(out, "r[0-9][0-9]*.*"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var total int
	for i := range n {
		ls, truth, _ := receipt(rng, i)
		truth.Format = format(i)
		base := fmt.Sprintf("r%02d", i+1)
		var data []byte
		switch truth.Format {
		case "pdf-text":
			truth.Font = []string{"Courier", "Helvetica"}[rng.IntN(2)]
			data = textPDF(ls, truth.Font)
			truth.File = base + ".pdf"
		default:
			o := renderOptions{
				font:     fontSpecs[i%len(fontSpecs)],
				size:     float64(22 + rng.IntN(9)),
				boldHead: rng.IntN(2) == 0,
				ink:      uint8(rng.IntN(70)),
				rotation: float64(rng.IntN(41)-20) / 10,
				specks:   rng.IntN(150),
			}
			truth.Font = o.font.name
			truth.Rotation = o.rotation
			img, err := renderImage(ls, o, rng)
			if err != nil {
				return err
			}
			var b bytes.Buffer
			switch truth.Format {
			case "png":
				err = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&b, img)
				truth.File = base + ".png"
			case "jpeg":
				err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 80})
				truth.File = base + ".jpg"
			case "pdf-scan":
				b.Write(imagePDF(img, 200))
				truth.File = base + ".pdf"
			}
			if err != nil {
				return err
			}
			data = b.Bytes()
		}
		if err := os.WriteFile(filepath.Join(out, truth.File), data, 0o644); err != nil {
			return err
		}
		js, err := json.MarshalIndent(truth, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, base+".json"), append(js, '\n'), 0o644); err != nil {
			return err
		}
		total += len(data)
	}
	fmt.Printf("wrote %d receipts (%d KB) to %s\n", n, total/1024, out)
	return nil
}
