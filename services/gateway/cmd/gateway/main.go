// Command gateway is the suite's edge: the single public base URL that
// authenticates, enforces tenancy and rate limits, and proxies to services.
//
// Usage: gateway [serve]
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/acctsuite/acct/pkg/telemetry"

	"github.com/acctsuite/acct/services/gateway/internal/config"
	"github.com/acctsuite/acct/services/gateway/internal/service"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] != "serve" {
		fmt.Fprintf(os.Stderr, "usage: %s [serve]\n", os.Args[0])
		os.Exit(2)
	}
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	if cfg.Telemetry.ServiceName == "" {
		cfg.Telemetry.ServiceName = "gateway"
	}
	logger := telemetry.Logger("gateway", cfg.Log.Level)
	defer telemetry.FlushLogs() //nolint:errcheck // best effort at exit

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	shutdownTelemetry, err := telemetry.Setup(ctx, cfg.Telemetry)
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	defer shutdownTelemetry(context.WithoutCancel(ctx)) //nolint:errcheck // best effort at exit

	svc, err := service.New(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer svc.Close() //nolint:errcheck // nothing to report at exit

	logger.Info("gateway listening", "addr", cfg.Addr, "upstreams", cfg.Upstreams.URLs())
	return svc.Run(ctx)
}
