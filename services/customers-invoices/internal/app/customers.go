// Package app holds the customers-invoices use cases and the interfaces
// they need from persistence and event publishing. Each write runs in one
// database transaction through outbox.RunInTx: the change and its
// acct.invoicing.v1 event commit together or not at all.
package app

import (
	"context"
	"log/slog"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/party/partyapp"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain"
)

// CustomerStore is the customers' persistence. Every method runs on the db
// it is given (the use case's transaction, or the pool for reads) and
// filters by business.
type CustomerStore interface {
	// InsertCustomer inserts c unless the business already has a customer
	// with c's external id; inserted reports which. Concurrent inserts of
	// one external id insert one customer (the unique index decides).
	InsertCustomer(ctx context.Context, db bun.IDB, c domain.Customer) (inserted bool, err error)
	// FindCustomer reads the business's customer id; forUpdate locks it
	// until the transaction ends.
	FindCustomer(ctx context.Context, db bun.IDB, businessID, id uuid.UUID, forUpdate bool) (domain.Customer, bool, error)
	FindCustomerByExternalID(ctx context.Context, db bun.IDB, businessID uuid.UUID, externalID string) (domain.Customer, bool, error)
	// FindCustomersByIDs reads the business's customers among ids (the
	// unknown ones are left out), by id.
	FindCustomersByIDs(ctx context.Context, db bun.IDB, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]domain.Customer, error)
	// UpdateCustomer writes every field of c; an external id another
	// customer of the business has is domain.ErrDuplicateExternalID.
	UpdateCustomer(ctx context.Context, db bun.IDB, c domain.Customer) error
	// FindCustomers is one keyset page of the business's customers
	// matching f.
	FindCustomers(ctx context.Context, db bun.IDB, businessID uuid.UUID, f domain.CustomerFilter, p page.Params) ([]domain.Customer, page.Meta, error)
}

// CustomerPublisher enqueues customer events in the caller's transaction
// (the outbox).
type CustomerPublisher interface {
	CustomerUpserted(ctx context.Context, db bun.IDB, c domain.Customer) error
}

// Customers holds the customer use cases (pkg/party/partyapp's: Create,
// Update, Archive).
type Customers struct {
	*partyapp.UseCases[domain.Customer]
}

// NewCustomers assembles the customer use cases on db.
func NewCustomers(db *bun.DB, store CustomerStore, pub CustomerPublisher, _ *slog.Logger) *Customers {
	return &Customers{partyapp.New(db, partyapp.Ports[domain.Customer]{
		Noun: "customer", New: domain.NewCustomer,
		Insert: store.InsertCustomer, Find: store.FindCustomer, FindByExternalID: store.FindCustomerByExternalID,
		Update: store.UpdateCustomer, List: store.FindCustomers, Upserted: pub.CustomerUpserted,
		NotFound: domain.ErrCustomerNotFound, DuplicateExternalID: domain.ErrDuplicateExternalID,
	})}
}

func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// Customer is GET /customers/{id} (archived customers included), or the
// 404 domain.ErrCustomerNotFound.
func (a *Customers) Customer(ctx context.Context, businessID, id uuid.UUID) (domain.Customer, error) {
	return a.Get(ctx, businessID, id)
}

// Customers is GET /customers: one page.
func (a *Customers) Customers(ctx context.Context, businessID uuid.UUID, f domain.CustomerFilter, p page.Params) ([]domain.Customer, page.Meta, error) {
	return a.List(ctx, businessID, f, p)
}
