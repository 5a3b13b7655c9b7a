// Package servicekit owns the lifecycle every service of the suite repeats,
// so that a service is a small file of wiring: configuration blocks,
// telemetry, the database and its embedded migrations, the transactional
// outbox and its relay, event consumers with an inbox, the business
// projection, Idempotency-Key handling with a scheduled purge, the HTTP app
// with /healthz, /readyz, /metrics and /openapi.json, the serve, migrate and
// dlq subcommands, and a graceful stop (stop accepting → drain requests →
// stop consumers → flush the outbox → close).
//
// A service supplies a Definition: its name, configuration blocks,
// migrations, the topics it produces, and a Setup function that builds its
// use cases on the Kit and registers routes, consumers and background work.
// See docs/adding-a-service.md.
package servicekit

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/httpguard"
	"github.com/google/uuid"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/businessdir"
	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/idempotency"
	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/telemetry"
	"github.com/acctsuite/acct/pkg/tenancy"
)

// Definition describes a service to the kit.
type Definition struct {
	// Name names the service in logs, metrics, traces, event sources and
	// its consumer group.
	Name string
	// Base is required. Data is nil for a service without a database or
	// events (the gateway). Auth, when set, makes the kit verify bearer
	// tokens against the JWKS it names.
	Base *Base
	Data *Data
	Auth *Auth

	// DefaultBodyLimit applies when BODY_LIMIT_BYTES is unset
	// (httpx.DefaultBodyLimit when 0). DefaultAdminAddr applies when
	// ADMIN_ADDR is unset ("" keeps /metrics on the public listener).
	DefaultBodyLimit int
	DefaultAdminAddr string
	// DefaultConsumerBatchSize applies when CONSUMER_BATCH_SIZE is unset:
	// up to that many already-fetched messages of a partition are applied
	// in one transaction (consumer.Config.BatchSize); 0 applies each in its
	// own. For services whose read models replay large backlogs.
	DefaultConsumerBatchSize int
	// LockBusiness, when set, takes the lock the service's one-event
	// handlers take for a business (e.g. an advisory lock on it). In a
	// batch applied one event at a time, the kit takes it first for every
	// business of the batch, sorted and once each: handlers that each lock
	// their event's business would otherwise lock a batch's businesses in
	// message order, and two batches holding each other's businesses
	// deadlock. ConsumeBatch handlers order their own locks.
	LockBusiness func(ctx context.Context, tx bun.Tx, businessID uuid.UUID) error
	// HTTP adjusts the app options (timeouts, streaming); Service, Logger,
	// BodyLimit and Metrics are set by the kit.
	HTTP httpx.Options

	// Migrations are the service's own sets; the kit's tables (outbox,
	// idempotency keys, inbox and dead letters, businesses) come first.
	Migrations []pgdb.MigrationSet
	// Produces lists the topics the service publishes through the outbox;
	// they (and their DLQ twins) are created at start.
	Produces []string
	// Businesses keeps the business directory (pkg/businessdir) from
	// acct.business.v1 and makes it the tenancy owner lookup.
	Businesses bool
	// OpenAPI is the service's OpenAPI 3 document (YAML or JSON), served at
	// /openapi.json; nil serves none.
	OpenAPI []byte

	// Setup builds the service on k: use cases, routes (k.App), consumers
	// (k.Consume), background work (k.Go), start-up work (k.OnStart).
	Setup func(ctx context.Context, k *Kit) error
	// Commands are extra subcommands, run on a Kit after Setup (for
	// example auth-tokens' `admin create-client`).
	Commands map[string]Command
}

// Command is an extra subcommand; out receives what it prints.
type Command func(ctx context.Context, k *Kit, args []string, out io.Writer) error

// Kit is one running (or runnable) service: what New opened for it and what
// Setup registered on it.
type Kit struct {
	def     Definition
	log     *slog.Logger
	metrics *prometheus.Registry
	app     *fiber.App

	db      *bun.DB
	session *bun.DB // DB, or the direct connections behind a pooler
	cursors *page.Codec
	dir     *businessdir.Directory
	kafka   events.Conn
	pub     *outbox.KafkaPublisher
	relay   *outbox.Relay
	idem    fiber.Handler

	verifier authn.TokenVerifier
	jwks     *authn.JWKSVerifier
	owners   tenancy.OwnerLookup

	handlers      map[string][]topicHandler
	topicOrder    []string
	consumerStats *consumer.Stats
	background    []func(context.Context)
	onStart       []func(context.Context) error
	checks        map[string]func(context.Context) error

	telemetry func(context.Context) error
	closeOnce sync.Once
	adminLn   net.Addr
}

// IdempotencyPurgeInterval is how often expired Idempotency-Keys are deleted.
const IdempotencyPurgeInterval = time.Hour

// New opens what the definition needs (telemetry, database, migrations when
// MIGRATE_ON_START, publisher and relay), builds the HTTP app with the
// health, metrics and OpenAPI routes and runs Setup. Run serves it; Close
// releases it.
func New(ctx context.Context, def Definition, logger *slog.Logger) (_ *Kit, err error) {
	if err := def.validate(); err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	k := &Kit{
		def:      def,
		log:      logger,
		handlers: map[string][]topicHandler{},
		checks:   map[string]func(context.Context) error{},
	}
	defer func() {
		if err != nil {
			k.Close()
		}
	}()
	tcfg := def.Base.Telemetry
	if tcfg.ServiceName == "" {
		tcfg.ServiceName = def.Name
	}
	if k.telemetry, err = telemetry.Setup(ctx, tcfg); err != nil {
		return nil, fmt.Errorf("%s: telemetry: %w", def.Name, err)
	}
	k.metrics = prometheus.NewRegistry()
	k.metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if def.Data != nil {
		if err := k.openData(ctx); err != nil {
			return nil, err
		}
		k.registerRelayMetrics()
		k.consumerStats = consumer.NewStats()
		k.metrics.MustRegister(consumerCollector{k.consumerStats})
	}
	if def.Auth != nil {
		k.jwks = authn.NewJWKSVerifier(def.Auth.JWKSURL, authn.VerifierOptions{Issuer: def.Auth.TokenIssuer})
		k.verifier = k.jwks
		k.checks["jwks"] = k.jwksReady
	}
	k.buildApp()
	if def.Setup != nil {
		if err := def.Setup(ctx, k); err != nil {
			return nil, fmt.Errorf("%s: setup: %w", def.Name, err)
		}
	}
	// The chart's Kafka users allow exactly what the table says.
	if err := events.CheckUse(def.Name, def.Produces, k.topicOrder); err != nil {
		return nil, fmt.Errorf("%s: topics: %w", def.Name, err)
	}
	httpx.Finish(k.app)
	return k, nil
}

func (d Definition) validate() error {
	var errs []error
	if d.Name == "" {
		errs = append(errs, errors.New("no name"))
	}
	if d.Base == nil {
		errs = append(errs, errors.New("no Base configuration"))
	}
	if d.Data == nil && (d.Businesses || len(d.Produces) > 0 || len(d.Migrations) > 0) {
		errs = append(errs, errors.New("Businesses, Produces and Migrations need a Data configuration"))
	}
	if len(errs) > 0 {
		return fmt.Errorf("servicekit: definition %q: %w", d.Name, errors.Join(errs...))
	}
	return nil
}

// MigrationSets lists every set the definition's schema needs, the kit's
// tables first.
func (d Definition) MigrationSets() []pgdb.MigrationSet {
	sets := []pgdb.MigrationSet{outbox.Migrations, idempotency.Migrations, consumer.Migrations}
	if d.Businesses {
		sets = append(sets, businessdir.Migrations)
	}
	return append(sets, d.Migrations...)
}

func (k *Kit) openData(ctx context.Context) error {
	d := k.def.Data
	// The session connections first: they create the schema and migrate
	// it, which a pooled connection's check then finds.
	session, err := pgdb.OpenSession(ctx, d.DB)
	if err != nil {
		return fmt.Errorf("%s: database: %w", k.def.Name, err)
	}
	k.session = session
	if d.DB.MigrateOnStart {
		if err := pgdb.Migrate(ctx, session, k.def.MigrationSets()...); err != nil {
			return fmt.Errorf("%s: migrate: %w", k.def.Name, err)
		}
	}
	db := session
	if d.DB.Pooled() {
		if db, err = pgdb.Open(ctx, d.DB); err != nil {
			return fmt.Errorf("%s: database (pooler): %w", k.def.Name, err)
		}
		drift, err := pgdb.PoolerDrift(ctx, db, d.DB)
		if err != nil {
			_ = db.Close()
			return fmt.Errorf("%s: database (pooler): %w", k.def.Name, err)
		}
		for _, d := range drift {
			k.log.Warn("database: the pooler's server connections do not have this service's setting "+
				"(set it there: PgBouncer connect_query or ALTER ROLE ... SET)", "setting", d)
		}
	}
	k.db = db
	secret := []byte(d.PageCursorSecret)
	if len(secret) == 0 {
		k.log.Warn("PAGE_CURSOR_SECRET is not set: pagination cursors use a random per-process key " +
			"and stop working across replicas and restarts; set it to a shared secret")
		secret = make([]byte, 32)
		_, _ = rand.Read(secret)
	}
	k.cursors = page.NewCodec(secret)
	conn, err := events.Connect(ctx, d.Kafka)
	if err != nil {
		return fmt.Errorf("%s: kafka: %w", k.def.Name, err)
	}
	k.kafka = conn
	k.pub = outbox.NewKafkaPublisher(conn)
	// The relay's leadership is a session advisory lock and it LISTENs:
	// it works on the session connections.
	k.relay = outbox.NewRelay(session, k.pub, k.log, outbox.RelayOptions{})
	k.idem = idempotency.Middleware(db, idempotency.Options{Logger: k.log, InProgressTimeout: d.IdempotencyInProgressTimeout,
		Scope: IdempotencyScope})
	if k.def.Businesses {
		k.dir = businessdir.New(db)
		if d.BusinessCacheTTL > 0 {
			k.dir = k.dir.Cached(businessCacheSize, d.BusinessCacheTTL)
		}
		k.owners = k.dir
		k.Consume(events.TopicBusiness, businessdir.Handle)
	}
	k.checks["database"] = pgdb.ReadyCheck(db, d.DB.SchemaName())
	if session != db {
		k.checks["database_direct"] = pgdb.ReadyCheck(session, d.DB.SchemaName())
	}
	k.checks["broker"] = func(ctx context.Context) error { return events.Reachable(ctx, conn) }
	return nil
}

// registerRelayMetrics exposes the outbox relay's state: alert on parked
// events (a business's events wait behind them) and on no replica leading.
func (k *Kit) registerRelayMetrics() {
	stats := k.relay.Stats
	k.metrics.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "outbox_relay_leading",
			Help: "1 while this replica's relay holds the outbox lock and publishes."},
			func() float64 {
				if stats().Leading {
					return 1
				}
				return 0
			}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "outbox_events_published_total",
			Help: "Events this replica's relay had acknowledged by the broker."},
			func() float64 { return float64(stats().Published) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "outbox_events_parked_total",
			Help: "Events this replica's relay parked because the broker refused them for good."},
			func() float64 { return float64(stats().Parked) }),
	)
}

func (k *Kit) buildApp() {
	opts := k.def.HTTP
	opts.Service = k.def.Name
	opts.Logger = k.log
	opts.Metrics = k.metrics
	opts.BodyLimit = k.def.Base.BodyLimit
	if opts.BodyLimit == 0 {
		opts.BodyLimit = k.def.DefaultBodyLimit
	}
	opts.NoMetricsRoute = k.adminAddr() != ""
	if opts.Classify == nil && k.def.Data != nil {
		opts.Classify = pgdb.Classify
	}
	k.app = httpx.New(opts)
	// The checks map is read when /readyz is called, so checks added by
	// Setup (ReadyCheck) count too.
	httpx.Health(k.app, k.checks)
	if k.def.OpenAPI != nil {
		openapi.Serve(k.app, k.openAPIJSON())
	}
}

func (k *Kit) openAPIJSON() func() []byte {
	doc, err := openapi.Load(k.def.OpenAPI)
	var body []byte
	if err == nil {
		body, err = openapi.MarshalJSON(doc)
	}
	if err != nil {
		// The document is embedded at build time; a broken one is a
		// programming error the service's tests catch.
		panic(fmt.Sprintf("servicekit: %s: openapi document: %v", k.def.Name, err))
	}
	return func() []byte { return body }
}

func (k *Kit) adminAddr() string {
	if k.def.Base.AdminAddr != "" {
		return k.def.Base.AdminAddr
	}
	return k.def.DefaultAdminAddr
}

// AdminAddr is the address the admin listener (/metrics) is bound to once
// Serve started it ("" when there is none).
func (k *Kit) AdminAddr() string {
	if k.adminLn == nil {
		return ""
	}
	return k.adminLn.String()
}

// Name is the service's name.
func (k *Kit) Name() string { return k.def.Name }

// Logger is the service's logger.
func (k *Kit) Logger() *slog.Logger { return k.log }

// App is the HTTP app: register routes on it in Setup.
func (k *Kit) App() *fiber.App { return k.app }

// Metrics is the Prometheus registry served at /metrics.
func (k *Kit) Metrics() *prometheus.Registry { return k.metrics }

// ConsumerStats is what the kit's consumer has applied, per topic (nil
// without a database).
func (k *Kit) ConsumerStats() *consumer.Stats { return k.consumerStats }

// consumerCollector exposes the consumer's figures per topic: how far
// behind it is and how fresh what it applied is (alert on a growing lag or
// an old last event).
type consumerCollector struct{ stats *consumer.Stats }

var (
	consumerLagDesc = prometheus.NewDesc("consumer_lag_messages",
		"Messages of the topic published but not yet processed by this replica (its partitions, as of the last message read).",
		[]string{"topic"}, nil)
	consumerAppliedDesc = prometheus.NewDesc("consumer_events_applied_total",
		"Events of the topic this replica applied (duplicates skipped by the inbox included).", []string{"topic"}, nil)
	consumerDeadDesc = prometheus.NewDesc("consumer_events_dead_lettered_total",
		"Events of the topic this replica dead-lettered.", []string{"topic"}, nil)
	consumerLastEventDesc = prometheus.NewDesc("consumer_last_applied_event_timestamp_seconds",
		"Time (CloudEvents time) of the newest event of the topic this replica applied.", []string{"topic"}, nil)
)

func (c consumerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{consumerLagDesc, consumerAppliedDesc, consumerDeadDesc, consumerLastEventDesc} {
		ch <- d
	}
}

func (c consumerCollector) Collect(ch chan<- prometheus.Metric) {
	for _, t := range c.stats.Snapshot() {
		ch <- prometheus.MustNewConstMetric(consumerLagDesc, prometheus.GaugeValue, float64(t.Lag), t.Topic)
		ch <- prometheus.MustNewConstMetric(consumerAppliedDesc, prometheus.CounterValue, float64(t.Applied), t.Topic)
		ch <- prometheus.MustNewConstMetric(consumerDeadDesc, prometheus.CounterValue, float64(t.DeadLettered), t.Topic)
		if !t.LastEventTime.IsZero() {
			ch <- prometheus.MustNewConstMetric(consumerLastEventDesc, prometheus.GaugeValue,
				float64(t.LastEventTime.UnixNano())/1e9, t.Topic)
		}
	}
}

// DB is the service's database (nil without Data).
func (k *Kit) DB() *bun.DB { return k.db }

// SessionDB is the database for what needs a server session of its own
// (LISTEN, session advisory locks): the direct connections of
// DATABASE_DIRECT_URL behind a transaction pooler, DB otherwise.
func (k *Kit) SessionDB() *bun.DB { return k.session }

// Cursors signs and checks pagination cursors.
func (k *Kit) Cursors() *page.Codec { return k.cursors }

// Businesses is the business directory (nil unless Definition.Businesses).
func (k *Kit) Businesses() *businessdir.Directory { return k.dir }

// ErrUnflushed is matched by a stop error whose only trouble is events the
// broker did not take in time: they stay in the outbox, and the next relay
// publishes them.
var ErrUnflushed = errors.New("events still unsent")

// IdempotencyScope is whose Idempotency-Keys a request's key is among:
// the client's for a platform token, the client's business's for a
// business token, so that a platform's businesses (each perhaps driven by
// its own integration) never collide on a key, nor with the platform.
func IdempotencyScope(c *fiber.Ctx) string {
	id, _ := httpauth.IdentityFrom(c)
	if id.IsBusiness() {
		return id.ClientID + "/" + id.BusinessID.String()
	}
	return id.ClientID
}

// Idempotency is the Idempotency-Key middleware for creating POSTs; mount
// it after Authenticate (keys are scoped to the caller: IdempotencyScope).
func (k *Kit) Idempotency() fiber.Handler {
	if k.idem == nil {
		return func(c *fiber.Ctx) error { return c.Next() }
	}
	return k.idem
}

// Verifier is the token verifier (the JWKS one when Definition.Auth is set).
func (k *Kit) Verifier() authn.TokenVerifier { return k.verifier }

// SetVerifier replaces the token verifier (auth-tokens verifies with its own
// key ring).
func (k *Kit) SetVerifier(v authn.TokenVerifier) { k.verifier, k.jwks = v, nil }

// SetOwners replaces the tenancy owner lookup (auth-tokens owns businesses).
func (k *Kit) SetOwners(o tenancy.OwnerLookup) { k.owners = o }

// Authenticate is the bearer-token middleware.
func (k *Kit) Authenticate() fiber.Handler {
	if k.verifier == nil {
		panic("servicekit: Authenticate without a verifier: set Definition.Auth or call SetVerifier")
	}
	return httpauth.Middleware(k.verifier)
}

// RequireBusiness authorises the :businessId path parameter (404 for a
// business the caller may not see); mount it after Authenticate.
func (k *Kit) RequireBusiness() fiber.Handler {
	if k.owners == nil {
		panic("servicekit: RequireBusiness without an owner lookup: set Definition.Businesses or call SetOwners")
	}
	return httpauth.RequireBusiness(BusinessParam, k.owners)
}

// Guards are the route guards of the service's business routes:
// Authenticate, RequireBusiness, Idempotency and the cursor codec.
func (k *Kit) Guards() httpguard.Guards {
	return httpguard.Guards{Auth: k.Authenticate(), Business: k.RequireBusiness(), Idempotency: k.Idempotency(), Cursors: k.Cursors()}
}

// BusinessParam is the path parameter naming the business on every
// business-scoped route.
const BusinessParam = "businessId"

// Consume registers h for the events of topic. Handlers of one topic run in
// registration order inside the transaction that records the event in the
// inbox. Call it in Setup.
func (k *Kit) Consume(topic string, h consumer.Handler) {
	k.addHandler(topic, topicHandler{one: h})
}

// ConsumeBatch registers bh for the events of topic: it gets the new
// events of a batch (see DefaultConsumerBatchSize) at once, so it can
// write them with a few multi-row statements; without batches, or when a
// batch failed and its events are applied one by one, it gets one event
// at a time. Call it in Setup.
func (k *Kit) ConsumeBatch(topic string, bh consumer.BatchHandler) {
	k.addHandler(topic, topicHandler{batch: bh})
}

// ConsumeBatchIdempotent is ConsumeBatch for a handler that is idempotent
// by its own keys: applying an event again (redelivered, published twice,
// replayed) changes nothing. When every handler of the topic is, its
// events are applied without inbox rows (consumer.Config.InboxFree), a
// write per event saved. Call it in Setup.
func (k *Kit) ConsumeBatchIdempotent(topic string, bh consumer.BatchHandler) {
	k.addHandler(topic, topicHandler{batch: bh, idempotent: true})
}

// topicHandler is one registered handler: one event at a time, or a batch;
// idempotent by its own keys or not.
type topicHandler struct {
	one        consumer.Handler
	batch      consumer.BatchHandler
	idempotent bool
}

// inboxFreeTopics are the topics whose every handler is idempotent.
func (k *Kit) inboxFreeTopics() []string {
	var out []string
	for _, t := range k.topicOrder {
		if hs := k.handlers[t]; len(hs) > 0 && !slices.ContainsFunc(hs, func(h topicHandler) bool { return !h.idempotent }) {
			out = append(out, t)
		}
	}
	return out
}

func (k *Kit) addHandler(topic string, h topicHandler) {
	if _, ok := k.handlers[topic]; !ok {
		k.topicOrder = append(k.topicOrder, topic)
	}
	k.handlers[topic] = append(k.handlers[topic], h)
}

// Go runs fn in the background while the service runs; fn must return when
// its context ends (before the outbox is flushed on stop).
func (k *Kit) Go(fn func(ctx context.Context)) { k.background = append(k.background, fn) }

// OnStart runs fn when Run starts, before the service accepts requests; an
// error stops the start.
func (k *Kit) OnStart(fn func(ctx context.Context) error) { k.onStart = append(k.onStart, fn) }

// ReadyCheck adds a named readiness check to /readyz.
func (k *Kit) ReadyCheck(name string, fn func(context.Context) error) { k.checks[name] = fn }

// Kafka is how the service reaches the brokers (with their TLS and SASL;
// zero without Data).
func (k *Kit) Kafka() events.Conn { return k.kafka }

// Relay is the outbox relay (tests flush it; nil without Data).
func (k *Kit) Relay() *outbox.Relay { return k.relay }

// Close releases what New opened. It is safe to call more than once.
func (k *Kit) Close() {
	k.closeOnce.Do(func() {
		if k.pub != nil {
			_ = k.pub.Close()
		}
		if k.db != nil {
			_ = k.db.Close()
		}
		if k.session != nil && k.session != k.db {
			_ = k.session.Close()
		}
		if k.telemetry != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = k.telemetry(ctx)
		}
	})
}
