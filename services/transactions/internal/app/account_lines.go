package app

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// AccountLinePageSpec is the pagination of GET /ledger/accounts/{id}/lines.
// Its one sort key, entry_at, continues with the entry number and the line
// id (domain.ChronologicalCompare), so the order is total; a cursor holds
// the last line's entry_at and id.
var AccountLinePageSpec = page.Spec{
	Keys:         map[string]page.Key{"entry_at": {Column: "l.entry_at", Kind: page.KindTime}},
	Default:      "entry_at",
	DefaultLimit: 100,
	MaxLimit:     500,
}

// AccountLinesQuery is GET /ledger/accounts/{id}/lines: the filters as the
// caller gave them.
type AccountLinesQuery struct {
	AccountID uuid.UUID
	// WithSubAccounts lists the lines of every account below too; the
	// running balance is then theirs and the account's together.
	WithSubAccounts bool
	// From and Until bound entry_at (From ≤ entry_at < Until). They choose
	// the lines listed, not the balance: the running balance counts every
	// line before From too.
	From, Until *time.Time
}

// AccountLineFilter is the selection of lines a store lists.
type AccountLineFilter struct {
	BusinessID uuid.UUID
	AccountIDs []uuid.UUID
	From       *time.Time // entry_at ≥ From
	Until      *time.Time // entry_at < Until
}

// FindAccountLines lists one page of an account's general ledger detail:
// its lines (and, when asked, those of the accounts below it) with the
// running balance after each, in chronological order or its reverse. An
// account the business does not have is 404 AccountNotFound.
func (l *Ledger) FindAccountLines(ctx context.Context, businessID uuid.UUID, q AccountLinesQuery, p page.Params) ([]domain.AccountLine, page.Meta, error) {
	accounts, err := l.store.AccountWithDescendants(ctx, businessID, q.AccountID)
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("account %s and those below it: %w", q.AccountID, err)
	}
	if len(accounts) == 0 || accounts[0].ID != q.AccountID {
		return nil, page.Meta{}, domain.ErrAccountNotFound()
	}
	account := accounts[0]
	if !q.WithSubAccounts {
		accounts = accounts[:1]
	}
	ids := make([]uuid.UUID, len(accounts))
	for i, a := range accounts {
		ids[i] = a.ID
	}
	lines, boundary, meta, err := l.store.FindAccountLines(ctx, AccountLineFilter{
		BusinessID: businessID, AccountIDs: ids, From: q.From, Until: q.Until,
	}, p)
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("lines of account %s: %w", account.ID, err)
	}
	byID := make(map[uuid.UUID]domain.Account, len(accounts))
	for _, a := range accounts {
		byID[a.ID] = a
	}
	for i := range lines {
		a, ok := byID[lines[i].Account.ID]
		if !ok {
			return nil, page.Meta{}, fmt.Errorf("line %s: account %s not listed", lines[i].ID, lines[i].Account.ID)
		}
		lines[i].Account = a
	}
	start, err := domain.Balance(account.Normality, boundary)
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("balance of account %s: %w", account.ID, err)
	}
	if err := domain.RunningBalances(lines, account.Normality, start, p.Order == page.Desc); err != nil {
		return nil, page.Meta{}, fmt.Errorf("account %s: %w", account.ID, err)
	}
	return lines, meta, nil
}
