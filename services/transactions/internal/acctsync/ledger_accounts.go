package acctsync

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/page"
)

// FindLedgerAccount reads an imported account of the business with its
// mapped local ledger account and its sub-accounts (recursively). Another
// business's account is simply not found.
func (s *Service) FindLedgerAccount(ctx context.Context, businessID, accountID uuid.UUID) (LedgerAccountView, error) {
	node, found, err := s.store.AccountTree(ctx, businessID, accountID)
	if err != nil {
		return LedgerAccountView{}, fmt.Errorf("find acctsync account %s: %w", accountID, err)
	}
	if !found {
		return LedgerAccountView{}, apperr.New(apperr.NotFound, "acctsync ledger account not found").WithEnum(EnumAccountNotFound)
	}
	locals := map[uuid.UUID]*LedgerAccount{}
	return s.view(ctx, businessID, node, locals)
}

// view resolves the local accounts of a node and its children; locals
// memoises lookups of accounts several nodes map to.
func (s *Service) view(ctx context.Context, businessID uuid.UUID, n AccountNode, locals map[uuid.UUID]*LedgerAccount) (LedgerAccountView, error) {
	v := LedgerAccountView{Account: n.Account, Children: make([]LedgerAccountView, 0, len(n.Children))}
	if n.LocalAccountID != nil && s.local != nil {
		id := *n.LocalAccountID
		la, seen := locals[id]
		if !seen {
			acct, found, err := s.local.FindAccount(ctx, businessID, id)
			if err != nil {
				return LedgerAccountView{}, fmt.Errorf("find local account %s: %w", id, err)
			}
			if found {
				la = &acct
			}
			locals[id] = la
		}
		v.Local = la
	}
	for _, c := range n.Children {
		cv, err := s.view(ctx, businessID, c, locals)
		if err != nil {
			return LedgerAccountView{}, err
		}
		v.Children = append(v.Children, cv)
	}
	return v, nil
}

// FindLedgerAccounts lists one page of the business's imported chart: its
// top-level accounts, each with its mapped local account and its
// sub-accounts (recursively), as FindLedgerAccount shows one.
func (s *Service) FindLedgerAccounts(ctx context.Context, businessID uuid.UUID, p page.Params) ([]LedgerAccountView, page.Meta, error) {
	nodes, meta, err := s.store.RootAccounts(ctx, businessID, p)
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("list acctsync accounts of %s: %w", businessID, err)
	}
	locals := map[uuid.UUID]*LedgerAccount{}
	out := make([]LedgerAccountView, 0, len(nodes))
	for _, n := range nodes {
		v, err := s.view(ctx, businessID, n, locals)
		if err != nil {
			return nil, page.Meta{}, err
		}
		out = append(out, v)
	}
	return out, meta, nil
}

// LedgerAccountPageSpec is the pagination of the imported chart: by name
// (the default) or by the provider's id.
var LedgerAccountPageSpec = page.Spec{
	Keys: map[string]page.Key{
		"name":        {Column: "a.name", Kind: page.KindString},
		"external_id": {Column: "a.external_id", Kind: page.KindString},
	},
	Default: "name",
}
