package servicekit_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/pgcluster"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/testkit"
)

// TestBehindTransactionPooler runs two replicas of a service whose
// DATABASE_URL is PgBouncer in transaction pooling mode and whose
// DATABASE_DIRECT_URL is the server: writes go through the pooler, and the
// outbox relay's leadership (a session advisory lock, with LISTEN) lives
// on the direct connections, so exactly one replica leads and the other
// takes over when it stops. Taken through the pooler, the lock would stay
// with a pooled server connection after its leader is gone (nobody leads
// again) or be shared by two replicas on the same server connection.
func TestBehindTransactionPooler(t *testing.T) {
	db := testkit.NewDatabase(t)
	bouncer := testkit.PgBouncer(t, db, pgcluster.BouncerDB{Alias: "widgets",
		ConnectQuery: "SET search_path TO widgets; SET lock_timeout TO 5000; SET max_parallel_workers_per_gather TO 0; " +
			"SET idle_in_transaction_session_timeout TO 60000"})
	broker := testkit.Broker(t)
	tokens := servicetest.NewTokens(t)
	env := map[string]string{
		"DATABASE_URL":        bouncer.URL("widgets"),
		"DATABASE_DIRECT_URL": db,
		"DB_SCHEMA":           "widgets",
	}
	var created []string
	create := func(t *testing.T, svc *servicetest.Service, bid string, name string) {
		t.Helper()
		code, body := call(t, "POST", svc.URL+"/v1/businesses/"+bid+"/widgets", svc.Tokens.Platform(t, "owner"), `{"name":"`+name+`"}`)
		if code != 201 {
			t.Fatalf("create %s: %d %v", name, code, body)
		}
		created = append(created, name)
	}

	t.Run("without a direct connection the service says what to set", func(t *testing.T) {
		def, err := buildWidgets(map[string]string{"DATABASE_URL": bouncer.URL("widgets"), "DB_SCHEMA": "widgets",
			"KAFKA_BROKERS": broker.Addrs()[0], "JWKS_URL": tokens.JWKSURL, "HTTP_ADDR": "127.0.0.1:0"})
		if err != nil {
			t.Fatal(err)
		}
		k, err := servicekit.New(context.Background(), def, slog.New(slog.DiscardHandler))
		if err == nil {
			k.Close()
			t.Fatal("started on a transaction pooler with no DATABASE_DIRECT_URL")
		}
		if !strings.Contains(err.Error(), "DATABASE_DIRECT_URL") {
			t.Fatalf("error %q does not say to set DATABASE_DIRECT_URL", err)
		}
	})

	var standby *servicetest.Service
	var bid string
	parent := t
	t.Run("one replica leads, the other stands by", func(t *testing.T) {
		leader := servicetest.StartService(t, buildWidgets, servicetest.ServiceOptions{Env: env, Broker: broker, Tokens: tokens})
		waitFor(t, "the first replica to lead", func() bool { return leader.Kit.Relay().Stats().Leading })
		standby = servicetest.StartService(parent, buildWidgets, servicetest.ServiceOptions{Env: env, Broker: broker, Tokens: tokens})
		bid = leader.SeedBusiness(t, "owner").String()
		create(t, leader, bid, "via-leader")
		create(t, standby, bid, "via-standby")
		if err := leader.Kit.Relay().Flush(context.Background()); err != nil {
			t.Fatalf("flush: %v", err)
		}
		before := standby.Kit.Relay().Stats().LockAttempts
		waitFor(t, "the standby to try the lock again", func() bool { return standby.Kit.Relay().Stats().LockAttempts >= before+2 })
		if standby.Kit.Relay().Stats().Leading {
			t.Fatal("both replicas lead")
		}
	})
	// The first replica has stopped: its session, and the lock, are gone.
	deadline := time.Now().Add(15 * time.Second)
	for !standby.Kit.Relay().Stats().Leading {
		if time.Now().After(deadline) {
			t.Fatalf("the standby did not take over within 15 s (lock attempts %d)", standby.Kit.Relay().Stats().LockAttempts)
		}
		time.Sleep(50 * time.Millisecond)
	}
	create(t, standby, bid, "after-takeover")

	if got := readNames(t, kafkaConnOf(t, standby), len(created)); strings.Join(got, ",") != strings.Join(created, ",") {
		t.Fatalf("published %v, want %v", got, created)
	}
}
