// Package partyapp is the use-case skeleton the customers' and the
// vendors' services share: create (idempotent on the external id), read,
// list, patch and archive a counterparty, each write in one unit of work
// with the counterparty's upserted event. The service names its entity P
// (a customer, a vendor) and plugs in its store and publisher, whose
// functions take the context only: a write's transaction travels in it.
package partyapp

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/party"
)

// Entity is what the use cases need of a counterparty type P: its
// identity and its patch (party.Party's, or a type embedding it).
type Entity[P any] interface {
	Identity() (id uuid.UUID, externalID *string)
	Apply(p party.Patch, now time.Time) (P, bool, error)
}

// Ports are the service's pieces: its entity's constructor, store and
// publisher (method values), and its errors. Every store function runs in
// the unit of work its context carries (the pool outside one) and filters
// by business.
type Ports[P Entity[P]] struct {
	// Noun names the entity in internal errors ("customer").
	Noun string
	// New is the entity created from a checked input (party.New).
	New func(businessID, id uuid.UUID, in party.Input, now time.Time) P
	// Insert inserts c unless the business already has one with c's
	// external id; inserted reports which.
	Insert           func(ctx context.Context, c P) (inserted bool, err error)
	Find             func(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (P, bool, error)
	FindByExternalID func(ctx context.Context, businessID uuid.UUID, externalID string) (P, bool, error)
	// Update writes every field of c; an external id another one of the
	// business has is DuplicateExternalID.
	Update func(ctx context.Context, c P) error
	List   func(ctx context.Context, businessID uuid.UUID, f party.Filter, p page.Params) ([]P, page.Meta, error)
	// Upserted publishes the entity's upserted event in the unit of work.
	Upserted            func(ctx context.Context, c P) error
	NotFound            func() *apperr.Error
	DuplicateExternalID func(externalID string) *apperr.Error
}

// UnitOfWork runs fn in one database transaction carried by fn's context
// (outbox.UnitOfWork).
type UnitOfWork interface {
	Do(ctx context.Context, fn func(ctx context.Context) error) error
}

// UseCases holds the counterparty use cases.
type UseCases[P Entity[P]] struct {
	uow   UnitOfWork
	ports Ports[P]
	clk   clock.Clock
}

// New assembles the use cases.
func New[P Entity[P]](uow UnitOfWork, ports Ports[P]) *UseCases[P] {
	return &UseCases[P]{uow: uow, ports: ports, clk: clock.System}
}

// Clock is now as PostgreSQL stores it (microseconds, UTC).
func (a *UseCases[P]) Clock() time.Time { return a.clk.Now() }

// Create is the POST: a new ACTIVE counterparty and its upserted event,
// with created true. When the business already has one with the input's
// external_id, that one is returned unchanged with created false and
// nothing is written (a retried create).
func (a *UseCases[P]) Create(ctx context.Context, businessID uuid.UUID, in party.Input) (P, bool, error) {
	var (
		out     P
		created bool
		noun    = a.ports.Noun
	)
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		c := a.ports.New(businessID, uuid.Must(uuid.NewV7()), in, a.Clock())
		inserted, err := a.ports.Insert(ctx, c)
		if err != nil {
			return fmt.Errorf("insert %s: %w", noun, err)
		}
		if !inserted {
			if in.ExternalID == nil {
				return fmt.Errorf("%s without external id not inserted", noun)
			}
			existing, ok, err := a.ports.FindByExternalID(ctx, businessID, *in.ExternalID)
			if err != nil {
				return fmt.Errorf("find %s by external id: %w", noun, err)
			}
			if !ok {
				return fmt.Errorf("%s with external id %q neither inserted nor found", noun, *in.ExternalID)
			}
			out = existing
			return nil
		}
		out, created = c, true
		return a.ports.Upserted(ctx, c)
	})
	if err != nil {
		var zero P
		return zero, false, err
	}
	return out, created, nil
}

// Get is the GET by id (archived ones included), or the 404 NotFound.
func (a *UseCases[P]) Get(ctx context.Context, businessID, id uuid.UUID) (P, error) {
	c, ok, err := a.ports.Find(ctx, businessID, id, false)
	var zero P
	if err != nil {
		return zero, fmt.Errorf("find %s %s: %w", a.ports.Noun, id, err)
	}
	if !ok {
		return zero, a.ports.NotFound()
	}
	return c, nil
}

// List is the GET of the collection: one page.
func (a *UseCases[P]) List(ctx context.Context, businessID uuid.UUID, f party.Filter, p page.Params) ([]P, page.Meta, error) {
	out, meta, err := a.ports.List(ctx, businessID, f, p)
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("list %ss of %s: %w", a.ports.Noun, businessID, err)
	}
	return out, meta, nil
}

// Update is the PATCH: the counterparty locked, the patch applied (its
// Apply) and, when it changed anything, written with its upserted event.
// A patch that changes nothing writes nothing and answers the
// counterparty as it is.
func (a *UseCases[P]) Update(ctx context.Context, businessID, id uuid.UUID, p party.Patch) (P, error) {
	var out P
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		c, ok, err := a.ports.Find(ctx, businessID, id, true)
		if err != nil {
			return fmt.Errorf("lock %s %s: %w", a.ports.Noun, id, err)
		}
		if !ok {
			return a.ports.NotFound()
		}
		next, changed, err := c.Apply(p, a.Clock())
		if err != nil {
			return err
		}
		if !changed {
			out = c
			return nil
		}
		_, was := c.Identity()
		if _, x := next.Identity(); x != nil && (was == nil || *x != *was) {
			other, taken, err := a.ports.FindByExternalID(ctx, businessID, *x)
			if err != nil {
				return fmt.Errorf("find %s by external id: %w", a.ports.Noun, err)
			}
			if otherID, _ := other.Identity(); taken && otherID != id {
				return a.ports.DuplicateExternalID(*x)
			}
		}
		if err := a.ports.Update(ctx, next); err != nil {
			return err
		}
		out = next
		return a.ports.Upserted(ctx, next)
	})
	if err != nil {
		var zero P
		return zero, err
	}
	return out, nil
}

// Archive is the POST .../archive: Update with status ARCHIVED (archiving
// an archived one changes nothing).
func (a *UseCases[P]) Archive(ctx context.Context, businessID, id uuid.UUID) (P, error) {
	return a.Update(ctx, businessID, id, party.ArchivePatch())
}
