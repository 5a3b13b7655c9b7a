package servicekit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/telemetry"
)

// Main is a service binary's whole main function: it loads the definition,
// runs the subcommand named by the arguments until SIGINT/SIGTERM, and
// exits non-zero on error.
//
//	<service> [serve]     run the service (default)
//	<service> migrate     apply the database migrations and exit
//	<service> dlq replay  re-deliver dead letters after a fix (see dlq.go)
//	<service> <command>   a command of Definition.Commands
func Main(load func() (Definition, error)) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := Execute(ctx, load, os.Args[1:], os.Stdout)
	stop()
	_ = telemetry.FlushLogs()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", commandName(), err)
		os.Exit(1)
	}
}

func commandName() string {
	name := os.Args[0]
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// Execute runs one subcommand (Main without the process exit; tests call it).
func Execute(ctx context.Context, load func() (Definition, error), args []string, out io.Writer) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	def, err := load()
	if err != nil {
		return err
	}
	if err := def.validate(); err != nil {
		return err
	}
	logger := telemetry.Logger(def.Name, def.Base.Log.Level)
	switch cmd {
	case "serve":
		if len(args) > 0 {
			return fmt.Errorf("serve takes no arguments, got %q", args)
		}
		k, err := New(ctx, def, logger)
		if err != nil {
			return err
		}
		defer k.Close()
		return k.Run(ctx)
	case "migrate":
		if def.Data == nil {
			return fmt.Errorf("%s has no database to migrate", def.Name)
		}
		// Migrations take a session lock: the direct connection behind a pooler.
		db, err := pgdb.OpenSession(ctx, def.Data.DB)
		if err != nil {
			return err
		}
		defer db.Close()
		if err := pgdb.Migrate(ctx, db, def.MigrationSets()...); err != nil {
			return err
		}
		logger.Info("migrations applied")
		return nil
	case "dlq":
		return dlq(ctx, def, args, out)
	}
	command, ok := def.Commands[cmd]
	if !ok {
		return errors.New(usage(def, cmd))
	}
	k, err := New(ctx, def, logger)
	if err != nil {
		return err
	}
	defer k.Close()
	return command(ctx, k, args, out)
}

func usage(def Definition, cmd string) string {
	names := []string{"serve", "migrate", "dlq"}
	for name := range def.Commands {
		names = append(names, name)
	}
	slices.Sort(names[3:])
	return fmt.Sprintf("unknown command %q; commands: %s", cmd, strings.Join(names, ", "))
}

// Loader makes Main's load function from a service's config loader and its
// constructor: `servicekit.Main(servicekit.Loader(config.Load, service.New))`.
func Loader[C, S any](load func() (C, error), build func(C) (S, Definition)) func() (Definition, error) {
	return func() (Definition, error) {
		cfg, err := load()
		if err != nil {
			return Definition{}, err
		}
		_, def := build(cfg)
		return def, nil
	}
}
