package banking

import (
	"encoding/json"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// FuzzParseCustomTransactions: the custom-account batch parser refuses
// with 400 error objects; what it accepts has 1 to MaxImportItems items,
// positive amounts and external ids unique within the call.
func FuzzParseCustomTransactions(f *testing.F) {
	item := `{"external_id":"e-1","amount":2500,"direction":"CREDIT","date":"2025-01-31","description":"deposit","counterparty_name":"ACME","reference_number":"42","memo":"m","metadata":{},"tags":[]}`
	for _, s := range []string{`{"transactions":[` + item + `]}`,
		`{"transactions":[` + item + `,` + item + `]}`,
		`{"transactions":[{"amount":"7","direction":"DEBIT","date":"2025-01-31T23:59:59-05:00"}]}`,
		`{"transactions":[{"amount":0,"direction":"DEBIT","date":"2025-01-31"}]}`,
		`{"transactions":[{"amount":9223372036854775807,"direction":"DEBIT","date":"2025-01-31","source":"API"}]}`,
		`{"transactions":[]}`, `{"transactions":null}`, `{"transactions":[null]}`, `[]`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		items, err := ParseCustomTransactions(body)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		if len(items) == 0 || len(items) > MaxImportItems {
			t.Fatalf("%d items accepted", len(items))
		}
		seen := map[string]bool{}
		for _, it := range items {
			if it.Amount <= 0 {
				t.Fatalf("accepted amount %d", it.Amount)
			}
			if it.ExternalID != nil {
				if seen[*it.ExternalID] {
					t.Fatalf("external id %q twice", *it.ExternalID)
				}
				seen[*it.ExternalID] = true
			}
		}
	})
}

// FuzzParseCustomAccountInput: POST /custom-accounts body refusals are
// 400 error objects, never a panic.
func FuzzParseCustomAccountInput(f *testing.F) {
	for _, s := range []string{`{"account_name":"Petty cash","institution_name":"Cash box","mask":"0001","account_type":"DEPOSITORY","account_subtype":"SAVINGS","custom_account_type":"PERSONAL","external_id":"ca-1"}`,
		`{"account_name":"Card","account_type":"CREDIT"}`, `{"account_name":"x","account_type":"CREDIT","account_subtype":"CHECKING"}`,
		`{"account_name":"","account_type":"DEPOSITORY"}`, `{"account_type":"LOAN"}`, `{"mask":12345}`, `{}`, `null`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := ParseCustomAccountInput(body); err != nil {
			apperrtest.Require4xx(t, err)
		}
	})
}

// FuzzDecodeClassification: a classification member either decodes or is
// a 400 naming the member; an accepted one, rendered in the body form,
// decodes to the same classification.
func FuzzDecodeClassification(f *testing.F) {
	for _, s := range []string{`{"type":"AccountId","id":"0190a6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b"}`, `{"type":"StableName","stable_name":"MEALS"}`,
		`{"type":"Exclusion","exclusion_type":"TRANSFER"}`, `{"type":"Exclusion","exclusion_type":"NOPE"}`, `{"type":"StableName"}`,
		`{"type":"AccountId","id":"x"}`, `{"type":"Other"}`, `null`, ``, `[]`, `"MEALS"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := DecodeClassification(json.RawMessage(raw), "category")
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		body := map[string]any{"type": c.Type}
		switch c.Type {
		case ByAccountID:
			body["id"] = c.AccountID.String()
		case ByStableName:
			body["stable_name"] = c.StableName
		default:
			body["exclusion_type"] = c.Exclusion
		}
		out, _ := json.Marshal(body)
		again, err := DecodeClassification(out, "category")
		if err != nil || again != c {
			t.Fatalf("%s decoded to %+v; rendered %s decodes to %+v (%v)", raw, c, out, again, err)
		}
	})
}
