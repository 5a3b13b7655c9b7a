package consumer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/acctsuite/acct/pkg/events"
)

// ReadTopic reads every message of topic that the broker holds and that
// was published before the call, partition by partition, each in its
// order, outside any consumer group (no offset is committed, the
// service's consumers are not disturbed): it is how a service replays a
// topic into its read model (a rebuild). fn gets each event; a message that
// does not decode goes to malformed instead (nil: skipped). It returns how
// many messages it read, and stops at the first error of fn.
func ReadTopic(ctx context.Context, conn events.Conn, topic string, fn func(events.Event) error, malformed func(kafka.Message, error)) (int, error) {
	parts, err := partitions(ctx, conn, topic)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range parts {
		first, last, err := partitionBounds(ctx, conn, p, topic)
		if err != nil {
			return n, err
		}
		if first >= last {
			continue
		}
		r := kafka.NewReader(kafka.ReaderConfig{Brokers: conn.Brokers, Dialer: conn.Dialer(10 * time.Second), Topic: topic, Partition: p.ID, MinBytes: 1,
			MaxBytes: 8 << 20, MaxWait: 250 * time.Millisecond})
		if err := r.SetOffset(first); err != nil {
			_ = r.Close()
			return n, fmt.Errorf("consumer: read %s/%d: %w", topic, p.ID, err)
		}
		for {
			m, err := r.ReadMessage(ctx)
			if err != nil {
				_ = r.Close()
				return n, fmt.Errorf("consumer: read %s/%d at %d..%d: %w", topic, p.ID, first, last, err)
			}
			n++
			e, derr := events.FromMessage(m)
			switch {
			case derr != nil:
				if malformed != nil {
					malformed(m, derr)
				}
			default:
				if err := fn(e); err != nil {
					_ = r.Close()
					return n, err
				}
			}
			if m.Offset+1 >= last {
				break
			}
		}
		if err := r.Close(); err != nil {
			return n, fmt.Errorf("consumer: close reader of %s/%d: %w", topic, p.ID, err)
		}
	}
	return n, nil
}

// partitions are topic's partitions, by id, from the first broker that
// answers.
func partitions(ctx context.Context, c events.Conn, topic string) ([]kafka.Partition, error) {
	var errs []error
	for _, b := range c.Brokers {
		conn, err := c.Dialer(10*time.Second).DialContext(ctx, "tcp", b)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		parts, err := conn.ReadPartitions(topic)
		_ = conn.Close()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		slices.SortFunc(parts, func(a, b kafka.Partition) int { return a.ID - b.ID })
		return parts, nil
	}
	if len(errs) == 0 {
		return nil, errors.New("consumer: read topic: no brokers")
	}
	return nil, fmt.Errorf("consumer: partitions of %s: %w", topic, errors.Join(errs...))
}

// partitionBounds are the first offset the leader of p holds and the
// offset the next message will get.
func partitionBounds(ctx context.Context, c events.Conn, p kafka.Partition, topic string) (int64, int64, error) {
	conn, err := c.Dialer(10*time.Second).DialLeader(ctx, "tcp", net.JoinHostPort(p.Leader.Host, strconv.Itoa(p.Leader.Port)), topic, p.ID)
	if err != nil {
		return 0, 0, fmt.Errorf("consumer: leader of %s/%d: %w", topic, p.ID, err)
	}
	defer func() { _ = conn.Close() }()
	first, last, err := conn.ReadOffsets()
	if err != nil {
		return 0, 0, fmt.Errorf("consumer: offsets of %s/%d: %w", topic, p.ID, err)
	}
	return first, last, nil
}
