package pgdb

import (
	"context"

	"github.com/uptrace/bun"
)

// txKey carries a unit of work's transaction in a context.
type txKey struct{}

// WithTx is ctx carrying tx, the transaction of the unit of work the
// caller runs: every store method called with it runs in tx.
func WithTx(ctx context.Context, tx bun.Tx) context.Context {
	return context.WithValue(ctx, txKey{}, tx)
}

// Conn is what a store runs a statement on: the transaction ctx carries
// (WithTx), or db outside a unit of work.
func Conn(ctx context.Context, db bun.IDB) bun.IDB {
	if tx, ok := ctx.Value(txKey{}).(bun.Tx); ok {
		return tx
	}
	return db
}
