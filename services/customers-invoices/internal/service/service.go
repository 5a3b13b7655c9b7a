// Package service wires the customers-invoices service onto the service
// kit: the customer and invoicing use cases in units of work on the kit's
// database, their events through the outbox on acct.invoicing.v1, the
// charts of accounts from acct.accounts.v1, the business projection
// (tenancy) from acct.business.v1 and the HTTP routes. The kit does the
// rest (see pkg/servicekit).
package service

import (
	"context"
	"fmt"

	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/storage"
	customersinvoices "github.com/acctsuite/acct/services/customers-invoices"
	"github.com/acctsuite/acct/services/customers-invoices/internal/adapters/document"
	httpadapter "github.com/acctsuite/acct/services/customers-invoices/internal/adapters/http"
	"github.com/acctsuite/acct/services/customers-invoices/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/config"
)

// Service holds what Setup built (tests reach the use cases through it).
type Service struct {
	Customers *app.Customers
	Invoicing *app.Invoicing
	Documents *app.Documents
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
		Produces:   []string{events.TopicInvoicing},
		Businesses: true,
		OpenAPI:    customersinvoices.OpenAPI,
		Setup:      func(ctx context.Context, k *servicekit.Kit) error { return s.setup(ctx, cfg, k) },
	}
}

func (s *Service) setup(ctx context.Context, cfg config.Config, k *servicekit.Kit) error {
	store := postgres.New(k.DB())
	uow, pub := outbox.UnitOfWork{DB: k.DB()}, outbox.Events{DB: k.DB()}
	s.Customers = app.NewCustomers(uow, store, pub)
	s.Invoicing = app.NewInvoicing(uow, store, store, store, pub, k.Logger())
	s.Documents = app.NewDocuments(s.Invoicing, k.Businesses(), document.Renderer{})
	if cfg.Storage.Enabled() {
		files, err := storage.Open(ctx, cfg.Storage.Config())
		if err != nil {
			return fmt.Errorf("open the invoice PDF storage: %w", err)
		}
		s.Documents.UseStore(files, cfg.Exports)
		// PDFs older than EXPORT_TTL go, shortly after start and then hourly.
		k.Go(func(ctx context.Context) { s.Documents.Files().RunSweeper(ctx, k.Logger()) })
	} else {
		k.Logger().Warn("storage is not configured (STORAGE_DIR is empty): GET /invoices/{id}/pdf answers 503")
	}
	// The ledger's charts, to check the accounts invoices name.
	k.Consume(events.TopicAccounts, chart.Handler(store))
	httpadapter.Register(k.App(), httpadapter.Options{
		Customers: s.Customers,
		Invoicing: s.Invoicing,
		Documents: s.Documents,
		Guards:    k.Guards(),
	})
	return nil
}
