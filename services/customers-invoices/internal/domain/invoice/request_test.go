package invoice

import (
	"strings"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr"
)

// An invoice's metadata is stored as jsonb, which refuses NUL (\u0000),
// unpaired surrogate escapes and invalid UTF-8: a 400 naming metadata, not
// a database error (500).
func TestCheckMetadataStorable(t *testing.T) {
	for _, raw := range []string{`{"k":"a\u0000b"}`, `{"\u0000":1}`, `{"k":"\udc00"}`, "{\"k\":\"\xff\"}"} {
		err := CheckMetadata([]byte(raw))
		if err == nil {
			t.Fatalf("%s accepted", raw)
		}
		if apperr.Status(apperr.From(err).Type) != 400 || !strings.Contains(err.Error(), "metadata") {
			t.Fatalf("%s: %v, want a 400 naming metadata", raw, err)
		}
	}
	if err := CheckMetadata([]byte(`{"k":"caf\u00e9"}`)); err != nil {
		t.Fatal(err)
	}
}
