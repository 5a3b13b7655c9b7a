package postgres

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// counterpartyRow is a row of bank_counterparties.
type counterpartyRow struct {
	bun.BaseModel `bun:"table:bank_counterparties,alias:bc"`

	BusinessID uuid.UUID `bun:"business_id,pk,type:uuid"`
	ID         uuid.UUID `bun:"id,pk,type:uuid"`
	Key        string    `bun:"key"`
	Name       string    `bun:"name"`
	ExternalID *string   `bun:"external_id"`
	Website    *string   `bun:"website"`
	Logo       *string   `bun:"logo"`
	MCCs       []string  `bun:"mccs,array"`
	CreatedAt  time.Time `bun:"created_at"`
	UpdatedAt  time.Time `bun:"updated_at"`
}

func (r counterpartyRow) counterparty() banking.Counterparty {
	mccs := r.MCCs
	if mccs == nil {
		mccs = []string{}
	}
	return banking.Counterparty{
		ID: r.ID, BusinessID: r.BusinessID, Key: r.Key, Name: r.Name, ExternalID: r.ExternalID, Website: r.Website,
		Logo: r.Logo, MCCs: mccs, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

// addCounterparties records the counterparties txns name that their
// businesses do not have yet (one per normalised name, named as first
// seen), in one statement per batch, in the unit of work of the
// transactions' own write.
func addCounterparties(ctx context.Context, db bun.IDB, txns ...banking.BankTransaction) error {
	type bizKey struct {
		business uuid.UUID
		key      string
	}
	seen := map[bizKey]bool{}
	var rows []counterpartyRow
	for _, t := range txns {
		id := t.CounterpartyID()
		if id == nil {
			continue
		}
		k := bizKey{t.BusinessID, banking.NormalizeCounterparty(*t.CounterpartyName)}
		if seen[k] {
			continue
		}
		seen[k] = true
		at := t.UpdatedAt
		if at.IsZero() {
			at = t.ImportedAt
		}
		rows = append(rows, counterpartyRow{
			BusinessID: t.BusinessID, ID: *id, Key: k.key, Name: *t.CounterpartyName, MCCs: []string{},
			CreatedAt: at, UpdatedAt: at,
		})
	}
	for start := 0; start < len(rows); start += insertBatch {
		batch := rows[start:min(start+insertBatch, len(rows))]
		if _, err := db.NewInsert().Model(&batch).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
			return wrap("insert counterparties", err)
		}
	}
	return nil
}

// FindCounterparties implements app.BankStore: one keyset page by (name,
// id) of the (business_id, name, id) index.
func (s *BankStore) FindCounterparties(ctx context.Context, businessID uuid.UUID, f banking.CounterpartyFilter, p page.Params) ([]banking.Counterparty, page.Meta, error) {
	db := s.conn(ctx)
	q := db.NewSelect().Model((*counterpartyRow)(nil)).Where("bc.business_id = ?", businessID)
	if f.Query != "" {
		q = q.Where("bc.name ILIKE ?", likePattern(f.Query))
	}
	if len(f.ExternalIDs) > 0 {
		q = q.Where("bc.external_id IN (?)", bun.In(f.ExternalIDs))
	}
	rows, meta, err := pagebun.Fetch(ctx, q, p, "bc.id", func(r counterpartyRow) (any, uuid.UUID) { return r.Name, r.ID })
	if err != nil {
		return nil, page.Meta{}, wrap("list counterparties", err)
	}
	out := make([]banking.Counterparty, len(rows))
	for i, r := range rows {
		out[i] = r.counterparty()
	}
	return out, meta, nil
}
