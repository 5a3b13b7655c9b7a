package postgres

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/party/partyapp"
	"github.com/acctsuite/acct/pkg/party/partybun"
	"github.com/acctsuite/acct/pkg/pgdb"
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

// CustomerUseCases are pkg/party/partyapp's customer use cases on the
// store, with published (app.PublishCustomer) as their customer.upserted
// publication. partyapp runs each write in a transaction of its own and
// hands it to every port it calls; the ports pass it on in the context
// (pgdb.WithTx), so the store and published run in it as they do in a
// unit of work.
func (s *Store) CustomerUseCases(published func(ctx context.Context, c domain.Customer) error) *partyapp.UseCases[domain.Customer] {
	return partyapp.New(s.db, partyapp.Ports[domain.Customer]{
		Noun: "customer", New: domain.NewCustomer,
		Insert: func(ctx context.Context, db bun.IDB, c domain.Customer) (bool, error) {
			return s.InsertCustomer(inTx(ctx, db), c)
		},
		Find: func(ctx context.Context, db bun.IDB, businessID, id uuid.UUID, forUpdate bool) (domain.Customer, bool, error) {
			return s.FindCustomer(inTx(ctx, db), businessID, id, forUpdate)
		},
		FindByExternalID: func(ctx context.Context, db bun.IDB, businessID uuid.UUID, externalID string) (domain.Customer, bool, error) {
			return s.FindCustomerByExternalID(inTx(ctx, db), businessID, externalID)
		},
		Update: func(ctx context.Context, db bun.IDB, c domain.Customer) error {
			return s.UpdateCustomer(inTx(ctx, db), c)
		},
		List: func(ctx context.Context, db bun.IDB, businessID uuid.UUID, f domain.CustomerFilter, p page.Params) ([]domain.Customer, page.Meta, error) {
			return s.FindCustomers(inTx(ctx, db), businessID, f, p)
		},
		Upserted: func(ctx context.Context, db bun.IDB, c domain.Customer) error {
			return published(inTx(ctx, db), c)
		},
		NotFound: domain.ErrCustomerNotFound, DuplicateExternalID: domain.ErrDuplicateExternalID,
	})
}

// inTx is ctx carrying db when db is the transaction partyapp runs a
// write in (its reads run on the pool, which ctx leaves as it is).
func inTx(ctx context.Context, db bun.IDB) context.Context {
	if tx, ok := db.(bun.Tx); ok {
		return pgdb.WithTx(ctx, tx)
	}
	return ctx
}
