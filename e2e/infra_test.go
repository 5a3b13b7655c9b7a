package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestInfrastructureImages proves the two infrastructure containers on their
// own, so a failure of the API scenarios is never a broken database or broker
// image: PostgreSQL accepts the configured user with its password only and
// keeps data across a stop/start, and the broker advertises its network alias
// and has created its topics.
func TestInfrastructureImages(t *testing.T) {
	cfg := loadSettings(os.Getenv)
	if cfg.BaseURL != "" {
		t.Skip("E2E_BASE_URL is set: the infrastructure belongs to that deployment, this suite starts no containers")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	nw, err := network.New(ctx)
	testcontainers.CleanupNetwork(t, nw)
	if err != nil {
		t.Fatalf("create network: %v", err)
	}

	t.Run("postgres", func(t *testing.T) {
		password := randomHex(t, 12)
		pg, err := startContainer(ctx, t, cfg, postgresAlias, cfg.PostgresImage, nw,
			testcontainers.WithEnv(map[string]string{"POSTGRES_USER": postgresUser, "POSTGRES_PASSWORD": password, "POSTGRES_DB": postgresDB}),
			testcontainers.WithExposedPorts(postgresPort),
			testcontainers.WithWaitStrategy(postgresWait(password)),
		)
		if err != nil {
			t.Fatal(err)
		}
		hostPort, err := pg.PortEndpoint(ctx, postgresPort, "")
		if err != nil {
			t.Fatal(err)
		}
		url := func(pw string) string {
			return fmt.Sprintf("postgres://%s:%s@%s/%s?sslmode=disable", postgresUser, pw, hostPort, postgresDB)
		}
		conn, err := pgx.Connect(ctx, url(password))
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		var user, db string
		if err := conn.QueryRow(ctx, "SELECT current_user, current_database()").Scan(&user, &db); err != nil {
			t.Fatal(err)
		}
		if user != postgresUser || db != postgresDB {
			t.Fatalf("connected as %s to %s, want %s to %s", user, db, postgresUser, postgresDB)
		}
		if _, err := conn.Exec(ctx, "CREATE TABLE survivor (v text); INSERT INTO survivor VALUES ('kept')"); err != nil {
			t.Fatal(err)
		}
		conn.Close(ctx)

		if bad, err := pgx.Connect(ctx, url("wrong-"+password)); err == nil {
			bad.Close(ctx)
			t.Fatal("a wrong password was accepted")
		} else if !strings.Contains(err.Error(), "password authentication failed") {
			t.Fatalf("wrong password: %v, want a password authentication failure", err)
		}

		timeout := stopTimeout
		start := time.Now()
		if err := pg.Stop(ctx, &timeout); err != nil {
			t.Fatal(err)
		}
		// A SIGTERM must reach the server and stop it fast, not wait for the kill timeout.
		if took := time.Since(start); took > timeout-time.Second {
			t.Errorf("stop took %s: the entrypoint did not forward SIGTERM", took)
		}
		if err := pg.Start(ctx); err != nil {
			t.Fatalf("restart: %v", err)
		}
		if hostPort, err = pg.PortEndpoint(ctx, postgresPort, ""); err != nil {
			t.Fatal(err)
		}
		conn, err = pgx.Connect(ctx, url(password))
		if err != nil {
			t.Fatalf("reconnect after restart: %v", err)
		}
		defer conn.Close(ctx)
		var v string
		if err := conn.QueryRow(ctx, "SELECT v FROM survivor").Scan(&v); err != nil || v != "kept" {
			t.Fatalf("data after restart: %q, %v", v, err)
		}
	})

	t.Run("broker", func(t *testing.T) {
		broker, err := startContainer(ctx, t, cfg, kafkaAlias, cfg.image("broker"), nw,
			testcontainers.WithEnv(map[string]string{
				"BROKER_ADVERTISE": brokerAdvertisedAddr,
				"BROKER_TOPICS":    "acct.business.v1",
			}),
			testcontainers.WithExposedPorts("9092/tcp", brokerHealthPort),
			testcontainers.WithWaitStrategy(wait.ForHTTP("/healthz").WithPort(brokerHealthPort).WithStartupTimeout(startupTimeout)),
		)
		if err != nil {
			t.Fatal(err)
		}
		health, err := broker.PortEndpoint(ctx, brokerHealthPort, "http")
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Get(health + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /healthz: %d", resp.StatusCode)
		}

		seed, err := broker.PortEndpoint(ctx, "9092/tcp", "")
		if err != nil {
			t.Fatal(err)
		}
		// The host reaches the seed through the mapped port; the metadata must
		// name the alias, which is what the other containers dial.
		client, err := kgo.NewClient(kgo.SeedBrokers(seed))
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		meta, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, client)
		if err != nil {
			t.Fatalf("metadata: %v", err)
		}
		if len(meta.Brokers) != 1 || fmt.Sprintf("%s:%d", meta.Brokers[0].Host, meta.Brokers[0].Port) != brokerAdvertisedAddr {
			t.Fatalf("advertised brokers %+v, want %s", meta.Brokers, brokerAdvertisedAddr)
		}
		topics := map[string]bool{}
		for _, tp := range meta.Topics {
			topics[*tp.Topic] = len(tp.Partitions) > 0
		}
		for _, want := range []string{"acct.business.v1", "acct.business.v1.dlq"} {
			if !topics[want] {
				t.Errorf("topic %s missing (have %v)", want, topics)
			}
		}
	})
}
