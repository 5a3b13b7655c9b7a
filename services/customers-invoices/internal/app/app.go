// Package app holds the customers-invoices use cases and the interfaces
// they need from persistence and event publishing. Each write runs in one
// unit of work (UnitOfWork.Do, whose context carries the database
// transaction to the stores): the change and its acct.invoicing.v1
// events, published in it, commit together or not at all.
package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/events"
)

// UnitOfWork runs fn in one database transaction, carried by fn's
// context to the stores and the publisher.
type UnitOfWork interface {
	Do(ctx context.Context, fn func(ctx context.Context) error) error
}

// Publisher publishes events with the unit of work ctx carries (the
// outbox): they are sent only if it commits.
type Publisher interface {
	Publish(ctx context.Context, evts ...events.Event) error
}

// Invoicing holds the invoice, payment and write-off use cases.
type Invoicing struct {
	uow       UnitOfWork
	store     InvoiceStore
	customers CustomerStore
	accounts  AccountStore
	pub       Publisher
	log       *slog.Logger
	clk       clock.Clock
}

// NewInvoicing assembles the invoicing use cases.
func NewInvoicing(uow UnitOfWork, store InvoiceStore, customers CustomerStore, accounts AccountStore, pub Publisher, logger *slog.Logger) *Invoicing {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Invoicing{uow: uow, store: store, customers: customers, accounts: accounts, pub: pub, log: logger, clk: clock.System}
}

// clock is now as PostgreSQL stores it (microseconds, UTC).
func (a *Invoicing) clock() time.Time { return a.clk.Now() }

func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }
