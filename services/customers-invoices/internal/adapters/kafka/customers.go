// Package kafka is the customers-invoices service's event adapter: the
// acct.invoicing.v1 payloads it publishes, enqueued through the outbox in
// the caller's transaction. (The business projection it consumes is the
// kit's: Definition.Businesses.)
package kafka

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain"
)

// Source is the CloudEvents source of the service's events.
const Source = "acct/customers-invoices"

// Publisher enqueues acct.invoicing.v1 events in the caller's transaction.
type Publisher struct{}

var _ app.CustomerPublisher = Publisher{}

// CustomerUpserted implements app.CustomerPublisher: one customer.upserted
// snapshot of c.
func (Publisher) CustomerUpserted(ctx context.Context, db bun.IDB, c domain.Customer) error {
	evt, err := events.New(events.TopicInvoicing, events.TypeCustomerUpserted, Source, c.BusinessID, CustomerPayload(c))
	if err != nil {
		return fmt.Errorf("customer event: %w", err)
	}
	return outbox.Enqueue(ctx, db, evt)
}

// CustomerPayload is the snapshot of c.
func CustomerPayload(c domain.Customer) events.CustomerUpserted {
	return events.CustomerUpserted{
		CustomerID: c.ID, BusinessID: c.BusinessID, Version: c.Version, ExternalID: c.ExternalID,
		DisplayName: c.DisplayName(), IndividualName: c.IndividualName, CompanyName: c.CompanyName, Email: c.Email,
		MobilePhone: c.MobilePhone, OfficePhone: c.OfficePhone, AddressString: c.AddressString, Memo: c.Memo,
		Status: string(c.Status), Tags: events.LedgerTagsOf(c.Tags), CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
		ArchivedAt: c.ArchivedAt,
	}
}
