// Command devstack is `make run`: the whole suite on this machine without
// containers. It starts PostgreSQL (DATABASE_URL, else a private cluster in
// .data/postgres), the embedded Kafka-protocol broker, every service and the
// gateway, prints working credentials and a curl walk-through, and stops
// everything cleanly on Ctrl-C or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/acctsuite/acct/tools/internal/stack"
)

func main() {
	root := flag.String("root", ".", "repository root")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintf(os.Stderr, "[devstack] %v\n", err)
		if errors.Is(err, stack.ErrNoPostgres) {
			os.Exit(3)
		}
		os.Exit(1)
	}
}

func run(root string) error {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()

	opts := stack.Options{
		BinDir:                filepath.Join(root, "bin"),
		DataDir:               envOr("DEVSTACK_DATA_DIR", filepath.Join(root, ".data")),
		DatabaseURL:           os.Getenv("DATABASE_URL"),
		GatewayAddr:           envOr("GATEWAY_ADDR", "127.0.0.1:8080"),
		BootstrapClientID:     os.Getenv("BOOTSTRAP_CLIENT_ID"),
		BootstrapClientSecret: os.Getenv("BOOTSTRAP_CLIENT_SECRET"),
		PGPort:                envInt("DEVSTACK_PG_PORT", 54329),
		BrokerPort:            envInt("DEVSTACK_BROKER_PORT", 9092),
		BasePort:              envInt("DEVSTACK_BASE_PORT", 8081),
		ExtraEnv:              []string{"LOG_LEVEL=" + envOr("LOG_LEVEL", "info")},
	}
	abs, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return err
	}
	opts.DataDir = abs
	st, err := stack.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer st.Stop()
	echo := envOr("WEBHOOK_ECHO_ADDR", "127.0.0.1:8099")
	if _, err := st.StartReceiver(ctx, "webhook-echo", echo); err != nil {
		return err
	}
	printBanner(st, "http://"+echo)
	<-ctx.Done()
	fmt.Println("\n[devstack] stopping...")
	return nil
}

func printBanner(st *stack.Stack, echo string) {
	gw := st.GatewayURL
	fmt.Printf(`
[devstack] ===========================================================
[devstack] The accounting suite is up. Gateway: %[1]s
[devstack]   platform client id:     %[2]s
[devstack]   platform client secret: %[3]s
[devstack]   OpenAPI: %[1]s/openapi.json   reference: %[1]s/docs
[devstack] Try it:
TOKEN=$(curl -s -u '%[2]s:%[3]s' -d grant_type=client_credentials -d client_id='%[2]s' -d scope=local %[1]s/oauth2/token | sed -E 's/.*"access_token":"([^"]+)".*/\1/')
curl -s -H "Authorization: Bearer $TOKEN" %[1]s/whoami
curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"legal_name":"Acme Bakery LLC","external_id":"acme-1","country":"US","us_state":"CA","entity_type":"LLC"}' %[1]s/v1/businesses
[devstack] Webhooks: a local receiver (bin/webhook-echo) prints what it gets at %[4]s. Subscribe it:
curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"url":"%[4]s/hooks"}' %[1]s/v1/webhooks/endpoints
[devstack]   (docs/webhooks.md: restart it with -secret whsec_... to verify the signatures)
[devstack] Ctrl-C stops everything. Data stays in .data/ (delete it to start afresh).
[devstack] ===========================================================
`, gw, st.ClientID, st.ClientSecret, echo)
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func envInt(k string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil && v > 0 {
		return v
	}
	return def
}
