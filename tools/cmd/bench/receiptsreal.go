package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/acctsuite/acct/pkg/receipts"
	"github.com/acctsuite/acct/pkg/receipts/realset"
)

// The receipts part: how well and how fast pkg/receipts reads real
// receipts no one here made (pkg/receipts/testdata/real: photographed US
// restaurant receipts, scanned German shop receipts, PDF invoices).
// Accuracy per field (total to the cent, date where printed, vendor) and
// per folder; the time of each receipt's Extract+Parse, one at a time,
// against a bare `tesseract FILE stdout --psm 6` (or `pdftotext` for a
// PDF) on the same file just before it.
const realReceipts = "pkg/receipts/testdata/real"

// folderScore is one folder's (or all folders') accuracy and times.
type folderScore struct {
	n, total, dated, date, vendor int
	ours, bare                    []time.Duration
}

func pctOf(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(a) / float64(n)
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// bareRead runs the bare tool on the file: tesseract for an image,
// pdftotext for a PDF (one thread, as the Extractor runs Tesseract).
func bareRead(ctx context.Context, path string) error {
	var cmd *exec.Cmd
	if strings.EqualFold(filepath.Ext(path), ".pdf") {
		cmd = exec.CommandContext(ctx, "pdftotext", "-layout", path, "-")
	} else {
		cmd = exec.CommandContext(ctx, "tesseract", path, "stdout", "--psm", "6")
	}
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w: %.200s", filepath.Base(cmd.Path), err, errb.String())
	}
	return nil
}

// benchReceiptsReal reads every real receipt once, one at a time.
func benchReceiptsReal(ctx context.Context, root string) (string, []result, error) {
	all, err := realset.Load(filepath.Join(root, realReceipts))
	if err != nil {
		return "", nil, err
	}
	for _, bin := range []string{"tesseract", "pdftotext"} {
		if _, err := exec.LookPath(bin); err != nil {
			return "", nil, fmt.Errorf("%s not found (Debian: apt-get install -y tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu poppler-utils): %w", bin, err)
		}
	}
	fmt.Printf("1. real receipts: %d files of %s, one at a time: Extract+Parse (a receipts.Extractor of 1 worker) after the bare tool on the same file\n",
		len(all), realReceipts)
	x := receipts.NewExtractor(receipts.Config{Workers: 1})
	per := map[string]*folderScore{}
	var sum folderScore
	for _, r := range all {
		if ctx.Err() != nil {
			return "", nil, ctx.Err()
		}
		data, err := os.ReadFile(r.Path)
		if err != nil {
			return "", nil, err
		}
		t0 := time.Now()
		if err := bareRead(ctx, r.Path); err != nil {
			return "", nil, fmt.Errorf("%s/%s: %w", r.Folder, r.File, err)
		}
		bare := time.Since(t0)
		t0 = time.Now()
		var res receipts.Result
		text, err := x.Extract(ctx, data)
		if err == nil {
			res = receipts.ParseFor(text.Content, time.Now(), receipts.Hints{Country: r.Country()})
		}
		ours := time.Since(t0)
		s := per[r.Folder]
		if s == nil {
			s = &folderScore{}
			per[r.Folder] = s
		}
		for _, sc := range []*folderScore{s, &sum} {
			sc.n++
			sc.ours, sc.bare = append(sc.ours, ours), append(sc.bare, bare)
			if res.ProposedAmountCents != nil && *res.ProposedAmountCents == r.Total {
				sc.total++
			}
			if r.Date != "" {
				sc.dated++
				if res.ProposedPaidAt != nil && res.ProposedPaidAt.Format(time.DateOnly) == r.Date {
					sc.date++
				}
			}
			if receipts.NamesMatch(res.ProposedVendorDisplay, r.Vendor) {
				sc.vendor++
			}
		}
	}
	folders := make([]string, 0, len(per))
	for f := range per {
		folders = append(folders, f)
	}
	sort.Strings(folders)
	var byFolder []string
	var out strings.Builder
	var res []result
	for _, f := range folders {
		s := per[f]
		line := fmt.Sprintf("%s (%d): total %.0f%%, date %.0f%% of %d, vendor %.0f%%", f, s.n, pctOf(s.total, s.n), pctOf(s.date, s.dated), s.dated, pctOf(s.vendor, s.n))
		byFolder = append(byFolder, line)
		fmt.Printf("   %s; p50 %s (bare %s)\n", line, msText(median(s.ours)), msText(median(s.bare)))
		ratio := float64(median(s.ours)) / float64(max(median(s.bare), 1))
		r := result{Part: "receipts", Section: "time", Name: fmt.Sprintf("time per receipt, %s (%d files), p50", f, s.n), Unit: "ms",
			Value: durationMS(median(s.ours)), Note: fmt.Sprintf("p90 %s; one at a time, Extract+Parse", msText(percentileDur(s.ours, 0.9))),
			Baseline: "the bare tool on the same file, p50", BaselineValue: durationMS(median(s.bare)), TargetNote: "no target"}
		if f == "us-restaurants" {
			r.Target, r.TargetNote = []bound{ratioAtMost(2)}, ""
		}
		res = append(res, r)
		fmt.Fprintf(&out, "  receipts time, %s: p50 %s vs bare %s (%.2f×)\n", f, msText(median(s.ours)), msText(median(s.bare)), ratio)
	}
	note := strings.Join(byFolder, "; ")
	for _, fld := range []struct {
		name   string
		got, n int
		target float64
	}{
		{"total right to the cent", sum.total, sum.n, 90},
		{"date right, of those with a date", sum.date, sum.dated, 90},
		{"vendor right", sum.vendor, sum.n, 80},
	} {
		v := pctOf(fld.got, fld.n)
		res = append(res, result{Part: "receipts", Section: "accuracy", Name: fmt.Sprintf("real receipts, %s (%d)", fld.name, fld.n), Unit: "%",
			Value: v, Note: note, Target: []bound{absolute(atLeast, fld.target)}})
		fmt.Fprintf(&out, "  receipts accuracy, %s: %.1f%% of %d (target >= %.0f%%) %s\n", fld.name, v, fld.n, fld.target, verdict(v >= fld.target))
	}
	fmt.Print(out.String())
	return out.String(), res, nil
}

// percentileDur is the q-quantile of ds.
func percentileDur(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}
