package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/party/partytest"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain"
)

// customerKind is what tells customers apart in the counterparty suite.
var customerKind = partytest.Kind{
	Collection: "customers", Type: "CustomerData", Table: "customers",
	Topic: events.TopicInvoicing, EventType: events.TypeCustomerUpserted, Source: "acct/customers-invoices", EventIDField: "customer_id",
	EventMemo: true, EventArchivedAt: true,
	EnumInvalid: domain.EnumInvalidCustomer, EnumNameRequired: domain.EnumCustomerNameRequired,
	EnumNotFound: domain.EnumCustomerNotFound, EnumDuplicateExternalID: domain.EnumDuplicateExternalID,
}

// TestCustomers: customers pass the counterparty conformance suite that
// vendors pass too.
func TestCustomers(t *testing.T) {
	partytest.Run(t, customerKind, func(t *testing.T) *servicetest.Env[Service] { return newEnv(t).Env })
}

// checkShape fails unless c is a customer in every key.
func checkShape(t *testing.T, c map[string]any) {
	t.Helper()
	customerKind.CheckShape(t, c)
}
