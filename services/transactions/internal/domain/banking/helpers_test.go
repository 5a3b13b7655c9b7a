package banking

import (
	"errors"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
)

// wantErr asserts that err is a 4xx *apperr.Error with the given status,
// error_enum and (when field is not "") meta.fields naming field.
func wantErr(t *testing.T, err error, status int, enum, field string) *apperr.Error {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error = %v (%T), want *apperr.Error %s", err, err, enum)
	}
	if ae.Status() != status {
		t.Errorf("status = %d, want %d (%v)", ae.Status(), status, ae)
	}
	if ae.Enum != enum {
		t.Errorf("error_enum = %q, want %q (%v, fields %v)", ae.Enum, enum, ae, ae.Meta["fields"])
	}
	if field != "" {
		fields, _ := ae.Meta["fields"].(map[string]string)
		if _, ok := fields[field]; !ok {
			t.Errorf("meta.fields = %v, want it to name %q", fieldNames(fields), field)
		}
	}
	return ae
}

// want400 is wantErr for a 400.
func want400(t *testing.T, err error, enum, field string) *apperr.Error {
	t.Helper()
	return wantErr(t, err, 400, enum, field)
}

func fieldNames(fields map[string]string) []string {
	out := make([]string, 0, len(fields))
	for f := range fields {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// is4xx reports whether err is a client error of this package's kind.
func is4xx(err error) bool {
	var ae *apperr.Error
	return errors.As(err, &ae) && ae.Status() >= 400 && ae.Status() < 500
}

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func ptr[T any](v T) *T { return &v }

// tempDir is a per-test directory for spooled files that fails the test
// when something is left in it.
func tempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		if len(entries) > 0 {
			names := make([]string, len(entries))
			for i, e := range entries {
				names[i] = e.Name()
			}
			t.Errorf("spool dir not cleaned: %s", strings.Join(names, ", "))
		}
	})
	return dir
}
