package consumer

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/segmentio/kafka-go"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
)

// ReplaySource is a topic ReplayTopics reads again and the handler that
// applies its events (the one the service's consumer runs).
type ReplaySource struct {
	Topic   string
	Handler Handler
}

// ReplayOptions tune ReplayTopics; the zero value is usable.
type ReplayOptions struct {
	// BatchSize is how many events one transaction applies
	// (DefaultReplayBatchSize when zero or less).
	BatchSize int
	// Keep selects the events to apply (nil: every event); the others are
	// read and skipped.
	Keep func(events.Event) bool
	// Logger gets a line per event that cannot be applied and per message
	// that does not decode (nil: discarded).
	Logger *slog.Logger
	// Replayed, when set, is called with each topic's counts as soon as
	// that topic is replayed.
	Replayed func(ReplayStats)
}

// DefaultReplayBatchSize is how many events one transaction of
// ReplayTopics applies unless ReplayOptions.BatchSize says otherwise.
const DefaultReplayBatchSize = 500

// ReplayStats are the counts of one topic's replay.
type ReplayStats struct {
	Topic     string
	Read      int // messages read (ReadTopic's count)
	Applied   int // events the handler applied
	Failed    int // kept events the handler failed on, even alone
	Malformed int // messages that did not decode
}

// ReplayTopics reads each source's topic again, in order, from the oldest
// message the broker holds up to the last one published before the read
// (ReadTopic: outside any consumer group, nothing is committed), and
// applies the events Keep selects with the source's handler, BatchSize
// events per transaction of db. The inbox is not involved: the handlers
// must be idempotent, as the consumer's already are against redeliveries.
//
// A batch whose transaction fails is applied again event by event, each
// in its own transaction; an event that still fails is logged, counted
// (ReplayStats.Failed) and skipped, so one bad event never stops a
// replay. A message that does not decode is logged and counted too.
//
// It returns the counts of the topics replayed in full, in order; a read
// error stops it at that topic (the events of its pending batch are not
// applied), as does ctx's end.
func ReplayTopics(ctx context.Context, db *bun.DB, conn events.Conn, sources []ReplaySource, opts ReplayOptions) ([]ReplayStats, error) {
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultReplayBatchSize
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	out := make([]ReplayStats, 0, len(sources))
	for _, src := range sources {
		st, err := replayTopic(ctx, db, conn, src, opts)
		if err != nil {
			return out, fmt.Errorf("replay %s: %w", src.Topic, err)
		}
		out = append(out, st)
		if opts.Replayed != nil {
			opts.Replayed(st)
		}
	}
	return out, nil
}

// replayTopic is ReplayTopics for one source.
func replayTopic(ctx context.Context, db *bun.DB, conn events.Conn, src ReplaySource, opts ReplayOptions) (ReplayStats, error) {
	st := ReplayStats{Topic: src.Topic}
	log := opts.Logger
	var batch []events.Event
	flush := func() {
		if len(batch) == 0 {
			return
		}
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for _, e := range batch {
				if err := src.Handler(ctx, tx, e); err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil {
			st.Applied += len(batch)
			batch = batch[:0]
			return
		}
		for _, e := range batch {
			if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return src.Handler(ctx, tx, e) }); err != nil {
				st.Failed++
				log.Error("consumer: a replayed event cannot be applied", "topic", src.Topic, "event_id", e.ID, "type", e.Type, "error", err)
				continue
			}
			st.Applied++
		}
		batch = batch[:0]
	}
	n, err := ReadTopic(ctx, conn, src.Topic, func(e events.Event) error {
		if opts.Keep != nil && !opts.Keep(e) {
			return nil
		}
		batch = append(batch, e)
		if len(batch) >= opts.BatchSize {
			flush()
		}
		return ctx.Err()
	}, func(m kafka.Message, err error) {
		st.Malformed++
		log.Warn("consumer: a replayed message does not decode", "topic", src.Topic, "partition", m.Partition, "offset", m.Offset, "error", err)
	})
	st.Read = n
	if err != nil {
		return st, err
	}
	flush()
	return st, nil
}
