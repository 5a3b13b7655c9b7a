// Package app holds the bills-tags use cases and the interfaces they need
// from persistence and event publishing. Each write runs in one unit of
// work (UnitOfWork.Do, whose context carries the database transaction to
// the stores): the change and its acct.bills.v1 events, published in it,
// commit together or not at all.
package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
)

// UnitOfWork runs fn in one database transaction, carried by fn's context
// to the stores and the publisher. Inside a context that carries one
// already (a consumer's inbox transaction), Do is a savepoint of it.
type UnitOfWork interface {
	Do(ctx context.Context, fn func(ctx context.Context) error) error
}

// Publisher publishes events with the unit of work ctx carries (the
// outbox): they are sent only if it commits.
type Publisher interface {
	Publish(ctx context.Context, evts ...events.Event) error
}

func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }
