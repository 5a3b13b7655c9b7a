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
	"sync"
	"time"

	"github.com/google/uuid"
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
// record: key, JSON value (as PostgreSQL renders it back) and headers, the
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
	Headers   map[string]string `bun:"headers,type:jsonb"`
	Data      json.RawMessage   `bun:"data,type:jsonb"`
	CreatedAt time.Time         `bun:"created_at,nullzero,default:now()"`
	SentAt    *time.Time        `bun:"sent_at"`
	// Parking (see Relay.Parked): when and why the broker refused the row,
	// and how many times it did.
	FailedAt  *time.Time `bun:"failed_at"`
	LastError *string    `bun:"last_error"`
	Attempts  int        `bun:"attempts,notnull"`

	// StoredDataSize is the size of data as PostgreSQL renders it back
	// (jsonb adds spaces and normalises numbers), returned by the insert.
	StoredDataSize int `bun:"stored_data_size,scanonly"`
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
// one of them fails with SQLSTATE 40P01, retryable).
//
// An event over MaxEventBytes is refused with an error matching
// ErrEventTooLarge (an apperr 413); as after any error, the transaction must
// not commit.
func Enqueue(ctx context.Context, db bun.IDB, evts ...events.Event) error {
	if len(evts) == 0 {
		return nil
	}
	rows := make([]row, len(evts))
	sizes := make([]int, len(evts))
	keys := make([]string, 0, len(evts))
	for i := range evts {
		e := evts[i]
		if e.ID == uuid.Nil || e.Topic == "" || e.Type == "" || e.Source == "" || e.Time.IsZero() {
			return fmt.Errorf("outbox: enqueue: event %d lacks id, topic, type, source or time", i)
		}
		if !json.Valid(e.Data) {
			return fmt.Errorf("outbox: enqueue %s: data is not JSON", e.ID)
		}
		headers := make(map[string]string, len(e.Headers)+2)
		for k, v := range e.Headers {
			headers[k] = v
		}
		e.Headers = headers
		events.InjectTrace(ctx, &e)
		// Checked before sending the data to PostgreSQL, and again below
		// with the data as it will be read back.
		if sizes[i] = recordSize(events.ToMessage(e)); sizes[i] > MaxEventBytes {
			return tooLarge(e, sizes[i])
		}
		sizes[i] -= len(e.Data)
		rows[i] = row{
			ID: e.ID, Topic: e.Topic, Key: e.Key, Type: e.Type, Source: e.Source, Subject: e.Subject,
			Time: e.Time.UTC(), Headers: e.Headers, Data: e.Data,
		}
		if !slices.Contains(keys, e.Key) {
			keys = append(keys, e.Key)
		}
	}
	insert := func(ctx context.Context, tx bun.IDB) error {
		if _, err := tx.ExecContext(ctx, lockKeysSQL, pgdialect.Array(keys)); err != nil {
			return fmt.Errorf("outbox: lock keys: %w", err)
		}
		if _, err := tx.NewInsert().Model(&rows).
			Returning("seq, octet_length(data::text) AS stored_data_size").Exec(ctx); err != nil {
			return fmt.Errorf("outbox: enqueue: %w", err)
		}
		for i, r := range rows {
			if size := sizes[i] + r.StoredDataSize; size > MaxEventBytes {
				return tooLarge(evts[i], size)
			}
		}
		return nil
	}
	var err error
	switch db.(type) {
	case bun.Tx, *bun.Tx:
		err = insert(ctx, db)
	default:
		// Without a transaction the key lock would end with its statement.
		err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return insert(ctx, tx) })
	}
	if err != nil {
		return err
	}
	wakeLocal()
	return nil
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
