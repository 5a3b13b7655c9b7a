// Package app holds the webhooks use cases: the endpoints API, turning
// the domain topics' changes into webhook events fanned out to the
// endpoints that subscribe to them, and the dispatcher that delivers,
// signs, retries and records them. It knows no framework: the database
// transaction travels in the context (UnitOfWork), and the outbound
// HTTP client, the URL guard and the secrets' encryption are interfaces.
package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/webhooks/internal/domain"
)

// UnitOfWork runs fn in one database transaction, carried by fn's
// context to the store.
type UnitOfWork interface {
	Do(ctx context.Context, fn func(ctx context.Context) error) error
}

// Business is what the service knows of a business (from
// acct.business.v1): its platform and external id.
type Business struct {
	ID         uuid.UUID
	ClientID   string
	ExternalID *string
}

// DeliveryFilter selects an endpoint's deliveries (Status "" for all).
type DeliveryFilter struct {
	Status string
}

// Fan is a message and the endpoints it goes to.
type Fan struct {
	Message   domain.Message
	Endpoints []domain.Endpoint
}

// Lane is a claimed lane: its endpoint and key (a business id, or a
// delivery id for an endpoint without ordering).
type Lane struct {
	EndpointID uuid.UUID
	Key        string
}

// Work is a delivery of a claimed lane, with its message's body and its
// endpoint. A claim returns a lane's due deliveries in order, the head
// first (a run: sent one after another while each is delivered).
type Work struct {
	Lane     Lane
	Delivery domain.Delivery
	Body     []byte
	Endpoint domain.Endpoint
}

// Recorded is what came of one attempt of a claimed delivery: the
// attempt and the delivery's new status. Holds: more of the lane's run
// follows, so recording it leaves the lane leased; the run's last record
// moves the lane on.
type Recorded struct {
	Work    Work
	Attempt domain.Attempt
	Status  string
	Holds   bool
}

// Store is the service's persistence; every endpoint method is scoped by
// the platform's client id. Methods run in the transaction ctx carries,
// else on their own.
type Store interface {
	// Endpoints. LockClient serialises, until the transaction ends, the
	// creations of one platform's endpoints (their number is bounded).
	LockClient(ctx context.Context, clientID string) error
	CountEndpoints(ctx context.Context, clientID string) (int, error)
	InsertEndpoint(ctx context.Context, e domain.Endpoint) error
	FindEndpoint(ctx context.Context, clientID string, id uuid.UUID, forUpdate bool) (domain.Endpoint, bool, error)
	ListEndpoints(ctx context.Context, clientID string, p page.Params) ([]domain.Endpoint, page.Meta, error)
	UpdateEndpoint(ctx context.Context, e domain.Endpoint) error
	DeleteEndpoint(ctx context.Context, clientID string, id uuid.UUID) (bool, error)
	// EndpointByID is any platform's endpoint (the dispatcher's).
	EndpointByID(ctx context.Context, id uuid.UUID, forUpdate bool) (domain.Endpoint, bool, error)
	// EndpointSucceeded clears the endpoint's failing_since.
	EndpointSucceeded(ctx context.Context, id uuid.UUID) error
	// ClientEndpoints are the enabled endpoints of each platform (their
	// subscriptions, not their secrets).
	ClientEndpoints(ctx context.Context, clientIDs []string) (map[string][]domain.Endpoint, error)

	// Businesses (the kit's projection of acct.business.v1): those of ids
	// the service knows.
	FindBusinesses(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]Business, error)
	// OwnedBusinesses are those of ids that belong to clientID.
	OwnedBusinesses(ctx context.Context, clientID string, ids []uuid.UUID) (map[uuid.UUID]bool, error)

	// What the service remembers of entities, to tell a creation from an
	// update and an archive.
	EntityStates(ctx context.Context, keys []domain.EntityKey) (map[domain.EntityKey]domain.EntityState, error)
	SaveEntityStates(ctx context.Context, states map[domain.EntityKey]domain.EntityState) error

	// Events of businesses not known yet (their BusinessID), kept until
	// they are.
	Park(ctx context.Context, events []domain.Event) error
	Unpark(ctx context.Context, bid uuid.UUID) ([]domain.Event, error)

	// Messages and deliveries. InsertMessage reports false when the
	// message is already there (a change applied again).
	InsertMessage(ctx context.Context, m domain.Message) (bool, error)
	// Enqueue adds a pending delivery of message m to each endpoint, due
	// at once, behind the pending ones of its lane.
	Enqueue(ctx context.Context, m domain.Message, endpoints []domain.Endpoint, now time.Time) error
	// EnqueueAll stores each fan's message once and, for those new, its
	// deliveries (as Enqueue), in order.
	EnqueueAll(ctx context.Context, fans []Fan, now time.Time) error

	// The dispatcher's. Claim leases up to n due lanes until leaseUntil,
	// at most perEndpoint leased at once per endpoint, and returns up to
	// run of each lane's pending deliveries, in order: the head, then
	// those after it that are due too (grouped by lane); recheck: a lane
	// is due again RecheckDelay from now (a delivery was being enqueued
	// to it).
	Claim(ctx context.Context, now, leaseUntil time.Time, n, perEndpoint, run int) (works []Work, recheck bool, err error)
	// RecordAll stores, in one transaction, each record's attempt and
	// its delivery's new state (status, next attempt) and, for each
	// record that does not hold its lane, moves the lane to its next head
	// (or drops it) and releases its lease.
	RecordAll(ctx context.Context, recs []Recorded, now time.Time) error
	// RepairLanes recreates the lanes of pending deliveries that have
	// none (a safety net), due at once; the number repaired.
	RepairLanes(ctx context.Context, now time.Time) (int, error)
	// FailPending fails the endpoint's pending deliveries (it was
	// disabled), with reason as their last attempt's error.
	FailPending(ctx context.Context, endpointID uuid.UUID, reason string, now time.Time) (int, error)

	// The deliveries API.
	ListDeliveries(ctx context.Context, endpointID uuid.UUID, f DeliveryFilter, p page.Params) ([]domain.Delivery, page.Meta, error)
	FindDelivery(ctx context.Context, endpointID, id uuid.UUID) (domain.Delivery, bool, error)
	DeliveryOfMessage(ctx context.Context, endpointID, messageID uuid.UUID) (domain.Delivery, bool, error)
	// Resend makes deliveries ids of endpointID pending again (a fresh
	// series of attempts, the same webhook-id), due at once; failed only
	// limits it to failed ones since since.
	Resend(ctx context.Context, endpointID uuid.UUID, ids []uuid.UUID, now time.Time) (int, error)
	ResendFailedSince(ctx context.Context, endpointID uuid.UUID, since, now time.Time) (int, error)

	// Purge deletes finished deliveries (and messages left without any)
	// last changed before finishedBefore, and events parked before
	// parkedBefore.
	Purge(ctx context.Context, finishedBefore, parkedBefore time.Time) (int, error)
}

// URLGuard checks an endpoint URL before it is saved: its form and, by
// resolving its host, that it does not point inside the network.
type URLGuard interface {
	CheckURL(ctx context.Context, rawURL string) error
}

// Sender posts one delivery; an error means no answer came.
type Sender interface {
	Post(ctx context.Context, url string, headers map[string]string, body []byte) (SendResult, error)
}

// SendResult is an answer: its status, its first bytes and how long it
// took.
type SendResult struct {
	StatusCode int
	Body       []byte
	Latency    time.Duration
}

// Webhooks holds the use cases.
type Webhooks struct {
	uow   UnitOfWork
	store Store
	guard URLGuard
	send  Sender
	log   *slog.Logger
	clk   clock.Clock
	// schedule is the retry schedule.
	schedule domain.Schedule
	observe  func(string, time.Duration)
}

// Options are Webhooks' collaborators (the zero Clock is the system's).
type Options struct {
	UnitOfWork UnitOfWork
	Store      Store
	Guard      URLGuard
	Sender     Sender
	Logger     *slog.Logger
	// Schedule is the retry schedule (nil: domain.RetryDelays).
	Schedule domain.Schedule
	// Observe, when set, is told of every attempt: its outcome
	// (delivered, retry, failed) and how long it took.
	Observe func(outcome string, took time.Duration)
	Clock   clock.Clock
}

// New assembles the use cases.
func New(o Options) *Webhooks {
	w := &Webhooks{uow: o.UnitOfWork, store: o.Store, guard: o.Guard, send: o.Sender, log: o.Logger, clk: o.Clock}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	w.schedule, w.observe = o.Schedule, o.Observe
	if w.observe == nil {
		w.observe = func(string, time.Duration) {}
	}
	if len(w.schedule) == 0 {
		w.schedule = domain.RetryDelays
	}
	return w
}

// now is the clock's time as PostgreSQL keeps it (microseconds, UTC).
func (w *Webhooks) now() time.Time { return w.clk.Now() }

func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }
