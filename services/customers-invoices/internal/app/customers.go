package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/party"
	"github.com/acctsuite/acct/pkg/party/partyapp"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain"
)

// CustomerPageSpec is the pagination of GET /customers: the
// counterparties' (pkg/party.PageSpec): sort_by name (the display name,
// case-insensitive; the default), created_at or updated_at; limit default
// 100, at most 500.
var CustomerPageSpec = party.PageSpec

// CustomerStore is the customers' persistence. Every method runs in the
// unit of work its context carries (else on its own) and filters by
// business.
type CustomerStore interface {
	// InsertCustomer inserts c unless the business already has a customer
	// with c's external id; inserted reports which. Concurrent inserts of
	// one external id insert one customer (the unique index decides).
	InsertCustomer(ctx context.Context, c domain.Customer) (inserted bool, err error)
	// FindCustomer reads the business's customer id; forUpdate locks it
	// until the transaction ends.
	FindCustomer(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (domain.Customer, bool, error)
	FindCustomerByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (domain.Customer, bool, error)
	// FindCustomersByIDs reads the business's customers among ids (the
	// unknown ones are left out), by id.
	FindCustomersByIDs(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]domain.Customer, error)
	// UpdateCustomer writes every field of c; an external id another
	// customer of the business has is domain.ErrDuplicateExternalID.
	UpdateCustomer(ctx context.Context, c domain.Customer) error
	// FindCustomers is one keyset page of the business's customers
	// matching f.
	FindCustomers(ctx context.Context, businessID uuid.UUID, f domain.CustomerFilter, p page.Params) ([]domain.Customer, page.Meta, error)
}

// Customers holds the customer use cases: pkg/party/partyapp's Create,
// Get, List, Update and Archive, on the CustomerStore, each write in one
// unit of work with its customer.upserted.
type Customers struct {
	*partyapp.UseCases[domain.Customer]
}

// NewCustomers assembles the customer use cases.
func NewCustomers(uow UnitOfWork, store CustomerStore, pub Publisher) *Customers {
	return &Customers{partyapp.New(uow, partyapp.Ports[domain.Customer]{
		Noun: "customer", New: domain.NewCustomer,
		Insert: store.InsertCustomer, Find: store.FindCustomer, FindByExternalID: store.FindCustomerByExternalID,
		Update: store.UpdateCustomer, List: store.FindCustomers,
		Upserted: func(ctx context.Context, c domain.Customer) error { return publish(ctx, pub, customerEvent(c)) },
		NotFound: domain.ErrCustomerNotFound, DuplicateExternalID: domain.ErrDuplicateExternalID,
	})}
}

// Customer is GET /customers/{id} (archived customers included), or the
// 404 domain.ErrCustomerNotFound.
func (a *Customers) Customer(ctx context.Context, businessID, id uuid.UUID) (domain.Customer, error) {
	return a.Get(ctx, businessID, id)
}

// Customers is GET /customers: one page.
func (a *Customers) Customers(ctx context.Context, businessID uuid.UUID, f domain.CustomerFilter, p page.Params) ([]domain.Customer, page.Meta, error) {
	return a.List(ctx, businessID, f, p)
}
