package pgdb

import (
	"context"
	"errors"
	"sync"

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
// (WithTx), else the deferred transaction of ctx's request once it has
// begun (Defer), or db outside any unit of work.
func Conn(ctx context.Context, db bun.IDB) bun.IDB {
	if tx, ok := ctx.Value(txKey{}).(bun.Tx); ok {
		return tx
	}
	if d := deferredOf(ctx, db); d != nil {
		if tx, ok := d.Tx(); ok {
			return tx
		}
	}
	return db
}

// Enclosing is what a unit of work starting in ctx runs in: the
// transaction ctx carries, else the deferred transaction of ctx's request
// (begun now if it has not been), else db itself (a transaction of its
// own).
func Enclosing(ctx context.Context, db bun.IDB) (bun.IDB, error) {
	if tx, ok := ctx.Value(txKey{}).(bun.Tx); ok {
		return tx, nil
	}
	if d := deferredOf(ctx, db); d != nil {
		return d.begin()
	}
	return db, nil
}

// RunInTx runs fn in a transaction of db, or in a savepoint when db is
// already a transaction; fn gets ctx itself (bun's nested RunInTx would
// hand it the outer transaction's context instead, losing what the caller
// added since).
func RunInTx(ctx context.Context, db bun.IDB, fn func(ctx context.Context, tx bun.Tx) error) (err error) {
	tx, ok := db.(bun.Tx)
	if !ok {
		return db.RunInTx(ctx, nil, fn)
	}
	sp, err := tx.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			_ = sp.Rollback()
		}
	}()
	if err := fn(ctx, sp); err != nil {
		return err
	}
	done = true
	return sp.Commit()
}

// deferredKey carries a request's Deferred transaction.
type deferredKey struct{}

// ErrDeferredEnded: a unit of work started after its request's deferred
// transaction was committed or rolled back.
var ErrDeferredEnded = errors.New("pgdb: the request's transaction has already ended")

// Deferred is the one transaction of a request whose own bookkeeping must
// commit with the request's changes, or not at all (the stored response
// of an Idempotency-Key): the first unit of work run in the request's
// context begins it, every later unit of work is a savepoint in it, every
// store call after that runs in it, and the request's owner commits it,
// or rolls it back, once the answer is known. A request that runs no
// unit of work never begins it.
type Deferred struct {
	db    bun.IDB
	base  context.Context
	mu    sync.Mutex
	tx    bun.Tx
	begun bool
	ended bool
}

// Defer is ctx carrying a Deferred transaction of db for the request ctx
// belongs to. The transaction is not bound to ctx's cancellation (a
// handler cancelling its own context when it returns must not roll back
// what its owner is about to commit); its owner ends it.
func Defer(ctx context.Context, db bun.IDB) (context.Context, *Deferred) {
	d := &Deferred{db: db, base: context.WithoutCancel(ctx)}
	return context.WithValue(ctx, deferredKey{}, d), d
}

func deferredOf(ctx context.Context, db bun.IDB) *Deferred {
	d, ok := ctx.Value(deferredKey{}).(*Deferred)
	if !ok || d.db != db {
		return nil
	}
	return d
}

func (d *Deferred) begin() (bun.Tx, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ended {
		return bun.Tx{}, ErrDeferredEnded
	}
	if !d.begun {
		tx, err := d.db.BeginTx(d.base, nil)
		if err != nil {
			return bun.Tx{}, err
		}
		d.tx, d.begun = tx, true
	}
	return d.tx, nil
}

// Tx is the transaction once a unit of work has begun it (and it has not
// ended).
func (d *Deferred) Tx() (bun.Tx, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.tx, d.begun && !d.ended
}

// Commit commits the transaction if it was begun; either way it ends, and
// a unit of work started later fails with ErrDeferredEnded.
func (d *Deferred) Commit() error {
	return d.end((*bun.Tx).Commit)
}

// Rollback rolls the transaction back if it was begun and ends it.
func (d *Deferred) Rollback() error {
	return d.end((*bun.Tx).Rollback)
}

func (d *Deferred) end(f func(*bun.Tx) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ended {
		return nil
	}
	d.ended = true
	if !d.begun {
		return nil
	}
	return f(&d.tx)
}
