package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acctsuite/acct/pkg/receipts"
)

// The receipts benchmark: receipts read and parsed per second
// by pkg/receipts (Extract then Parse) over the committed corpus, against
// the bare command-line tools on the same files with the same parallelism
// in the same run. It runs in process: the service's POST /receipts/import
// is not on main (it would add the upload, the storage and the database
// row to each receipt).
const (
	receiptsCorpus = "pkg/receipts/testdata/corpus"
	receiptsRounds = 2 // alternating rounds per contender, best kept
)

// corpusFile is one receipt of the corpus with its ground-truth total.
type corpusFile struct {
	path   string
	data   []byte
	format string // the ground truth's format: png, jpeg, pdf-text, pdf-scan
	total  int64
}

// loadCorpus reads the corpus's ground truths and returns the files of
// the given formats, in name order.
func loadCorpus(dir string, formats ...string) ([]corpusFile, error) {
	truths, err := filepath.Glob(filepath.Join(dir, "r*.json"))
	if err != nil || len(truths) == 0 {
		return nil, fmt.Errorf("no receipts corpus in %s (go run ./tools/receiptgen -out %s): %v", dir, receiptsCorpus, err)
	}
	sort.Strings(truths)
	var out []corpusFile
	for _, t := range truths {
		raw, err := os.ReadFile(t)
		if err != nil {
			return nil, err
		}
		var gt struct {
			File       string `json:"file"`
			Format     string `json:"format"`
			TotalCents int64  `json:"total_cents"`
		}
		if err := json.Unmarshal(raw, &gt); err != nil {
			return nil, fmt.Errorf("%s: %w", t, err)
		}
		want := false
		for _, f := range formats {
			want = want || gt.Format == f
		}
		if !want {
			continue
		}
		path := filepath.Join(dir, gt.File)
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		out = append(out, corpusFile{path: path, data: data, format: gt.Format, total: gt.TotalCents})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no %s receipts in %s", strings.Join(formats, " or "), dir)
	}
	return out, nil
}

// rateResult is one timed run over the corpus.
type rateResult struct {
	done, failed, correct int64
	rate                  float64 // receipts per second
	firstErr              string
}

// runRate runs fn over files (in turn, round and round) with par callers
// for d, and counts the receipts done per second; fn reports whether the
// total it found is right (baselines, which parse nothing, say false).
func runRate(ctx context.Context, files []corpusFile, par int, d time.Duration, fn func(context.Context, corpusFile) (bool, error)) rateResult {
	var next, done, failed, correct atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	start := time.Now()
	for w := 0; w < par; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && ctx.Err() == nil {
				f := files[int(next.Add(1)-1)%len(files)]
				ok, err := fn(ctx, f)
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("%s: %v", filepath.Base(f.path), err))
					continue
				}
				done.Add(1)
				if ok {
					correct.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	r := rateResult{done: done.Load(), failed: failed.Load(), correct: correct.Load()}
	r.rate = float64(r.done) / time.Since(start).Seconds()
	if s, ok := firstErr.Load().(string); ok {
		r.firstErr = s
	}
	return r
}

// extractParse is what the service does with an upload's bytes: Extract
// through the shared Extractor (its OCR pool), then Parse.
func extractParse(x *receipts.Extractor, wantSource receipts.Source) func(context.Context, corpusFile) (bool, error) {
	return func(ctx context.Context, f corpusFile) (bool, error) {
		text, err := x.Extract(ctx, f.data)
		if err != nil {
			return false, err
		}
		if text.Source != wantSource {
			return false, fmt.Errorf("read by %s, not %s", text.Source, wantSource)
		}
		r := receipts.Parse(text.Content, time.Now())
		return r.ProposedAmountCents != nil && int64(*r.ProposedAmountCents) == f.total, nil
	}
}

// cliBaseline runs a command-line tool on the file (its path the last
// argument but the ones after) and checks that it printed something.
func cliBaseline(bin string, before, after []string) func(context.Context, corpusFile) (bool, error) {
	return func(ctx context.Context, f corpusFile) (bool, error) {
		args := append(append(append([]string{}, before...), f.path), after...)
		cmd := exec.CommandContext(ctx, bin, args...)
		// One thread per process, as the Extractor runs Tesseract: the
		// parallelism is the processes', the same on both sides.
		cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return false, fmt.Errorf("%s: %w: %.200s", filepath.Base(bin), err, errb.String())
		}
		if strings.TrimSpace(out.String()) == "" {
			return false, fmt.Errorf("%s printed no text", filepath.Base(bin))
		}
		return false, nil
	}
}

// receiptsPart is one measured kind of receipt: the Extractor's callers
// and the baseline's processes.
type receiptsPart struct {
	name       string
	formats    []string
	source     receipts.Source
	callers    int // goroutines calling Extract+Parse
	procs      int // baseline processes at once
	bin        string
	before     []string
	after      []string
	baseline   string // the baseline as a command line
	target     float64
	targetNote string
}

// benchReceipts measures text PDFs and image OCR; it returns the summary
// lines.
func benchReceipts(ctx context.Context, root string, d time.Duration) (string, []result, error) {
	x := receipts.NewExtractor(receipts.Config{}) // the defaults: a pool of 2 OCR processes
	workers := receipts.DefaultConfig().Workers
	parts := []receiptsPart{
		{
			name: "text-layer PDF", formats: []string{"pdf-text"}, source: receipts.SourceTextLayer,
			// No process and no pool: the text layer is read in Go, by
			// as many callers as the baseline runs processes.
			callers: workers, procs: workers, bin: "pdftotext", before: []string{"-layout"}, after: []string{"-"},
			baseline: "pdftotext -layout FILE -", targetNote: "no target",
		},
		{
			name: "image OCR (PNG)", formats: []string{"png"}, source: receipts.SourceOCR,
			// Twice as many callers as pool slots, so that the pool is
			// always full (a busy service), and the baseline runs as many
			// tesseract processes as the pool.
			callers: 2 * workers, procs: workers, bin: "tesseract", after: []string{"stdout", "--psm", "6"},
			baseline: "tesseract FILE stdout --psm 6", target: 0.8,
		},
	}
	var sum strings.Builder
	var res []result
	for i, p := range parts {
		files, err := loadCorpus(filepath.Join(root, receiptsCorpus), p.formats...)
		if err != nil {
			return "", res, err
		}
		bin, err := exec.LookPath(p.bin)
		if err != nil {
			return "", res, fmt.Errorf("%s not found (Debian: apt-get install -y poppler-utils tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu): %w", p.bin, err)
		}
		fmt.Printf("%d. receipts, %s: %d files of the corpus, round and round for %s per run, %d rounds alternating\n",
			i+1, p.name, len(files), d, receiptsRounds)
		fmt.Printf("   Extract+Parse (in process, a receipts.Extractor of %d OCR workers, %d callers) vs `%s` (%d at once)\n",
			workers, p.callers, p.baseline, p.procs)
		var best, base rateResult
		for r := 0; r < receiptsRounds; r++ {
			b := runRate(ctx, files, p.procs, d, cliBaseline(bin, p.before, p.after))
			fmt.Printf("   round %d %-22s %7.1f receipts/s (%d, %d failed)%s\n", r+1, p.bin, b.rate, b.done, b.failed, errNote(b))
			e := runRate(ctx, files, p.callers, d, extractParse(x, p.source))
			fmt.Printf("   round %d %-22s %7.1f receipts/s (%d, %d failed, total right in %d)%s\n", r+1, "Extract+Parse", e.rate, e.done, e.failed, e.correct, errNote(e))
			if b.rate > base.rate {
				base = b
			}
			if e.rate > best.rate {
				best = e
			}
		}
		if best.done == 0 || base.done == 0 {
			return "", res, fmt.Errorf("receipts %s: nothing read (Extract+Parse: %s; %s: %s)", p.name, best.firstErr, p.bin, base.firstErr)
		}
		ratio := best.rate / base.rate
		verdictNote := p.targetNote
		if p.target > 0 {
			verdictNote = fmt.Sprintf("target >= %.2f) %s", p.target, verdict(ratio >= p.target && best.failed == 0))
			verdictNote = "(" + verdictNote
		} else {
			verdictNote = "(" + verdictNote + ")"
		}
		r := result{Part: "bills", Section: "receipts",
			Name: fmt.Sprintf("receipts parsed per second, %s (%d files, %d callers)", p.name, len(files), p.callers), Unit: "receipts/s",
			Value: best.rate, Note: fmt.Sprintf("totals right %.0f%%", 100*float64(best.correct)/float64(best.done)),
			Baseline: fmt.Sprintf("%s, %d at once", p.baseline, p.procs), BaselineValue: base.rate, TargetNote: p.targetNote}
		if p.target > 0 {
			r.Target = []bound{ratioAtLeast(p.target)}
		}
		if best.failed > 0 {
			r.Failure = fmt.Sprintf("%d receipts failed", best.failed)
		}
		res = append(res, r)
		fmt.Fprintf(&sum, "  receipts, %s: Extract+Parse %.1f receipts/s, %s %.1f/s, ratio %.2f %s; totals right %.0f%%\n",
			p.name, best.rate, p.bin, base.rate, ratio, verdictNote, 100*float64(best.correct)/float64(best.done))
	}
	return sum.String(), res, nil
}

func errNote(r rateResult) string {
	if r.firstErr == "" {
		return ""
	}
	return "  first error: " + r.firstErr
}
