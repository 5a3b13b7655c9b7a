package servicekit

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/pgdb"
)

const dlqUsage = "usage: dlq replay [--topic T] [--event-id UUID,...] [--id N,...] [--limit N] | dlq count [--topic T] | dlq list [--topic T] [--limit N] [--all]"

// dlq is the `<service> dlq` command. `dlq replay`: after the cause of a
// dead letter is fixed, it sends the matching dead letters of the service's
// schema back to their original topics (once: replayed rows are marked) and
// prints how many it sent. `dlq count` prints how many dead letters wait for
// a replay (and how many were replayed); `dlq list` prints them, one a line.
func dlq(ctx context.Context, def Definition, args []string, out io.Writer) error {
	if def.Data == nil {
		return fmt.Errorf("%s consumes no events", def.Name)
	}
	if len(args) == 0 {
		return errors.New(dlqUsage)
	}
	switch args[0] {
	case "replay":
	case "count", "list":
		return dlqInspect(ctx, def, args, out)
	default:
		return errors.New(dlqUsage)
	}
	fs := flag.NewFlagSet("dlq replay", flag.ContinueOnError)
	fs.SetOutput(out)
	topic := fs.String("topic", "", "only dead letters consumed from this topic")
	eventIDs := fs.String("event-id", "", "only these event ids (comma-separated)")
	ids := fs.String("id", "", "only these dead_letters rows (comma-separated)")
	limit := fs.Int("limit", 0, "at most this many (0: all)")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%w; %s", err, dlqUsage)
	}
	filter := consumer.DeadLetterFilter{Topic: *topic, Limit: *limit}
	for _, s := range splitList(*eventIDs) {
		id, err := uuid.Parse(s)
		if err != nil {
			return fmt.Errorf("--event-id %q: not a UUID", s)
		}
		filter.EventIDs = append(filter.EventIDs, id)
	}
	for _, s := range splitList(*ids) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("--id %q: not a row id", s)
		}
		filter.IDs = append(filter.IDs, n)
	}
	if *limit < 0 {
		return errors.New("--limit must not be negative")
	}
	db, err := pgdb.OpenSession(ctx, def.Data.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := events.Connect(ctx, def.Data.Kafka)
	if err != nil {
		return fmt.Errorf("kafka: %w", err)
	}
	n, err := consumer.ReplayDeadLetters(ctx, db, conn, filter)
	if err != nil {
		return fmt.Errorf("replay dead letters (%d sent before the error): %w", n, err)
	}
	_, err = fmt.Fprintf(out, "replayed %d dead letters\n", n)
	return err
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// dlqInspect is `dlq count` and `dlq list`.
func dlqInspect(ctx context.Context, def Definition, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("dlq "+args[0], flag.ContinueOnError)
	fs.SetOutput(out)
	topic := fs.String("topic", "", "only dead letters consumed from this topic")
	var limit *int
	var all *bool
	if args[0] == "list" {
		limit = fs.Int("limit", 100, "at most this many (0: all)")
		all = fs.Bool("all", false, "replayed dead letters too")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%w; %s", err, dlqUsage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q; %s", fs.Args(), dlqUsage)
	}
	if limit != nil && *limit < 0 {
		return errors.New("--limit must not be negative")
	}
	db, err := pgdb.OpenSession(ctx, def.Data.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	if args[0] == "count" {
		pending, replayed, err := consumer.CountDeadLetters(ctx, db, *topic)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "pending=%d replayed=%d\n", pending, replayed)
		return err
	}
	rows, err := consumer.ListDeadLetters(ctx, db, consumer.DeadLetterFilter{Topic: *topic, Limit: *limit}, *all)
	if err != nil {
		return err
	}
	for _, r := range rows {
		eventID, eventType, replayed := "-", "-", "-"
		if r.EventID != nil {
			eventID = r.EventID.String()
		}
		if r.EventType != nil {
			eventType = *r.EventType
		}
		if r.ReplayedAt != nil {
			replayed = r.ReplayedAt.UTC().Format(time.RFC3339)
		}
		if _, err := fmt.Fprintf(out, "id=%d topic=%s partition=%d offset=%d event_id=%s event_type=%s attempts=%d replayed_at=%s error=%q\n",
			r.ID, r.Topic, r.Partition, r.Offset, eventID, eventType, r.Attempts, replayed, r.Error); err != nil {
			return err
		}
	}
	return nil
}
