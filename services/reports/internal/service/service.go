// Package service wires the reports service onto the service kit: the
// read model fed from acct.ledger.v1 and acct.transactions.v1, the export
// storage, the business projection (tenancy)
// from acct.business.v1, the HTTP routes and the rebuild command. The kit
// does the rest (see pkg/servicekit).
package service

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/services/reports"
	httpadapter "github.com/acctsuite/acct/services/reports/internal/adapters/http"
	kafkaadapter "github.com/acctsuite/acct/services/reports/internal/adapters/kafka"
	"github.com/acctsuite/acct/services/reports/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/reports/internal/app"
	"github.com/acctsuite/acct/services/reports/internal/config"
)

// ConsumerBatchSize is the service's CONSUMER_BATCH_SIZE default.
const ConsumerBatchSize = 200

// Service holds what Setup built (tests reach the use cases through it).
type Service struct {
	Reports *app.Reports
	Exports *app.Exports
}

// New describes the service to the kit; the returned Service is filled in
// when the kit runs Setup.
func New(cfg config.Config) (*Service, servicekit.Definition) {
	s := &Service{}
	return s, servicekit.Definition{
		Name:       config.ServiceName,
		Base:       &cfg.Base,
		Data:       &cfg.Data,
		Auth:       &cfg.Auth,
		Migrations: []pgdb.MigrationSet{postgres.Migrations},
		Businesses: true,
		// A replay of the ledger (a new replica, a backlog) applies up to
		// this many waiting events per transaction, with one statement
		// per read-model table for all of them.
		DefaultConsumerBatchSize: ConsumerBatchSize,
		OpenAPI:                  reports.OpenAPI,
		Setup:                    func(ctx context.Context, k *servicekit.Kit) error { return s.setup(ctx, cfg, k) },
		Commands:                 map[string]servicekit.Command{"rebuild": s.rebuild},
	}
}

func (s *Service) setup(ctx context.Context, cfg config.Config, k *servicekit.Kit) error {
	store := postgres.New()
	s.Reports = app.New(k.DB(), store, k.Logger())
	var files storage.Store
	if cfg.Storage.Enabled() {
		var err error
		if files, err = storage.Open(ctx, cfg.Storage.Config()); err != nil {
			return fmt.Errorf("open export storage: %w", err)
		}
	} else {
		k.Logger().Warn("export storage is not configured (STORAGE_DIR is empty): the export endpoints answer 503")
	}
	s.Exports = app.NewExports(k.DB(), store, k.Businesses(), files)
	k.ConsumeBatch(events.TopicLedger, kafkaadapter.LedgerBatchHandler(s.Reports))
	k.Consume(events.TopicTransactions, kafkaadapter.TransactionsHandler(s.Reports))
	httpadapter.Register(k.App(), httpadapter.Options{
		Reports:  s.Reports,
		Exports:  s.Exports,
		Auth:     k.Authenticate(),
		Business: k.RequireBusiness(),
	})
	return nil
}

// rebuild is `reports rebuild --business ID|--all`: the read model of the
// business (or of every business) recomputed from the service's journal
// copy of the ledger's entries.
func (s *Service) rebuild(ctx context.Context, _ *servicekit.Kit, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("rebuild", flag.ContinueOnError)
	fs.SetOutput(out)
	business := fs.String("business", "", "the business id to rebuild")
	all := fs.Bool("all", false, "rebuild every business")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if (*business == "") == !*all {
		return errors.New("rebuild: give exactly one of --business ID or --all")
	}
	var ids []uuid.UUID
	if *all {
		var err error
		if ids, err = s.Reports.Businesses(ctx); err != nil {
			return err
		}
	} else {
		id, err := uuid.Parse(*business)
		if err != nil {
			return fmt.Errorf("rebuild: --business: %w", err)
		}
		ids = []uuid.UUID{id}
	}
	for _, id := range ids {
		n, err := s.Reports.Rebuild(ctx, id)
		if err != nil {
			return fmt.Errorf("rebuild %s: %w", id, err)
		}
		fmt.Fprintf(out, "rebuilt %s from %d entries\n", id, n)
	}
	return nil
}
