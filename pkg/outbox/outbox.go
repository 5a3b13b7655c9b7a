// Package outbox is the producing half of the suite's event delivery: the
// transactional outbox. A service writes its events into the outbox table in
// the same database transaction as the domain change (Enqueue), so an event
// exists if and only if the change committed. A Relay then publishes the
// rows in commit order to Kafka, retrying with backoff while the broker is
// away, and marks them sent. Delivery is at-least-once; consumers absorb
// duplicates through their inbox (package consumer).
package outbox

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/pgdb"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations creates the outbox table in the service's schema.
var Migrations = pgdb.Embedded("outbox", migrationFiles, "migrations")

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

// Enqueue stores events in the outbox using db, which should be the domain
// transaction so the events commit (or roll back) with the change. The trace
// context of ctx is recorded in each event's headers, and relays are woken.
func Enqueue(ctx context.Context, db bun.IDB, evts ...events.Event) error {
	if len(evts) == 0 {
		return nil
	}
	rows := make([]row, len(evts))
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
		rows[i] = row{
			ID: e.ID, Topic: e.Topic, Key: e.Key, Type: e.Type, Source: e.Source, Subject: e.Subject,
			Time: e.Time.UTC(), Headers: e.Headers, Data: e.Data,
		}
	}
	if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
		return fmt.Errorf("outbox: enqueue: %w", err)
	}
	if _, err := db.ExecContext(ctx, "SELECT pg_notify("+notifyChannelSQL+", '')"); err != nil {
		return fmt.Errorf("outbox: notify: %w", err)
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
