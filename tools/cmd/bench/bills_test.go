package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestLoadCorpus(t *testing.T) {
	dir := "../../../" + receiptsCorpus
	for _, c := range []struct {
		format string
		ext    string
		min    int
	}{{"pdf-text", ".pdf", 8}, {"png", ".png", 28}} {
		files, err := loadCorpus(dir, c.format)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) < c.min {
			t.Errorf("%s: %d files, want at least %d", c.format, len(files), c.min)
		}
		for _, f := range files {
			if f.format != c.format || !strings.HasSuffix(f.path, c.ext) || len(f.data) == 0 || f.total <= 0 {
				t.Errorf("%s: %+v", c.format, corpusFile{path: f.path, format: f.format, total: f.total})
			}
		}
	}
	if _, err := loadCorpus(dir, "tiff"); err == nil {
		t.Error("no tiff receipts: want an error")
	}
}

func TestRunRate(t *testing.T) {
	files := []corpusFile{{path: "a"}, {path: "b"}, {path: "c"}}
	seen := make(chan string, 1<<16)
	r := runRate(context.Background(), files, 3, 50*time.Millisecond, func(_ context.Context, f corpusFile) (bool, error) {
		seen <- f.path
		time.Sleep(time.Millisecond)
		if f.path == "c" {
			return false, errors.New("boom")
		}
		return f.path == "a", nil
	})
	close(seen)
	n := map[string]int{}
	for p := range seen {
		n[p]++
	}
	if r.done == 0 || r.rate <= 0 || r.failed == 0 || r.correct == 0 || r.correct >= r.done {
		t.Fatalf("runRate = %+v", r)
	}
	if int64(n["a"]+n["b"]) != r.done || int64(n["c"]) != r.failed || int64(n["a"]) != r.correct {
		t.Fatalf("counts %v, result %+v", n, r)
	}
	if !strings.HasPrefix(r.firstErr, "c: boom") {
		t.Fatalf("first error %q", r.firstErr)
	}
}

func TestBillScriptFor(t *testing.T) {
	values := make([]string, len(billColumns))
	for i, c := range billColumns {
		values[i] = "'" + c + "-value'"
	}
	s, err := billScriptFor("BIZ", "VENDOR", values, "(EVENT)")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"INSERT INTO bills.bills AS b (business_id, id, external_id,",
		"VALUES ('business_id-value', gen_random_uuid(), 'pgbench-' || :n, 'PB-' || :n, 'vendor_id-value',",
		"'version-value', now(), now()) ON CONFLICT",
		"b.external_id = 'pgbench-' || :n",
		"c.id = 'VENDOR'",
		"unnest('{\"BIZ\"}'::text[])",
		"(VALUES (EVENT))",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "%!") {
		t.Errorf("bad format verbs:\n%s", s)
	}
	if n := strings.Count(s, "\n"); n != 7 { // \set, BEGIN, 4 statements, COMMIT
		t.Errorf("%d lines, want 7:\n%s", n, s)
	}
	if _, err := billScriptFor("BIZ", "VENDOR", values[1:], "(EVENT)"); err == nil {
		t.Error("missing a value: want an error")
	}
}
