package domain

import (
	"strings"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Metadata is stored as jsonb, which refuses NUL (\u0000), unpaired
// surrogate escapes and invalid UTF-8: those are 400s naming the field,
// not database errors (500) — the contract fuzzer's finding in bills-tags.
func TestCheckMetadataStorable(t *testing.T) {
	for _, raw := range []string{`{"k":"a\u0000b"}`, `{"\u0000":1}`, `{"k":"\ud800"}`, "{\"k\":\"\xff\"}"} {
		_, err := CheckMetadata("metadata", []byte(raw))
		if err == nil {
			t.Fatalf("journal entry metadata %s accepted", raw)
		}
		if apperr.Status(apperr.From(err).Type) != 400 || !strings.Contains(err.Error(), "metadata") {
			t.Fatalf("%s: %v, want a 400 naming metadata", raw, err)
		}
	}
	if _, err := CheckMetadata("metadata", []byte(`{"k":"\\u0000 is text"}`)); err != nil {
		t.Fatal(err)
	}
}
