package csvexport

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/storage"
)

func fsStore(t *testing.T) storage.Store {
	t.Helper()
	s, err := storage.NewFS(storage.FSOptions{Dir: t.TempDir(), PublicBaseURL: "http://127.0.0.1:1",
		SigningKey: bytes.Repeat([]byte("k"), storage.MinSigningKeyLength)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPutStreamsRows stores more rows than the pipe's chunk holds and
// reads them back.
func TestPutStreamsRows(t *testing.T) {
	ctx := context.Background()
	s := fsStore(t)
	const rows = 20_000
	err := Put(ctx, s, "exports/a.csv", func(w *Writer) error {
		if err := w.Write([]string{"n", "text"}); err != nil {
			return err
		}
		for i := range rows {
			if err := w.Write([]string{strconv.Itoa(i), "a, \"quoted\" cell"}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r, obj, err := s.Get(ctx, "exports/a.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if obj.ContentType != ContentType {
		t.Fatalf("content type %q", obj.ContentType)
	}
	got, err := csv.NewReader(r).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != rows+1 || got[rows][0] != strconv.Itoa(rows-1) || got[1][1] != "a, \"quoted\" cell" {
		t.Fatalf("%d rows, last %v", len(got), got[len(got)-1])
	}
}

// TestPutWriterError: a failing writer stores nothing, and its own error
// (an *apperr.Error kept as is) is what Put returns.
func TestPutWriterError(t *testing.T) {
	ctx := context.Background()
	s := fsStore(t)
	tooMany := apperr.New(apperr.InvalidParameters, "too many rows")
	for _, werr := range []error{tooMany, errors.New("database gone")} {
		err := Put(ctx, s, "exports/b.csv", func(w *Writer) error {
			for i := range 10_000 {
				if err := w.Write([]string{strings.Repeat("x", 50), strconv.Itoa(i)}); err != nil {
					return err
				}
			}
			return werr
		})
		if !errors.Is(err, werr) {
			t.Fatalf("Put = %v, want %v", err, werr)
		}
		var typed *apperr.Error
		if werr == tooMany && (!errors.As(err, &typed) || typed != tooMany) {
			t.Fatalf("the writer's apperr is not returned: %v", err)
		}
		if _, _, err := s.Get(ctx, "exports/b.csv"); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("a failed export was stored: %v", err)
		}
	}
}

// TestPutStoreError: a store that fails stops the writer.
func TestPutStoreError(t *testing.T) {
	ctx := context.Background()
	s := fsStore(t)
	wrote := 0
	err := Put(ctx, failingStore{s}, "exports/c.csv", func(w *Writer) error {
		for i := range 1_000_000 {
			if err := w.Write([]string{strconv.Itoa(i)}); err != nil {
				return err
			}
			wrote++
		}
		return nil
	})
	if err == nil || wrote == 1_000_000 {
		t.Fatalf("Put = %v after %d rows", err, wrote)
	}
}

// failingStore reads a little of the object, then fails.
type failingStore struct{ storage.Store }

func (f failingStore) Put(_ context.Context, _ string, r io.Reader, _ int64, _ string) error {
	if _, err := io.CopyN(io.Discard, r, 100_000); err != nil {
		return err
	}
	return errors.New("upload failed")
}

func TestSafeCell(t *testing.T) {
	for in, want := range map[string]string{
		"":                "",
		"Office supplies": "Office supplies",
		"=SUM(A1:A2)":     "'=SUM(A1:A2)",
		"+1":              "'+1",
		"-5% discount":    "'-5% discount",
		"@cmd":            "'@cmd",
		"\tx":             "'\tx",
		"\rx":             "'\rx",
		"a=b":             "a=b",
		"'already quoted": "'already quoted",
		// After leading spaces, and after any separator a spreadsheet of
		// another locale would split on.
		"  =1+1":        "  '=1+1",
		"a;=1+1":        "a;'=1+1",
		"Net 30, -5%":   "Net 30, '-5%",
		"a|@SUM(1)":     "a|'@SUM(1)",
		"a\t=1":         "a\t'=1",
		"a,b;c":         "a,b;c",
		"5-3=2":         "5-3=2",
		"\uFF1D1+1":     "'\uFF1D1+1",
		"x;;  +cmd, =y": "x;;  '+cmd, '=y",
	} {
		if got := SafeCell(in); got != want {
			t.Errorf("SafeCell(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWriterQuotesText: every cell but an empty one and a plain number is
// quoted, quotes doubled, and a CSV reader reads back what was written.
func TestWriterQuotesText(t *testing.T) {
	rows := [][]string{
		{"date", "amount", "memo", "", "count"},
		{"2026-01-02", "-12.50", `say "hi", then;=1`, "", "3"},
		{"x", "12.", ".5", "-", "1.2.3"},
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteAll(rows); err != nil {
		t.Fatal(err)
	}
	want := `"date","amount","memo",,"count"
"2026-01-02",-12.50,"say ""hi"", then;=1",,3
"x","12.",".5","-","1.2.3"
`
	if buf.String() != want {
		t.Fatalf("wrote\n%s\nwant\n%s", buf.String(), want)
	}
	got, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Fatalf("read back %q, want %q", got, rows)
	}
}
