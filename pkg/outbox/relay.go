package outbox

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/acctsuite/acct/pkg/events"
)

// RelayOptions tunes a Relay; zero values take the defaults.
type RelayOptions struct {
	BatchSize       int           // rows read and published at once; default 500
	PollInterval    time.Duration // fallback when no wake-up arrives; default 250ms
	MinBackoff      time.Duration // first retry delay after a failed publish; default 100ms
	MaxBackoff      time.Duration // retry delay cap; default 5s
	Retention       time.Duration // how long sent rows are kept; default 24h
	PurgeInterval   time.Duration // how often sent rows are purged; default 1m
	StandbyInterval time.Duration // how often a standby relay tries to take over; default 1s
}

func (o RelayOptions) withDefaults() RelayOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 500
	}
	def(&o.PollInterval, 250*time.Millisecond)
	def(&o.MinBackoff, 100*time.Millisecond)
	def(&o.MaxBackoff, 5*time.Second)
	def(&o.Retention, 24*time.Hour)
	def(&o.PurgeInterval, time.Minute)
	def(&o.StandbyInterval, time.Second)
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = o.MinBackoff
	}
	return o
}

// Relay publishes a schema's outbox. Any number of relays may run against
// one schema (one per replica): a session advisory lock, held on a dedicated
// connection, lets exactly one of them publish at a time, which keeps each
// business's events in order; the others stand by and take over when the
// leader's connection goes away.
type Relay struct {
	db   *bun.DB
	pub  Publisher
	log  *slog.Logger
	opts RelayOptions
	wake chan struct{}

	running atomic.Bool

	mu        sync.Mutex // serialises drains; guards the fields below
	conn      bun.Conn   // leader connection holding the advisory lock
	leading   bool
	lastPurge time.Time
}

// advisoryKeySQL derives the lock key from the schema, so relays of
// different services sharing a database do not exclude each other.
const advisoryKeySQL = "hashtextextended('acct_outbox:' || current_schema(), 0)"

var errNotLeader = errors.New("outbox: relay is not the leader")

// NewRelay makes a relay publishing db's outbox with pub.
func NewRelay(db *bun.DB, pub Publisher, logger *slog.Logger, opts RelayOptions) *Relay {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Relay{
		db:   db,
		pub:  pub,
		log:  logger.With("component", "outbox-relay"),
		opts: opts.withDefaults(),
		wake: make(chan struct{}, 1),
	}
}

// Notify wakes the relay to look for new rows now.
func (r *Relay) Notify() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run publishes until ctx is cancelled, then gives up leadership and returns
// nil. Call Flush afterwards to publish what the last requests enqueued.
func (r *Relay) Run(ctx context.Context) error {
	if !r.running.CompareAndSwap(false, true) {
		return errors.New("outbox: relay already running")
	}
	register(r)
	defer func() {
		unregister(r)
		r.mu.Lock()
		r.resignLocked()
		r.mu.Unlock()
		r.running.Store(false)
	}()

	notes, stopListening := r.listen(ctx)
	defer stopListening()

	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-r.wake:
		case <-notes:
		case <-timer.C:
		}
		leading, err := r.lead(ctx)
		if err != nil && ctx.Err() == nil {
			r.log.Warn("outbox relay: cannot take the lock", "error", err)
		}
		if leading {
			if err := r.drain(ctx); err != nil && ctx.Err() == nil && !errors.Is(err, errNotLeader) {
				r.log.Warn("outbox relay: drain failed", "error", err)
			}
			r.purge(ctx)
		}
		wait := r.opts.PollInterval
		if !leading {
			wait = r.opts.StandbyInterval
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
	}
}

// listen subscribes to the schema's notification channel so commits made by
// other replicas wake this relay at once. Without pgdriver (no LISTEN
// support) the relay relies on polling.
func (r *Relay) listen(ctx context.Context) (<-chan pgdriver.Notification, func()) {
	if _, ok := r.db.Driver().(pgdriver.Driver); !ok {
		return nil, func() {}
	}
	var channel string
	if err := r.db.NewRaw("SELECT "+notifyChannelSQL).Scan(ctx, &channel); err != nil {
		r.log.Warn("outbox relay: no LISTEN, polling only", "error", err)
		return nil, func() {}
	}
	ln := pgdriver.NewListener(r.db)
	if err := ln.Listen(ctx, channel); err != nil {
		_ = ln.Close()
		r.log.Warn("outbox relay: no LISTEN, polling only", "error", err)
		return nil, func() {}
	}
	// Notifications are only wake-ups: when the buffer is full one is
	// already pending, so dropping more loses nothing.
	return ln.Channel(pgdriver.WithChannelSize(1), pgdriver.WithChannelOverflowHandler(func(pgdriver.Notification) {})),
		func() { _ = ln.Close() }
}

// lead makes this relay the leader if the lock is free.
func (r *Relay) lead(ctx context.Context) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.leading {
		return true, nil
	}
	conn, err := r.db.Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("outbox: relay connection: %w", err)
	}
	var got bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock("+advisoryKeySQL+")").Scan(&got); err != nil {
		discard(conn)
		return false, fmt.Errorf("outbox: relay lock: %w", err)
	}
	if !got {
		_ = conn.Close()
		return false, nil
	}
	r.conn, r.leading = conn, true
	r.log.Info("outbox relay: leading")
	return true, nil
}

// resignLocked drops the leader connection. It is discarded rather than
// returned to the pool: closing the session is what releases the lock, even
// when the connection is in an unknown state.
func (r *Relay) resignLocked() {
	if !r.leading {
		return
	}
	discard(r.conn)
	r.conn, r.leading = bun.Conn{}, false
}

func discard(conn bun.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	_ = conn.Close()
}

// drain publishes unsent rows, batch after batch, until none is left. A
// failed publish is retried with backoff, the same batch, until it succeeds
// or ctx ends: nothing is skipped and later rows wait for earlier ones.
func (r *Relay) drain(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if !r.leading {
			return errNotLeader
		}
		var rows []row
		err := r.conn.NewSelect().Model(&rows).
			Where("sent_at IS NULL").OrderExpr("seq").Limit(int64(r.opts.BatchSize)).
			Scan(ctx)
		if err != nil {
			r.resignLocked()
			return fmt.Errorf("outbox: read pending: %w", err)
		}
		if len(rows) == 0 {
			return nil
		}
		evts := make([]events.Event, len(rows))
		seqs := make([]int64, len(rows))
		for i, rw := range rows {
			evts[i], seqs[i] = rw.event(), rw.Seq
		}
		if err := r.publish(ctx, evts); err != nil {
			return err
		}
		if _, err := r.conn.NewUpdate().Model((*row)(nil)).
			Set("sent_at = now()").Where("seq IN (?)", bun.In(seqs)).
			Exec(ctx); err != nil {
			// The events are out; the next leader sends them again and the
			// consumers' inboxes drop the duplicates.
			r.resignLocked()
			return fmt.Errorf("outbox: mark sent: %w", err)
		}
		if len(rows) < r.opts.BatchSize {
			return nil
		}
	}
}

func (r *Relay) publish(ctx context.Context, evts []events.Event) error {
	backoff := r.opts.MinBackoff
	for attempt := 1; ; attempt++ {
		err := r.pub.Publish(ctx, evts)
		if err == nil {
			if attempt > 1 {
				r.log.Info("outbox relay: publish recovered", "attempts", attempt, "events", len(evts))
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.log.Warn("outbox relay: publish failed, retrying",
			"attempt", attempt, "events", len(evts), "retry_in", backoff, "error", err)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		backoff = min(backoff*2, r.opts.MaxBackoff)
	}
}

// purge deletes sent rows older than the retention, at most once per
// PurgeInterval.
func (r *Relay) purge(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.leading || time.Since(r.lastPurge) < r.opts.PurgeInterval {
		return
	}
	r.lastPurge = time.Now()
	res, err := r.conn.NewDelete().Model((*row)(nil)).
		Where("sent_at < now() - make_interval(secs => ?)", r.opts.Retention.Seconds()).
		Exec(ctx)
	if err != nil {
		r.log.Warn("outbox relay: purge failed", "error", err)
		return
	}
	if n, _ := res.RowsAffected(); n > 0 {
		r.log.Debug("outbox relay: purged sent rows", "rows", n)
	}
}

// Flush publishes everything pending, for shutdown: stop Run first (or let
// it run; Flush then waits for its drain). When another replica leads, Flush
// waits until that leader has published the pending rows or ctx ends.
func (r *Relay) Flush(ctx context.Context) error {
	for {
		leading, err := r.lead(ctx)
		if err != nil {
			return err
		}
		if leading {
			err := r.drain(ctx)
			if !r.running.Load() {
				r.mu.Lock()
				r.resignLocked()
				r.mu.Unlock()
			}
			if errors.Is(err, errNotLeader) {
				continue
			}
			return err
		}
		n, err := r.Pending(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		t := time.NewTimer(r.opts.StandbyInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("outbox: flush: %d events still pending: %w", n, ctx.Err())
		case <-t.C:
		}
	}
}

// Pending counts the rows not yet published.
func (r *Relay) Pending(ctx context.Context) (int, error) {
	n, err := r.db.NewSelect().Model((*row)(nil)).Where("sent_at IS NULL").Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("outbox: count pending: %w", err)
	}
	return int(n), nil
}
