package outbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/acctsuite/acct/pkg/events"
)

// Publisher sends a batch of events, in order, to the broker. It returns nil
// only when every event was acknowledged; on error the relay sends the whole
// batch again, so a Publisher may deliver some events twice but must never
// deliver a later event of a key before an earlier one of the same call.
//
// An error matching ErrRejected (see Rejected) says the broker refused an
// event for good; the relay then publishes the batch event by event and
// parks the refused ones. Any other error is taken as transient and the
// batch is retried with backoff.
type Publisher interface {
	Publish(ctx context.Context, evts []events.Event) error
}

// ErrRejected marks a publish error that no retry can cure because it is
// about an event itself: too large for the topic, an invalid topic name or
// record. Transient failures (broker down, leader moving, timeouts, missing
// topic that may be being created, authorisation) must not match it.
var ErrRejected = errors.New("outbox: rejected by the broker")

// Rejected marks err as a permanent refusal: errors.Is(result, ErrRejected)
// holds and err stays in the chain.
func Rejected(err error) error { return fmt.Errorf("%w: %w", ErrRejected, err) }

// refusesEvent reports the kafka-go errors that a retry of the same record
// would meet again.
func refusesEvent(err error) bool {
	var werrs kafka.WriteErrors
	if errors.As(err, &werrs) {
		for _, e := range werrs {
			if e != nil && refusesEvent(e) {
				return true
			}
		}
		return false
	}
	var kerr kafka.Error
	if errors.As(err, &kerr) { // MessageTooLargeError (client side) unwraps to MessageSizeTooLarge
		switch kerr {
		case kafka.MessageSizeTooLarge, kafka.RecordListTooLarge, kafka.InvalidRecord,
			kafka.InvalidTopic, kafka.InvalidTimestamp:
			return true
		}
	}
	return false
}

// KafkaPublisher publishes with a kafka-go Writer: acknowledged by all
// in-sync replicas, partitioned by key (the business id).
type KafkaPublisher struct {
	w *kafka.Writer
}

// Writer tuning. maxChunk bounds the messages of one WriteMessages call so
// kafka-go never splits a partition's messages into several batches there:
// those batches would be written independently, and a failed first batch
// with a successful second one would reorder a business's events.
const (
	maxChunk      = 1000
	maxChunkBytes = 900 << 10 // below Kafka's default 1 MiB message.max.bytes
	writeTimeout  = 10 * time.Second
)

// NewKafkaPublisher makes a publisher for conn's brokers. Topics must exist
// (see events.EnsureTopics): auto-creation is off so a typo fails loudly.
func NewKafkaPublisher(conn events.Conn) *KafkaPublisher {
	return &KafkaPublisher{w: &kafka.Writer{
		Addr:                   kafka.TCP(conn.Brokers...),
		Transport:              conn.Transport(),
		Balancer:               &kafka.Hash{},
		RequiredAcks:           kafka.RequireAll,
		BatchTimeout:           5 * time.Millisecond,
		BatchSize:              maxChunk,
		BatchBytes:             1 << 20,
		AllowAutoTopicCreation: false,
		WriteTimeout:           writeTimeout,
		ReadTimeout:            writeTimeout,
		// The relay owns retries (with its own backoff, never giving up);
		// a few quick attempts here only smooth over leader changes.
		MaxAttempts:     3,
		WriteBackoffMin: 50 * time.Millisecond,
		WriteBackoffMax: 500 * time.Millisecond,
	}}
}

// Publish writes the events in chunks, one chunk after the other, stopping
// at the first failure. An event the broker refuses for good (see
// ErrRejected) fails its chunk with an error matching ErrRejected.
func (p *KafkaPublisher) Publish(ctx context.Context, evts []events.Event) error {
	msgs := make([]kafka.Message, 0, len(evts))
	size := 0
	flush := func() error {
		if len(msgs) == 0 {
			return nil
		}
		if err := p.w.WriteMessages(ctx, msgs...); err != nil {
			err = fmt.Errorf("outbox: publish %d messages: %w", len(msgs), err)
			if refusesEvent(err) {
				return Rejected(err)
			}
			return err
		}
		msgs, size = msgs[:0], 0
		return nil
	}
	for _, e := range evts {
		m := events.ToMessage(e)
		n := recordSize(m)
		if len(msgs) == maxChunk || (len(msgs) > 0 && size+n > maxChunkBytes) {
			if err := flush(); err != nil {
				return err
			}
		}
		msgs = append(msgs, m)
		size += n
	}
	return flush()
}

// Close flushes and closes the writer.
func (p *KafkaPublisher) Close() error { return events.CloseWriter(p.w) }
