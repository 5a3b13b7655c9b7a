package autocat

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// FuzzDecodeRuleDraft feeds arbitrary auto-categorization rule bodies to
// DecodeRuleDraft and then NewRule (POST and PATCH /rules): refusals of
// either are 400 error objects, never a panic; an accepted rule keeps its
// amount bounds in order.
func FuzzDecodeRuleDraft(f *testing.F) {
	for _, s := range []string{`{"name":"coffee","direction":"OUTFLOW","counterparty":{"match":"CONTAINS","pattern":"tim"},"description":{"match":"REGEX","pattern":"^pos"},"amount_min":0,"amount_max":"500","bank_account_id":"0190a6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b","category":{"type":"StableName","stable_name":"MEALS"}}`,
		`{"direction":"UP","category":{"type":"StableName","stable_name":"MEALS"}}`, `{"amount_min":1.5,"category":{"type":"StableName","stable_name":"MEALS"}}`,
		`{"amount_min":500,"amount_max":1,"category":{"type":"Exclusion","exclusion_type":"TRANSFER"}}`,
		`{"description":{"match":"REGEX","pattern":"("},"category":{"type":"StableName","stable_name":"MEALS"}}`,
		`{"description":{"match":"REGEX","pattern":"(a*)*$"},"category":{"type":"StableName","stable_name":"MEALS"}}`,
		`{"counterparty":{"match":"EXACT","pattern":""},"category":{"type":"AccountId","id":"x"}}`, `{}`, `[]`, `{"direction":`, ``} {
		f.Add([]byte(s))
	}
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := DecodeRuleDraft(body)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		r, err := NewRule(uuid.Nil, now, d)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		_ = r
		if d.AmountMin != nil && d.AmountMax != nil && *d.AmountMin > *d.AmountMax {
			t.Fatalf("accepted amount_min %d > amount_max %d", *d.AmountMin, *d.AmountMax)
		}
	})
}
