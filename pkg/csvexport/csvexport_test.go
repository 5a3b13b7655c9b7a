package csvexport

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
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
	err := Put(ctx, s, "exports/a.csv", func(w *csv.Writer) error {
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
		err := Put(ctx, s, "exports/b.csv", func(w *csv.Writer) error {
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
	err := Put(ctx, failingStore{s}, "exports/c.csv", func(w *csv.Writer) error {
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
	} {
		if got := SafeCell(in); got != want {
			t.Errorf("SafeCell(%q) = %q, want %q", in, got, want)
		}
	}
}
