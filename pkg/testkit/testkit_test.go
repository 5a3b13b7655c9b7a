package testkit_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/segmentio/kafka-go"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

func openSQL(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	t.Cleanup(func() { db.Close() })
	return db
}

func TestNewDatabaseIsolatedAndDropped(t *testing.T) {
	ctx := context.Background()
	var firstURL string
	t.Run("create", func(t *testing.T) {
		firstURL = testkit.NewDatabase(t)
		second := testkit.NewDatabase(t)
		if firstURL == second {
			t.Fatalf("two calls returned the same database %s", firstURL)
		}
		a, b := openSQL(t, firstURL), openSQL(t, second)
		if _, err := a.ExecContext(ctx, "CREATE TABLE only_here (id int PRIMARY KEY)"); err != nil {
			t.Fatalf("create table: %v", err)
		}
		var n int
		if err := b.QueryRowContext(ctx,
			"SELECT count(*) FROM information_schema.tables WHERE table_name = 'only_here'").Scan(&n); err != nil {
			t.Fatalf("query: %v", err)
		}
		if n != 0 {
			t.Fatalf("table leaked into the other database")
		}
		var enc string
		if err := a.QueryRowContext(ctx, "SHOW server_encoding").Scan(&enc); err != nil || enc != "UTF8" {
			t.Fatalf("server_encoding = %q, %v; want UTF8", enc, err)
		}
	})

	// The subtest's cleanup dropped its databases.
	u, err := url.Parse(firstURL)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	admin := openSQL(t, u.String())
	var exists bool
	if err := admin.QueryRowContext(ctx,
		"SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		t.Fatalf("query pg_database: %v", err)
	}
	if exists {
		t.Fatalf("database %s still exists after cleanup", name)
	}
	if !strings.HasPrefix(name, "t_") {
		t.Fatalf("database name %q does not start with t_", name)
	}
}

func TestBrokerSurvivesRestart(t *testing.T) {
	const topic = "testkit.restart.v1"
	b := testkit.Broker(t, topic)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	w := &kafka.Writer{
		Addr:         kafka.TCP(b.Addrs()...),
		Topic:        topic,
		Balancer:     &kafka.Hash{},
		RequiredAcks: kafka.RequireAll,
		BatchTimeout: 5 * time.Millisecond,
	}
	defer w.Close()
	write := func(from, to int) {
		t.Helper()
		msgs := make([]kafka.Message, 0, to-from)
		for i := from; i < to; i++ {
			msgs = append(msgs, kafka.Message{Key: []byte(fmt.Sprintf("k%d", i%7)), Value: []byte(strconv.Itoa(i))})
		}
		if err := w.WriteMessages(ctx, msgs...); err != nil {
			t.Fatalf("write %d..%d: %v", from, to, err)
		}
	}
	write(0, 50)

	b.Stop()
	b.Restart()

	// The dead-letter twin exists after restart too.
	conn, err := kafka.DialContext(ctx, "tcp", b.Addrs()[0])
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	parts, err := conn.ReadPartitions(topic, topic+testkit.DLQSuffix)
	conn.Close()
	if err != nil {
		t.Fatalf("read partitions: %v", err)
	}
	if len(parts) != 2*testkit.DefaultPartitions {
		t.Fatalf("got %d partitions, want %d", len(parts), 2*testkit.DefaultPartitions)
	}

	// The same writer reconnects to the restarted broker.
	write(50, 60)

	seen := consume(ctx, t, b, topic, "g1", 40)
	// Commits survive a restart: the group resumes after what it committed.
	b.Stop()
	b.Restart()
	for k := range consume(ctx, t, b, topic, "g1", 20) {
		if seen[k] {
			t.Fatalf("message %s delivered again after committed restart", k)
		}
		seen[k] = true
	}
	for i := 0; i < 60; i++ {
		if !seen[strconv.Itoa(i)] {
			t.Fatalf("message %d lost", i)
		}
	}
}

// consume reads n messages with group g, committing each.
func consume(ctx context.Context, t *testing.T, b *testkit.BrokerHandle, topic, g string, n int) map[string]bool {
	t.Helper()
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers:     b.Addrs(),
		GroupID:     g,
		Topic:       topic,
		StartOffset: kafka.FirstOffset,
		MaxWait:     100 * time.Millisecond,
	})
	defer r.Close()
	got := map[string]bool{}
	for len(got) < n {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			t.Fatalf("fetch after %d messages: %v", len(got), err)
		}
		if got[string(m.Value)] {
			t.Fatalf("duplicate message %s", m.Value)
		}
		got[string(m.Value)] = true
		if err := r.CommitMessages(ctx, m); err != nil {
			t.Fatalf("commit: %v", err)
		}
	}
	return got
}

func TestStartBrokerAdvertisesAnotherAddress(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()

	advertised := net.JoinHostPort("localhost", strconv.Itoa(port))
	c, err := testkit.StartBroker(testkit.BrokerConfig{
		Listen:    net.JoinHostPort("0.0.0.0", strconv.Itoa(port)),
		Advertise: advertised,
		Topics:    []string{"adv.v1"},
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	defer c.Close()

	conn, err := kafka.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer conn.Close()
	brokers, err := conn.Brokers()
	if err != nil {
		t.Fatalf("metadata: %v", err)
	}
	if len(brokers) != 1 || brokers[0].Host != "localhost" || brokers[0].Port != port {
		t.Fatalf("brokers = %+v, want localhost:%d", brokers, port)
	}
}

func TestStartBrokerRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  testkit.BrokerConfig
	}{
		{"no port", testkit.BrokerConfig{Listen: "127.0.0.1"}},
		{"bad port", testkit.BrokerConfig{Listen: "127.0.0.1:x"}},
		{"bad advertise", testkit.BrokerConfig{Listen: "127.0.0.1:0", Advertise: "nohost"}},
		{"wildcard without advertise", testkit.BrokerConfig{Listen: "0.0.0.0:0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := testkit.StartBroker(tt.cfg)
			if err == nil {
				c.Close()
				t.Fatalf("StartBroker(%+v) succeeded, want error", tt.cfg)
			}
		})
	}
}

func TestServe(t *testing.T) {
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/ping", func(c *fiber.Ctx) error { return c.SendString("pong") })
	base := testkit.Serve(t, app)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("base url %q", base)
	}
	resp, err := http.Get(base + "/ping")
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(body) != "pong" {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
}

func TestDBMigrates(t *testing.T) {
	set := pgdb.MigrationSet{Name: "kit", FS: fstest.MapFS{
		"20260101000001_a.up.sql": &fstest.MapFile{Data: []byte("CREATE TABLE a (id int);")},
	}}
	db := testkit.DB(t, "kit", set)
	var schema string
	if err := db.QueryRowContext(context.Background(),
		"SELECT table_schema FROM information_schema.tables WHERE table_name = 'a'").Scan(&schema); err != nil {
		t.Fatalf("table a: %v", err)
	}
	if schema != "kit" {
		t.Fatalf("table a in schema %q, want kit", schema)
	}
}
