package servicekit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/acctsuite/acct/pkg/httpauth"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"
	"github.com/uptrace/bun"

	pkgconfig "github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/telemetry"
	"github.com/acctsuite/acct/pkg/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

const topicWidgets = "acct.widgets.v1"

// widgetsConfig is a service configuration as every service writes it.
type widgetsConfig struct {
	Base servicekit.Base
	Data servicekit.Data
	Auth servicekit.Auth
}

var widgetMigrations = pgdb.Embedded("widgets", fstest.MapFS{
	"m/20260101000001_widgets.up.sql": {Data: []byte(
		"CREATE TABLE widgets (id uuid PRIMARY KEY, business_id uuid NOT NULL, name text NOT NULL);")},
	"m/20260101000001_widgets.down.sql": {Data: []byte("DROP TABLE widgets;")},
}, "m")

const widgetsOpenAPI = `openapi: 3.0.3
info: {title: widgets, version: "1"}
paths: {}
`

// widgets is a minimal service on the kit: one creating route that writes a
// row and an event in one transaction, the business projection, and a
// handler of its own on the business topic.
type widgets struct {
	businessEvents atomic.Int64
	// broken makes the business handler fail for every event (a bug that
	// dead-letters them until it is fixed).
	broken     atomic.Bool
	started    atomic.Bool
	background atomic.Bool
}

func (w *widgets) definition(cfg *widgetsConfig) servicekit.Definition {
	return servicekit.Definition{
		Name: "widgets", Base: &cfg.Base, Data: &cfg.Data, Auth: &cfg.Auth,
		Migrations: []pgdb.MigrationSet{widgetMigrations},
		Produces:   []string{topicWidgets},
		Businesses: true,
		OpenAPI:    []byte(widgetsOpenAPI),
		Setup: func(ctx context.Context, k *servicekit.Kit) error {
			k.Consume(events.TopicBusiness, func(ctx context.Context, tx bun.Tx, e events.Event) error {
				if w.broken.Load() {
					return errors.New("handler bug")
				}
				w.businessEvents.Add(1)
				return nil
			})
			k.OnStart(func(context.Context) error { w.started.Store(true); return nil })
			k.Go(func(ctx context.Context) { w.background.Store(true); <-ctx.Done() })
			k.App().Post("/v1/businesses/:businessId/widgets", k.Authenticate(), k.RequireBusiness(), k.Idempotency(),
				func(c *fiber.Ctx) error {
					var body struct {
						Name string `json:"name"`
					}
					if err := httpx.BindJSON(c, &body); err != nil {
						return err
					}
					bid, _ := httpauth.BusinessIDFrom(c)
					id := uuid.Must(uuid.NewV7())
					err := k.DB().RunInTx(c.UserContext(), nil, func(ctx context.Context, tx bun.Tx) error {
						if _, err := tx.ExecContext(ctx, "INSERT INTO widgets VALUES (?, ?, ?)", id, bid, body.Name); err != nil {
							return err
						}
						e, err := events.New(topicWidgets, "widget.created", k.Name(), bid, map[string]string{"id": id.String(), "name": body.Name})
						if err != nil {
							return err
						}
						return outbox.Enqueue(ctx, tx, e)
					})
					if err != nil {
						return err
					}
					return c.Status(fiber.StatusCreated).JSON(fiber.Map{"data": fiber.Map{"id": id}})
				})
			return nil
		},
		Commands: map[string]servicekit.Command{
			"count": func(ctx context.Context, k *servicekit.Kit, args []string, out io.Writer) error {
				var n int
				if err := k.DB().NewRaw("SELECT count(*) FROM widgets").Scan(ctx, &n); err != nil {
					return err
				}
				_, err := fmt.Fprintf(out, "%d %s\n", n, strings.Join(args, ","))
				return err
			},
		},
	}
}

func startWidgets(t *testing.T, env map[string]string) (*widgets, *servicetest.Service) {
	t.Helper()
	w := &widgets{}
	svc := servicetest.StartService(t, func(env map[string]string) (servicekit.Definition, error) {
		var cfg widgetsConfig
		if err := pkgconfig.LoadFrom(&cfg, env); err != nil {
			return servicekit.Definition{}, err
		}
		return w.definition(&cfg), nil
	}, servicetest.ServiceOptions{Env: env})
	return w, svc
}

func call(t *testing.T, method, url, token, body string, header ...string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

func TestServiceLifecycle(t *testing.T) {
	w, svc := startWidgets(t, nil)
	if !w.started.Load() {
		t.Fatal("OnStart did not run before serving")
	}

	// Health, readiness with database and broker, OpenAPI and metrics.
	if code, body := call(t, "GET", svc.URL+"/readyz", "", ""); code != 200 {
		t.Fatalf("readyz: %d %v", code, body)
	}
	if code, body := call(t, "GET", svc.URL+"/openapi.json", "", ""); code != 200 || body["openapi"] != "3.0.3" {
		t.Fatalf("openapi.json: %d %v", code, body)
	}
	if code, _ := call(t, "GET", svc.URL+"/metrics", "", ""); code != 200 {
		t.Fatalf("metrics on the public listener without ADMIN_ADDR: %d", code)
	}
	if code, body := call(t, "GET", svc.URL+"/nope", "", ""); code != 404 || body["error_enum"] == nil {
		t.Fatalf("unknown route after Finish: %d %v", code, body)
	}

	// Tenancy from the business projection: the owner reaches it, another
	// client gets 404.
	bid := svc.SeedBusiness(t, "owner")
	url := svc.URL + "/v1/businesses/" + bid.String() + "/widgets"
	if code, body := call(t, "POST", url, svc.Tokens.Platform(t, "other"), `{"name":"x"}`); code != 404 {
		t.Fatalf("foreign business: %d %v", code, body)
	}
	if code, _ := call(t, "POST", url, "", `{"name":"x"}`); code != 401 {
		t.Fatalf("no token: %d", code)
	}
	token := svc.Tokens.Platform(t, "owner")
	code, first := call(t, "POST", url, token, `{"name":"gear"}`, "Idempotency-Key", "k1")
	if code != 201 {
		t.Fatalf("create: %d %v", code, first)
	}
	// Idempotency middleware is wired: the same key replays the first answer.
	code, again := call(t, "POST", url, token, `{"name":"gear"}`, "Idempotency-Key", "k1")
	if code != 201 || fmt.Sprint(again["data"]) != fmt.Sprint(first["data"]) {
		t.Fatalf("replay: %d %v vs %v", code, again, first)
	}

	// A business token's keys are its business's own: the platform's "k1"
	// is not replayed to it, and a token of another of the platform's
	// businesses has its own "k1" again.
	code, byBusiness := call(t, "POST", url, svc.Tokens.Business(t, "owner", bid), `{"name":"gear"}`, "Idempotency-Key", "k1")
	if code != 201 || fmt.Sprint(byBusiness["data"]) == fmt.Sprint(first["data"]) {
		t.Fatalf("business token's k1: %d %v, want a new widget (not %v)", code, byBusiness, first["data"])
	}
	code, byBusinessAgain := call(t, "POST", url, svc.Tokens.Business(t, "owner", bid), `{"name":"gear"}`, "Idempotency-Key", "k1")
	if code != 201 || fmt.Sprint(byBusinessAgain["data"]) != fmt.Sprint(byBusiness["data"]) {
		t.Fatalf("business token's k1 again: %d %v, want %v replayed", code, byBusinessAgain, byBusiness["data"])
	}

	// The event reaches the broker through the outbox relay; topics were
	// created at start.
	got := readEvent(t, svc, topicWidgets)
	if got.Subject != bid.String() || got.Type != "widget.created" || got.Source != "widgets" {
		t.Fatalf("event: %+v", got)
	}

	// A business.created published by auth-tokens reaches both the
	// projection and the service's own handler.
	published := publishBusiness(t, svc, "late-client")
	waitFor(t, "business projection", func() bool {
		_, found, err := svc.Kit.Businesses().OwnerOf(context.Background(), published)
		return err == nil && found
	})
	waitFor(t, "service handler on the business topic", func() bool { return w.businessEvents.Load() >= 1 })
	if !w.background.Load() {
		t.Fatal("background work did not run")
	}

	// The consumer's freshness and lag, per topic, on /metrics.
	waitFor(t, "consumer metrics", func() bool {
		resp, err := http.Get(svc.URL + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return bytes.Contains(raw, []byte(`consumer_lag_messages{topic="acct.business.v1"} 0`)) &&
			bytes.Contains(raw, []byte(`consumer_events_applied_total{topic="acct.business.v1"}`)) &&
			bytes.Contains(raw, []byte(`consumer_last_applied_event_timestamp_seconds{topic="acct.business.v1"}`))
	})
	st := svc.Kit.ConsumerStats().Snapshot()
	if len(st) != 1 || st[0].Topic != events.TopicBusiness || st[0].Applied < 1 || st[0].LastEventTime.IsZero() {
		t.Fatalf("consumer stats = %+v", st)
	}
}

// readEvent reads the first event of topic over every partition.
func readEvent(t *testing.T, svc *servicetest.Service, topic string) events.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: svc.Broker.Addrs(), GroupID: "test-" + uuid.NewString(), Topic: topic,
		MaxWait: 100 * time.Millisecond, StartOffset: kafka.FirstOffset})
	defer r.Close()
	m, err := r.FetchMessage(ctx)
	if err != nil {
		t.Fatalf("read %s: %v", topic, err)
	}
	e, err := events.FromMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func publishBusiness(t *testing.T, svc *servicetest.Service, clientID string) uuid.UUID {
	t.Helper()
	now := time.Now().UTC()
	b := events.Business{ID: uuid.Must(uuid.NewV7()), ClientID: clientID, LegalName: "Late LLC", Country: "US",
		DefaultReportingBasis: "ACCRUAL", CreatedAt: now, UpdatedAt: now}
	e, err := events.New(events.TopicBusiness, events.TypeBusinessCreated, "auth-tokens", b.ID, b)
	if err != nil {
		t.Fatal(err)
	}
	wr := &kafka.Writer{Addr: kafka.TCP(svc.Broker.Addrs()...), Balancer: &kafka.Hash{}, BatchTimeout: 5 * time.Millisecond}
	defer wr.Close()
	if err := wr.WriteMessages(context.Background(), events.ToMessage(e)); err != nil {
		t.Fatal(err)
	}
	return b.ID
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestReadinessNamesTheBrokerWhenItIsDown(t *testing.T) {
	_, svc := startWidgets(t, nil)
	svc.Broker.Stop()
	code, body := call(t, "GET", svc.URL+"/readyz", "", "")
	if code != 503 {
		t.Fatalf("readyz with the broker down: %d %v", code, body)
	}
	meta, _ := body["meta"].(map[string]any)
	if fmt.Sprint(meta["failed_checks"]) != "[broker]" {
		t.Fatalf("failed checks: %v", body)
	}
	svc.Broker.Restart()
	waitFor(t, "ready again", func() bool { c, _ := call(t, "GET", svc.URL+"/readyz", "", ""); return c == 200 })
}

func TestMetricsMoveToTheAdminListener(t *testing.T) {
	admin := freeAddr(t)
	_, svc := startWidgets(t, map[string]string{"ADMIN_ADDR": admin})
	if code, _ := call(t, "GET", svc.URL+"/metrics", "", ""); code != 404 {
		t.Fatalf("public /metrics with ADMIN_ADDR: %d, want 404", code)
	}
	resp, err := http.Get("http://" + admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(raw, []byte("go_goroutines")) || !bytes.Contains(raw, []byte("outbox_relay_leading 1")) {
		t.Fatalf("admin /metrics: %d %.200s", resp.StatusCode, raw)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// stoppingService runs the widgets service with shutdown after timeout,
// stops the broker and creates five widgets (five events pending), then
// cancels the service's context: a SIGTERM.
func stoppingService(t *testing.T, timeout string) (k *servicekit.Kit, broker *testkit.BrokerHandle, done chan error) {
	t.Helper()
	var cfg widgetsConfig
	broker = testkit.Broker(t)
	tokens := servicetest.NewTokens(t)
	env := map[string]string{"DATABASE_URL": testkit.NewDatabase(t), "KAFKA_BROKERS": broker.Addrs()[0],
		"JWKS_URL": tokens.JWKSURL, "PAGE_CURSOR_SECRET": "s", "SHUTDOWN_TIMEOUT": timeout}
	if err := pkgconfig.LoadFrom(&cfg, env); err != nil {
		t.Fatal(err)
	}
	w := &widgets{}
	k, err := servicekit.New(context.Background(), w.definition(&cfg), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done = make(chan error, 1)
	go func() { done <- k.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String()
	waitFor(t, "serving", func() bool { c, _ := call(t, "GET", url+"/healthz", "", ""); return c == 200 })

	bid := uuid.Must(uuid.NewV7())
	err = k.DB().RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO businesses (id, client_id, legal_name, country, default_reporting_basis, created_at, updated_at, last_event_time)
			VALUES (?, 'owner', 'B', 'US', 'ACCRUAL', now(), now(), now())`, bid)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	broker.Stop()
	for i := range 5 {
		if code, body := call(t, "POST", fmt.Sprintf("%s/v1/businesses/%s/widgets", url, bid), tokens.Platform(t, "owner"), fmt.Sprintf(`{"name":"w%d"}`, i)); code != 201 {
			t.Fatalf("create while the broker is down: %d %v", code, body)
		}
	}
	if n, err := k.Relay().Pending(context.Background()); err != nil || n != 5 {
		t.Fatalf("pending with the broker down: %d %v", n, err)
	}
	cancel() // SIGTERM
	return k, broker, done
}

// The outbox is flushed on stop: events committed while the broker was away
// are published once it is back and the service is stopping.
func TestStopFlushesTheOutbox(t *testing.T) {
	k, broker, done := stoppingService(t, "20s")
	time.Sleep(500 * time.Millisecond)
	broker.Restart()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("stop: %v", err)
		}
	case <-time.After(40 * time.Second):
		t.Fatal("service did not stop")
	}
	if n, err := k.Relay().Pending(context.Background()); err != nil || n != 0 {
		t.Fatalf("pending after a graceful stop: %d %v", n, err)
	}
}

// A stop cannot wait for ever: when the flush runs out of SHUTDOWN_TIMEOUT
// (here the broker never comes back), the service stops, says the events
// stay in the outbox, and they do.
func TestStopKeepsWhatItCannotFlush(t *testing.T) {
	k, _, done := stoppingService(t, "1s")
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "stay in the outbox for the next relay") {
			t.Fatalf("stop = %v, want the flush's deadline named", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("service did not stop")
	}
	if n, err := k.Relay().Pending(context.Background()); err != nil || n != 5 {
		t.Fatalf("pending after a stop that could not flush: %d %v, want the 5 events kept", n, err)
	}
}

func TestExecuteCommands(t *testing.T) {
	broker := testkit.Broker(t)
	env := map[string]string{"DATABASE_URL": testkit.NewDatabase(t), "KAFKA_BROKERS": broker.Addrs()[0], "PAGE_CURSOR_SECRET": "s"}
	load := func() (servicekit.Definition, error) {
		var cfg widgetsConfig
		if err := pkgconfig.LoadFrom(&cfg, env); err != nil {
			return servicekit.Definition{}, err
		}
		return (&widgets{}).definition(&cfg), nil
	}
	ctx := context.Background()
	if err := servicekit.Execute(ctx, load, []string{"migrate"}, io.Discard); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	var out bytes.Buffer
	if err := servicekit.Execute(ctx, load, []string{"count", "a", "b"}, &out); err != nil {
		t.Fatalf("custom command: %v", err)
	}
	if out.String() != "0 a,b\n" {
		t.Fatalf("custom command printed %q", out.String())
	}
	err := servicekit.Execute(ctx, load, []string{"bogus"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "serve, migrate, dlq, count") {
		t.Fatalf("unknown command: %v", err)
	}
	bad := func() (servicekit.Definition, error) {
		return servicekit.Definition{}, errors.New("config: DATABASE_URL is required")
	}
	if err := servicekit.Execute(ctx, bad, nil, io.Discard); err == nil || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Fatalf("config error: %v", err)
	}
}

func TestMissingCursorSecretIsLoudAtStart(t *testing.T) {
	for _, secret := range []string{"", "shared-secret"} {
		var cfg widgetsConfig
		env := map[string]string{"DATABASE_URL": testkit.NewDatabase(t), "PAGE_CURSOR_SECRET": secret}
		if err := pkgconfig.LoadFrom(&cfg, env); err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		k, err := servicekit.New(context.Background(), (&widgets{}).definition(&cfg), telemetry.NewLogger(&logs, "widgets", "info"))
		if err != nil {
			t.Fatal(err)
		}
		k.Close()
		warned := strings.Contains(logs.String(), "PAGE_CURSOR_SECRET is not set")
		if warned != (secret == "") {
			t.Fatalf("secret %q: warning logged = %v: %s", secret, warned, logs.String())
		}
		if k.Cursors() == nil {
			t.Fatal("no cursor codec")
		}
	}
}

// A handler bug dead-letters an event; after the fix `dlq replay` delivers
// it again and it is applied exactly once.
func TestDLQReplayCommand(t *testing.T) {
	w, svc := startWidgets(t, nil)
	w.broken.Store(true)
	publishBusiness(t, svc, "dlq-client")
	waitFor(t, "the event dead-lettered", func() bool { return deadLetters(t, svc) == 1 })
	if w.businessEvents.Load() != 0 {
		t.Fatal("a failing handler counted the event")
	}
	w.broken.Store(false) // the fix
	load := func() (servicekit.Definition, error) {
		var cfg widgetsConfig
		if err := pkgconfig.LoadFrom(&cfg, svc.Env); err != nil {
			return servicekit.Definition{}, err
		}
		return (&widgets{}).definition(&cfg), nil
	}
	var out bytes.Buffer
	// count and list see the dead letter before the replay.
	if err := servicekit.Execute(context.Background(), load, []string{"dlq", "count"}, &out); err != nil || out.String() != "pending=1 replayed=0\n" {
		t.Fatalf("dlq count: %q %v", out.String(), err)
	}
	out.Reset()
	if err := servicekit.Execute(context.Background(), load, []string{"dlq", "count", "--topic", "no-such-topic"}, &out); err != nil || out.String() != "pending=0 replayed=0\n" {
		t.Fatalf("dlq count --topic: %q %v", out.String(), err)
	}
	out.Reset()
	if err := servicekit.Execute(context.Background(), load, []string{"dlq", "list"}, &out); err != nil ||
		strings.Count(out.String(), "\n") != 1 || !strings.Contains(out.String(), "topic="+events.TopicBusiness) || !strings.Contains(out.String(), "replayed_at=-") {
		t.Fatalf("dlq list: %q %v", out.String(), err)
	}
	out.Reset()
	if err := servicekit.Execute(context.Background(), load, []string{"dlq", "replay", "--topic", events.TopicBusiness}, &out); err != nil {
		t.Fatalf("dlq replay: %v", err)
	}
	if out.String() != "replayed 1 dead letters\n" {
		t.Fatalf("dlq replay printed %q", out.String())
	}
	waitFor(t, "the replayed event applied", func() bool { return w.businessEvents.Load() == 1 })
	out.Reset()
	if err := servicekit.Execute(context.Background(), load, []string{"dlq", "replay"}, &out); err != nil || out.String() != "replayed 0 dead letters\n" {
		t.Fatalf("second replay: %q %v", out.String(), err)
	}
	time.Sleep(time.Second)
	if n := w.businessEvents.Load(); n != 1 {
		t.Fatalf("event applied %d times", n)
	}
	out.Reset()
	if err := servicekit.Execute(context.Background(), load, []string{"dlq", "count"}, &out); err != nil || out.String() != "pending=0 replayed=1\n" {
		t.Fatalf("dlq count after the replay: %q %v", out.String(), err)
	}
	out.Reset()
	if err := servicekit.Execute(context.Background(), load, []string{"dlq", "list"}, &out); err != nil || out.String() != "" {
		t.Fatalf("dlq list after the replay: %q %v", out.String(), err)
	}
	out.Reset()
	if err := servicekit.Execute(context.Background(), load, []string{"dlq", "list", "--all"}, &out); err != nil || strings.Contains(out.String(), "replayed_at=-") || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("dlq list --all after the replay: %q %v", out.String(), err)
	}
	if err := servicekit.Execute(context.Background(), load, []string{"dlq", "count", "extra"}, io.Discard); err == nil {
		t.Fatal("dlq count accepted an extra argument")
	}
	if err := servicekit.Execute(context.Background(), load, []string{"dlq", "replay", "--event-id", "nope"}, io.Discard); err == nil {
		t.Fatal("a bad --event-id was accepted")
	}
}

func deadLetters(t *testing.T, svc *servicetest.Service) int {
	t.Helper()
	var n int
	if err := svc.Kit.DB().NewRaw("SELECT count(*) FROM dead_letters").Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLoader(t *testing.T) {
	built := 0
	load := servicekit.Loader(func() (widgetsConfig, error) { return widgetsConfig{}, nil },
		func(cfg widgetsConfig) (*widgets, servicekit.Definition) {
			built++
			return &widgets{}, servicekit.Definition{Name: "widgets"}
		})
	def, err := load()
	if err != nil || def.Name != "widgets" || built != 1 {
		t.Fatalf("Loader = %+v, %v (built %d)", def, err, built)
	}
	failing := servicekit.Loader(func() (widgetsConfig, error) { return widgetsConfig{}, errors.New("config: DATABASE_URL is required") },
		func(widgetsConfig) (*widgets, servicekit.Definition) {
			t.Fatal("built without a config")
			return nil, servicekit.Definition{}
		})
	if _, err := failing(); err == nil {
		t.Fatal("a config error was lost")
	}
}

func TestDataValidate(t *testing.T) {
	tests := []struct {
		name string
		d    servicekit.Data
		want string
	}{
		{"defaults", servicekit.Data{TopicPartitions: 3, BusinessCacheTTL: 5 * time.Second}, ""},
		{"cache off", servicekit.Data{TopicPartitions: 1}, ""},
		{"no partitions", servicekit.Data{TopicPartitions: 0}, "KAFKA_TOPIC_PARTITIONS"},
		{"negative idempotency timeout", servicekit.Data{TopicPartitions: 1, IdempotencyInProgressTimeout: -time.Second}, "IDEMPOTENCY_IN_PROGRESS_TIMEOUT"},
		{"negative cache ttl", servicekit.Data{TopicPartitions: 1, BusinessCacheTTL: -time.Second}, "BUSINESS_CACHE_TTL"},
		{"cache ttl over a minute", servicekit.Data{TopicPartitions: 1, BusinessCacheTTL: 2 * time.Minute}, "BUSINESS_CACHE_TTL"},
		{"consumer batches", servicekit.Data{TopicPartitions: 1, ConsumerBatchSize: 500}, ""},
		{"negative consumer batch", servicekit.Data{TopicPartitions: 1, ConsumerBatchSize: -1}, "CONSUMER_BATCH_SIZE"},
		{"consumer batch too large", servicekit.Data{TopicPartitions: 1, ConsumerBatchSize: 100_000}, "CONSUMER_BATCH_SIZE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.d.Validate()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
}
