package events_test

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

func TestEnsureTopics(t *testing.T) {
	broker := testkit.Broker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	for range 2 { // the second call finds everything there
		if err := events.EnsureTopics(ctx, events.Plain(broker.Addrs()...), 4, events.TopicBusiness, events.TopicLedger); err != nil {
			t.Fatalf("EnsureTopics: %v", err)
		}
	}
	client := &kafka.Client{Addr: kafka.TCP(broker.Addrs()...)}
	want := []string{"acct.business.v1", "acct.business.v1.dlq", "acct.ledger.v1", "acct.ledger.v1.dlq"}
	meta, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: want})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tp := range meta.Topics {
		if tp.Error != nil {
			t.Errorf("topic %s: %v", tp.Name, tp.Error)
			continue
		}
		if len(tp.Partitions) != 4 {
			t.Errorf("topic %s has %d partitions, want 4", tp.Name, len(tp.Partitions))
		}
		got = append(got, tp.Name)
	}
	sort.Strings(got)
	if len(got) != len(want) {
		t.Fatalf("topics = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("topics = %v, want %v", got, want)
		}
	}
	// Every topic, DLQ twins included, has its retention set explicitly
	// (not inherited from whatever the broker's default is).
	for _, name := range want {
		if got, explicit := topicConfig(t, client, name, "retention.ms"); got != "604800000" || !explicit {
			t.Errorf("topic %s retention.ms = %q (set on the topic: %v), want 604800000 (7 days) set on the topic", name, got, explicit)
		}
	}
	if err := events.Reachable(ctx, events.Plain(broker.Addrs()...)); err != nil {
		t.Errorf("Reachable: %v", err)
	}

	// A configured retention and replication factor are applied.
	opts := events.TopicOptions{Partitions: 2, Retention: 36 * time.Hour, ReplicationFactor: 1}
	if err := events.EnsureTopicsWith(ctx, events.Plain(broker.Addrs()...), opts, "acct.custom.v1"); err != nil {
		t.Fatalf("EnsureTopicsWith: %v", err)
	}
	for _, name := range []string{"acct.custom.v1", "acct.custom.v1.dlq"} {
		if got, _ := topicConfig(t, client, name, "retention.ms"); got != "129600000" {
			t.Errorf("topic %s retention.ms = %q, want 129600000 (36 h)", name, got)
		}
	}

	bad := []struct {
		name       string
		brokers    []string
		partitions int
		retention  time.Duration
	}{
		{"no brokers", nil, 1, 0},
		{"zero partitions", broker.Addrs(), 0, 0},
		{"negative retention", broker.Addrs(), 1, -time.Hour},
		{"retention under a millisecond", broker.Addrs(), 1, time.Microsecond},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			opts := events.TopicOptions{Partitions: tc.partitions, Retention: tc.retention}
			if err := events.EnsureTopicsWith(ctx, events.Plain(tc.brokers...), opts, "x"); err == nil {
				t.Fatal("want error")
			}
		})
	}

	broker.Stop()
	if err := events.Reachable(ctx, events.Plain(broker.Addrs()...)); err == nil {
		t.Error("Reachable with the broker stopped: want error")
	}
}

// topicLevelConfig is the DescribeConfigs source of a value set on the topic
// itself (DYNAMIC_TOPIC_CONFIG), as opposed to a broker default.
const topicLevelConfig = 1

// topicConfig is the value of one configuration entry of a topic as the
// broker describes it, and whether it was set on the topic.
func topicConfig(t *testing.T, client *kafka.Client, topic, name string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := client.DescribeConfigs(ctx, &kafka.DescribeConfigsRequest{
		Resources: []kafka.DescribeConfigRequestResource{{
			ResourceType: kafka.ResourceTypeTopic, ResourceName: topic, ConfigNames: []string{name},
		}},
	})
	if err != nil {
		t.Fatalf("describe %s: %v", topic, err)
	}
	for _, r := range resp.Resources {
		if r.Error != nil {
			t.Fatalf("describe %s: %v", topic, r.Error)
		}
		for _, e := range r.ConfigEntries {
			if e.ConfigName == name {
				return e.ConfigValue, e.ConfigSource == topicLevelConfig
			}
		}
	}
	return "", false
}
