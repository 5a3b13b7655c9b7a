package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/party/partyapp"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain"
)

// CustomerPageSpec is the pagination of GET /customers: sort_by name (the
// display name, case-insensitive; the default), created_at or updated_at,
// each backed by a (business_id, key, id) index; limit default 100, at
// most 500. It is the counterparty listing's (pkg/party/partybun.PageSpec,
// whose store reads the page).
var CustomerPageSpec = page.Spec{
	Keys: map[string]page.Key{
		"name":       {Column: "c.sort_name", Kind: page.KindString},
		"created_at": {Column: "c.created_at", Kind: page.KindTime},
		"updated_at": {Column: "c.updated_at", Kind: page.KindTime},
	},
	Default:      "name",
	DefaultLimit: 100,
	MaxLimit:     500,
}

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
// Get, List, Update and Archive, on the CustomerStore and with
// PublishCustomer as their publication (the wiring assembles them).
type Customers struct {
	*partyapp.UseCases[domain.Customer]
}

// NewCustomers holds the customer use cases uc.
func NewCustomers(uc *partyapp.UseCases[domain.Customer]) *Customers { return &Customers{uc} }

// PublishCustomer is the customer use cases' publication: c's
// customer.upserted, published with pub in the unit of work of ctx.
func PublishCustomer(pub Publisher) func(ctx context.Context, c domain.Customer) error {
	return func(ctx context.Context, c domain.Customer) error { return publish(ctx, pub, customerEvent(c)) }
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
