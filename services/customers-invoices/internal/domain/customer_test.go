package domain

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/party"
)

// The rules are pkg/party's (tested there); these check that customers
// answer with their own enums and nouns.
func TestCustomerKind(t *testing.T) {
	if _, err := ParseCustomerInput([]byte(`[]`)); apperr.From(err).Enum != EnumInvalidCustomer {
		t.Fatalf("not an object: %v, want %s", err, EnumInvalidCustomer)
	}
	if _, err := ParseCustomerPatch([]byte(`{"status":"GONE"}`)); apperr.From(err).Enum != EnumInvalidCustomer {
		t.Fatalf("bad status: %v, want %s", err, EnumInvalidCustomer)
	}
	if _, err := ParseCustomerInput([]byte(`{}`)); apperr.From(err).Enum != EnumCustomerNameRequired {
		t.Fatalf("no name: %v, want %s", err, EnumCustomerNameRequired)
	}
	name := "Ann"
	c := NewCustomer(uuid.New(), uuid.New(), CustomerInput{IndividualName: &name}, time.Now())
	_, _, err := c.Apply(CustomerPatch{IndividualName: party.Nullable[string]{Set: true, Null: true}}, time.Now())
	fields, _ := apperr.From(err).Meta["fields"].(map[string]string)
	if apperr.From(err).Enum != EnumCustomerNameRequired || fields["company_name"] != "individual_name or company_name is required: the customer would have no name" {
		t.Fatalf("nameless: %v %v", err, fields)
	}
	if _, err := ParseCustomerFilter(map[string][]string{"include_archived": {"x"}}); apperr.From(err).Enum != EnumInvalidFilter {
		t.Fatalf("bad filter: %v, want %s", err, EnumInvalidFilter)
	}
}
