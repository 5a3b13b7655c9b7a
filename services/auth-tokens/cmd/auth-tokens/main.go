// Command auth-tokens runs the auth-tokens service.
//
//	auth-tokens [serve]                       run the service (default)
//	auth-tokens migrate                       apply database migrations and exit
//	auth-tokens admin create-client --name N  create a platform client; prints its id and secret once
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/acctsuite/acct/pkg/telemetry"
	"github.com/acctsuite/acct/services/auth-tokens/internal/config"
	"github.com/acctsuite/acct/services/auth-tokens/internal/service"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		log.Fatalf("auth-tokens: %v", err)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	logger := telemetry.Logger(config.ServiceName, cfg.Level)
	switch cmd {
	case "serve":
		s, err := service.New(ctx, cfg, logger)
		if err != nil {
			return err
		}
		defer s.Close()
		return s.Run(ctx)
	case "migrate":
		db, err := service.OpenDB(ctx, cfg)
		if err != nil {
			return err
		}
		defer db.Close()
		if err := service.Migrate(ctx, db); err != nil {
			return err
		}
		logger.Info("migrations applied")
		return nil
	case "admin":
		return admin(ctx, cfg, args, stdout)
	default:
		return fmt.Errorf("unknown command %q (serve, migrate, admin create-client --name NAME)", cmd)
	}
}

func admin(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "create-client" {
		return errors.New("usage: auth-tokens admin create-client --name NAME")
	}
	fs := flag.NewFlagSet("create-client", flag.ContinueOnError)
	name := fs.String("name", "", "client name (required)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *name == "" {
		return errors.New("--name is required")
	}
	db, err := service.OpenDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	if cfg.DB.MigrateOnStart {
		if err := service.Migrate(ctx, db); err != nil {
			return err
		}
	}
	a, _, err := service.NewApp(ctx, cfg, db, telemetry.Logger(config.ServiceName, cfg.Level))
	if err != nil {
		return err
	}
	creds, err := a.CreateClient(ctx, *name)
	if err != nil {
		return err
	}
	// The secret is shown this once; only its hash is stored.
	_, err = fmt.Fprintf(stdout, "client_id=%s\nclient_secret=%s\n", creds.Client.ID, creds.Secret)
	return err
}
