package service

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// TestTransactionMetadata: PATCH .../metadata sets the memo (answered as
// the SDK's {data: {memo}}), the customer and vendor links, the reference
// number and metadata, partially; the journal is left alone; the same
// update again changes nothing; bad bodies are 400s.
func TestTransactionMetadata(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("meta-a", "US")
	id := s.txn(2500, "DEBIT", "2026-04-01")
	path := base(s.bid) + "/bank-transactions/" + id + "/metadata"
	before := s.view([]string{id})[0]

	got := data(e.Do(req("PATCH", path, s.tok, map[string]any{"memo": "team lunch"}), 200))
	if got["memo"] != "team lunch" || got["customer_id"] != nil {
		t.Fatalf("metadata = %v", got)
	}
	cust, vend := uuid.NewString(), uuid.NewString()
	got = data(e.Do(req("PATCH", path, s.tok, map[string]any{"customer_id": cust, "vendor_id": vend,
		"reference_number": "R-7", "metadata": map[string]any{"po": 42}}), 200))
	if got["memo"] != "team lunch" || got["customer_id"] != cust || got["vendor_id"] != vend || got["reference_number"] != "R-7" {
		t.Fatalf("memo-keeping update = %v", got)
	}
	txn := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+id, s.tok, nil), 200))
	if txn["memo"] != "team lunch" || txn["customer_id"] != cust || txn["metadata"].(map[string]any)["po"] != float64(42) {
		t.Fatalf("transaction = %v", txn)
	}
	after := s.view([]string{id})[0]
	if after.Entries != before.Entries || after.Live != before.Live || after.Version != before.Version+2 {
		t.Fatalf("the journal or the version moved: %+v, was %+v", after, before)
	}
	e.Do(req("PUT", path, s.tok, map[string]any{"memo": "team lunch", "metadata": map[string]any{"po": 42}}), 200)
	if v := s.view([]string{id})[0].Version; v != after.Version {
		t.Fatalf("an unchanged update moved the version to %d", v)
	}
	got = data(e.Do(req("PATCH", path, s.tok, map[string]any{"customer_id": nil, "memo": nil}), 200))
	if got["customer_id"] != nil || got["memo"] != nil || got["vendor_id"] != vend {
		t.Fatalf("cleared = %v", got)
	}
	if g := data(e.Do(req("GET", path, s.tok, nil), 200)); g["vendor_id"] != vend {
		t.Fatalf("GET metadata = %v", g)
	}

	for _, tt := range []struct {
		body any
		enum string
	}{
		{map[string]any{}, banking.EnumEmptyMetadataUpdate},
		{map[string]any{"memo": 7}, banking.EnumInvalidTransaction},
		{map[string]any{"memoo": "x"}, banking.EnumInvalidTransaction},
		{map[string]any{"customer_id": "nope"}, banking.EnumInvalidTransaction},
		{map[string]any{"metadata": map[string]any{"x": strings.Repeat("y", 1100)}}, banking.EnumMetadataTooLarge},
		{map[string]any{"metadata": []any{1}}, banking.EnumInvalidTransaction},
	} {
		e.DoInvalid(req("PATCH", path, s.tok, tt.body), 400, tt.enum)
	}
	e.DoInvalid(req("PATCH", base(s.bid)+"/bank-transactions/"+uuid.NewString()+"/metadata", s.tok, map[string]any{"memo": "x"}), 404, "BankTransactionNotFound")
}
