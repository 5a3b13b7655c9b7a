// Package outbox is the producing half of the suite's event delivery: the
// transactional outbox. A service writes its events into the outbox table in
// the same database transaction as the domain change (Enqueue), so an event
// exists if and only if the change committed. A Relay then publishes the
// rows in order to Kafka, retrying with backoff while the broker is away, and
// marks them sent. Delivery is at-least-once; consumers absorb duplicates
// through their inbox (package consumer).
//
// Order: events of one key (the business id) are published in the order
// their transactions committed. Enqueue takes a transaction-scoped advisory
// lock on each key before inserting, so two transactions writing events of
// the same key serialise from that point on: the later one gets its seq only
// after the earlier one committed, and seq order is commit order per key.
// The relay reads every unsent row in seq order (no high-water mark), so a
// lower seq of another key that commits late is simply published later; that
// does not affect any key's order.
//
// A row the broker refuses for good (too large for the topic, invalid) is
// parked instead of blocking every event behind it; see Relay.Parked.
package outbox

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	fastjson "github.com/segmentio/encoding/json"
	"github.com/segmentio/kafka-go"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/pgdb"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations creates the outbox table in the service's schema.
var Migrations = pgdb.Embedded("outbox", migrationFiles, "migrations")

// MaxEventBytes is the largest event Enqueue accepts, measured as its Kafka
// record: key, JSON value (stored and published byte for byte as given) and
// headers, the
// CloudEvents attributes and trace context included. Kafka's default
// message.max.bytes is 1 MiB (plus 12 bytes) per record batch; 1 KiB of it
// is left for the batch and record framing. Refusing bigger events while the
// request is still open turns what would be a stuck relay into a 413 for the
// caller. A topic configured with a lower limit refuses smaller events at
// publish time; the relay parks those (see Relay.Parked).
const MaxEventBytes = 1<<20 - 1<<10

// ErrEventTooLarge is matched (errors.Is) by the error Enqueue returns for an
// event over MaxEventBytes; errors.As finds the *EventTooLargeError.
var ErrEventTooLarge = errors.New("outbox: event too large")

// EventTooLargeError describes an event Enqueue refused for its size.
type EventTooLargeError struct {
	ID    uuid.UUID
	Type  string
	Topic string
	Size  int // bytes of the Kafka record
	Limit int // MaxEventBytes
}

func (e *EventTooLargeError) Error() string {
	return fmt.Sprintf("outbox: event %s (%s on %s) is %d bytes, over the %d-byte limit",
		e.ID, e.Type, e.Topic, e.Size, e.Limit)
}

// Is makes errors.Is(err, ErrEventTooLarge) true.
func (e *EventTooLargeError) Is(target error) bool { return target == ErrEventTooLarge }

// tooLarge wraps the size error in the API's 413 error object: the event is
// derived from the request, so the request was too large.
func tooLarge(e events.Event, size int) error {
	cause := &EventTooLargeError{ID: e.ID, Type: e.Type, Topic: e.Topic, Size: size, Limit: MaxEventBytes}
	return apperr.Wrap(apperr.PayloadTooLarge, cause, "the change is too large to be published as an event").
		WithEnum("EventTooLarge").WithMeta("limit_bytes", MaxEventBytes)
}

// Framing bytes of a Kafka record (length, attributes, timestamp and offset
// deltas, key and value lengths as varints) and of each of its headers: upper
// bounds, so recordSize never underestimates.
const (
	recordOverhead = 32
	headerOverhead = 10
)

// recordSize bounds the bytes m takes in a Kafka record batch.
func recordSize(m kafka.Message) int {
	n := recordOverhead + len(m.Key) + len(m.Value)
	for _, h := range m.Headers {
		n += headerOverhead + len(h.Key) + len(h.Value)
	}
	return n
}

// row is the outbox table's row.
type row struct {
	bun.BaseModel `bun:"table:outbox"`

	Seq       int64             `bun:"seq,pk,autoincrement"`
	ID        uuid.UUID         `bun:"id,type:uuid"`
	Topic     string            `bun:"topic"`
	Key       string            `bun:"key"`
	Type      string            `bun:"type"`
	Source    string            `bun:"source"`
	Subject   string            `bun:"subject"`
	Time      time.Time         `bun:"time"`
	Headers   map[string]string `bun:"headers,type:json"`
	Data      json.RawMessage   `bun:"data,type:json"`
	CreatedAt time.Time         `bun:"created_at,nullzero,default:now()"`
	SentAt    *time.Time        `bun:"sent_at"`
	// Parking (see Relay.Parked): when and why the broker refused the row,
	// and how many times it did.
	FailedAt  *time.Time `bun:"failed_at"`
	LastError *string    `bun:"last_error"`
	Attempts  int        `bun:"attempts,notnull"`
}

func (r row) event() events.Event {
	h := r.Headers
	if h == nil {
		h = map[string]string{}
	}
	return events.Event{
		ID: r.ID, Type: r.Type, Source: r.Source, Subject: r.Subject, Time: r.Time.UTC(),
		Topic: r.Topic, Key: r.Key, Data: r.Data, Headers: h,
	}
}

// notifyChannelSQL is the LISTEN/NOTIFY channel of a schema's outbox: relays
// of other replicas listen on it, and PostgreSQL delivers the notification
// only when the enqueuing transaction commits.
const notifyChannelSQL = "'acct_outbox_' || current_schema()"

// lockKeysSQL takes the transaction-scoped advisory lock of each key (sorted,
// so two transactions enqueuing the same keys take them in the same order)
// and queues the relays' wake-up notification, in one round trip.
const lockKeysSQL = `SELECT pg_notify(` + notifyChannelSQL + `, ''),
	(SELECT count(pg_advisory_xact_lock(hashtextextended('acct_outbox_key:' || current_schema() || ':' || k, 0)))
	 FROM (SELECT DISTINCT k FROM unnest(?::text[]) AS k ORDER BY k) AS keys)`

// Enqueue stores events in the outbox using db, which should be the domain
// transaction so the events commit (or roll back) with the change; given a
// *bun.DB or bun.Conn, Enqueue runs its own transaction. The trace context of
// ctx is recorded in each event's headers, and relays are woken.
//
// Enqueue locks each event's key until the transaction ends, so that events
// of one key are published in commit order. Concurrent transactions of the
// same key therefore wait for each other from the Enqueue on: call it at a
// consistent point of a transaction (services enqueue last, after their own
// row locks), or two transactions locking in opposite orders deadlock (and
// one of them fails with SQLSTATE 40P01, retryable). Inside RunInTx, on its
// transaction, Enqueue only checks the events and holds them back until fn
// returns: the key lock then spans the last insert and the commit alone.
//
// An event over MaxEventBytes is refused with an error matching
// ErrEventTooLarge (an apperr 413); as after any error, the transaction must
// not commit.
func Enqueue(ctx context.Context, db bun.IDB, evts ...events.Event) error {
	if len(evts) == 0 {
		return nil
	}
	p, err := prepare(ctx, evts)
	if err != nil {
		return err
	}
	if b, ok := ctx.Value(batchKey{}).(*batch); ok && b.tx == db {
		b.add(p)
		return nil
	}
	switch db.(type) {
	case bun.Tx, *bun.Tx:
		err = p.write(ctx, db)
	default:
		// Without a transaction the key lock would end with its statement.
		err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return p.write(ctx, tx) })
	}
	if err != nil {
		return err
	}
	wakeLocal()
	return nil
}

// prepared are checked events, ready to be inserted.
type prepared struct {
	evts []events.Event
	rows []row
	keys []string
}

// prepare checks evts and builds their rows, the trace context of ctx in
// their headers. The data is stored as sent (a json column), so the size
// checked here is the size the relay will publish.
func prepare(ctx context.Context, evts []events.Event) (prepared, error) {
	p := prepared{evts: evts, rows: make([]row, len(evts))}
	for i := range evts {
		e := evts[i]
		if e.ID == uuid.Nil || e.Topic == "" || e.Type == "" || e.Source == "" || e.Time.IsZero() {
			return p, fmt.Errorf("outbox: enqueue: event %d lacks id, topic, type, source or time", i)
		}
		if !fastjson.Valid(e.Data) {
			return p, fmt.Errorf("outbox: enqueue %s: data is not JSON", e.ID)
		}
		headers := make(map[string]string, len(e.Headers)+2)
		for k, v := range e.Headers {
			headers[k] = v
		}
		e.Headers = headers
		events.InjectTrace(ctx, &e)
		if size := recordSize(events.ToMessage(e)); size > MaxEventBytes {
			return p, tooLarge(e, size)
		}
		p.rows[i] = row{
			ID: e.ID, Topic: e.Topic, Key: e.Key, Type: e.Type, Source: e.Source, Subject: e.Subject,
			Time: e.Time.UTC(), Headers: e.Headers, Data: e.Data,
		}
		if !slices.Contains(p.keys, e.Key) {
			p.keys = append(p.keys, e.Key)
		}
	}
	return p, nil
}

// insertBatch is the most rows one INSERT of write carries.
const insertBatch = 1000

// insertSQL inserts rows given as VALUES of text (the event's data and
// headers already encoded: stored as they are, not encoded again). The
// first statement of a write (lockedInsertSQL) also takes the keys' locks
// (lockKeysSQL, in a materialized CTE), one round trip less per
// transaction. The locks come before any seq: every row the INSERT
// receives is joined with the CTE's single row, so the CTE (and its locks)
// is computed before the first row reaches the INSERT, whose projection
// draws seq from the sequence.
const (
	insertSQL = `INSERT INTO outbox (id, topic, key, type, source, subject, time, headers, data)
SELECT v.id::uuid, v.topic, v.key, v.type, v.source, v.subject, v.time::timestamptz, v.headers::json, v.data::json
FROM %s(VALUES %s) AS v (id, topic, key, type, source, subject, time, headers, data)`
	lockedInsertSQL = `WITH lk AS MATERIALIZED (` + lockKeysSQL + `)
` + insertSQL
)

// write locks the keys and inserts the rows in tx: the locks and the
// first thousand rows in one statement, further rows a thousand per
// statement.
func (p prepared) write(ctx context.Context, tx bun.IDB) error {
	for start := 0; start < len(p.rows); start += insertBatch {
		rows := p.rows[start:min(start+insertBatch, len(p.rows))]
		args := make([]any, 0, 1+9*len(rows))
		query, from := insertSQL, ""
		if start == 0 {
			query, from = lockedInsertSQL, "lk CROSS JOIN "
			args = append(args, pgdialect.Array(p.keys))
		}
		values := make([]string, len(rows))
		for i, r := range rows {
			headers, err := json.Marshal(r.Headers)
			if err != nil {
				return fmt.Errorf("outbox: headers of %s: %w", r.ID, err)
			}
			values[i] = "(?, ?, ?, ?, ?, ?, ?, ?, ?)"
			args = append(args, r.ID.String(), r.Topic, r.Key, r.Type, r.Source, r.Subject, r.Time, string(headers), string(r.Data))
		}
		if _, err := tx.NewRaw(fmt.Sprintf(query, from, strings.Join(values, ", ")), args...).Exec(ctx); err != nil {
			return fmt.Errorf("outbox: enqueue: %w", err)
		}
	}
	return nil
}

// batch holds the events enqueued in a RunInTx transaction.
type batch struct {
	tx bun.IDB
	p  prepared
}

type batchKey struct{}

func (b *batch) add(p prepared) {
	b.p.evts = append(b.p.evts, p.evts...)
	b.p.rows = append(b.p.rows, p.rows...)
	for _, k := range p.keys {
		if !slices.Contains(b.p.keys, k) {
			b.p.keys = append(b.p.keys, k)
		}
	}
}

// RunInTx runs fn in a transaction of db (a savepoint when db is a
// transaction) and commits it with fn's events written last: Enqueue
// calls on tx inside fn only check their events, and the events are
// inserted together after fn returns nil, just before the commit. The
// per-key lock that orders a business's events is then held for that
// insert and the commit only, so concurrent writers of one business
// overlap all their other work instead of queueing from their first
// Enqueue to their commit. When fn fails, its events are dropped with the
// transaction.
//
// Enqueue calls on another db (the pool, another transaction) are not held
// back. A savepoint inside fn whose failure fn survives should itself be
// an outbox.RunInTx on tx, so that the events of the savepoint go with it.
func RunInTx(ctx context.Context, db bun.IDB, fn func(ctx context.Context, tx bun.Tx) error) error {
	err := pgdb.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		b := &batch{tx: tx}
		if err := fn(context.WithValue(ctx, batchKey{}, b), tx); err != nil {
			return err
		}
		if len(b.p.rows) == 0 {
			return nil
		}
		// A savepoint of an outer RunInTx hands its events to the outer
		// batch, which writes them with its own.
		if outer, ok := ctx.Value(batchKey{}).(*batch); ok && outer.tx == db {
			outer.add(b.p)
			return nil
		}
		return b.p.write(ctx, tx)
	})
	if err == nil {
		wakeLocal()
	}
	return err
}

// Local relays are woken directly as well: cheaper than a notification round
// trip, and it works when the driver offers no LISTEN support.
var (
	localMu     sync.Mutex
	localRelays = map[*Relay]struct{}{}
)

func wakeLocal() {
	localMu.Lock()
	defer localMu.Unlock()
	for r := range localRelays {
		r.Notify()
	}
}

func register(r *Relay) {
	localMu.Lock()
	localRelays[r] = struct{}{}
	localMu.Unlock()
}

func unregister(r *Relay) {
	localMu.Lock()
	delete(localRelays, r)
	localMu.Unlock()
}
