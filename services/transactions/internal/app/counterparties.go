package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// CounterpartyPageSpec is the pagination of GET /counterparties: by name
// (then id), limit default 100, at most 500.
var CounterpartyPageSpec = page.Spec{
	Keys:         map[string]page.Key{"name": {Column: "bc.name", Kind: page.KindString}},
	Default:      "name",
	DefaultLimit: 100,
	MaxLimit:     500,
}

// CounterpartyStore reads the business's counterparties (part of
// BankStore). The store adds a counterparty whenever it saves a
// transaction whose counterparty name it has not seen (normalised).
type CounterpartyStore interface {
	FindCounterparties(ctx context.Context, businessID uuid.UUID, f banking.CounterpartyFilter, p page.Params) ([]banking.Counterparty, page.Meta, error)
}

// Counterparties is GET /counterparties: one page of the business's
// counterparties, those its bank transactions name (one per normalised
// name, with the id their transactions' counterparty_id carries).
func (b *Banking) Counterparties(ctx context.Context, businessID uuid.UUID, f banking.CounterpartyFilter, p page.Params) ([]banking.Counterparty, page.Meta, error) {
	out, meta, err := b.store.FindCounterparties(ctx, businessID, f, p)
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("list counterparties of %s: %w", businessID, err)
	}
	return out, meta, nil
}
