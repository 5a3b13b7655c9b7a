package http

import (
	"testing"

	"github.com/acctsuite/acct/pkg/apperr"
)

// FuzzParseTagBodies: the bill payment tag bodies parse or are a 400.
func FuzzParseTagBodies(f *testing.F) {
	for _, s := range []string{`{"key_values":[{"key":"k","value":"v"}],"transaction_ids":["0190a0b0-0000-7000-8000-000000000001"]}`,
		`{"tag_ids":["0190a0b0-0000-7000-8000-000000000001"]}`, `{}`, `[]`, `null`, `{"tag_ids":["x"]}`, `{"x":1}`, `{"tag_ids":[]} 1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := ParseTagPayments(body); err != nil && apperr.From(err).Status() != 400 {
			t.Fatalf("tag %q: %v", body, err)
		}
		if _, err := ParseUntagPayments(body); err != nil && apperr.From(err).Status() != 400 {
			t.Fatalf("untag %q: %v", body, err)
		}
	})
}
