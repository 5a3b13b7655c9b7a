package invoice

import (
	"strings"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Text fields are stored as PostgreSQL text, which cannot hold NUL: the
// create parser refuses one with a 400 naming the field (it was a 500).
func TestParseInvoiceRefusesNUL(t *testing.T) {
	for _, field := range []string{"memo", "invoice_number", "external_id"} {
		_, err := ParseInvoice([]byte(`{"` + field + `":"a\u0000b"}`))
		ae := apperr.From(err)
		if err == nil || ae.Status() != 400 || !strings.Contains(strings.Join(fieldKeys(ae.Meta), ","), field) {
			t.Fatalf("%s: %v (%v), want a 400 naming it", field, err, ae.Meta)
		}
	}
}

func fieldKeys(meta map[string]any) []string {
	var out []string
	switch f := meta["fields"].(type) {
	case map[string]string:
		for k := range f {
			out = append(out, k)
		}
	case map[string]any:
		for k := range f {
			out = append(out, k)
		}
	}
	return out
}
