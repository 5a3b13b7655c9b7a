package postgres

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/party/partybun"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain"
)

var _ app.CustomerStore = (*Store)(nil)

// externalIDIndex is the unique index of (business_id, external_id).
const externalIDIndex = "customers_external_id_key"

// customerRow is a row of customers.
type customerRow struct {
	bun.BaseModel `bun:"table:customers,alias:c"`
	partybun.Row
}

func toCustomerRow(c domain.Customer) customerRow { return customerRow{Row: partybun.RowOf(c)} }

func (r customerRow) customer() domain.Customer { return partybun.PartyOf[domain.CustomerKind](r.Row) }

// customers is the customers' table.
var customers = partybun.Table[customerRow, domain.Customer]{
	Noun: "customer", ExternalIDIndex: externalIDIndex, Columns: partybun.UpdateColumns,
	ToRow: toCustomerRow, FromRow: customerRow.customer, DuplicateExternalID: domain.ErrDuplicateExternalID,
}

// InsertCustomer implements app.CustomerStore: INSERT ... ON CONFLICT DO
// NOTHING on the external id's unique index, so a concurrent create of the
// same external id waits for the first and then inserts nothing.
func (s *Store) InsertCustomer(ctx context.Context, c domain.Customer) (bool, error) {
	return customers.Insert(ctx, s.conn(ctx), c)
}

// FindCustomer implements app.CustomerStore.
func (s *Store) FindCustomer(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (domain.Customer, bool, error) {
	return customers.Find(ctx, s.conn(ctx), businessID, id, forUpdate)
}

// FindCustomerByExternalID implements app.CustomerStore.
func (s *Store) FindCustomerByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (domain.Customer, bool, error) {
	return customers.FindByExternalID(ctx, s.conn(ctx), businessID, externalID)
}

// FindCustomersByIDs implements app.CustomerStore: one query for them all.
func (s *Store) FindCustomersByIDs(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]domain.Customer, error) {
	return customers.FindByIDs(ctx, s.conn(ctx), businessID, ids)
}

// UpdateCustomer implements app.CustomerStore.
func (s *Store) UpdateCustomer(ctx context.Context, c domain.Customer) error {
	return customers.Update(ctx, s.conn(ctx), c)
}

// FindCustomers implements app.CustomerStore: one keyset page
// (partybun.Table.List).
func (s *Store) FindCustomers(ctx context.Context, businessID uuid.UUID, f domain.CustomerFilter, p page.Params) ([]domain.Customer, page.Meta, error) {
	return customers.List(ctx, s.conn(ctx), businessID, f, p)
}
