// Package service wires the bills-tags service onto the service kit: the
// vendor, bill, bill-payment and vendor-credit use cases in units of work
// on the kit's database, their events through the outbox on
// acct.bills.v1, the business projection (tenancy) from acct.business.v1,
// the tag registry (learning from the events of
// kafkaadapter.RegistryTopics) and the HTTP routes. The kit does the rest
// (see pkg/servicekit).
package service

import (
	"context"
	"fmt"

	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/receipts"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/storage"
	billstags "github.com/acctsuite/acct/services/bills-tags"
	httpadapter "github.com/acctsuite/acct/services/bills-tags/internal/adapters/http"
	kafkaadapter "github.com/acctsuite/acct/services/bills-tags/internal/adapters/kafka"
	"github.com/acctsuite/acct/services/bills-tags/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/bills-tags/internal/adapters/tagging"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
	"github.com/acctsuite/acct/services/bills-tags/internal/config"
)

// Service holds what Setup built (tests reach the use cases through it).
type Service struct {
	Vendors  *app.Vendors
	Bills    *app.Bills
	Payments *app.Payments
	Tags     *app.Tags
	Credits  *app.Credits
	// Receipts imports receipt files (one text extractor, so one bounded
	// OCR pool, per process).
	Receipts *app.Receipts

	cfg config.Config
}

// New describes the service to the kit; the returned Service is filled in
// when the kit runs Setup.
func New(cfg config.Config) (*Service, servicekit.Definition) {
	s := &Service{cfg: cfg}
	return s, servicekit.Definition{
		Name:       config.ServiceName,
		Base:       &cfg.Base,
		Data:       &cfg.Data,
		Auth:       &cfg.Auth,
		Migrations: []pgdb.MigrationSet{postgres.Migrations},
		Produces:   []string{events.TopicBills},
		Businesses: true,
		OpenAPI:    billstags.OpenAPI,
		// A receipt import carries a 10 MiB file (BODY_LIMIT_BYTES overrides).
		DefaultBodyLimit: httpadapter.MaxReceiptBody,
		// Up to 1,000 fetched events of a partition in one transaction: the
		// tag registry reads every ledger entry, and a burst of them (a
		// large import) costs one commit per batch, not one per entry (with
		// the webhooks service's at 1,000 too, the suite's commits in a
		// burst of 150,000 entries fell tenfold and the reports catch-up of
		// the same burst ran 15% faster than with batches of 100).
		DefaultConsumerBatchSize: 1000,
		Setup:                    func(ctx context.Context, k *servicekit.Kit) error { return s.setup(ctx, cfg, k) },
	}
}

func (s *Service) setup(ctx context.Context, cfg config.Config, k *servicekit.Kit) error {
	store := postgres.New(k.DB())
	uow, pub := outbox.UnitOfWork{DB: k.DB()}, outbox.Events{DB: k.DB()}
	s.Vendors = app.NewVendors(uow, store, pub, k.Logger())
	s.Bills = app.NewBills(uow, store, store, pub, k.Logger())
	s.Payments = app.NewPayments(uow, store, store, pub, k.Logger())
	s.Credits = app.NewCredits(uow, store, store, store, pub, k.Logger())
	s.Vendors.SetMover(app.Movers{s.Bills, s.Credits})
	// The ledger's charts, to check the accounts bills, bill payments and
	// vendor credits name before their postings are published.
	k.Consume(events.TopicAccounts, chart.Handler(store))
	s.Bills.UseAccounts(store)
	s.Payments.UseAccounts(store)
	s.Credits.UseAccounts(store)
	s.Tags = app.NewTags(uow, store, s.Bills, tagging.NewTransactions(s.cfg.TransactionsURL, s.cfg.TransactionsTimeout),
		tagging.NewInvoicing(s.cfg.CustomersInvoicesURL, s.cfg.CustomersInvoicesTimeout), k.Logger())
	s.Tags.UsePayments(s.Payments)
	// The registry only adds what it lacks: its topics need no inbox rows.
	for _, topic := range kafkaadapter.RegistryTopics {
		k.ConsumeBatchIdempotent(topic, kafkaadapter.RegistryHandler(s.Tags, k.Logger()))
	}
	s.Receipts = app.NewReceipts(uow, store, s.Bills, pub, receipts.NewExtractor(cfg.Extractor()), k.Logger())
	s.Receipts.UseBusinesses(k.Businesses())
	if cfg.Storage.Enabled() {
		files, err := storage.Open(ctx, cfg.Storage.Config())
		if err != nil {
			return fmt.Errorf("open receipt storage: %w", err)
		}
		s.Receipts.UseFileStore(files)
	} else {
		k.Logger().Warn("receipt storage is not configured (STORAGE_DIR is empty): the receipt endpoints answer 503")
	}
	httpadapter.Register(k.App(), httpadapter.Options{
		Vendors:  s.Vendors,
		Bills:    s.Bills,
		Payments: s.Payments,
		Tags:     s.Tags,
		Credits:  s.Credits,
		Receipts: s.Receipts,
		Guards:   k.Guards(),
	})
	return nil
}
