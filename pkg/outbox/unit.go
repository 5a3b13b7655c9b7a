package outbox

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/pgdb"
)

// UnitOfWork runs a use case in one database transaction that travels in
// the context (pgdb.WithTx): the stores find it with pgdb.Conn, and the
// events published in it (Publisher) are written last, with the change,
// as RunInTx does. A Do inside another is a savepoint of the outer
// transaction whose events go with it. Application code sees only Do.
type UnitOfWork struct {
	DB *bun.DB
}

// Do runs fn in the unit of work: committed when fn returns nil, rolled
// back (events included) when it fails.
func (u UnitOfWork) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	conn, err := pgdb.Enclosing(ctx, u.DB)
	if err != nil {
		return err
	}
	return RunInTx(ctx, conn, func(ctx context.Context, tx bun.Tx) error {
		return fn(pgdb.WithTx(ctx, tx))
	})
}

// Events enqueues events in the outbox of the unit of work ctx carries,
// so they commit with it; outside one, in a transaction of their own.
type Events struct {
	DB *bun.DB
}

// Publish enqueues evts (see Enqueue).
func (p Events) Publish(ctx context.Context, evts ...events.Event) error {
	return Enqueue(ctx, pgdb.Conn(ctx, p.DB), evts...)
}
