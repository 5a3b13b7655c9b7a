// Package service wires the mileage service onto the service kit: the
// vehicle and trip use cases in units of work on the kit's database, their
// events through the outbox on acct.mileage.v1, the business projection (tenancy) from
// acct.business.v1 and the HTTP routes. The kit does the rest (see
// pkg/servicekit).
package service

import (
	"context"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/services/mileage"
	httpadapter "github.com/acctsuite/acct/services/mileage/internal/adapters/http"
	"github.com/acctsuite/acct/services/mileage/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/mileage/internal/app"
	"github.com/acctsuite/acct/services/mileage/internal/config"
)

// Service holds what Setup built (tests reach the use cases through it).
type Service struct {
	Mileage *app.Mileage
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
		Produces:   []string{events.TopicMileage},
		Businesses: true,
		OpenAPI:    mileage.OpenAPI,
		Setup:      s.setup,
	}
}

func (s *Service) setup(_ context.Context, k *servicekit.Kit) error {
	store := postgres.New(k.DB())
	s.Mileage = app.New(outbox.UnitOfWork{DB: k.DB()}, store, store, outbox.Events{DB: k.DB()}, k.Logger())
	httpadapter.Register(k.App(), httpadapter.Options{
		Mileage: s.Mileage,
		Guards:  k.Guards(),
	})
	return nil
}
