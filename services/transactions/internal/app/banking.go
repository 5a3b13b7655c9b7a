package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// EnumCustomAccountNotFound is the error_enum of a custom account id the
// business does not have.
const EnumCustomAccountNotFound = "CustomAccountNotFound"

// ErrCustomAccountNotFound is the 404 of a custom account id the business
// does not have (another business's account included: existence is not
// revealed).
func ErrCustomAccountNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "custom account not found").WithEnum(EnumCustomAccountNotFound)
}

// CustomAccount is a bank account the business keeps by hand, with the
// ledger account its transactions post to.
type CustomAccount struct {
	ID              uuid.UUID
	BusinessID      uuid.UUID
	ExternalID      *string
	AccountName     string
	InstitutionName *string
	Mask            *string
	Type            banking.CustomAccountType
	Subtype         banking.CustomAccountSubtype
	Kind            banking.CustomAccountKind
	LedgerAccountID uuid.UUID
	UserCreated     bool
	CreatedAt       time.Time
	UpdatedAt       time.Time
	ArchivedAt      *time.Time
}

// BankStore is the bank-transaction side's persistence. Like Store, every
// method runs in the unit of work its context carries, if any.
type BankStore interface {
	InsertCustomAccount(ctx context.Context, a CustomAccount) error
	FindCustomAccount(ctx context.Context, businessID, id uuid.UUID) (CustomAccount, bool, error)
	FindCustomAccountByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (CustomAccount, bool, error)
	// ListCustomAccounts lists the business's accounts, oldest first.
	ListCustomAccounts(ctx context.Context, businessID uuid.UUID) ([]CustomAccount, error)
	// LockKey serialises the requests that share key until the
	// transaction ends (an external id being created, say).
	LockKey(ctx context.Context, key string) error
	BankTxnStore
	ExternalAccountStore
	TagStore
	RuleStore
	HistoryStore
	DocumentStore
	RecordStore
	MatchStore
	CounterpartyStore
}

// Banking holds the bank-account and bank-transaction use cases. Each
// write posts into the Ledger in its own unit of work.
type Banking struct {
	uow    UnitOfWork
	ledger *Ledger
	store  BankStore
	pub    Publisher
	// businesses gives the business's country for the Canadian tax rules.
	businesses Businesses
	// files holds receipts; nil while storage is not configured.
	files storage.Store
	log   *slog.Logger
	clk   clock.Clock
}

// NewBanking assembles the bank-transaction use cases, posting into
// ledger.
func NewBanking(uow UnitOfWork, ledger *Ledger, store BankStore, pub Publisher, businesses Businesses, logger *slog.Logger) *Banking {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Banking{uow: uow, ledger: ledger, store: store, pub: pub, businesses: businesses, log: logger, clk: clock.System}
}

// clock is now as PostgreSQL stores it (UTC, microseconds).
func (b *Banking) clock() time.Time { return b.clk.Now() }

// CreateCustomAccount is POST /custom-accounts. It creates the account and
// its ledger account (under BANK_ACCOUNTS for DEPOSITORY, CREDIT_CARDS for
// CREDIT) in one transaction. An external_id the business already used
// returns that account unchanged with created false (a retried create).
func (b *Banking) CreateCustomAccount(ctx context.Context, businessID uuid.UUID, in banking.CustomAccountInput) (CustomAccount, bool, error) {
	var (
		out     CustomAccount
		created bool
	)
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		if in.ExternalID != nil {
			if err := b.store.LockKey(ctx, "custom_accounts:"+businessID.String()+":"+*in.ExternalID); err != nil {
				return err
			}
			existing, ok, err := b.store.FindCustomAccountByExternalID(ctx, businessID, *in.ExternalID)
			if err != nil {
				return fmt.Errorf("find custom account by external id: %w", err)
			}
			if ok {
				out = existing
				return nil
			}
		}
		kind := Depository
		if in.Type == banking.AccountCredit {
			kind = Credit
		}
		ledgerAccount, err := b.ledger.CreateBankLedgerAccount(ctx, businessID, BankLedgerAccount{
			Kind: kind, Name: in.AccountName, AccountNumber: in.Mask,
		})
		if err != nil {
			return fmt.Errorf("create ledger account of custom account: %w", err)
		}
		now := b.clock()
		out = CustomAccount{
			ID: newID(), BusinessID: businessID, ExternalID: in.ExternalID, AccountName: in.AccountName,
			InstitutionName: in.InstitutionName, Mask: in.Mask, Type: in.Type, Subtype: in.Subtype, Kind: in.Kind,
			LedgerAccountID: ledgerAccount.ID, UserCreated: true, CreatedAt: now, UpdatedAt: now,
		}
		created = true
		return b.store.InsertCustomAccount(ctx, out)
	})
	if err != nil {
		return CustomAccount{}, false, err
	}
	return out, created, nil
}

// CustomAccounts is GET /custom-accounts.
func (b *Banking) CustomAccounts(ctx context.Context, businessID uuid.UUID) ([]CustomAccount, error) {
	out, err := b.store.ListCustomAccounts(ctx, businessID)
	if err != nil {
		return nil, fmt.Errorf("list custom accounts of %s: %w", businessID, err)
	}
	return out, nil
}

// CustomAccount returns the business's custom account id, or the 404
// ErrCustomAccountNotFound.
func (b *Banking) CustomAccount(ctx context.Context, businessID, id uuid.UUID) (CustomAccount, error) {
	a, ok, err := b.store.FindCustomAccount(ctx, businessID, id)
	if err != nil {
		return CustomAccount{}, fmt.Errorf("find custom account %s: %w", id, err)
	}
	if !ok {
		return CustomAccount{}, ErrCustomAccountNotFound()
	}
	return a, nil
}
