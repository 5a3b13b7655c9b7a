// Package consumer is the consuming half of the suite's event delivery: an
// idempotent Kafka consumer. For each message it records the event id in an
// inbox table and runs the service's handler in that same database
// transaction, and commits the Kafka offset only after the transaction
// committed. A redelivered event finds its inbox row and is skipped, so each
// event changes the service's data exactly once. A message whose handler
// keeps failing is retried a bounded number of times, then published to
// <topic>.dlq and recorded in dead_letters, so it never blocks its partition.
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
// retried and eventually dead-lettered.
type Handler func(ctx context.Context, tx bun.Tx, e events.Event) error

// Headers added to a message published to a DLQ topic.
const (
	HeaderError             = "x-error"
	HeaderAttempts          = "x-attempts"
	HeaderOriginalTopic     = "x-original-topic"
	HeaderOriginalPartition = "x-original-partition"
	HeaderOriginalOffset    = "x-original-offset"
)

// Config configures a Consumer; zero values take the defaults.
type Config struct {
	Brokers     []string
	GroupID     string
	Topics      []string
	MaxAttempts int           // handler attempts before dead-lettering; default 5
	Backoff     time.Duration // delay after the first failed attempt, doubled after each; default 200ms

	InboxRetention time.Duration // how long inbox rows are kept; default 7 days
	PurgeInterval  time.Duration // how often old inbox rows are purged; default 10m
	MaxWait        time.Duration // longest fetch wait at the broker; default 250ms
	// CommitInterval batches offset commits. Offsets are only ever committed
	// for messages whose transaction committed, so a crash replays at most
	// this much, which the inbox absorbs; default 1s.
	CommitInterval time.Duration
	// SessionTimeout and RebalanceTimeout bound how long a partition stays
	// with a consumer that went away (e.g. across a broker restart);
	// default 10s each (Kafka's minimum is 6s).
	SessionTimeout   time.Duration
	RebalanceTimeout time.Duration
}

// maxBackoff caps both handler retries and infrastructure retries.
const maxBackoff = 30 * time.Second

func (c Config) withDefaults() Config {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 5
	}
	if c.Backoff <= 0 {
		c.Backoff = 200 * time.Millisecond
	}
	if c.InboxRetention <= 0 {
		c.InboxRetention = 7 * 24 * time.Hour
	}
	if c.PurgeInterval <= 0 {
		c.PurgeInterval = 10 * time.Minute
	}
	if c.MaxWait <= 0 {
		c.MaxWait = 250 * time.Millisecond
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
	return c
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	var errs []error
	if len(c.Brokers) == 0 {
		errs = append(errs, errors.New("no brokers"))
	}
	if c.GroupID == "" {
		errs = append(errs, errors.New("no group id"))
	}
	if len(c.Topics) == 0 {
		errs = append(errs, errors.New("no topics"))
	}
	if len(errs) > 0 {
		return fmt.Errorf("consumer: config: %w", errors.Join(errs...))
	}
	return nil
}

// Consumer consumes the configured topics with one reader per topic.
type Consumer struct {
	db     *bun.DB
	cfg    Config
	h      Handler
	log    *slog.Logger
	tracer trace.Tracer
	dlq    *kafka.Writer
}

// New makes a consumer that applies events with h using db.
func New(db *bun.DB, cfg Config, h Handler, logger *slog.Logger) *Consumer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cfg = cfg.withDefaults()
	return &Consumer{
		db:     db,
		cfg:    cfg,
		h:      h,
		log:    logger.With("component", "consumer", "group", cfg.GroupID),
		tracer: otel.Tracer("github.com/acctsuite/acct/pkg/consumer"),
	}
}

// Run consumes until ctx is cancelled, then closes its readers and returns
// nil. It returns an error only for an invalid configuration.
func (c *Consumer) Run(ctx context.Context) error {
	if err := c.cfg.Validate(); err != nil {
		return err
	}
	if c.h == nil {
		return errors.New("consumer: nil handler")
	}
	c.dlq = &kafka.Writer{
		Addr:                   kafka.TCP(c.cfg.Brokers...),
		Balancer:               &kafka.Hash{},
		RequiredAcks:           kafka.RequireAll,
		BatchTimeout:           5 * time.Millisecond,
		AllowAutoTopicCreation: false,
		WriteTimeout:           10 * time.Second,
		MaxAttempts:            3,
	}
	defer func() { _ = c.dlq.Close() }()

	var wg sync.WaitGroup
	for _, topic := range c.cfg.Topics {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.consume(ctx, topic)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.purgeLoop(ctx)
	}()
	wg.Wait()
	return nil
}

func (c *Consumer) consume(ctx context.Context, topic string) {
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers:           c.cfg.Brokers,
		GroupID:           c.cfg.GroupID,
		Topic:             topic,
		MinBytes:          1,
		MaxBytes:          10 << 20,
		MaxWait:           c.cfg.MaxWait,
		CommitInterval:    c.cfg.CommitInterval,
		SessionTimeout:    c.cfg.SessionTimeout,
		RebalanceTimeout:  c.cfg.RebalanceTimeout,
		HeartbeatInterval: min(c.cfg.SessionTimeout/3, 3*time.Second),
		StartOffset:       kafka.FirstOffset,
		JoinGroupBackoff:  time.Second,
		ReadBackoffMin:    100 * time.Millisecond,
		ReadBackoffMax:    time.Second,
		ErrorLogger: kafka.LoggerFunc(func(msg string, args ...any) {
			c.log.Warn("kafka reader: "+fmt.Sprintf(msg, args...), "topic", topic)
		}),
	})
	defer func() {
		if err := r.Close(); err != nil {
			c.log.Warn("consumer: close reader", "topic", topic, "error", err)
		}
	}()
	backoff := c.cfg.Backoff
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			c.log.Warn("consumer: fetch failed", "topic", topic, "error", err)
			if !sleep(ctx, backoff) {
				return
			}
			backoff = min(backoff*2, maxBackoff)
			continue
		}
		backoff = c.cfg.Backoff
		if !c.process(ctx, m) {
			return
		}
		if err := r.CommitMessages(ctx, m); err != nil && ctx.Err() == nil {
			// The message will come again after a rebalance or restart; the
			// inbox makes that harmless.
			c.log.Warn("consumer: commit offset failed", "topic", m.Topic,
				"partition", m.Partition, "offset", m.Offset, "error", err)
		}
	}
}

// handlerError marks a failure of the service's handler, as opposed to a
// failure to reach the database: only the former counts toward MaxAttempts.
type handlerError struct{ err error }

func (e *handlerError) Error() string { return e.err.Error() }
func (e *handlerError) Unwrap() error { return e.err }

// process applies or dead-letters m and reports whether the offset may be
// committed (false only when ctx ended first).
func (c *Consumer) process(ctx context.Context, m kafka.Message) bool {
	e, err := events.FromMessage(m)
	if err != nil {
		c.log.Error("consumer: undecodable message, dead-lettering", "topic", m.Topic,
			"partition", m.Partition, "offset", m.Offset, "error", err)
		return c.deadLetter(ctx, m, nil, err, 0)
	}
	infraBackoff := c.cfg.Backoff
	for attempt := 1; ; {
		err := c.apply(ctx, m, e)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		var herr *handlerError
		if !errors.As(err, &herr) {
			c.log.Warn("consumer: cannot apply event, retrying", "event_id", e.ID, "retry_in", infraBackoff, "error", err)
			if !sleep(ctx, infraBackoff) {
				return false
			}
			infraBackoff = min(infraBackoff*2, maxBackoff)
			continue
		}
		if attempt >= c.cfg.MaxAttempts {
			c.log.Error("consumer: handler failed, dead-lettering", "event_id", e.ID, "type", e.Type,
				"topic", m.Topic, "partition", m.Partition, "offset", m.Offset, "attempts", attempt, "error", herr.err)
			return c.deadLetter(ctx, m, &e, herr.err, attempt)
		}
		delay := min(c.cfg.Backoff<<(attempt-1), maxBackoff)
		c.log.Warn("consumer: handler failed, retrying", "event_id", e.ID, "type", e.Type,
			"attempt", attempt, "retry_in", delay, "error", herr.err)
		if !sleep(ctx, delay) {
			return false
		}
		attempt++
	}
}

// apply runs the handler and the inbox insert in one transaction; an event
// already in the inbox is skipped.
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
		case HeaderError, HeaderAttempts, HeaderOriginalTopic, HeaderOriginalPartition, HeaderOriginalOffset:
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
			if err = c.dlq.WriteMessages(ctx, msg); err == nil {
				published = true
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

// purge deletes inbox rows older than the retention: redeliveries arrive
// within minutes, so a week of history is a wide safety margin.
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
