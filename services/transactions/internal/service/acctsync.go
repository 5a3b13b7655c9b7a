package service

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
	acctsynchttp "github.com/acctsuite/acct/services/transactions/internal/acctsync/httpapi"
	acctsyncpg "github.com/acctsuite/acct/services/transactions/internal/acctsync/postgres"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync/qbo"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/config"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// setupAcctsync builds the external accounting connection on the ledger's
// accounts, mounts its routes and starts its sync worker; without
// ACCTSYNC_CLIENT_ID its provider routes answer 503 and the reads (status,
// imported accounts) and unlink still work.
func (s *Service) setupAcctsync(cfg config.Config, k *servicekit.Kit) error {
	var provider acctsync.Provider
	var cipher *acctsync.TokenCipher
	if cfg.Acctsync.Enabled() {
		client, err := qbo.FromConfig(cfg.Acctsync)
		if err != nil {
			return err
		}
		if cipher, err = acctsync.NewTokenCipher(cfg.Acctsync.EncryptionKey()); err != nil {
			return err
		}
		provider = client
	}
	local := ledgerAccounts{ledger: s.Ledger}
	svc, err := acctsync.New(acctsync.Options{
		Store: acctsyncpg.New(k.DB()), Provider: provider, Cipher: cipher,
		Local: local, LocalByStableName: local, StateTTL: cfg.Acctsync.StateTTL, Logger: k.Logger(),
	})
	if err != nil {
		return err
	}
	s.Acctsync = svc
	acctsynchttp.Register(k.App(), acctsynchttp.Options{
		Service: svc, Auth: k.Authenticate(), Business: k.RequireBusiness(), SuccessURL: cfg.Acctsync.SuccessURL,
		Cursors: k.Cursors(),
	})
	if svc.Enabled() {
		// Runs the syncs asked for with POST .../acctsync/sync-from, and
		// resumes those of a process that stopped midway.
		k.Go(svc.RunSyncWorker)
	}
	return nil
}

// ledgerAccounts shows the ledger's accounts to acctsync's mapping.
type ledgerAccounts struct {
	ledger *app.Ledger
}

func (l ledgerAccounts) FindAccount(ctx context.Context, businessID, id uuid.UUID) (acctsync.LedgerAccount, bool, error) {
	return l.view(l.ledger.AccountByID(ctx, businessID, id))
}

func (l ledgerAccounts) FindAccountByStableName(ctx context.Context, businessID uuid.UUID, name string) (acctsync.LedgerAccount, bool, error) {
	return l.view(l.ledger.AccountByStableName(ctx, businessID, name))
}

func (ledgerAccounts) view(a domain.Account, err error) (acctsync.LedgerAccount, bool, error) {
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Type == apperr.NotFound {
		return acctsync.LedgerAccount{}, false, nil
	}
	if err != nil {
		return acctsync.LedgerAccount{}, false, err
	}
	st := a.SubtypeInfo()
	return acctsync.LedgerAccount{
		ID: a.ID, Name: a.Name, AccountNumber: a.AccountNumber, StableName: a.StableName,
		Normality: acctsync.Normality(a.Normality), AccountType: acctsync.AccountType(a.Type),
		Subtype: acctsync.Subtype{Value: st.Value, DisplayName: st.DisplayName},
	}, true, nil
}
