// Package app holds the customers-invoices use cases and the interfaces
// they need from persistence and event publishing. Each write runs in one
// database transaction through outbox.RunInTx: the change and its
// acct.invoicing.v1 event commit together or not at all.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/page"
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

// Customers holds the customer use cases.
type Customers struct {
	db    *bun.DB
	store CustomerStore
	pub   CustomerPublisher
	log   *slog.Logger
	now   func() time.Time
}

// NewCustomers assembles the customer use cases on db.
func NewCustomers(db *bun.DB, store CustomerStore, pub CustomerPublisher, logger *slog.Logger) *Customers {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Customers{db: db, store: store, pub: pub, log: logger, now: time.Now}
}

// clock is now as PostgreSQL stores it (microseconds, UTC).
func (a *Customers) clock() time.Time { return a.now().UTC().Truncate(time.Microsecond) }

func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// Create is POST /customers: a new ACTIVE customer and its
// customer.upserted event, with created true. When the business already
// has a customer with the input's external_id, that customer is returned
// unchanged with created false and nothing is written (a retried create).
func (a *Customers) Create(ctx context.Context, businessID uuid.UUID, in domain.CustomerInput) (domain.Customer, bool, error) {
	var (
		out     domain.Customer
		created bool
	)
	err := outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		c := domain.NewCustomer(businessID, newID(), in, a.clock())
		inserted, err := a.store.InsertCustomer(ctx, tx, c)
		if err != nil {
			return fmt.Errorf("insert customer: %w", err)
		}
		if !inserted {
			if in.ExternalID == nil {
				return fmt.Errorf("customer without external id not inserted")
			}
			existing, ok, err := a.store.FindCustomerByExternalID(ctx, tx, businessID, *in.ExternalID)
			if err != nil {
				return fmt.Errorf("find customer by external id: %w", err)
			}
			if !ok {
				return fmt.Errorf("customer with external id %q neither inserted nor found", *in.ExternalID)
			}
			out = existing
			return nil
		}
		out, created = c, true
		return a.pub.CustomerUpserted(ctx, tx, c)
	})
	if err != nil {
		return domain.Customer{}, false, err
	}
	return out, created, nil
}

// Customer is GET /customers/{id} (archived customers included), or the
// 404 domain.ErrCustomerNotFound.
func (a *Customers) Customer(ctx context.Context, businessID, id uuid.UUID) (domain.Customer, error) {
	c, ok, err := a.store.FindCustomer(ctx, a.db, businessID, id, false)
	if err != nil {
		return domain.Customer{}, fmt.Errorf("find customer %s: %w", id, err)
	}
	if !ok {
		return domain.Customer{}, domain.ErrCustomerNotFound()
	}
	return c, nil
}

// Customers is GET /customers: one page.
func (a *Customers) Customers(ctx context.Context, businessID uuid.UUID, f domain.CustomerFilter, p page.Params) ([]domain.Customer, page.Meta, error) {
	out, meta, err := a.store.FindCustomers(ctx, a.db, businessID, f, p)
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("list customers of %s: %w", businessID, err)
	}
	return out, meta, nil
}

// Update is PATCH /customers/{id}: the customer locked, the patch applied
// (domain.Customer.Apply) and, when it changed anything, written with its
// customer.upserted event. A patch that changes nothing writes nothing and
// answers the customer as it is.
func (a *Customers) Update(ctx context.Context, businessID, id uuid.UUID, p domain.CustomerPatch) (domain.Customer, error) {
	var out domain.Customer
	err := outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		c, ok, err := a.store.FindCustomer(ctx, tx, businessID, id, true)
		if err != nil {
			return fmt.Errorf("lock customer %s: %w", id, err)
		}
		if !ok {
			return domain.ErrCustomerNotFound()
		}
		next, changed, err := c.Apply(p, a.clock())
		if err != nil {
			return err
		}
		if !changed {
			out = c
			return nil
		}
		if x := next.ExternalID; x != nil && (c.ExternalID == nil || *x != *c.ExternalID) {
			other, taken, err := a.store.FindCustomerByExternalID(ctx, tx, businessID, *x)
			if err != nil {
				return fmt.Errorf("find customer by external id: %w", err)
			}
			if taken && other.ID != id {
				return domain.ErrDuplicateExternalID(*x)
			}
		}
		if err := a.store.UpdateCustomer(ctx, tx, next); err != nil {
			return err
		}
		out = next
		return a.pub.CustomerUpserted(ctx, tx, next)
	})
	if err != nil {
		return domain.Customer{}, err
	}
	return out, nil
}

// Archive is POST /customers/{id}/archive: Update with status ARCHIVED
// (archiving an archived customer changes nothing).
func (a *Customers) Archive(ctx context.Context, businessID, id uuid.UUID) (domain.Customer, error) {
	return a.Update(ctx, businessID, id, domain.ArchivePatch())
}
