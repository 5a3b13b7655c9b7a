// Package service wires the reports service onto the service kit: the
// read model fed from acct.ledger.v1, acct.transactions.v1,
// acct.invoicing.v1 and acct.bills.v1 (payments, for the cash basis), the
// export storage and its sweeper, the business projection (tenancy)
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
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
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

// ConsumerBatchSize is the service's CONSUMER_BATCH_SIZE default: a
// burst of ledger entries (one business: one partition, applied one batch
// after another) caught up 10-20% faster in batches of 1,000 than of 200.
// Batches of 2,500 caught up about 9% faster again (150,000 entries with
// the whole suite consuming them: 28.5 s against 31.2 s) but nearly
// doubled the process's peak memory (VmHWM 198 MB against 106 MB after
// 500,000 entries): not worth it.
const ConsumerBatchSize = 1000

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
		// Batches of the topics applied one event at a time lock their
		// businesses in one order first, as the ledger's batches do, so
		// that no two batches deadlock.
		LockBusiness: func(ctx context.Context, tx bun.Tx, bid uuid.UUID) error {
			return s.Reports.LockBusiness(pgdb.WithTx(ctx, tx), bid)
		},
		OpenAPI:  reports.OpenAPI,
		Setup:    func(ctx context.Context, k *servicekit.Kit) error { return s.setup(ctx, cfg, k) },
		Commands: map[string]servicekit.Command{"rebuild": s.rebuild},
	}
}

func (s *Service) setup(ctx context.Context, cfg config.Config, k *servicekit.Kit) error {
	store, snapshot := postgres.New(k.DB()), postgres.Snapshot{DB: k.DB()}
	s.Reports = app.New(outbox.UnitOfWork{DB: k.DB()}, snapshot, store, k.Businesses(), k.Logger())
	var files storage.Store
	if cfg.Storage.Enabled() {
		var err error
		if files, err = storage.Open(ctx, cfg.Storage.Config()); err != nil {
			return fmt.Errorf("open export storage: %w", err)
		}
	} else {
		k.Logger().Warn("export storage is not configured (STORAGE_DIR is empty): the export endpoints answer 503")
	}
	s.Exports = app.NewExports(snapshot, store, s.Reports, k.Businesses(), files)
	s.Exports.UsePolicy(cfg.Exports)
	// Export files older than EXPORT_TTL go, shortly after start and then
	// hourly (every replica sweeps; deletes are idempotent).
	k.Go(func(ctx context.Context) { s.Exports.RunSweeper(ctx, k.Logger()) })
	// Businesses a migration queued are rebuilt once, in the background,
	// while the consumers go on (a rebuild takes the business's lock).
	k.Go(func(ctx context.Context) { s.Reports.RebuildPending(ctx) })
	// The journal copy's key makes an entry applied again a no-op: the
	// ledger's events need no inbox rows.
	k.ConsumeBatchIdempotent(events.TopicLedger, kafkaadapter.LedgerBatchHandler(s.Reports))
	// So do the bank transactions' versions: a snapshot the read model
	// already has (a redelivery, an older version) writes nothing.
	k.ConsumeBatchIdempotent(events.TopicTransactions, kafkaadapter.TransactionsBatchHandler(s.Reports))
	k.Consume(events.TopicInvoicing, kafkaadapter.InvoicingHandler(s.Reports))
	k.Consume(events.TopicBills, kafkaadapter.BillsHandler(s.Reports))
	httpadapter.Register(k.App(), httpadapter.Options{
		Reports:  s.Reports,
		Exports:  s.Exports,
		Auth:     k.Authenticate(),
		Business: k.RequireBusiness(),
	})
	return nil
}

// rebuild is `reports rebuild [--replay] --business ID|--all`: the read
// model of the business (or of every business) recomputed from the
// service's journal copy of the ledger's entries and the latest snapshots
// of bank transactions and payments. With --replay, the consumed topics are
// first read again from the oldest message the broker holds and applied
// (idempotently: what the service had is skipped), so an event it never
// received, or whose effect was lost, is recovered.
func (s *Service) rebuild(ctx context.Context, k *servicekit.Kit, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("rebuild", flag.ContinueOnError)
	fs.SetOutput(out)
	business := fs.String("business", "", "the business id to rebuild")
	all := fs.Bool("all", false, "rebuild every business")
	replay := fs.Bool("replay", false, "first replay the consumed topics from the oldest message the broker holds")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if (*business == "") == !*all {
		return errors.New("rebuild: give exactly one of --business ID or --all")
	}
	var only *uuid.UUID
	if !*all {
		id, err := uuid.Parse(*business)
		if err != nil {
			return fmt.Errorf("rebuild: --business: %w", err)
		}
		only = &id
	}
	var failed int
	if *replay {
		var err error
		if failed, err = s.replay(ctx, k, only, out); err != nil {
			return err
		}
	}
	var ids []uuid.UUID
	if *all {
		var err error
		if ids, err = s.Reports.Businesses(ctx); err != nil {
			return err
		}
	} else {
		ids = []uuid.UUID{*only}
	}
	for _, id := range ids {
		n, err := s.Reports.Rebuild(ctx, id)
		if err != nil {
			return fmt.Errorf("rebuild %s: %w", id, err)
		}
		fmt.Fprintf(out, "rebuilt %s from %d entries\n", id, n)
	}
	if failed > 0 {
		return fmt.Errorf("rebuild: %d replayed events could not be applied (see the log)", failed)
	}
	return nil
}

// replayBatch is how many replayed events one transaction applies.
const replayBatch = 500

// replay reads the consumed topics again (outside the consumer group) and
// applies their events (of business only, when given) through the same
// handlers as the consumer, replayBatch per transaction
// (consumer.ReplayTopics: a batch that fails is applied event by event,
// and an event that still fails is logged and counted). It returns how
// many events could not be applied.
func (s *Service) replay(ctx context.Context, k *servicekit.Kit, only *uuid.UUID, out io.Writer) (int, error) {
	sources := []consumer.ReplaySource{
		{Topic: events.TopicLedger, Handler: kafkaadapter.LedgerHandler(s.Reports)},
		{Topic: events.TopicTransactions, Handler: kafkaadapter.TransactionsHandler(s.Reports)},
		{Topic: events.TopicInvoicing, Handler: kafkaadapter.InvoicingHandler(s.Reports)},
		{Topic: events.TopicBills, Handler: kafkaadapter.BillsHandler(s.Reports)},
	}
	opts := consumer.ReplayOptions{BatchSize: replayBatch, Logger: k.Logger(), Replayed: func(st consumer.ReplayStats) {
		fmt.Fprintf(out, "replayed %s: %d messages read, %d events applied, %d failed, %d malformed\n", st.Topic, st.Read, st.Applied, st.Failed, st.Malformed)
	}}
	if only != nil {
		opts.Keep = func(e events.Event) bool { return e.Key == only.String() }
	}
	stats, err := consumer.ReplayTopics(ctx, k.DB(), k.Kafka(), sources, opts)
	failed := 0
	for _, st := range stats {
		failed += st.Failed
	}
	if err != nil {
		return failed, fmt.Errorf("rebuild: %w", err)
	}
	return failed, nil
}
