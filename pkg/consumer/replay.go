package consumer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"
	"github.com/uptrace/bun"
)

// DeadLetterFilter selects the dead letters ReplayDeadLetters sends again.
// The zero filter selects every dead letter not replayed yet.
type DeadLetterFilter struct {
	Topic    string      // only those consumed from this topic
	EventIDs []uuid.UUID // only these events
	IDs      []int64     // only these dead_letters rows
	Limit    int         // at most this many; no limit when zero
}

// replayBatch is how many dead letters one transaction of ReplayDeadLetters
// locks and sends.
const replayBatch = 100

// ReplayDeadLetters sends the dead letters of db's dead_letters table that
// match filter and were not replayed yet back to their original topic, with
// their original key, headers and payload (plus HeaderReplayOf), in the order
// they were dead-lettered, and marks each one replayed. Run it once the cause
// of the failures is fixed; it returns how many messages it sent.
//
// It is idempotent: a replayed row is never sent again, so running it twice
// (or from two processes at once: rows are locked with SKIP LOCKED) sends
// each dead letter once. A dead-lettered event was never applied (its inbox
// row rolled back with the failed handler), so the consumer applies the
// replayed copy; should a row be sent twice after a crash between the send
// and the mark, the inbox applies it only once. A replayed event is applied
// after the later events of its business that went through meanwhile: its
// handler must accept that. A replayed message that fails again is
// dead-lettered again, as a new row.
func ReplayDeadLetters(ctx context.Context, db *bun.DB, conn events.Conn, filter DeadLetterFilter) (int, error) {
	if len(conn.Brokers) == 0 {
		return 0, errors.New("consumer: replay dead letters: no brokers")
	}
	if filter.Limit < 0 {
		return 0, fmt.Errorf("consumer: replay dead letters: negative limit %d", filter.Limit)
	}
	w := newWriter(conn)
	defer func() { _ = events.CloseWriter(w) }()
	total := 0
	for filter.Limit == 0 || total < filter.Limit {
		n := replayBatch
		if filter.Limit > 0 {
			n = min(n, filter.Limit-total)
		}
		sent, err := replayBatchOf(ctx, db, w, filter, n)
		total += sent
		if err != nil {
			return total, fmt.Errorf("consumer: replay dead letters (%d sent): %w", total, err)
		}
		if sent < n {
			break
		}
	}
	return total, nil
}

// replayBatchOf sends up to n dead letters in one transaction and marks the
// ones that went out, even when a later one fails.
func replayBatchOf(ctx context.Context, db *bun.DB, w *kafka.Writer, filter DeadLetterFilter, n int) (int, error) {
	var sendErr error
	sent := 0
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var rows []deadLetterRow
		q := tx.NewSelect().Model(&rows).Where("replayed_at IS NULL").
			OrderExpr("id").Limit(int64(n)).For("UPDATE SKIP LOCKED")
		if filter.Topic != "" {
			q = q.Where("topic = ?", filter.Topic)
		}
		if len(filter.EventIDs) > 0 {
			q = q.Where("event_id IN (?)", bun.In(filter.EventIDs))
		}
		if len(filter.IDs) > 0 {
			q = q.Where("id IN (?)", bun.In(filter.IDs))
		}
		if err := q.Scan(ctx); err != nil {
			return fmt.Errorf("read dead letters: %w", err)
		}
		var ids []int64
		// One message per write: a key's replays must not be split into
		// batches the writer could send out of order.
		for _, r := range rows {
			if err := w.WriteMessages(ctx, replayMessage(r)); err != nil {
				sendErr = fmt.Errorf("send dead letter %d to %s: %w", r.ID, r.Topic, err)
				break
			}
			ids = append(ids, r.ID)
		}
		if len(ids) == 0 {
			return nil
		}
		if _, err := tx.NewUpdate().Model((*deadLetterRow)(nil)).Set("replayed_at = now()").
			Where("id IN (?)", bun.In(ids)).Exec(ctx); err != nil {
			return fmt.Errorf("mark dead letters replayed: %w", err)
		}
		sent = len(ids)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return sent, sendErr
}

// replayMessage is the dead letter as it was first consumed, plus the id of
// the row it is replayed from.
func replayMessage(r deadLetterRow) kafka.Message {
	keys := make([]string, 0, len(r.Headers))
	for k := range r.Headers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	headers := make([]kafka.Header, 0, len(keys)+1)
	for _, k := range keys {
		headers = append(headers, kafka.Header{Key: k, Value: []byte(r.Headers[k])})
	}
	headers = append(headers, kafka.Header{Key: HeaderReplayOf, Value: []byte(strconv.FormatInt(r.ID, 10))})
	return kafka.Message{Topic: r.Topic, Key: r.Key, Value: r.Payload, Headers: headers}
}

// DeadLetter is one row of the dead_letters table, as `dlq list` shows it.
type DeadLetter struct {
	ID         int64
	Topic      string
	Partition  int
	Offset     int64
	EventID    *uuid.UUID
	EventType  *string
	Error      string
	Attempts   int
	ReplayedAt *time.Time
}

// CountDeadLetters counts the dead letters of db (those consumed from topic
// when it is not empty): pending ones (not replayed yet) and replayed ones.
func CountDeadLetters(ctx context.Context, db *bun.DB, topic string) (pending, replayed int, err error) {
	q := db.NewSelect().Model((*deadLetterRow)(nil)).
		ColumnExpr("count(*) FILTER (WHERE replayed_at IS NULL)").
		ColumnExpr("count(*) FILTER (WHERE replayed_at IS NOT NULL)")
	if topic != "" {
		q = q.Where("topic = ?", topic)
	}
	if err := q.Scan(ctx, &pending, &replayed); err != nil {
		return 0, 0, fmt.Errorf("consumer: count dead letters: %w", err)
	}
	return pending, replayed, nil
}

// ListDeadLetters lists the dead letters matching filter, oldest first;
// replayed ones too when withReplayed is set.
func ListDeadLetters(ctx context.Context, db *bun.DB, filter DeadLetterFilter, withReplayed bool) ([]DeadLetter, error) {
	var rows []deadLetterRow
	q := db.NewSelect().Model(&rows).OrderExpr("id")
	if !withReplayed {
		q = q.Where("replayed_at IS NULL")
	}
	if filter.Topic != "" {
		q = q.Where("topic = ?", filter.Topic)
	}
	if len(filter.EventIDs) > 0 {
		q = q.Where("event_id IN (?)", bun.In(filter.EventIDs))
	}
	if len(filter.IDs) > 0 {
		q = q.Where("id IN (?)", bun.In(filter.IDs))
	}
	if filter.Limit > 0 {
		q = q.Limit(int64(filter.Limit))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("consumer: list dead letters: %w", err)
	}
	out := make([]DeadLetter, len(rows))
	for i, r := range rows {
		out[i] = DeadLetter{ID: r.ID, Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, EventID: r.EventID,
			EventType: r.EventType, Error: r.Error, Attempts: r.Attempts, ReplayedAt: r.ReplayedAt}
	}
	return out, nil
}
