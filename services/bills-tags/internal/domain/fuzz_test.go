package domain

import (
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// FuzzParseMergeInput: any merge body parses into another vendor's id or
// is a 400.
func FuzzParseMergeInput(f *testing.F) {
	for _, s := range []string{`{"vendor_to_archive_id":"` + cid.String() + `"}`, `{"vendor_to_archive_id":"0190a0b0-0000-7000-8000-000000000001"}`,
		`{}`, `[]`, `null`, `{"vendor_to_archive_id":1}`, `{"vendor_to_archive_id":"{0190a0b0-0000-7000-8000-000000000001}"}`, `{"a":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		id, err := ParseMergeInput(body, cid)
		if err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("status %d for %q: %v", st, body, err)
			}
			return
		}
		if id == cid || id == uuid.Nil {
			t.Fatalf("%q parsed into %s", body, id)
		}
	})
}
