package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// SeedChart gives the business the default chart of accounts (plus the
// Canadian input-tax-credit account for a CA business). It runs in the
// unit of work ctx carries, the transaction that records the business
// event, for business.created and business.updated alike: the seeded
// accounts have deterministic ids and existing ones are skipped, so a
// replay changes nothing and an update only adds what the business lacks
// (a business that moved to Canada gets SALES_TAXES_RECEIVABLE).
func (l *Ledger) SeedChart(ctx context.Context, b events.Business) error {
	chart := domain.SeedChart(b.ID, b.Country, l.clock())
	n, err := l.store.SeedAccounts(ctx, chart)
	if err != nil {
		return fmt.Errorf("seed chart of %s: %w", b.ID, err)
	}
	if n == 0 {
		return nil
	}
	l.log.InfoContext(ctx, "chart of accounts seeded", "business_id", b.ID, "accounts", n)
	// The whole default chart (the accounts seeded before are unchanged:
	// republishing them is harmless).
	return l.publishAccounts(ctx, b.ID, chart)
}

// AccountByID returns the business's account id (archived or not), or the
// 404 domain.ErrAccountNotFound.
func (l *Ledger) AccountByID(ctx context.Context, businessID, id uuid.UUID) (domain.Account, error) {
	a, ok, err := l.store.FindAccount(ctx, businessID, id, NoLock)
	if err != nil {
		return domain.Account{}, fmt.Errorf("find account %s: %w", id, err)
	}
	if !ok {
		return domain.Account{}, domain.ErrAccountNotFound()
	}
	return a, nil
}

// AccountByStableName returns the business's account with that stable
// name, or the 404 domain.ErrAccountNotFound.
func (l *Ledger) AccountByStableName(ctx context.Context, businessID uuid.UUID, name string) (domain.Account, error) {
	a, ok, err := l.store.FindAccountByStableName(ctx, businessID, name, NoLock)
	if err != nil {
		return domain.Account{}, fmt.Errorf("find account %q: %w", name, err)
	}
	if !ok {
		return domain.Account{}, domain.ErrAccountNotFound()
	}
	return a, nil
}

// GetAccount is GET /ledger/accounts/{id}.
func (l *Ledger) GetAccount(ctx context.Context, businessID, id uuid.UUID) (domain.Account, error) {
	return l.AccountByID(ctx, businessID, id)
}

// NewAccountInput is POST /ledger/accounts: the account and where it goes.
// Without a parent the account goes under the root of its type.
type NewAccountInput struct {
	Draft  domain.AccountDraft
	Parent *domain.AccountRef
}

// CreateAccount adds an account under its parent. The type must be the
// parent's (400 AccountTypeMismatch), the parent must exist and be live
// (400), and a stable name must be new to the business (409).
func (l *Ledger) CreateAccount(ctx context.Context, businessID uuid.UUID, in NewAccountInput) (domain.Account, error) {
	var out domain.Account
	err := l.uow.Do(ctx, func(ctx context.Context) error {
		var err error
		out, err = l.createAccount(ctx, businessID, in)
		return err
	})
	return out, err
}

func (l *Ledger) createAccount(ctx context.Context, businessID uuid.UUID, in NewAccountInput) (domain.Account, error) {
	ref := in.Parent
	if ref == nil {
		if !in.Draft.Type.Valid() {
			return domain.Account{}, apperr.PayloadField("account_type", "must be one of ASSET, LIABILITY, EQUITY, REVENUE, EXPENSE")
		}
		root := domain.ByStableName(rootOf(in.Draft.Type))
		ref = &root
	}
	parents, err := l.store.FindAccountsByRefs(ctx, businessID, []domain.AccountRef{*ref}, LockShare)
	if err != nil {
		return domain.Account{}, fmt.Errorf("find parent: %w", err)
	}
	if len(parents) == 0 {
		return domain.Account{}, domain.ErrUnknownAccount("parent_id", *ref)
	}
	a, err := domain.NewAccount(in.Draft, parents[0])
	if err != nil {
		return domain.Account{}, err
	}
	now := l.clock()
	a.ID, a.CreatedAt, a.UpdatedAt = newID(), now, now
	if err := l.store.InsertAccount(ctx, a); err != nil {
		return domain.Account{}, err
	}
	if err := l.publishAccounts(ctx, businessID, []domain.Account{a}); err != nil {
		return domain.Account{}, err
	}
	return a, nil
}

func rootOf(t domain.AccountType) string {
	switch t {
	case domain.Asset:
		return domain.StableAssets
	case domain.Liability:
		return domain.StableLiabilities
	case domain.Equity:
		return domain.StableEquity
	case domain.Revenue:
		return domain.StableRevenue
	}
	return domain.StableExpenses
}

// UpdateAccount is PUT /ledger/accounts/{id}: renaming and renumbering
// (see domain.Account.Apply for what else may change).
func (l *Ledger) UpdateAccount(ctx context.Context, businessID, id uuid.UUID, u domain.AccountUpdate) (domain.Account, error) {
	var out domain.Account
	err := l.uow.Do(ctx, func(ctx context.Context) error {
		a, ok, err := l.store.FindAccount(ctx, businessID, id, LockUpdate)
		if err != nil {
			return fmt.Errorf("find account %s: %w", id, err)
		}
		if !ok {
			return domain.ErrAccountNotFound()
		}
		if out, err = a.Apply(u); err != nil {
			return err
		}
		out.UpdatedAt = l.clock()
		if err := l.store.UpdateAccount(ctx, out); err != nil {
			return err
		}
		return l.publishAccounts(ctx, businessID, []domain.Account{out})
	})
	return out, err
}

// ArchiveAccount is POST /ledger/accounts/{id}/archive. An account with a
// non-zero balance or live sub-accounts, or of the default chart, stays
// (409). Archiving an archived account returns it unchanged. The account
// row is locked first, so a concurrent posting to it either commits before
// the balance is read or finds it archived.
func (l *Ledger) ArchiveAccount(ctx context.Context, businessID, id uuid.UUID) (domain.Account, error) {
	var out domain.Account
	err := l.uow.Do(ctx, func(ctx context.Context) error {
		a, ok, err := l.store.FindAccount(ctx, businessID, id, LockUpdate)
		if err != nil {
			return fmt.Errorf("find account %s: %w", id, err)
		}
		if !ok {
			return domain.ErrAccountNotFound()
		}
		if a.Archived() {
			out = a
			return nil
		}
		totals, children, err := l.store.AccountUsage(ctx, businessID, id)
		if err != nil {
			return fmt.Errorf("usage of account %s: %w", id, err)
		}
		if err := a.CanArchive(totals, children); err != nil {
			return err
		}
		now := l.clock()
		a.ArchivedAt, a.UpdatedAt = &now, now
		out = a
		if err := l.store.UpdateAccount(ctx, a); err != nil {
			return err
		}
		return l.publishAccounts(ctx, businessID, []domain.Account{a})
	})
	return out, err
}

// DeleteAccount is DELETE /ledger/accounts/{id}: an account nothing ever
// referred to (no ledger lines, no sub-accounts, no rule, no bank
// account) goes; any other is a 409 that says to archive it
// (domain.Account.CanDelete). The other services learn it as the
// account archived, so it is offered nowhere. The account row is locked
// first, so a concurrent posting to it either commits first (and the
// delete is refused) or finds it gone.
func (l *Ledger) DeleteAccount(ctx context.Context, businessID, id uuid.UUID) error {
	return l.uow.Do(ctx, func(ctx context.Context) error {
		a, ok, err := l.store.FindAccount(ctx, businessID, id, LockUpdate)
		if err != nil {
			return fmt.Errorf("find account %s: %w", id, err)
		}
		if !ok {
			return domain.ErrAccountNotFound()
		}
		use, err := l.store.AccountUse(ctx, businessID, id)
		if err != nil {
			return fmt.Errorf("use of account %s: %w", id, err)
		}
		if err := a.CanDelete(use); err != nil {
			return err
		}
		if err := l.store.DeleteAccount(ctx, businessID, id); err != nil {
			return err
		}
		now := l.clock()
		if !a.Archived() {
			a.ArchivedAt = &now
		}
		a.UpdatedAt = now
		return l.publishAccounts(ctx, businessID, []domain.Account{a})
	})
}

// BankAccountKind says where a bank account's ledger account goes.
type BankAccountKind string

// The kinds: money the business holds, or money it owes on a card.
const (
	Depository BankAccountKind = "DEPOSITORY"
	Credit     BankAccountKind = "CREDIT"
)

// BankLedgerAccount describes the ledger account of a new bank account.
type BankLedgerAccount struct {
	Kind          BankAccountKind
	Name          string
	AccountNumber *string // e.g. the account mask
	// StableName, when set, makes the call idempotent: an account with it
	// under the same parent is returned instead of a new one.
	StableName *string
}

// CreateBankLedgerAccount creates, in the caller's unit of work, the ledger
// account of a bank account: under BANK_ACCOUNTS (asset, DEBIT) for a
// depository account, under CREDIT_CARDS (liability, CREDIT) for a credit
// account.
func (l *Ledger) CreateBankLedgerAccount(ctx context.Context, businessID uuid.UUID, in BankLedgerAccount) (domain.Account, error) {
	parent, typ := domain.StableBankAccounts, domain.Asset
	switch in.Kind {
	case Depository:
	case Credit:
		parent, typ = domain.StableCreditCards, domain.Liability
	default:
		return domain.Account{}, fmt.Errorf("create bank ledger account: unknown kind %q", in.Kind)
	}
	if in.StableName != nil {
		existing, ok, err := l.store.FindAccountByStableName(ctx, businessID, *in.StableName, LockShare)
		if err != nil {
			return domain.Account{}, fmt.Errorf("find account %q: %w", *in.StableName, err)
		}
		if ok {
			p, pok, err := l.store.FindAccountByStableName(ctx, businessID, parent, NoLock)
			if err != nil {
				return domain.Account{}, fmt.Errorf("find account %q: %w", parent, err)
			}
			if pok && existing.ParentID != nil && *existing.ParentID == p.ID {
				return existing, nil
			}
			return domain.Account{}, domain.ErrDuplicateStableName(*in.StableName)
		}
	}
	ref := domain.ByStableName(parent)
	return l.createAccount(ctx, businessID, NewAccountInput{
		Draft:  domain.AccountDraft{Name: in.Name, AccountNumber: in.AccountNumber, StableName: in.StableName, Type: typ},
		Parent: &ref,
	})
}

// Chart is the business's tree of live accounts.
func (l *Ledger) Chart(ctx context.Context, businessID uuid.UUID) ([]*domain.Node, error) {
	accounts, err := l.store.ListAccounts(ctx, businessID, false)
	if err != nil {
		return nil, fmt.Errorf("list accounts of %s: %w", businessID, err)
	}
	return domain.BuildTree(accounts), nil
}

// Categories is the category list of mode, derived from the chart.
func (l *Ledger) Categories(ctx context.Context, businessID uuid.UUID, mode domain.CategoryMode) ([]domain.Category, error) {
	roots, err := l.Chart(ctx, businessID)
	if err != nil {
		return nil, err
	}
	return domain.Categories(roots, mode), nil
}
