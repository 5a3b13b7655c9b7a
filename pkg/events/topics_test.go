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
		if err := events.EnsureTopics(ctx, broker.Addrs(), 4, events.TopicBusiness, events.TopicLedger); err != nil {
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
	if err := events.Reachable(ctx, broker.Addrs()); err != nil {
		t.Errorf("Reachable: %v", err)
	}

	bad := []struct {
		name       string
		brokers    []string
		partitions int
	}{
		{"no brokers", nil, 1},
		{"zero partitions", broker.Addrs(), 0},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if err := events.EnsureTopics(ctx, tc.brokers, tc.partitions, "x"); err == nil {
				t.Fatal("want error")
			}
		})
	}

	broker.Stop()
	if err := events.Reachable(ctx, broker.Addrs()); err == nil {
		t.Error("Reachable with the broker stopped: want error")
	}
}
