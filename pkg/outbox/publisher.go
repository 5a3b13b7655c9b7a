package outbox

import (
	"context"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/acctsuite/acct/pkg/events"
)

// Publisher sends a batch of events, in order, to the broker. It returns nil
// only when every event was acknowledged; on error the relay sends the whole
// batch again, so a Publisher may deliver some events twice but must never
// deliver a later event of a key before an earlier one of the same call.
type Publisher interface {
	Publish(ctx context.Context, evts []events.Event) error
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

// NewKafkaPublisher makes a publisher for the brokers. Topics must exist
// (see events.EnsureTopics): auto-creation is off so a typo fails loudly.
func NewKafkaPublisher(brokers []string) *KafkaPublisher {
	return &KafkaPublisher{w: &kafka.Writer{
		Addr:                   kafka.TCP(brokers...),
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
// at the first failure.
func (p *KafkaPublisher) Publish(ctx context.Context, evts []events.Event) error {
	msgs := make([]kafka.Message, 0, len(evts))
	size := 0
	flush := func() error {
		if len(msgs) == 0 {
			return nil
		}
		if err := p.w.WriteMessages(ctx, msgs...); err != nil {
			return fmt.Errorf("outbox: publish %d messages: %w", len(msgs), err)
		}
		msgs, size = msgs[:0], 0
		return nil
	}
	for _, e := range evts {
		m := events.ToMessage(e)
		n := len(m.Key) + len(m.Value) + 64
		for _, h := range m.Headers {
			n += len(h.Key) + len(h.Value)
		}
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
func (p *KafkaPublisher) Close() error { return p.w.Close() }
