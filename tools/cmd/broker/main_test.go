package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		check   func(t *testing.T, c brokerConfig)
		wantErr string
	}{
		{
			name: "defaults advertise loopback for the wildcard listener",
			check: func(t *testing.T, c brokerConfig) {
				if c.Listen != "0.0.0.0:9092" || c.Advertise != "127.0.0.1:9092" || c.HealthAddr != ":9093" || c.Partitions != 3 || len(c.Topics) != 0 {
					t.Fatalf("defaults: %+v", c)
				}
			},
		},
		{
			name: "environment as the e2e container sets it",
			env:  map[string]string{"BROKER_ADVERTISE": "kafka:9092", "BROKER_TOPICS": "acct.business.v1, acct.ledger.v1,", "BROKER_DATA_DIR": "/data"},
			check: func(t *testing.T, c brokerConfig) {
				if c.Advertise != "kafka:9092" || c.DataDir != "/data" || strings.Join(c.Topics, "|") != "acct.business.v1|acct.ledger.v1" {
					t.Fatalf("config: %+v", c)
				}
			},
		},
		{
			name: "flags override the environment",
			env:  map[string]string{"BROKER_LISTEN": "0.0.0.0:1111"},
			args: []string{"-listen", "127.0.0.1:2222", "-partitions", "6", "-topics", "a"},
			check: func(t *testing.T, c brokerConfig) {
				if c.Listen != "127.0.0.1:2222" || c.Advertise != "127.0.0.1:2222" || c.Partitions != 6 || strings.Join(c.Topics, ",") != "a" {
					t.Fatalf("config: %+v", c)
				}
			},
		},
		{name: "bad listen address", env: map[string]string{"BROKER_LISTEN": "nope"}, wantErr: "BROKER_LISTEN"},
		{name: "bad advertised address", env: map[string]string{"BROKER_ADVERTISE": "kafka"}, wantErr: "BROKER_ADVERTISE"},
		{name: "bad health address", env: map[string]string{"BROKER_HEALTH_ADDR": "9093"}, wantErr: "BROKER_HEALTH_ADDR"},
		{name: "no partitions", env: map[string]string{"BROKER_PARTITIONS": "0"}, wantErr: "BROKER_PARTITIONS"},
		{name: "bad log level", env: map[string]string{"LOG_LEVEL": "loud"}, wantErr: "LOG_LEVEL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"BROKER_LISTEN", "BROKER_ADVERTISE", "BROKER_DATA_DIR", "BROKER_TOPICS", "BROKER_PARTITIONS", "BROKER_HEALTH_ADDR", "LOG_LEVEL"} {
				t.Setenv(k, tt.env[k])
			}
			cfg, err := loadConfig(tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to mention %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("loadConfig: %v", err)
			}
			tt.check(t, cfg)
		})
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestRunServesKafkaAndHealth runs the broker as the container does (wildcard
// bind, explicit advertised address, data dir) and talks to it with a real
// Kafka client.
func TestRunServesKafkaAndHealth(t *testing.T) {
	brokerAddr := freeAddr(t)
	_, port, _ := net.SplitHostPort(brokerAddr)
	cfg := brokerConfig{
		Listen:     net.JoinHostPort("0.0.0.0", port),
		Advertise:  brokerAddr,
		DataDir:    t.TempDir(),
		Topics:     []string{"acct.business.v1"},
		Partitions: 2,
		HealthAddr: freeAddr(t),
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("broker did not stop within 10s of cancellation")
		}
	})

	health := "http://" + cfg.HealthAddr + "/healthz"
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(health)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(body), `"ok"`) {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s never answered 200 (last error %v)", health, err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	client, err := kgo.NewClient(kgo.SeedBrokers(brokerAddr), kgo.ConsumeTopics("acct.business.v1"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	reqCtx, reqCancel := context.WithTimeout(ctx, 10*time.Second)
	defer reqCancel()

	meta, err := kmsg.NewPtrMetadataRequest().RequestWith(reqCtx, client)
	if err != nil {
		t.Fatalf("metadata: %v", err)
	}
	if len(meta.Brokers) != 1 || meta.Brokers[0].Host+":"+strconv.Itoa(int(meta.Brokers[0].Port)) != brokerAddr {
		t.Fatalf("advertised brokers = %+v, want %s", meta.Brokers, brokerAddr)
	}
	partitions := map[string]int{}
	for _, tp := range meta.Topics {
		partitions[*tp.Topic] = len(tp.Partitions)
	}
	for _, topic := range []string{"acct.business.v1", "acct.business.v1.dlq"} {
		if partitions[topic] != 2 {
			t.Errorf("topic %s has %d partitions, want 2 (topics: %v)", topic, partitions[topic], partitions)
		}
	}

	if err := client.ProduceSync(reqCtx, &kgo.Record{Topic: "acct.business.v1", Key: []byte("b1"), Value: []byte("hello")}).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	fetches := client.PollFetches(reqCtx)
	if errs := fetches.Errors(); len(errs) > 0 {
		t.Fatalf("fetch: %v", errs)
	}
	records := fetches.Records()
	if len(records) != 1 || string(records[0].Value) != "hello" {
		t.Fatalf("consumed %d records, want the produced one", len(records))
	}
}
