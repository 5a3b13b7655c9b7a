package banking

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// checkBulk: what a bulk parser accepts names 1 to MaxBulkTransactions
// transactions, each once, by a non-nil id, each action of a known type.
func checkBulk(t *testing.T, actions []BulkAction) {
	t.Helper()
	if len(actions) == 0 || len(actions) > MaxBulkTransactions {
		t.Fatalf("%d actions accepted", len(actions))
	}
	seen := map[uuid.UUID]bool{}
	for _, a := range actions {
		if a.TransactionID == uuid.Nil || seen[a.TransactionID] {
			t.Fatalf("transaction id %s accepted (nil or twice)", a.TransactionID)
		}
		seen[a.TransactionID] = true
		switch a.Type {
		case BulkCategorize, BulkUncategorize:
		case BulkMatch:
			if a.MatchID == uuid.Nil {
				t.Fatalf("a match without a match id accepted: %+v", a)
			}
		default:
			t.Fatalf("action type %q accepted", a.Type)
		}
	}
}

const (
	fuzzID1 = "3f0c5c3e-2b1a-4b7e-9a55-0d7a4f6a9c01"
	fuzzID2 = "3f0c5c3e-2b1a-4b7e-9a55-0d7a4f6a9c02"
)

// FuzzParseBulkCategorize: refusals are 4xx error objects, never a panic;
// what is accepted holds checkBulk.
func FuzzParseBulkCategorize(f *testing.F) {
	cat := `{"type":"Category","category":{"type":"StableName","stable_name":"MEALS"}}`
	split := `{"type":"Split","entries":[{"amount":600,"category":{"type":"StableName","stable_name":"RENT"}},{"amount":400,"category":{"type":"AccountId","id":"` + fuzzID2 + `"}}]}`
	for _, s := range []string{
		`{"transactions":[{"transaction_id":"` + fuzzID1 + `","categorization":` + cat + `}]}`,
		`{"transactions":[{"transaction_id":"` + fuzzID1 + `","categorization":` + cat + `},{"transaction_id":"` + fuzzID2 + `","categorization":` + split + `}]}`,
		`{"transactions":[{"transaction_id":"` + fuzzID1 + `","categorization":` + cat + `},{"transaction_id":"` + fuzzID1 + `","categorization":` + cat + `}]}`,
		`{"transactions":[{"transaction_id":"00000000-0000-0000-0000-000000000000","categorization":` + cat + `}]}`,
		`{"transactions":[{"transaction_id":1}]}`, `{"transactions":[]}`, `{"transactions":{}}`, `{}`, `[]`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		actions, err := ParseBulkCategorize(body)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		checkBulk(t, actions)
	})
}

// FuzzParseBulkMatchOrCategorize: as FuzzParseBulkCategorize, for the
// object keyed by transaction id.
func FuzzParseBulkMatchOrCategorize(f *testing.F) {
	for _, s := range []string{
		`{"transactions":{"` + fuzzID1 + `":{"type":"match","suggested_match_id":"` + fuzzID2 + `"}}}`,
		`{"transactions":{"` + fuzzID1 + `":{"type":"categorize","categorization":{"type":"Category","category":{"type":"StableName","stable_name":"MEALS"}}}}}`,
		`{"transactions":{"` + fuzzID1 + `":{"type":"match"},"` + fuzzID2 + `":{"type":"nope"}}}`,
		`{"transactions":{"` + fuzzID1 + `":{},"` + fuzzID1 + `":{}}}`,
		`{"transactions":{"not-a-uuid":{"type":"match","suggested_match_id":"` + fuzzID2 + `"}}}`,
		`{"transactions":[]}`, `{"transactions":{}}`, `{}`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		actions, err := ParseBulkMatchOrCategorize(body)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		checkBulk(t, actions)
	})
}

// FuzzParseBulkUncategorize: as FuzzParseBulkCategorize, for a list of
// ids (a repeated id counts once).
func FuzzParseBulkUncategorize(f *testing.F) {
	for _, s := range []string{
		`{"transaction_ids":["` + fuzzID1 + `"]}`, `{"transaction_ids":["` + fuzzID1 + `","` + fuzzID2 + `","` + fuzzID1 + `"]}`,
		`{"transaction_ids":[1,null]}`, `{"transaction_ids":[]}`, `{"transaction_ids":"x"}`, `{}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		actions, err := ParseBulkUncategorize(body)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		checkBulk(t, actions)
		for _, a := range actions {
			if a.Type != BulkUncategorize {
				t.Fatalf("action %q from bulk-uncategorize", a.Type)
			}
		}
	})
}

// FuzzParseCounterpartyFilter: any query string is a filter or a 400,
// never a panic; external ids come back sorted without duplicates.
func FuzzParseCounterpartyFilter(f *testing.F) {
	for _, s := range []string{"q=cafe", "external_ids=a&external_ids=b&external_ids=a", "q=a&q=b", "q=" + strings.Repeat("x", 300), "", "%zz", "q=%00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		filter, err := ParseCounterpartyFilter(q)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		for i := 1; i < len(filter.ExternalIDs); i++ {
			if filter.ExternalIDs[i-1] >= filter.ExternalIDs[i] {
				t.Fatalf("external ids not sorted and distinct: %q", filter.ExternalIDs)
			}
		}
	})
}

// FuzzDecodeMetadataPatch: a metadata update is decoded or refused with a
// 4xx, never a panic; what is accepted sets at least one field, and a set
// metadata value is a JSON object of at most 1 KB.
func FuzzDecodeMetadataPatch(f *testing.F) {
	for _, s := range []string{`{"memo":"lunch"}`, `{"memo":null}`, `{"customer_id":"` + fuzzID1 + `","vendor_id":null}`,
		`{"metadata":{"a":1}}`, `{"metadata":[1]}`, `{"metadata":{"a":"` + strings.Repeat("x", 2000) + `"}}`,
		`{"reference_number":"R-1","vendor_external_id":"v-1"}`, `{"colour":"red"}`, `{}`, `[]`, `null`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := DecodeMetadataPatch(body)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		if !p.Memo.Set && !p.ReferenceNumber.Set && !p.Metadata.Set && !p.CustomerID.Set && !p.CustomerExternalID.Set &&
			!p.VendorID.Set && !p.VendorExternalID.Set {
			t.Fatal("an update that sets nothing was accepted")
		}
		if p.Metadata.Set && !p.Metadata.Null {
			if len(p.Metadata.Value) > 1024 || len(p.Metadata.Value) == 0 || p.Metadata.Value[0] != '{' {
				t.Fatalf("metadata %q accepted", p.Metadata.Value)
			}
		}
	})
}
