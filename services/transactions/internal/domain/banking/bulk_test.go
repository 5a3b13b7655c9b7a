package banking

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// fieldsOf are the meta.fields of a 400.
func fieldsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	ae := apperr.From(err)
	if ae == nil || ae.Status() != 400 {
		t.Fatalf("error = %v, want a 400", err)
	}
	f, _ := ae.Meta["fields"].(map[string]string)
	return f
}

func TestParseBulkBodies(t *testing.T) {
	a, b := uuid.NewString(), uuid.NewString()
	got, err := ParseBulkCategorize([]byte(`{"transactions":[{"transaction_id":"` + a + `","categorization":{"type":"Category","category":{"type":"StableName","stable_name":"MEALS"}}},
		{"transaction_id":"` + b + `","categorization":{"type":"Split","entries":[{"category":{"type":"Exclusion","exclusion_type":"PERSONAL_EXPENSES"},"amount":"5"}]}}]}`))
	if err != nil || len(got) != 2 || got[0].Field != "transactions[0]" || got[1].Categorization.Type != TypeSplit || got[1].Categorization.Entries[0].Amount != 5 {
		t.Fatalf("bulk-categorize = %+v, %v", got, err)
	}
	f := fieldsOf(t, func() error {
		_, err := ParseBulkCategorize([]byte(`{"transactions":[{"transaction_id":"x","categorization":{"type":"Split","entries":[{"amount":0}]}},{"transaction_id":"` + a + `"}]}`))
		return err
	}())
	for _, want := range []string{"transactions[0].transaction_id", "transactions[0].categorization.entries[0].amount", "transactions[1].categorization"} {
		if _, ok := f[want]; !ok {
			t.Errorf("fields %v lack %s", f, want)
		}
	}

	got, err = ParseBulkMatchOrCategorize([]byte(`{"transactions":{"` + b + `":{"type":"match","suggested_match_id":"` + a + `"},"` + a + `":{"type":"categorize","categorization":{"type":"Category","category":{"type":"AccountId","id":"` + b + `"}}}}}`))
	if err != nil || len(got) != 2 || got[0].Type != BulkMatch || got[0].MatchID.String() != a || got[1].Field != "transactions."+a {
		t.Fatalf("bulk-match-or-categorize = %+v, %v", got, err)
	}
	f = fieldsOf(t, func() error {
		_, err := ParseBulkMatchOrCategorize([]byte(`{"transactions":{"` + a + `":{"type":"match"},"` + a + `":{"type":"categorize","categorization":{"type":"Category","category":{"type":"StableName","stable_name":"X"}}},"nope":{"type":"guess"}}}`))
		return err
	}())
	for _, want := range []string{"transactions." + a + ".suggested_match_id", "transactions.nope"} {
		if _, ok := f[want]; !ok {
			t.Errorf("fields %v lack %s", f, want)
		}
	}

	got, err = ParseBulkUncategorize([]byte(`{"transaction_ids":["` + a + `","` + b + `","` + a + `"]}`))
	if err != nil || len(got) != 2 || got[1].Field != "transaction_ids[1]" {
		t.Fatalf("bulk-uncategorize = %+v, %v", got, err)
	}
	ids := make([]string, MaxBulkTransactions+1)
	for i := range ids {
		ids[i] = `"` + uuid.NewString() + `"`
	}
	if _, err := ParseBulkUncategorize([]byte(`{"transaction_ids":[` + strings.Join(ids, ",") + `]}`)); apperr.From(err).Enum != EnumTooManyTransactions {
		t.Fatalf("501 ids: %v", err)
	}
	for _, body := range []string{`[]`, `{}`, `{"transactions":[]}`, `{"transactions":{}}`, `{"transactions":"x"}`} {
		if _, err := ParseBulkCategorize([]byte(body)); apperr.From(err) == nil || apperr.From(err).Status() != 400 {
			t.Errorf("bulk-categorize %s: %v", body, err)
		}
		if _, err := ParseBulkMatchOrCategorize([]byte(body)); apperr.From(err) == nil || apperr.From(err).Status() != 400 {
			t.Errorf("bulk-match-or-categorize %s: %v", body, err)
		}
	}
}

func TestDecodeMetadataPatch(t *testing.T) {
	p, err := DecodeMetadataPatch([]byte(`{"memo":"  hi ","customer_id":null,"vendor_id":"` + uuid.NewString() + `","reference_number":""}`))
	if err != nil || p.Memo.Value != "hi" || !p.CustomerID.Null || !p.VendorID.Set || !p.ReferenceNumber.Null || p.Metadata.Set {
		t.Fatalf("patch = %+v, %v", p, err)
	}
	var txn BankTransaction
	if !txn.ApplyMetadata(p) || txn.Memo == nil || *txn.Memo != "hi" || txn.VendorID == nil {
		t.Fatalf("applied = %+v", txn)
	}
	if txn.ApplyMetadata(p) {
		t.Fatal("the same patch again reports a change")
	}
	withMeta, _ := DecodeMetadataPatch([]byte(`{"metadata":{"b":1,"a":[1,2]}}`))
	txn.ApplyMetadata(withMeta)
	txn.Metadata = []byte(`{"a": [1, 2], "b": 1}`) // as jsonb gives it back
	if txn.ApplyMetadata(withMeta) {
		t.Fatal("the same metadata in another layout reports a change")
	}
	for _, body := range []string{`{}`, `[]`, `{"memo":1}`, `{"other":"x"}`, `{"metadata":"x"}`, `{"customer_id":"1"}`} {
		if _, err := DecodeMetadataPatch([]byte(body)); apperr.From(err) == nil || apperr.From(err).Status() != 400 {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func TestCounterpartyIDs(t *testing.T) {
	biz := uuid.New()
	name := func(s string) BankTransaction { return BankTransaction{BusinessID: biz, CounterpartyName: &s} }
	a, b, c := name("TIM HORTONS #2345").CounterpartyID(), name("tim-hortons 0917").CounterpartyID(), name("Blue Bottle").CounterpartyID()
	if a == nil || *a != *b || *a == *c || a.Version() != 3 {
		t.Fatalf("ids %v %v %v", a, b, c)
	}
	if name("#1234").CounterpartyID() != nil || (BankTransaction{}).CounterpartyID() != nil {
		t.Fatal("a name with nothing left has a counterparty")
	}
	other := BankTransaction{BusinessID: uuid.New(), CounterpartyName: name("Blue Bottle").CounterpartyName}
	if *other.CounterpartyID() == *c {
		t.Fatal("two businesses share a counterparty id")
	}
}
