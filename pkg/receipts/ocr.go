package receipts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
)

// OCR reads the text of one image (PNG or JPEG bytes). Implementations
// must stop when ctx is done. Extract runs them in its worker pool with
// its timeout.
type OCR interface {
	Recognize(ctx context.Context, image []byte) (string, error)
}

// Rasterizer renders one page (1-based) of a PDF to a PNG image at dpi.
// Extract chooses the dpi so the image stays within Config.MaxSide.
type Rasterizer interface {
	Rasterize(ctx context.Context, pdf []byte, page, dpi int) ([]byte, error)
}

// Tesseract is the OCR of the tesseract binary (Debian's tesseract-ocr,
// Tesseract 5). The image goes on standard input and the text comes back
// on standard output: no temp files.
type Tesseract struct {
	// Path of the binary; "" finds "tesseract" on PATH.
	Path string
	// Lang is the language pack; "" is "eng".
	Lang string
	// PSM is Tesseract's page segmentation mode; 0 is 6 (one uniform
	// block of text), which keeps a receipt's right-aligned amounts on
	// their lines best (on the corpus it beat 4, a single column, and 3,
	// automatic, which splits the columns).
	PSM int
	// Limits bound the process (zero fields: DefaultOCRLimits).
	Limits ProcessLimits
}

// ProcessLimits bound an OCR or rendering process beyond its timeout:
// its address space and its CPU time, set with util-linux's prlimit
// (run without them, and said so by ProcessLimitsAvailable, where
// prlimit is missing).
type ProcessLimits struct {
	Memory int64         // bytes of address space
	CPU    time.Duration // CPU time (whole seconds)
}

// DefaultOCRLimits bound a tesseract process: 2 GiB of address space
// (a 40 Mpx page, the language models and the process's own mappings
// fit), 90 s of CPU (over the 60 s timeout: a backstop).
var DefaultOCRLimits = ProcessLimits{Memory: 2 << 30, CPU: 90 * time.Second}

// DefaultRenderLimits bound a pdftoppm process: 1 GiB, 90 s of CPU.
var DefaultRenderLimits = ProcessLimits{Memory: 1 << 30, CPU: 90 * time.Second}

func (l ProcessLimits) or(d ProcessLimits) ProcessLimits {
	if l.Memory <= 0 {
		l.Memory = d.Memory
	}
	if l.CPU <= 0 {
		l.CPU = d.CPU
	}
	return l
}

// ProcessLimitsAvailable reports whether prlimit is on PATH (the
// limits are applied).
func ProcessLimitsAvailable() bool {
	_, err := exec.LookPath("prlimit")
	return err == nil
}

// limitedCommand is the command running path with args under limits l
// (through prlimit when it is installed), killed when ctx is done.
func limitedCommand(ctx context.Context, l ProcessLimits, path string, args ...string) *exec.Cmd {
	if pl, err := exec.LookPath("prlimit"); err == nil {
		cpu := max(1, int64(l.CPU/time.Second))
		pre := []string{"--as=" + strconv.FormatInt(l.Memory, 10), "--cpu=" + strconv.FormatInt(cpu, 10), "--", path}
		return exec.CommandContext(ctx, pl, append(pre, args...)...)
	}
	return exec.CommandContext(ctx, path, args...)
}

// ErrNoTesseract is returned (wrapped in ErrUnreadable) when the tesseract
// binary is not installed.
var ErrNoTesseract = errors.New("tesseract not found on PATH (apt-get install tesseract-ocr tesseract-ocr-eng)")

// TesseractAvailable reports whether the tesseract binary is on PATH.
func TesseractAvailable() bool {
	_, err := exec.LookPath("tesseract")
	return err == nil
}

// LanguageOCR is an OCR that can be told the languages of one image
// (Tesseract's form: "eng+deu").
type LanguageOCR interface {
	RecognizeIn(ctx context.Context, image []byte, lang string) (string, error)
}

// SparseOCR is an OCR that can read an image as sparse text: every
// word wherever it stands, in no order of blocks (Tesseract's --psm
// 11), what finds a few words on a noisy photo that a read as one block
// of text lost.
type SparseOCR interface {
	RecognizeSparse(ctx context.Context, image []byte, lang string) (string, error)
}

// RecognizeSparse runs tesseract on the image in lang ("" as in
// RecognizeIn) as sparse text (--psm 11).
func (t Tesseract) RecognizeSparse(ctx context.Context, image []byte, lang string) (string, error) {
	t.PSM = 11
	return t.RecognizeIn(ctx, image, lang)
}

// Recognize runs tesseract on the image in t.Lang, killing it when ctx
// is done.
func (t Tesseract) Recognize(ctx context.Context, image []byte) (string, error) {
	return t.RecognizeIn(ctx, image, t.Lang)
}

// RecognizeIn runs tesseract on the image in lang ("" is t.Lang, else
// "eng"), killing it when ctx is done.
func (t Tesseract) RecognizeIn(ctx context.Context, image []byte, lang string) (string, error) {
	if lang == "" {
		lang = t.Lang
	}
	if lang == "" {
		lang = "eng"
	}
	psm := t.PSM
	if psm == 0 {
		psm = 6
	}
	out, err := t.run(ctx, image, "-l", lang, "--psm", strconv.Itoa(psm), "-c", "preserve_interword_spaces=1", "tsv")
	if err != nil {
		return "", err
	}
	return linesOfTSV(out, minWordConf), nil
}

// run runs tesseract on the image (stdin to stdout) with args, one
// thread, under t's limits, killed when ctx is done: its output.
func (t Tesseract) run(ctx context.Context, image []byte, args ...string) (string, error) {
	path := t.Path
	if path == "" {
		p, err := exec.LookPath("tesseract")
		if err != nil {
			return "", newErr(ErrUnreadable, ErrNoTesseract, "OCR is not available")
		}
		path = p
	}
	cmd := limitedCommand(ctx, t.Limits.or(DefaultOCRLimits), path, append([]string{"stdin", "stdout"}, args...)...)
	// One thread per process: the pool, not OpenMP, decides how many cores
	// OCR takes.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.Stdin = bytes.NewReader(image)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	configureKill(cmd)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("tesseract: %w", ctx.Err())
		}
		return "", fmt.Errorf("tesseract: %w: %s", err, firstLine(stderr.String()))
	}
	return stdout.String(), nil
}

// Orienter is an OCR that can tell how far an image is turned: the
// clockwise rotation (0, 90, 180 or 270 degrees) that sets it upright.
type Orienter interface {
	Orientation(ctx context.Context, image []byte) (rotate int, err error)
}

// rotateLine is Tesseract's orientation report's line of the rotation.
var rotateLine = regexp.MustCompile(`(?m)^Rotate:\s*(\d+)`)

// Orientation runs tesseract's orientation detection (--psm 0, the osd
// pack of tesseract-ocr) on the image: the rotation that sets it
// upright. An error when it cannot tell (no osd pack, too little text).
func (t Tesseract) Orientation(ctx context.Context, image []byte) (int, error) {
	out, err := t.run(ctx, image, "--psm", "0")
	if err != nil {
		return 0, err
	}
	m := rotateLine.FindStringSubmatch(out)
	if m == nil {
		return 0, errors.New("tesseract: no orientation found")
	}
	r, _ := strconv.Atoi(m[1])
	return r % 360, nil
}

// minWordConf is the confidence (0 to 100) under which a word that reads
// as noise (junkWord) is dropped from a line with a number.
const minWordConf = 30

// junkWord: a word that reads as OCR noise rather than a word or a
// number: no digit, and short, or with marks inside, or without a vowel.
func junkWord(w string) bool {
	if strings.ContainsAny(w, "0123456789") {
		return false
	}
	letters, vowels := 0, 0
	for _, r := range w {
		switch {
		case unicode.IsLetter(r):
			letters++
			if strings.ContainsRune("aeiouyäöüAEIOUYÄÖÜ", r) {
				vowels++
			}
		case strings.ContainsRune("&'-.,:!", r):
		default:
			return true
		}
	}
	return letters < 3 || vowels == 0
}

// linesOfTSV rebuilds the text of Tesseract's TSV output (one row per
// word, with its box and confidence): the words of each line in order, a
// wide gap kept as several spaces (columns stay apart). On a line with a
// number, the words read with a confidence under minConf that look like
// noise (junkWord: specks and a picture's texture read as letters) are
// dropped, so that they do not stand between a label and its amount.
func linesOfTSV(tsv string, minConf float64) string {
	type word struct {
		left, width int
		text        string
		junk        bool
	}
	var out strings.Builder
	var line []word
	key := ""
	flush := func() {
		if len(line) == 0 {
			return
		}
		// On a line with a number (an item, a total, a date), noise
		// around the number is dropped; a line of words is kept whole
		// (the vendor is judged on what OCR made of it).
		digits := false
		for _, w := range line {
			digits = digits || strings.ContainsAny(w.text, "0123456789")
		}
		if digits {
			kept := line[:0]
			for _, w := range line {
				if !w.junk {
					kept = append(kept, w)
				}
			}
			line = kept
			if len(line) == 0 {
				return
			}
		}
		chars, width := 0, 0
		for _, w := range line {
			chars += len([]rune(w.text))
			width += w.width
		}

		charW := max(1, width/max(1, chars))
		for i, w := range line {
			if i > 0 {
				gap := w.left - (line[i-1].left + line[i-1].width)
				out.WriteString(strings.Repeat(" ", max(1, min(40, gap/charW))))
			}
			out.WriteString(w.text)
		}
		out.WriteByte('\n')
		line = line[:0]
	}
	for _, row := range strings.Split(tsv, "\n") {
		f := strings.Split(row, "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		k := f[2] + "/" + f[3] + "/" + f[4]
		if k != key {
			flush()
			key = k
		}
		text := strings.TrimSpace(f[11])
		conf, _ := strconv.ParseFloat(f[10], 64)
		if text == "" {
			continue
		}
		left, _ := strconv.Atoi(f[6])
		width, _ := strconv.Atoi(f[8])
		line = append(line, word{left: left, width: width, text: text, junk: conf < minConf && junkWord(text)})
	}
	flush()
	return out.String()
}

// Pdftoppm renders PDF pages with poppler-utils' pdftoppm, through a temp
// folder that it removes.
type Pdftoppm struct {
	// Path of the binary; "" finds "pdftoppm" on PATH.
	Path string
	// Limits bound the process (zero fields: DefaultRenderLimits).
	Limits ProcessLimits
}

// Rasterize renders one page in gray.
func (p Pdftoppm) Rasterize(ctx context.Context, pdf []byte, page, dpi int) ([]byte, error) {
	path := p.Path
	if path == "" {
		lp, err := exec.LookPath("pdftoppm")
		if err != nil {
			return nil, newErr(ErrUnreadable, err, "scanned PDF pages cannot be rendered (pdftoppm missing)")
		}
		path = lp
	}
	dir, err := os.MkdirTemp("", "receipt-pdf-")
	if err != nil {
		return nil, fmt.Errorf("rasterize: %w", err)
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		return nil, fmt.Errorf("rasterize: %w", err)
	}
	n := strconv.Itoa(page)
	cmd := limitedCommand(ctx, p.Limits.or(DefaultRenderLimits), path, "-png", "-gray", "-r", strconv.Itoa(dpi),
		"-f", n, "-l", n, "-singlefile", in, filepath.Join(dir, "page"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	configureKill(cmd)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("pdftoppm: %w", ctx.Err())
		}
		return nil, fmt.Errorf("pdftoppm page %d: %w: %s", page, err, firstLine(stderr.String()))
	}
	b, err := os.ReadFile(filepath.Join(dir, "page.png"))
	if err != nil {
		return nil, fmt.Errorf("rasterize: %w", err)
	}
	return b, nil
}

// configureKill makes a cancelled command die with its children and not
// hang on pipes a child still holds.
func configureKill(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 2 * time.Second
}

func firstLine(s string) string {
	s = string(bytes.TrimSpace([]byte(s)))
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
