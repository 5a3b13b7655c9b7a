// Package service wires the transactions service onto the service kit: the
// ledger and bank-transaction use cases in units of work on the kit's
// database, their events through the outbox, the chart seeding on
// acct.business.v1, the postings of acct.invoicing.v1 and acct.bills.v1
// and the HTTP routes. The kit does the rest (see pkg/servicekit).
package service

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/storage"
	transactions "github.com/acctsuite/acct/services/transactions"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
	acctsynchttp "github.com/acctsuite/acct/services/transactions/internal/acctsync/httpapi"
	acctsyncpg "github.com/acctsuite/acct/services/transactions/internal/acctsync/postgres"
	httpadapter "github.com/acctsuite/acct/services/transactions/internal/adapters/http"
	kafkaadapter "github.com/acctsuite/acct/services/transactions/internal/adapters/kafka"
	"github.com/acctsuite/acct/services/transactions/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/config"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// Service holds what Setup built (tests reach the use cases through it).
type Service struct {
	Ledger   *app.Ledger
	Banking  *app.Banking
	Acctsync *acctsync.Service
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
		Migrations: []pgdb.MigrationSet{postgres.Migrations, acctsyncpg.Migrations},
		Produces:   []string{events.TopicLedger, events.TopicTransactions, events.TopicAccounts},
		Businesses: true,
		// Recorded transactions carry up to five receipts: as much as
		// the gateway lets through (BODY_LIMIT_BYTES overrides). JSON
		// routes keep their own, smaller limits (httpx.JSONBody).
		DefaultBodyLimit: 52 << 20,
		// parse-csv reads its statement as it arrives, never held whole
		// (at most 50 MiB of file); every other body is read whole
		// first, within the limit above.
		HTTP:     httpx.Options{StreamBody: httpadapter.StreamsBody},
		OpenAPI:  openAPIDocument(),
		Commands: map[string]servicekit.Command{"repair-entry-tags": s.repairEntryTags},
		Setup:    func(ctx context.Context, k *servicekit.Kit) error { return s.setup(ctx, cfg, k) },
	}
}

func (s *Service) setup(ctx context.Context, cfg config.Config, k *servicekit.Kit) error {
	uow, pub, store := outbox.UnitOfWork{DB: k.DB()}, outbox.Events{DB: k.DB()}, postgres.New(k.DB())
	s.Ledger = app.NewLedger(uow, store, pub, k.Logger())
	s.Banking = app.NewBanking(uow, s.Ledger, postgres.NewBankStore(k.DB()), pub, k.Businesses(), k.Logger())
	if cfg.Storage.Enabled() {
		files, err := storage.Open(ctx, cfg.Storage.Config())
		if err != nil {
			return fmt.Errorf("open receipt and export storage: %w", err)
		}
		s.Banking.UseReceiptStore(files)
		s.Ledger.UseExportStore(files, store, cfg.Exports)
		// Export files older than EXPORT_TTL go (never receipts nor
		// documents), shortly after start and then hourly.
		k.Go(func(ctx context.Context) { s.Ledger.RunExportSweeper(ctx, k.Logger()) })
	} else {
		k.Logger().Warn("storage is not configured (STORAGE_DIR is empty): the receipt and ledger export endpoints answer 503")
	}
	// Runs in the inbox transaction, after the business directory's handler.
	k.Consume(events.TopicBusiness, kafkaadapter.BusinessHandler(s.Ledger))
	// Invoices, payments and write-offs become journal entries; payments
	// are also what deposits are matched to.
	k.Consume(events.TopicInvoicing, kafkaadapter.PostingHandler(s.Ledger, k.Logger()))
	k.Consume(events.TopicInvoicing, kafkaadapter.PaymentsHandler(s.Banking))
	// Bills, bill payments and vendor credits (acct.bills.v1) become
	// journal entries the same way.
	k.Consume(events.TopicBills, kafkaadapter.PostingHandler(s.Ledger, k.Logger()))
	httpadapter.Register(k.App(), httpadapter.Options{
		Ledger:  s.Ledger,
		Banking: s.Banking,
		Spool:   banking.NewSpoolBudget(cfg.ReceiptSpoolBytes, cfg.ReceiptSpoolWait),
		Guards:  k.Guards(),
	})
	return s.setupAcctsync(cfg, k)
}

// openAPIDocument is the service's document: the ledger and bank
// transactions' plus acctsync's fragment.
func openAPIDocument() []byte {
	doc, err := openapi.MergeDocuments(transactions.OpenAPI, acctsynchttp.OpenAPI)
	if err != nil {
		panic(fmt.Sprintf("transactions: openapi documents do not merge: %v", err)) // embedded at build time; tests catch it
	}
	return doc
}

// repairEntryTags is `transactions repair-entry-tags --business ID | --all`:
// every tagged bank transaction whose live journal entry lacks its tags
// (journaled by an earlier version) is reposted with them.
func (s *Service) repairEntryTags(ctx context.Context, _ *servicekit.Kit, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("repair-entry-tags", flag.ContinueOnError)
	fs.SetOutput(out)
	business := fs.String("business", "", "the business id to repair")
	all := fs.Bool("all", false, "repair every business")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if (*business == "") == !*all {
		return errors.New("repair-entry-tags: give exactly one of --business ID or --all")
	}
	id := uuid.Nil
	if !*all {
		var err error
		if id, err = uuid.Parse(*business); err != nil || id == uuid.Nil {
			return fmt.Errorf("repair-entry-tags: --business: not a business id: %q", *business)
		}
	}
	n, err := s.Banking.RepairEntryTags(ctx, id)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "reposted %d journal entries with their transaction's tags\n", n)
	return err
}
