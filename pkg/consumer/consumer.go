// Package consumer is the consuming half of the suite's event delivery: an
// idempotent Kafka consumer. For each message it records the event id in an
// inbox table and runs the service's handler in that same database
// transaction, and commits the Kafka offset only after the transaction
// committed. A redelivered event finds its inbox row and is skipped, so each
// event changes the service's data exactly once.
//
// Partitions are consumed concurrently, each in order. The consumer joins
// its group with a kafka-go ConsumerGroup and, for every partition of each
// generation's assignment, runs one goroutine with its own partition reader
// starting at the committed offset. A goroutine handles its messages one
// after the other and records the next offset to commit; a committer
// commits the recorded offsets every CommitInterval and once more when the
// generation ends (rebalance or shutdown), after the partition goroutines
// stopped. A message that waits (a handler retrying) thus holds up only its
// own partition, i.e. only the businesses hashed to it, never the others.
//
// Failures: a handler error that is a transient database condition
// (pgdb.IsRetryable: serialization failure, deadlock, lock or statement
// timeout, lost connection) is retried with backoff for as long as it
// lasts and never counts as a failed attempt. Any other handler error is
// retried MaxAttempts times, then the message is published to <topic>.dlq
// and recorded in dead_letters, so it never blocks its partition; after a
// fix, ReplayDeadLetters sends the recorded messages to their topic again.
//
// Batches (opt-in, Config.BatchSize > 1): when several messages of a
// partition are already fetched, up to BatchSize of them are applied in ONE
// transaction (one inbox insert for all, duplicates skipped as one by one,
// then the handler for the new ones, or the BatchHandler with all of them),
// and their offsets recorded after it committed. A batch whose transaction
// fails is applied again message by message with the rules above, so a
// poison event is still dead-lettered alone and the others apply once.
//
// Topics whose handlers are idempotent by their own keys may be listed in
// Config.InboxFree: their events are applied without an inbox row, and a
// redelivered one reaches the handlers again (and changes nothing).
//
// Inbox rows are kept for InboxRetention, longer than the topics keep
// messages (TopicRetention), so no message the broker can still deliver
// (after an offset reset or a lost commit) finds its inbox row purged.
package consumer

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"
	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/pgdb"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations creates the inbox and dead_letters tables in the service's
// schema.
var Migrations = pgdb.Embedded("consumer", migrationFiles, "migrations")

// Handler applies one event using tx, the transaction that also records the
// event in the inbox. Returning an error rolls both back; the event is then
// retried and, unless the error is a transient database one, eventually
// dead-lettered.
type Handler func(ctx context.Context, tx bun.Tx, e events.Event) error

// BatchHandler applies several events of one partition, in order, using tx,
// the transaction that also records them all in the inbox (events already
// in the inbox are left out). An error rolls the whole batch back; its
// messages are then applied one by one with the Handler.
type BatchHandler func(ctx context.Context, tx bun.Tx, es []events.Event) error

// Single is h for one event at a time: a batch of one.
func (h BatchHandler) Single() Handler {
	return func(ctx context.Context, tx bun.Tx, e events.Event) error { return h(ctx, tx, []events.Event{e}) }
}

// Headers added to a message published to a DLQ topic, or replayed from one.
const (
	HeaderError             = "x-error"
	HeaderAttempts          = "x-attempts"
	HeaderOriginalTopic     = "x-original-topic"
	HeaderOriginalPartition = "x-original-partition"
	HeaderOriginalOffset    = "x-original-offset"
	// HeaderReplayOf is the dead_letters id a replayed message comes from.
	HeaderReplayOf = "x-replay-of"
)

// Config configures a Consumer; zero values take the defaults.
type Config struct {
	Conn        events.Conn // the brokers, with their TLS and SASL
	GroupID     string
	Topics      []string
	MaxAttempts int           // handler attempts before dead-lettering; default 5
	Backoff     time.Duration // delay after the first failed attempt, doubled after each; default 200ms
	// Stats, when set, records per topic what was applied and the lag
	// (metrics).
	Stats *Stats
	// NotYetWindow is how long a handler may answer ErrNotYet (the event
	// came before what it depends on) before those answers count as
	// failed attempts; default 10m.
	NotYetWindow time.Duration

	// TopicRetention is how long the consumed topics keep messages; default
	// events.DefaultRetention (what events.EnsureTopics sets). Committed
	// offsets are kept as long.
	TopicRetention time.Duration
	// InboxRetention is how long inbox rows are kept; it must exceed
	// TopicRetention; default TopicRetention plus 7 days.
	InboxRetention time.Duration
	PurgeInterval  time.Duration // how often old inbox rows are purged; default 10m
	// MaxWait is a fetch's deadline (default 1.2s). kafka-go asks the
	// broker to wait at most MaxWait less 1 s (a quarter of it when
	// MaxWait is under 1 s) for data and gives up on the connection at
	// MaxWait: 1.2 s keeps an idle partition's fetch 0.2 s at the broker
	// (a reader closes as fast as before) and leaves a whole second for
	// its answer to arrive on a loaded machine (at 250 ms it was 62 ms:
	// idle readers timed out and reconnected, again and again, under
	// load). Data ends the wait at once.
	MaxWait time.Duration
	// CommitInterval batches offset commits. Offsets are only ever committed
	// for messages whose transaction committed, so a crash replays at most
	// this much, which the inbox absorbs; default 1s.
	CommitInterval time.Duration
	// SessionTimeout and RebalanceTimeout bound how long a partition stays
	// with a consumer that went away (e.g. across a broker restart);
	// default 10s each (Kafka's minimum is 6s).
	SessionTimeout   time.Duration
	RebalanceTimeout time.Duration

	// BatchSize > 1 applies up to that many messages of a partition that
	// are already fetched in one transaction (a catch-up after a backlog
	// runs at the rate of batches, not of transactions); 0 or 1 applies
	// each message in its own transaction. At most MaxBatchSize.
	BatchSize int
	// BatchWait is how long a batch waits for each further message that
	// the reader has not handed over yet; default 2ms (a batch takes what
	// is there, it does not wait for traffic).
	BatchWait time.Duration

	// InboxFree lists topics whose handlers are idempotent by their own
	// keys (a redelivered, republished or replayed event changes
	// nothing): their events are applied without an inbox row, and a
	// redelivery reaches the handlers again. That saves a write per event
	// and consumer, which is most of what a consumer costs PostgreSQL
	// while it catches up on a burst. The other topics' events are
	// recorded in the inbox and applied once.
	InboxFree []string
}

// MaxBatchSize bounds Config.BatchSize (the statements of one batch grow
// with it).
const MaxBatchSize = 5000

// maxBackoff caps both handler retries and infrastructure retries.
const maxBackoff = 30 * time.Second

// inboxMargin is how much longer than the topics the inbox keeps rows by
// default.
const inboxMargin = 7 * 24 * time.Hour

func (c Config) withDefaults() Config {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 5
	}
	if c.Backoff <= 0 {
		c.Backoff = 200 * time.Millisecond
	}
	if c.NotYetWindow <= 0 {
		c.NotYetWindow = 10 * time.Minute
	}
	if c.TopicRetention <= 0 {
		c.TopicRetention = events.DefaultRetention
	}
	if c.InboxRetention <= 0 {
		c.InboxRetention = c.TopicRetention + inboxMargin
	}
	if c.PurgeInterval <= 0 {
		c.PurgeInterval = 10 * time.Minute
	}
	if c.MaxWait <= 0 {
		c.MaxWait = 1200 * time.Millisecond
	}
	if c.CommitInterval <= 0 {
		c.CommitInterval = time.Second
	}
	if c.SessionTimeout <= 0 {
		c.SessionTimeout = 10 * time.Second
	}
	if c.RebalanceTimeout <= 0 {
		c.RebalanceTimeout = 10 * time.Second
	}
	if c.BatchSize < 1 {
		c.BatchSize = 1
	}
	if c.BatchWait <= 0 {
		c.BatchWait = 2 * time.Millisecond
	}
	return c
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	var errs []error
	if len(c.Conn.Brokers) == 0 {
		errs = append(errs, errors.New("no brokers"))
	}
	if c.GroupID == "" {
		errs = append(errs, errors.New("no group id"))
	}
	if len(c.Topics) == 0 {
		errs = append(errs, errors.New("no topics"))
	}
	if c.BatchSize < 0 || c.BatchSize > MaxBatchSize {
		errs = append(errs, fmt.Errorf("batch size must be between 0 and %d, got %d", MaxBatchSize, c.BatchSize))
	}
	if d := c.withDefaults(); d.InboxRetention <= d.TopicRetention {
		errs = append(errs, fmt.Errorf("inbox retention %s must exceed the topic retention %s, or a redelivered event could be applied twice",
			d.InboxRetention, d.TopicRetention))
	}
	if len(errs) > 0 {
		return fmt.Errorf("consumer: config: %w", errors.Join(errs...))
	}
	return nil
}

// Consumer consumes the configured topics as one member of its group.
type Consumer struct {
	db        *bun.DB
	cfg       Config
	inboxFree map[string]bool
	h         Handler
	bh        BatchHandler // nil: batches run h for each new event
	log       *slog.Logger
	tracer    trace.Tracer
	dlq       *kafka.Writer
}

// New makes a consumer that applies events with h using db.
func New(db *bun.DB, cfg Config, h Handler, logger *slog.Logger) *Consumer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cfg = cfg.withDefaults()
	inboxFree := make(map[string]bool, len(cfg.InboxFree))
	for _, t := range cfg.InboxFree {
		inboxFree[t] = true
	}
	return &Consumer{
		db:        db,
		cfg:       cfg,
		inboxFree: inboxFree,
		h:         h,
		log:       logger.With("component", "consumer", "group", cfg.GroupID),
		tracer:    otel.Tracer("github.com/acctsuite/acct/pkg/consumer"),
	}
}

// WithBatchHandler makes batches (Config.BatchSize > 1) apply their new
// events with bh in one call instead of the Handler for each; the Handler
// still applies the messages of a failed batch one by one.
func (c *Consumer) WithBatchHandler(bh BatchHandler) *Consumer {
	c.bh = bh
	return c
}

// Run consumes until ctx is cancelled, then stops its partition workers,
// commits their offsets, leaves the group and returns nil. It returns an
// error only for an invalid configuration.
func (c *Consumer) Run(ctx context.Context) error {
	if err := c.cfg.Validate(); err != nil {
		return err
	}
	if c.h == nil {
		return errors.New("consumer: nil handler")
	}
	c.dlq = newWriter(c.cfg.Conn)
	defer func() { _ = events.CloseWriter(c.dlq) }()

	group, err := kafka.NewConsumerGroup(kafka.ConsumerGroupConfig{
		ID:                c.cfg.GroupID,
		Brokers:           c.cfg.Conn.Brokers,
		Dialer:            c.cfg.Conn.Dialer(10 * time.Second),
		Topics:            c.cfg.Topics,
		SessionTimeout:    c.cfg.SessionTimeout,
		RebalanceTimeout:  c.cfg.RebalanceTimeout,
		HeartbeatInterval: min(c.cfg.SessionTimeout/3, 3*time.Second),
		JoinGroupBackoff:  time.Second,
		RetentionTime:     c.cfg.TopicRetention,
		StartOffset:       kafka.FirstOffset,
		Timeout:           10 * time.Second,
		ErrorLogger: kafka.LoggerFunc(func(msg string, args ...any) {
			c.log.Warn("kafka consumer group: " + fmt.Sprintf(msg, args...))
		}),
	})
	if err != nil {
		return fmt.Errorf("consumer: %w", err)
	}

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.purgeLoop(ctx)
	}()
	for {
		gen, err := group.Next(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, kafka.ErrGroupClosed) {
				break
			}
			c.log.Warn("consumer: joining the group failed, retrying", "error", err)
			continue // the group backs off before its next attempt
		}
		c.startGeneration(ctx, gen)
	}
	// Ends the generation: the partition workers stop, the committer
	// commits their offsets, then the member leaves the group.
	if err := group.Close(); err != nil {
		c.log.Warn("consumer: leave group", "error", err)
	}
	wg.Wait()
	return nil
}

func newWriter(conn events.Conn) *kafka.Writer {
	return &kafka.Writer{
		Addr:                   kafka.TCP(conn.Brokers...),
		Transport:              conn.Transport(),
		Balancer:               &kafka.Hash{},
		RequiredAcks:           kafka.RequireAll,
		BatchTimeout:           5 * time.Millisecond,
		AllowAutoTopicCreation: false,
		WriteTimeout:           10 * time.Second,
		MaxAttempts:            3,
	}
}

// offsets are the next offsets to commit, per topic and partition, of one
// generation.
type offsets struct {
	mu    sync.Mutex
	next  map[string]map[int]int64
	dirty bool
}

func (o *offsets) done(topic string, partition int, next int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.next[topic] == nil {
		o.next[topic] = map[int]int64{}
	}
	o.next[topic][partition] = next
	o.dirty = true
}

// commit commits the offsets recorded since the last successful commit.
func (o *offsets) commit(gen *kafka.Generation) error {
	o.mu.Lock()
	if !o.dirty {
		o.mu.Unlock()
		return nil
	}
	snapshot := make(map[string]map[int]int64, len(o.next))
	for t, ps := range o.next {
		snapshot[t] = make(map[int]int64, len(ps))
		for p, off := range ps {
			snapshot[t][p] = off
		}
	}
	o.dirty = false
	o.mu.Unlock()
	if err := gen.CommitOffsets(snapshot); err != nil {
		o.mu.Lock()
		o.dirty = true
		o.mu.Unlock()
		return err
	}
	return nil
}

// startGeneration starts one worker per assigned partition and the
// committer. They all run until the generation ends; kafka-go waits for
// them before it joins the next one (or leaves).
func (c *Consumer) startGeneration(ctx context.Context, gen *kafka.Generation) {
	offs := &offsets{next: map[string]map[int]int64{}}
	var workers sync.WaitGroup
	assigned := 0
	for topic, partitions := range gen.Assignments {
		for _, pa := range partitions {
			assigned++
			workers.Add(1)
			gen.Start(func(genCtx context.Context) {
				defer workers.Done()
				// Values (trace provider, ...) come from ctx; the end comes
				// from the generation, which Run ends when ctx is done.
				wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
				defer cancel()
				stop := context.AfterFunc(genCtx, cancel)
				defer stop()
				c.consumePartition(wctx, topic, pa, offs)
			})
		}
	}
	c.log.Info("consumer: generation started", "generation", gen.ID, "partitions", assigned)
	gen.Start(func(genCtx context.Context) {
		t := time.NewTicker(c.cfg.CommitInterval)
		defer t.Stop()
		for {
			select {
			case <-genCtx.Done():
				workers.Wait()
				if err := offs.commit(gen); err != nil {
					// Those messages come again; the inbox skips them.
					c.log.Warn("consumer: final offset commit failed", "generation", gen.ID, "error", err)
				}
				return
			case <-t.C:
				if err := offs.commit(gen); err != nil {
					c.log.Warn("consumer: offset commit failed", "generation", gen.ID, "error", err)
				}
			}
		}
	})
}

// consumePartition handles one partition's messages in order from the
// assigned offset until ctx ends.
func (c *Consumer) consumePartition(ctx context.Context, topic string, pa kafka.PartitionAssignment, offs *offsets) {
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers:        c.cfg.Conn.Brokers,
		Dialer:         c.cfg.Conn.Dialer(10 * time.Second),
		Topic:          topic,
		Partition:      pa.ID,
		MinBytes:       1,
		MaxBytes:       2 << 20,
		MaxWait:        c.cfg.MaxWait,
		QueueCapacity:  max(100, c.cfg.BatchSize),
		ReadBackoffMin: 100 * time.Millisecond,
		ReadBackoffMax: time.Second,
		ErrorLogger: kafka.LoggerFunc(func(msg string, args ...any) {
			c.log.Warn("kafka reader: "+fmt.Sprintf(msg, args...), "topic", topic, "partition", pa.ID)
		}),
	})
	defer func() {
		if err := r.Close(); err != nil {
			c.log.Warn("consumer: close reader", "topic", topic, "partition", pa.ID, "error", err)
		}
	}()
	if err := r.SetOffset(pa.Offset); err != nil {
		c.log.Error("consumer: cannot start reading", "topic", topic, "partition", pa.ID, "offset", pa.Offset, "error", err)
		return
	}
	backoff := c.cfg.Backoff
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			c.log.Warn("consumer: fetch failed", "topic", topic, "partition", pa.ID, "error", err)
			if !sleep(ctx, backoff) {
				return
			}
			backoff = min(backoff*2, maxBackoff)
			continue
		}
		backoff = c.cfg.Backoff
		if c.cfg.BatchSize > 1 {
			batch := c.fetchMore(ctx, r, m)
			if len(batch) > 1 {
				if !c.processBatch(ctx, batch, offs) {
					return
				}
				continue
			}
		}
		if !c.processOne(ctx, m, offs) {
			return
		}
	}
}

// processOne applies or dead-letters m and records its offset; false when
// ctx ended first.
func (c *Consumer) processOne(ctx context.Context, m kafka.Message, offs *offsets) bool {
	applied, eventTime, ok := c.process(ctx, m)
	if !ok {
		return false
	}
	c.cfg.Stats.processed(m.Topic, m.Partition, m.Offset, m.HighWaterMark, applied, eventTime, time.Now())
	offs.done(m.Topic, m.Partition, m.Offset+1)
	return true
}

// fetchMore returns first followed by up to BatchSize-1 messages the
// reader has already fetched or gets within BatchWait each. The messages
// a fetch brought all carry the partition's end as it was then: behind a
// backlog, the reader's queue holds several fetches' worth, so reaching
// that end does not stop the batch; only an empty queue does (a
// caught-up consumer waits BatchWait once). A FetchMessage whose context
// ends returns without taking a message from the reader's queue
// (kafka-go selects on the context and the queue), so nothing is skipped.
func (c *Consumer) fetchMore(ctx context.Context, r *kafka.Reader, first kafka.Message) []kafka.Message {
	batch := []kafka.Message{first}
	for len(batch) < c.cfg.BatchSize {
		fctx, cancel := context.WithTimeout(ctx, c.cfg.BatchWait)
		m, err := r.FetchMessage(fctx)
		cancel()
		if err != nil {
			if fctx.Err() == nil {
				c.log.Warn("consumer: fetch failed", "topic", first.Topic, "partition", first.Partition, "error", err)
			}
			break
		}
		batch = append(batch, m)
	}
	return batch
}

// processBatch applies batch in one transaction, or, when that fails,
// message by message; it records the offsets and reports false only when
// ctx ended first (nothing of an unfinished batch is recorded: it comes
// again and the inbox skips what was applied).
func (c *Consumer) processBatch(ctx context.Context, batch []kafka.Message, offs *offsets) bool {
	evts := make([]events.Event, len(batch))
	for i, m := range batch {
		e, err := events.FromMessage(m)
		if err != nil {
			return c.processEach(ctx, batch, offs) // the undecodable one is dead-lettered alone
		}
		evts[i] = e
	}
	if err := c.applyBatch(ctx, batch, evts); err != nil {
		if ctx.Err() != nil {
			return false
		}
		c.log.Warn("consumer: batch failed, applying its messages one by one", "topic", batch[0].Topic,
			"partition", batch[0].Partition, "from_offset", batch[0].Offset, "messages", len(batch), "error", err)
		return c.processEach(ctx, batch, offs)
	}
	now := time.Now()
	for i, m := range batch {
		c.cfg.Stats.processed(m.Topic, m.Partition, m.Offset, m.HighWaterMark, true, evts[i].Time, now)
	}
	last := batch[len(batch)-1]
	offs.done(last.Topic, last.Partition, last.Offset+1)
	return true
}

func (c *Consumer) processEach(ctx context.Context, batch []kafka.Message, offs *offsets) bool {
	for _, m := range batch {
		if !c.processOne(ctx, m, offs) {
			return false
		}
	}
	return true
}

// applyBatch records every event of the batch in the inbox with one
// statement and applies the new ones, all in one transaction (every event
// of an InboxFree topic's batch, once each).
func (c *Consumer) applyBatch(ctx context.Context, batch []kafka.Message, evts []events.Event) error {
	first := batch[0]
	links := make([]trace.Link, 0, len(evts))
	for _, e := range evts {
		if sc := trace.SpanContextFromContext(events.ExtractTrace(ctx, e)); sc.IsValid() {
			links = append(links, trace.Link{SpanContext: sc})
		}
	}
	ctx, span := c.tracer.Start(ctx, first.Topic+" process", trace.WithSpanKind(trace.SpanKindConsumer), trace.WithLinks(links...),
		trace.WithAttributes(
			attribute.String("messaging.system", "kafka"),
			attribute.String("messaging.destination.name", first.Topic),
			attribute.String("messaging.consumer.group.name", c.cfg.GroupID),
			attribute.Int("messaging.destination.partition.id", first.Partition),
			attribute.Int64("messaging.kafka.offset", first.Offset),
			attribute.Int("messaging.batch.message_count", len(batch)),
		))
	defer span.End()

	err := c.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		fresh, err := c.newEvents(ctx, tx, batch, evts)
		if err != nil {
			return err
		}
		todo := make([]events.Event, 0, len(fresh))
		for _, e := range evts {
			if fresh[e.ID] {
				todo = append(todo, e)
				delete(fresh, e.ID) // the same event twice in a batch applies once
			}
		}
		span.SetAttributes(attribute.Int("acct.duplicates", len(evts)-len(todo)))
		if len(todo) == 0 {
			return nil
		}
		if c.bh != nil {
			if err := c.runBatchHandler(ctx, tx, todo); err != nil {
				return &handlerError{err: err}
			}
			return nil
		}
		for _, e := range todo {
			if err := c.runHandler(ctx, tx, e); err != nil {
				return &handlerError{err: fmt.Errorf("event %s: %w", e.ID, err)}
			}
		}
		return nil
	})
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	return err
}

// newEvents are the ids of the batch's events to apply: those the inbox
// did not hold yet (recorded now, with one statement), or all of them for
// an InboxFree topic.
func (c *Consumer) newEvents(ctx context.Context, tx bun.Tx, batch []kafka.Message, evts []events.Event) (map[uuid.UUID]bool, error) {
	if c.inboxFree[batch[0].Topic] {
		fresh := make(map[uuid.UUID]bool, len(evts))
		for _, e := range evts {
			fresh[e.ID] = true
		}
		return fresh, nil
	}
	rows := make([]inboxRow, len(batch))
	for i, m := range batch {
		rows[i] = inboxRow{EventID: evts[i].ID, Topic: m.Topic, Partition: m.Partition, Offset: m.Offset}
	}
	var inserted []uuid.UUID
	if err := tx.NewInsert().Model(&rows).On("CONFLICT (event_id) DO NOTHING").
		Returning("event_id").Scan(ctx, &inserted); err != nil {
		return nil, fmt.Errorf("consumer: inbox insert: %w", err)
	}
	fresh := make(map[uuid.UUID]bool, len(inserted))
	for _, id := range inserted {
		fresh[id] = true
	}
	return fresh, nil
}

func (c *Consumer) runBatchHandler(ctx context.Context, tx bun.Tx, es []events.Event) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("batch handler panic: %v", p)
		}
	}()
	return c.bh(ctx, tx, es)
}

// ErrNotYet is what a handler wraps when its event arrived before what it
// depends on, which another topic delivers (an invoice of a business whose
// business.created this service has not consumed yet): the event is
// retried with backoff, without counting attempts, for up to
// Config.NotYetWindow; after that the answers count as failures and the
// event is eventually dead-lettered.
var ErrNotYet = errors.New("consumer: the event depends on state not received yet")

// handlerError marks a failure of the service's handler, as opposed to a
// failure to reach the database: only the former counts toward MaxAttempts.
type handlerError struct{ err error }

func (e *handlerError) Error() string { return e.err.Error() }
func (e *handlerError) Unwrap() error { return e.err }

// process applies or dead-letters m and reports whether it was applied
// (with the event's time) and whether the offset may be committed (false
// only when ctx ended first).
func (c *Consumer) process(ctx context.Context, m kafka.Message) (applied bool, eventTime time.Time, ok bool) {
	e, err := events.FromMessage(m)
	if err != nil {
		c.log.Error("consumer: undecodable message, dead-lettering", "topic", m.Topic,
			"partition", m.Partition, "offset", m.Offset, "error", err)
		return false, time.Time{}, c.deadLetter(ctx, m, nil, err, 0)
	}
	infraBackoff := c.cfg.Backoff
	first := time.Now()
	for attempt := 1; ; {
		err := c.apply(ctx, m, e)
		if err == nil {
			return true, e.Time, true
		}
		if ctx.Err() != nil {
			return false, e.Time, false
		}
		var herr *handlerError
		notYet := errors.As(err, &herr) && errors.Is(herr.err, ErrNotYet) && time.Since(first) < c.cfg.NotYetWindow
		if !errors.As(err, &herr) || pgdb.IsRetryable(herr.err) || notYet {
			// The database, not the event: wait it out, however long.
			c.log.Warn("consumer: cannot apply event now, retrying", "event_id", e.ID, "type", e.Type,
				"topic", m.Topic, "partition", m.Partition, "offset", m.Offset, "retry_in", infraBackoff, "error", err)
			if !sleep(ctx, infraBackoff) {
				return false, e.Time, false
			}
			infraBackoff = min(infraBackoff*2, maxBackoff)
			continue
		}
		if attempt >= c.cfg.MaxAttempts {
			c.log.Error("consumer: handler failed, dead-lettering", "event_id", e.ID, "type", e.Type,
				"topic", m.Topic, "partition", m.Partition, "offset", m.Offset, "attempts", attempt, "error", herr.err)
			return false, e.Time, c.deadLetter(ctx, m, &e, herr.err, attempt)
		}
		delay := min(c.cfg.Backoff<<(attempt-1), maxBackoff)
		c.log.Warn("consumer: handler failed, retrying", "event_id", e.ID, "type", e.Type,
			"attempt", attempt, "retry_in", delay, "error", herr.err)
		if !sleep(ctx, delay) {
			return false, e.Time, false
		}
		attempt++
	}
}

// apply runs the handler and the inbox insert in one transaction; an event
// already in the inbox is skipped (an InboxFree topic's event is applied
// again).
func (c *Consumer) apply(ctx context.Context, m kafka.Message, e events.Event) error {
	ctx = events.ExtractTrace(ctx, e)
	ctx, span := c.tracer.Start(ctx, m.Topic+" process", trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "kafka"),
			attribute.String("messaging.destination.name", m.Topic),
			attribute.String("messaging.message.id", e.ID.String()),
			attribute.String("messaging.consumer.group.name", c.cfg.GroupID),
			attribute.Int("messaging.destination.partition.id", m.Partition),
			attribute.Int64("messaging.kafka.offset", m.Offset),
			attribute.String("cloudevents.event_type", e.Type),
		))
	defer span.End()

	err := c.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if c.inboxFree[m.Topic] {
			if err := c.runHandler(ctx, tx, e); err != nil {
				return &handlerError{err: err}
			}
			return nil
		}
		res, err := tx.NewInsert().Model(&inboxRow{
			EventID: e.ID, Topic: m.Topic, Partition: m.Partition, Offset: m.Offset,
		}).On("CONFLICT (event_id) DO NOTHING").Exec(ctx)
		if err != nil {
			return fmt.Errorf("consumer: inbox insert: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("consumer: inbox insert: %w", err)
		} else if n == 0 {
			span.SetAttributes(attribute.Bool("acct.duplicate", true))
			return nil // applied before: the offset commit was lost or the event was published twice
		}
		if err := c.runHandler(ctx, tx, e); err != nil {
			return &handlerError{err: err}
		}
		return nil
	})
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	return err
}

func (c *Consumer) runHandler(ctx context.Context, tx bun.Tx, e events.Event) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panic: %v", p)
		}
	}()
	return c.h(ctx, tx, e)
}

type inboxRow struct {
	bun.BaseModel `bun:"table:inbox"`

	EventID    uuid.UUID `bun:"event_id,pk,type:uuid"`
	Topic      string    `bun:"topic"`
	Partition  int       `bun:"partition"`
	Offset     int64     `bun:"offset"`
	ReceivedAt time.Time `bun:"received_at,nullzero,default:now()"`
}

type deadLetterRow struct {
	bun.BaseModel `bun:"table:dead_letters"`

	ID        int64             `bun:"id,pk,autoincrement"`
	Topic     string            `bun:"topic"`
	Partition int               `bun:"partition"`
	Offset    int64             `bun:"offset"`
	EventID   *uuid.UUID        `bun:"event_id,type:uuid"`
	EventType *string           `bun:"event_type"`
	Key       []byte            `bun:"key"`
	Headers   map[string]string `bun:"headers,type:jsonb"`
	Payload   []byte            `bun:"payload"`
	Error     string            `bun:"error"`
	Attempts  int               `bun:"attempts"`
	CreatedAt time.Time         `bun:"created_at,nullzero,default:now()"`
	// ReplayedAt is when ReplayDeadLetters sent the message again.
	ReplayedAt *time.Time `bun:"replayed_at"`
}

// maxErrorHeader bounds the error text copied into the DLQ header.
const maxErrorHeader = 1024

// deadLetter publishes m to the topic's DLQ and records it, retrying both
// until they succeed; it reports false only when ctx ended first.
func (c *Consumer) deadLetter(ctx context.Context, m kafka.Message, e *events.Event, cause error, attempts int) bool {
	errText := cause.Error()
	if len(errText) > maxErrorHeader {
		errText = errText[:maxErrorHeader]
	}
	headers := make([]kafka.Header, 0, len(m.Headers)+5)
	original := make(map[string]string, len(m.Headers))
	for _, h := range m.Headers {
		switch h.Key {
		case HeaderError, HeaderAttempts, HeaderOriginalTopic, HeaderOriginalPartition, HeaderOriginalOffset, HeaderReplayOf:
			continue // a message replayed from a DLQ carries stale copies
		}
		headers = append(headers, h)
		original[h.Key] = string(h.Value)
	}
	headers = append(headers,
		kafka.Header{Key: HeaderError, Value: []byte(errText)},
		kafka.Header{Key: HeaderAttempts, Value: []byte(strconv.Itoa(attempts))},
		kafka.Header{Key: HeaderOriginalTopic, Value: []byte(m.Topic)},
		kafka.Header{Key: HeaderOriginalPartition, Value: []byte(strconv.Itoa(m.Partition))},
		kafka.Header{Key: HeaderOriginalOffset, Value: []byte(strconv.FormatInt(m.Offset, 10))},
	)
	msg := kafka.Message{Topic: events.DLQ(m.Topic), Key: m.Key, Value: m.Value, Headers: headers}

	row := &deadLetterRow{
		Topic: m.Topic, Partition: m.Partition, Offset: m.Offset,
		Key: m.Key, Headers: original, Payload: m.Value, Error: cause.Error(), Attempts: attempts,
	}
	if e != nil {
		id, typ := e.ID, e.Type
		row.EventID, row.EventType = &id, &typ
	}

	backoff := c.cfg.Backoff
	for published := false; ; {
		var err error
		if !published {
			err = c.dlq.WriteMessages(ctx, msg)
			switch {
			case err == nil:
				published = true
			case tooLarge(err):
				// The DLQ headers pushed a message at the size limit over
				// it. The dead_letters row is what replays read, so the
				// message is not lost: record it without the DLQ copy.
				c.log.Error("consumer: message too large for the DLQ topic, recorded in dead_letters only",
					"topic", m.Topic, "partition", m.Partition, "offset", m.Offset, "error", err)
				published, err = true, nil
			}
		}
		if published {
			_, err = c.db.NewInsert().Model(row).
				On(`CONFLICT (topic, "partition", "offset") DO NOTHING`).Exec(ctx)
			if err == nil {
				return true
			}
		}
		if ctx.Err() != nil {
			return false
		}
		c.log.Warn("consumer: dead-lettering failed, retrying", "topic", m.Topic,
			"partition", m.Partition, "offset", m.Offset, "retry_in", backoff, "error", err)
		if !sleep(ctx, backoff) {
			return false
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

// tooLarge reports a write refused for the size of its message.
func tooLarge(err error) bool {
	var werrs kafka.WriteErrors
	if errors.As(err, &werrs) {
		for _, e := range werrs {
			if e != nil && tooLarge(e) {
				return true
			}
		}
		return false
	}
	return errors.Is(err, kafka.MessageSizeTooLarge) || errors.Is(err, kafka.RecordListTooLarge)
}

func (c *Consumer) purgeLoop(ctx context.Context) {
	t := time.NewTicker(c.cfg.PurgeInterval)
	defer t.Stop()
	for {
		if err := c.purge(ctx); err != nil && ctx.Err() == nil {
			c.log.Warn("consumer: purge inbox failed", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// purge deletes inbox rows older than the retention, which exceeds the
// topics' retention: no message still deliverable can find its row gone.
func (c *Consumer) purge(ctx context.Context) error {
	_, err := c.db.NewDelete().Model((*inboxRow)(nil)).
		Where("received_at < now() - make_interval(secs => ?)", c.cfg.InboxRetention.Seconds()).
		Exec(ctx)
	return err
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
