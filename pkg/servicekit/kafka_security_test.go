package servicekit_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"

	pkgconfig "github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/testkit"
)

// TestKafkaOverTLSAndSASL runs a service against a broker that listens
// with TLS and requires SCRAM-SHA-512: with a wrong password the service
// still takes writes (they wait in its outbox) while /readyz fails and the
// log says why; started again with the right password it becomes ready,
// creates its topics, and publishes everything, the waiting write
// included; a consumer with the same settings reads it all.
func TestKafkaOverTLSAndSASL(t *testing.T) {
	certs := testkit.NewTLS(t)
	broker := testkit.SecureBroker(t, certs.Server, []testkit.SASLUser{{Mechanism: "SCRAM-SHA-512", User: "widgets", Password: "right-password"}})
	db := testkit.NewDatabase(t)
	env := func(password string) map[string]string {
		return map[string]string{
			"DATABASE_URL":         db,
			"KAFKA_TLS_CA_FILE":    certs.CAFile,
			"KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
			"KAFKA_SASL_USERNAME":  "widgets",
			"KAFKA_SASL_PASSWORD":  password,
		}
	}
	var created []string
	create := func(t *testing.T, svc *servicetest.Service, bid uuid.UUID, name string) {
		t.Helper()
		code, body := call(t, "POST", svc.URL+"/v1/businesses/"+bid.String()+"/widgets", svc.Tokens.Platform(t, "owner"), `{"name":"`+name+`"}`)
		if code != 201 {
			t.Fatalf("create %s: %d %v", name, code, body)
		}
		created = append(created, name)
	}

	var bid uuid.UUID
	t.Run("wrong password", func(t *testing.T) {
		logs := &testkit.SyncBuffer{}
		svc := servicetest.StartService(t, buildWidgets, servicetest.ServiceOptions{Env: env("wrong-password"), Broker: broker,
			Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})), Unflushed: true})
		bid = svc.SeedBusiness(t, "owner")
		create(t, svc, bid, "while-refused")
		code, body := call(t, "GET", svc.URL+"/readyz", "", "")
		if code != 503 || !strings.Contains(strings.Join(failedChecks(body), ","), "broker") {
			t.Fatalf("readyz with a wrong password: %d %v, want 503 naming the broker", code, body)
		}
		waitFor(t, "a log line saying why the broker is not ready", func() bool {
			for _, line := range strings.Split(logs.String(), "\n") {
				if strings.Contains(line, `"check":"broker"`) && strings.Contains(strings.ToLower(line), "sasl") {
					return true
				}
			}
			return false
		})
	})

	t.Run("right password", func(t *testing.T) {
		svc := servicetest.StartService(t, buildWidgets, servicetest.ServiceOptions{Env: env("right-password"), Broker: broker})
		waitFor(t, "ready", func() bool { code, _ := call(t, "GET", svc.URL+"/readyz", "", ""); return code == 200 })
		create(t, svc, bid, "after-restore")

		conn := kafkaConnOf(t, svc)
		got := readNames(t, conn, len(created))
		if strings.Join(got, ",") != strings.Join(created, ",") {
			t.Fatalf("published %v, want %v (none lost)", got, created)
		}
		// Without credentials the broker refuses the same reader.
		if err := events.Reachable(context.Background(), events.Conn{Brokers: conn.Brokers, TLS: conn.TLS}); err == nil {
			t.Fatal("the broker answered a client without SASL credentials")
		}
	})
}

func failedChecks(body map[string]any) []string {
	meta, _ := body["meta"].(map[string]any)
	list, _ := meta["failed_checks"].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// buildWidgets is the widgets service configured from env.
func buildWidgets(env map[string]string) (servicekit.Definition, error) {
	var cfg widgetsConfig
	if err := pkgconfig.LoadFrom(&cfg, env); err != nil {
		return servicekit.Definition{}, err
	}
	return (&widgets{}).definition(&cfg), nil
}

// kafkaConnOf is the Kafka connection a service's environment configures.
func kafkaConnOf(t *testing.T, svc *servicetest.Service) events.Conn {
	t.Helper()
	var k pkgconfig.Kafka
	if err := pkgconfig.LoadFrom(&k, svc.Env); err != nil {
		t.Fatal(err)
	}
	conn, err := events.Connect(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// readNames reads n widget events from the start of the topic over conn.
func readNames(t *testing.T, conn events.Conn, n int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: conn.Brokers, Dialer: conn.Dialer(10 * time.Second), GroupID: "test-" + uuid.NewString(),
		Topic: topicWidgets, MaxWait: 100 * time.Millisecond, StartOffset: kafka.FirstOffset})
	defer r.Close()
	var names []string
	for len(names) < n {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			t.Fatalf("read %s after %v: %v", topicWidgets, names, err)
		}
		e, err := events.FromMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		var data struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(e.Data, &data); err != nil {
			t.Fatal(errors.Join(err, errors.New(string(e.Data))))
		}
		names = append(names, data.Name)
	}
	return names
}
