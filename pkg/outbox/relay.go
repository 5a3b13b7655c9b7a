package outbox

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/acctsuite/acct/pkg/events"
)

// RelayOptions tunes a Relay; zero values take the defaults.
type RelayOptions struct {
	BatchSize     int           // rows read and published at once; default 500
	PollInterval  time.Duration // fallback when no wake-up arrives; default 250ms
	MinBackoff    time.Duration // first retry delay after a failed publish; default 100ms
	MaxBackoff    time.Duration // retry delay cap; default 5s
	Retention     time.Duration // how long sent rows are kept; default 24h
	PurgeInterval time.Duration // how often sent rows are purged; default 1m
	// StandbyInterval is how often a relay that does not lead tries to take
	// over. Standbys ignore notifications, so this alone bounds the load
	// they put on the database; default 1s.
	StandbyInterval time.Duration
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
// business's events in order; the others stand by, trying the lock every
// StandbyInterval, and take over when the leader's session ends.
//
// The leader's session has server-side TCP keepalives and timeouts (see
// leaderSessionSQL), so PostgreSQL ends the session of a leader that died
// without closing its connection (host lost, network cut) within about 25 s,
// which releases the lock; a standby then leads within StandbyInterval.
//
// A row the broker refuses for good (ErrRejected) is parked: marked with
// failed_at, last_error and attempts and no longer published, so the rows
// behind it keep flowing. Later rows of the same key are held (left unsent,
// not parked) so they cannot overtake it; they go out, in order, as soon as
// the parked row is unparked (Unpark) or deleted by an operator. Parked
// counts parked rows for alerting.
type Relay struct {
	db   *bun.DB
	pub  Publisher
	log  *slog.Logger
	opts RelayOptions
	wake chan struct{}

	running      atomic.Bool
	lockAttempts atomic.Int64
	published    atomic.Int64
	parked       atomic.Int64
	isLeader     atomic.Bool

	mu        sync.Mutex // serialises drains; guards the fields below
	conn      bun.Conn   // leader connection holding the advisory lock
	leading   bool
	lastPurge time.Time
}

// RelayStats are counters of one relay since it was made, for metrics.
type RelayStats struct {
	Leading      bool  // holds the lock now
	LockAttempts int64 // times it tried to take the lock
	Published    int64 // events acknowledged by the broker (re-publications included)
	Parked       int64 // events it parked
}

// advisoryKeySQL derives the lock key from the schema, so relays of
// different services sharing a database do not exclude each other.
const advisoryKeySQL = "hashtextextended('acct_outbox:' || current_schema(), 0)"

// leaderSessionSQL configures the leader's session once it holds the lock:
// server-side keepalives (idle 10 s, then 3 probes 5 s apart) so PostgreSQL
// ends the session of a vanished leader after about 25 s and releases the
// lock; a statement timeout so a stuck query ends instead of holding
// leadership; an idle-in-transaction timeout as a guard (the session runs no
// transactions); an application name that shows the leader in
// pg_stat_activity; and no sequential or bitmap scans and no sorts, so the
// pending read is always an ordered walk of outbox_unsent_idx that stops
// at the batch's size: with statistics from before a burst the planner
// takes a backlog of 200,000 rows for a few hundred and would rather read
// it all and sort it, once per batch (quadratic in the backlog). Every
// statement of the session (the pending read, marking sent, parking,
// purging) has an index to use. On a Unix-socket connection the keepalive
// settings are ignored (there is no TCP to probe).
const leaderSessionSQL = `SELECT
	set_config('tcp_keepalives_idle', '10', false),
	set_config('tcp_keepalives_interval', '5', false),
	set_config('tcp_keepalives_count', '3', false),
	set_config('statement_timeout', '30s', false),
	set_config('idle_in_transaction_session_timeout', '30s', false),
	set_config('enable_seqscan', 'off', false),
	set_config('enable_bitmapscan', 'off', false),
	set_config('enable_sort', 'off', false),
	set_config('application_name', '` + LeaderApplicationName + `', false)`

// LeaderApplicationName is the application_name of the leading relay's
// session: `SELECT pid FROM pg_stat_activity WHERE application_name = ...`
// finds the leader.
const LeaderApplicationName = "acct-outbox-relay"

// notifyBuffer is the number of notifications queued while the leader
// drains.
const notifyBuffer = 1024

// purgeChunk bounds the rows one purge statement deletes, so a large
// backlog of sent rows never runs into the leader's statement timeout.
const purgeChunk = 5000

var (
	errNotLeader = errors.New("outbox: relay is not the leader")
	// errDatabase marks a failure of the leader's session: the relay gives
	// up leadership rather than trust the session.
	errDatabase = errors.New("outbox: leader session failed")
)

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

// Notify wakes the relay to look for new rows now. A standby ignores it.
func (r *Relay) Notify() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Stats returns the relay's counters.
func (r *Relay) Stats() RelayStats {
	return RelayStats{
		Leading:      r.isLeader.Load(),
		LockAttempts: r.lockAttempts.Load(),
		Published:    r.published.Load(),
		Parked:       r.parked.Load(),
	}
}

// Run publishes until ctx is cancelled, then gives up leadership and returns
// nil. Call Flush afterwards to publish what the last requests enqueued.
//
// Only the leader reacts to notifications and local wake-ups; a standby
// tries the lock every StandbyInterval and nothing more, however busy the
// outbox is.
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
	leading := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-r.wake:
			if !leading {
				continue // a standby waits for its timer only
			}
		case _, ok := <-notes:
			if !ok {
				notes = nil // listener gone: poll
			}
			if !leading || !ok {
				continue
			}
		case <-timer.C:
		}
		// One drain answers every wake-up received so far.
		for more := true; more; {
			select {
			case <-r.wake:
			case _, ok := <-notes:
				if !ok {
					notes = nil
				}
			default:
				more = false
			}
		}
		var err error
		leading, err = r.lead(ctx)
		if err != nil && ctx.Err() == nil {
			r.log.Warn("outbox relay: cannot take the lock", "error", err)
		}
		if leading {
			if err := r.drain(ctx); err != nil && ctx.Err() == nil && !errors.Is(err, errNotLeader) {
				r.log.Warn("outbox relay: drain failed", "error", err)
			}
			r.purge(ctx)
			// A drain that lost the session resigned: stand by from now.
			leading = r.isLeader.Load()
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
// other replicas wake the leader at once. Without pgdriver (no LISTEN
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
	// Notifications are only wake-ups: the relay reads them all (a standby
	// to discard them) and one drain answers those that queued meanwhile.
	// When the buffer is full wake-ups are pending anyway, so dropping more
	// loses nothing (pgdriver logs each drop, hence the roomy buffer).
	return ln.Channel(pgdriver.WithChannelSize(notifyBuffer), pgdriver.WithChannelOverflowHandler(func(pgdriver.Notification) {})),
		func() { _ = ln.Close() }
}

// lead makes this relay the leader if the lock is free.
func (r *Relay) lead(ctx context.Context) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.leading {
		return true, nil
	}
	r.lockAttempts.Add(1)
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
		_ = conn.Close() // untouched: back to the pool
		return false, nil
	}
	if _, err := conn.ExecContext(ctx, leaderSessionSQL); err != nil {
		discard(conn) // releases the lock
		return false, fmt.Errorf("outbox: relay session settings: %w", err)
	}
	r.conn, r.leading = conn, true
	r.isLeader.Store(true)
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
	r.isLeader.Store(false)
}

func discard(conn bun.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	_ = conn.Close()
}

// unsentSQL selects the rows not yet published nor parked.
const unsentSQL = `?TableAlias.sent_at IS NULL AND ?TableAlias.failed_at IS NULL`

// parkedKey is a key with a parked row: its rows after First wait.
type parkedKey struct {
	Key   string `bun:"key"`
	First int64  `bun:"first"`
}

// publishable narrows q to the rows the relay may publish now: unsent, not
// parked, and not behind a parked row of their key. The parked keys are
// read first (outbox_parked_idx: parked rows are few), and the pending
// read then filters on them as constants: with none parked (the usual
// case) it is a plain scan of outbox_unsent_idx in seq order that stops at
// the batch's size, whatever the backlog and whatever the table's
// statistics say. (An anti-join of the outbox with itself, planned from
// statistics taken before a burst, would go over the parked index once
// per pending row: quadratic in the backlog.)
func publishable(ctx context.Context, db bun.IDB, q *bun.SelectQuery) (*bun.SelectQuery, error) {
	var parked []parkedKey
	if err := db.NewSelect().TableExpr("outbox").ColumnExpr("key, min(seq) AS first").
		Where("failed_at IS NOT NULL AND sent_at IS NULL").GroupExpr("key").Scan(ctx, &parked); err != nil {
		return nil, fmt.Errorf("read parked keys: %w", err)
	}
	q = q.Where(unsentSQL)
	if len(parked) == 0 {
		return q, nil
	}
	keys, firsts := make([]string, len(parked)), make([]int64, len(parked))
	for i, p := range parked {
		keys[i], firsts[i] = p.Key, p.First
	}
	return q.Where(`NOT EXISTS (SELECT 1 FROM unnest(?::text[], ?::bigint[]) AS parked (key, first)
		WHERE parked.key = ?TableAlias.key AND parked.first < ?TableAlias.seq)`, pgdialect.Array(keys), pgdialect.Array(firsts)), nil
}

// drain publishes rows, batch after batch, until none is publishable. A
// batch that fails transiently is retried with backoff, read again each time
// (the same rows, plus any lower seq of another key that committed since):
// nothing is skipped and later rows of a key wait for earlier ones. A batch
// the broker refuses is published row by row to park the refused rows.
func (r *Relay) drain(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	backoff := r.opts.MinBackoff
	for attempt := 1; ; {
		if !r.leading {
			return errNotLeader
		}
		var rows []row
		q, err := publishable(ctx, r.conn, r.conn.NewSelect().Model(&rows))
		if err == nil {
			err = q.OrderExpr("seq").Limit(int64(r.opts.BatchSize)).Scan(ctx)
		}
		if err != nil {
			r.resignLocked()
			return fmt.Errorf("outbox: read pending: %w", err)
		}
		if len(rows) == 0 {
			return nil
		}
		err = r.publishRows(ctx, rows)
		if err == nil {
			if attempt > 1 {
				r.log.Info("outbox relay: publish recovered", "attempts", attempt, "events", len(rows))
			}
			attempt, backoff = 1, r.opts.MinBackoff
			if len(rows) < r.opts.BatchSize {
				return nil
			}
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, errDatabase) {
			// Events that went out are sent again by the next leader; the
			// consumers' inboxes drop the duplicates.
			r.resignLocked()
			return err
		}
		r.log.Warn("outbox relay: publish failed, retrying",
			"attempt", attempt, "events", len(rows), "retry_in", backoff, "error", err)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		backoff = min(backoff*2, r.opts.MaxBackoff)
		attempt++
	}
}

// publishRows publishes rows as one batch and marks them sent. When the
// broker refuses the batch for good, it falls back to one row at a time.
func (r *Relay) publishRows(ctx context.Context, rows []row) error {
	evts := make([]events.Event, len(rows))
	seqs := make([]int64, len(rows))
	for i, rw := range rows {
		evts[i], seqs[i] = rw.event(), rw.Seq
	}
	err := r.pub.Publish(ctx, evts)
	if err == nil {
		r.published.Add(int64(len(evts)))
		return r.markSent(ctx, seqs)
	}
	if !errors.Is(err, ErrRejected) {
		return err
	}
	r.log.Warn("outbox relay: the broker refused a batch, publishing it event by event",
		"events", len(rows), "error", err)
	return r.isolate(ctx, rows)
}

// isolate publishes rows one at a time, in order, parking each one the
// broker refuses and holding the rows of its key that follow. A transient
// failure stops it (the caller backs off and reads the rows again); what
// went out before is marked sent.
func (r *Relay) isolate(ctx context.Context, rows []row) error {
	held := map[string]bool{}
	var sent []int64
	for _, rw := range rows {
		if held[rw.Key] {
			continue
		}
		err := r.pub.Publish(ctx, []events.Event{rw.event()})
		switch {
		case err == nil:
			r.published.Add(1)
			sent = append(sent, rw.Seq)
		case errors.Is(err, ErrRejected):
			if perr := r.park(ctx, rw, err); perr != nil {
				return errors.Join(perr, r.markSent(ctx, sent))
			}
			held[rw.Key] = true
		default:
			return errors.Join(err, r.markSent(ctx, sent))
		}
	}
	return r.markSent(ctx, sent)
}

func (r *Relay) markSent(ctx context.Context, seqs []int64) error {
	if len(seqs) == 0 {
		return nil
	}
	if _, err := r.conn.NewUpdate().Model((*row)(nil)).
		Set("sent_at = now()").Where("seq IN (?)", bun.In(seqs)).
		Exec(ctx); err != nil {
		return fmt.Errorf("%w: mark %d rows sent: %w", errDatabase, len(seqs), err)
	}
	return nil
}

// maxLastError bounds the error text stored with a parked row.
const maxLastError = 2000

func (r *Relay) park(ctx context.Context, rw row, cause error) error {
	text := cause.Error()
	if len(text) > maxLastError {
		text = strings.ToValidUTF8(text[:maxLastError], "") // no rune cut in half
	}
	if _, err := r.conn.NewUpdate().Model((*row)(nil)).
		Set("failed_at = now(), last_error = ?, attempts = attempts + 1", text).
		Where("seq = ?", rw.Seq).Exec(ctx); err != nil {
		return fmt.Errorf("%w: park row %d: %w", errDatabase, rw.Seq, err)
	}
	r.parked.Add(1)
	r.log.Error("outbox relay: the broker refused an event for good; parked it, later events of its key wait behind it",
		"seq", rw.Seq, "event_id", rw.ID, "type", rw.Type, "topic", rw.Topic, "key", rw.Key,
		"attempts", rw.Attempts+1, "error", cause)
	return nil
}

// purge deletes sent rows older than the retention, at most once per
// PurgeInterval, in chunks.
func (r *Relay) purge(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.leading || time.Since(r.lastPurge) < r.opts.PurgeInterval {
		return
	}
	r.lastPurge = time.Now()
	total := int64(0)
	for {
		res, err := r.conn.NewDelete().Model((*row)(nil)).
			Where("seq IN (SELECT seq FROM outbox WHERE sent_at < now() - make_interval(secs => ?) LIMIT ?)",
				r.opts.Retention.Seconds(), purgeChunk).
			Exec(ctx)
		if err != nil {
			r.log.Warn("outbox relay: purge failed", "error", err)
			return
		}
		n, _ := res.RowsAffected()
		total += n
		if n < purgeChunk {
			break
		}
	}
	if total > 0 {
		r.log.Debug("outbox relay: purged sent rows", "rows", total)
	}
}

// Flush publishes everything publishable, for shutdown: stop Run first (or
// let it run; Flush then waits for its drain). When another replica leads,
// Flush waits until that leader has published the pending rows or ctx ends.
// Parked rows, and the rows held behind them, are not waited for.
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
		q, err := publishable(ctx, r.db, r.db.NewSelect().Model((*row)(nil)))
		var n int64
		if err == nil {
			n, err = q.Count(ctx)
		}
		if err != nil {
			return fmt.Errorf("outbox: count publishable: %w", err)
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

// Pending counts the rows not yet published, parked rows excepted (rows
// held behind a parked row count).
func (r *Relay) Pending(ctx context.Context) (int, error) {
	n, err := r.db.NewSelect().Model((*row)(nil)).Where("sent_at IS NULL AND failed_at IS NULL").Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("outbox: count pending: %w", err)
	}
	return int(n), nil
}

// Parked counts the rows the broker refused and that wait for an operator:
// alert when it is above zero. The rows themselves are in the outbox table
// (failed_at, last_error, attempts); fix the cause and Unpark them, or
// delete them to drop the events.
func (r *Relay) Parked(ctx context.Context) (int, error) {
	n, err := r.db.NewSelect().Model((*row)(nil)).Where("failed_at IS NOT NULL AND sent_at IS NULL").Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("outbox: count parked: %w", err)
	}
	return int(n), nil
}

// Unpark returns parked rows to the relay (all of them when no seq is
// given), e.g. after the topic's size limit was raised, and wakes it. It
// returns how many rows it unparked. Their attempts and last_error stay as a
// record; a row refused again is parked again.
func (r *Relay) Unpark(ctx context.Context, seqs ...int64) (int, error) {
	q := r.db.NewUpdate().Model((*row)(nil)).Set("failed_at = NULL").
		Where("failed_at IS NOT NULL AND sent_at IS NULL")
	if len(seqs) > 0 {
		q = q.Where("seq IN (?)", bun.In(seqs))
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("outbox: unpark: %w", err)
	}
	n, _ := res.RowsAffected()
	r.Notify()
	return int(n), nil
}
