package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	fastjson "github.com/segmentio/encoding/json"
	"github.com/segmentio/kafka-go"
)

// Kafka header names of the CloudEvents binary content mode.
const (
	HeaderSpecVersion = "ce_specversion"
	HeaderID          = "ce_id"
	HeaderSource      = "ce_source"
	HeaderType        = "ce_type"
	HeaderTime        = "ce_time"
	HeaderSubject     = "ce_subject"
	HeaderContentType = "content-type"
)

// ErrMalformed marks a message that is not a valid event envelope; such a
// message can never be processed and goes to the DLQ at once.
var ErrMalformed = errors.New("events: malformed message")

// ToMessage encodes e as a Kafka message in CloudEvents binary mode.
func ToMessage(e Event) kafka.Message {
	headers := make([]kafka.Header, 0, 7+len(e.Headers))
	headers = append(headers,
		kafka.Header{Key: HeaderSpecVersion, Value: []byte(SpecVersion)},
		kafka.Header{Key: HeaderID, Value: []byte(e.ID.String())},
		kafka.Header{Key: HeaderSource, Value: []byte(e.Source)},
		kafka.Header{Key: HeaderType, Value: []byte(e.Type)},
		kafka.Header{Key: HeaderTime, Value: []byte(e.Time.UTC().Format(time.RFC3339Nano))},
	)
	if e.Subject != "" {
		headers = append(headers, kafka.Header{Key: HeaderSubject, Value: []byte(e.Subject)})
	}
	headers = append(headers, kafka.Header{Key: HeaderContentType, Value: []byte(ContentTypeJSON)})
	for k, v := range e.Headers {
		if isEnvelopeHeader(k) {
			continue // the attributes above win over stray copies
		}
		headers = append(headers, kafka.Header{Key: k, Value: []byte(v)})
	}
	return kafka.Message{
		Topic:   e.Topic,
		Key:     []byte(e.Key),
		Value:   e.Data,
		Headers: headers,
		Time:    e.Time,
	}
}

// FromMessage decodes a Kafka message in CloudEvents binary mode. Missing or
// invalid required attributes (specversion, id, source, type), an invalid
// time, a content type other than JSON or a value that is not JSON are
// errors wrapping ErrMalformed.
func FromMessage(m kafka.Message) (Event, error) {
	e := Event{Topic: m.Topic, Key: string(m.Key), Headers: map[string]string{}}
	seen := map[string]string{}
	for _, h := range m.Headers {
		k := strings.ToLower(h.Key)
		if isEnvelopeHeader(k) {
			seen[k] = string(h.Value)
			continue
		}
		e.Headers[h.Key] = string(h.Value)
	}
	bad := func(format string, args ...any) (Event, error) {
		return Event{}, fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
	}
	if v := seen[HeaderSpecVersion]; v != SpecVersion {
		return bad("%s %q, want %q", HeaderSpecVersion, v, SpecVersion)
	}
	id, err := uuid.Parse(seen[HeaderID])
	if err != nil || id == uuid.Nil {
		return bad("%s %q is not a UUID", HeaderID, seen[HeaderID])
	}
	e.ID = id
	if e.Source = seen[HeaderSource]; e.Source == "" {
		return bad("%s missing", HeaderSource)
	}
	if e.Type = seen[HeaderType]; e.Type == "" {
		return bad("%s missing", HeaderType)
	}
	if v, ok := seen[HeaderTime]; ok {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return bad("%s %q is not RFC 3339", HeaderTime, v)
		}
		e.Time = t.UTC()
	}
	e.Subject = seen[HeaderSubject]
	if v, ok := seen[HeaderContentType]; ok {
		mt, _, err := mime.ParseMediaType(v)
		if err != nil || mt != ContentTypeJSON {
			return bad("%s %q, want %s", HeaderContentType, v, ContentTypeJSON)
		}
	}
	if !fastjson.Valid(m.Value) {
		return bad("value is not JSON")
	}
	e.Data = json.RawMessage(append([]byte(nil), m.Value...))
	return e, nil
}

func isEnvelopeHeader(k string) bool {
	switch strings.ToLower(k) {
	case HeaderSpecVersion, HeaderID, HeaderSource, HeaderType, HeaderTime, HeaderSubject, HeaderContentType:
		return true
	}
	return false
}

// DefaultRetention is how long the topics EnsureTopics creates keep their
// messages (retention.ms). It is explicit rather than the broker's default so
// that every deployment has the same replay window, and so that consumers can
// keep their inbox longer than any message can be redelivered (see
// consumer.Config.InboxRetention).
const DefaultRetention = 7 * 24 * time.Hour

// TopicOptions describes the topics EnsureTopicsWith creates.
type TopicOptions struct {
	// Partitions per topic; must be positive. Events are keyed by business,
	// so this bounds how many businesses are consumed in parallel.
	Partitions int
	// Retention is the topics' retention.ms; DefaultRetention when zero.
	// The DLQ twins get the same: dead letters are also kept in the
	// consumer's dead_letters table, which replays read from.
	Retention time.Duration
	// ReplicationFactor per topic; the broker's default when zero.
	ReplicationFactor int
}

// EnsureTopics creates the topics and their DLQ twins when missing, with the
// given partition count, DefaultRetention and the broker's default
// replication factor. Topics that already exist are left as they are.
func EnsureTopics(ctx context.Context, conn Conn, partitions int, topics ...string) error {
	return EnsureTopicsWith(ctx, conn, TopicOptions{Partitions: partitions}, topics...)
}

// EnsureTopicsWith creates the topics and their DLQ twins when missing, as
// opts describes. Topics that already exist are left as they are: their
// settings belong to whoever created them (in production, the KafkaTopic
// resources of the Helm chart).
func EnsureTopicsWith(ctx context.Context, conn Conn, opts TopicOptions, topics ...string) error {
	if len(conn.Brokers) == 0 {
		return fmt.Errorf("events: ensure topics: no brokers")
	}
	if opts.Partitions <= 0 {
		return fmt.Errorf("events: ensure topics: partitions must be positive, got %d", opts.Partitions)
	}
	if opts.Retention < 0 {
		return fmt.Errorf("events: ensure topics: negative retention %s", opts.Retention)
	}
	if opts.Retention == 0 {
		opts.Retention = DefaultRetention
	}
	if opts.Retention < time.Millisecond {
		return fmt.Errorf("events: ensure topics: retention %s is under a millisecond", opts.Retention)
	}
	replication := opts.ReplicationFactor
	if replication <= 0 {
		replication = -1 // the broker's default.replication.factor
	}
	retention := kafka.ConfigEntry{ConfigName: "retention.ms", ConfigValue: strconv.FormatInt(opts.Retention.Milliseconds(), 10)}
	var configs []kafka.TopicConfig
	for _, t := range topics {
		for _, name := range []string{t, DLQ(t)} {
			configs = append(configs, kafka.TopicConfig{
				Topic: name, NumPartitions: opts.Partitions, ReplicationFactor: replication,
				ConfigEntries: []kafka.ConfigEntry{retention},
			})
		}
	}
	if len(configs) == 0 {
		return nil
	}
	transport := conn.Transport()
	defer transport.CloseIdleConnections()
	client := &kafka.Client{Addr: kafka.TCP(conn.Brokers...), Timeout: 30 * time.Second, Transport: transport}
	resp, err := client.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: configs})
	if err != nil {
		return fmt.Errorf("events: create topics: %w", err)
	}
	var errs []error
	for name, terr := range resp.Errors {
		// A client without the right to create topics (a KafkaUser whose
		// ACLs allow only producing and consuming) leaves them to whoever
		// manages them (the chart's KafkaTopic resources).
		if terr == nil || errors.Is(terr, kafka.TopicAlreadyExists) ||
			errors.Is(terr, kafka.TopicAuthorizationFailed) || errors.Is(terr, kafka.ClusterAuthorizationFailed) {
			continue
		}
		errs = append(errs, fmt.Errorf("topic %s: %w", name, terr))
	}
	if len(errs) > 0 {
		return fmt.Errorf("events: create topics: %w", errors.Join(errs...))
	}
	return nil
}

// dialTimeout bounds broker dials made by helpers of this package.
var dialTimeout = 10 * time.Second

// Reachable reports whether one of the brokers answers a metadata request;
// services use it in their readiness check.
// The dial authenticates (TLS, SASL) as every other connection does, so a
// wrong password or an untrusted certificate fails it, and the error says
// so.
func Reachable(ctx context.Context, c Conn) error {
	var errs []error
	for _, b := range c.Brokers {
		conn, err := c.Dialer(dialTimeout).DialContext(ctx, "tcp", b)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		_, err = conn.Brokers()
		_ = conn.Close()
		if err == nil {
			return nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return fmt.Errorf("events: no brokers")
	}
	return fmt.Errorf("events: brokers unreachable: %w", errors.Join(errs...))
}
