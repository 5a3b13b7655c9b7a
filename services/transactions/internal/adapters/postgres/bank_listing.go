package postgres

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// likePattern is s as a literal inside an ILIKE '%...%' pattern.
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}

// categoryContains is the jsonb containment that matches a category
// whose entries hold c.
func categoryContains(c banking.Classification) (string, error) {
	entry := map[string]string{}
	switch c.Type {
	case banking.ByAccountID:
		entry["account_id"] = c.AccountID.String()
	case banking.ByStableName:
		entry["stable_name"] = c.StableName
	default:
		entry["exclusion_type"] = string(c.Exclusion)
	}
	raw, err := json.Marshal(map[string]any{"entries": []any{entry}})
	return string(raw), err
}

// FindBankTransactions implements app.BankStore: one keyset page of the
// filtered transactions, then their tags and documents. Every value,
// cursor included, is bound into the query (no subquery for the cursor),
// so PostgreSQL seeks the (business_id, key, id) index.
func (s *BankStore) FindBankTransactions(ctx context.Context, businessID uuid.UUID, f banking.Filter, p page.Params) ([]banking.BankTransaction, page.Meta, error) {
	db := s.conn(ctx)
	q := db.NewSelect().Model((*bankTxnRow)(nil)).Where("bt.business_id = ?", businessID)
	if !f.IncludeArchived {
		q = q.Where("bt.archived_at IS NULL")
	}
	if f.Start != nil {
		q = q.Where("bt.date >= ?", *f.Start)
	}
	if f.End != nil {
		q = q.Where("bt.date < ?", *f.End)
	}
	if f.Direction != nil {
		q = q.Where("bt.direction = ?", string(*f.Direction))
	}
	final := []string{string(banking.StatusCategorized), string(banking.StatusSplit), string(banking.StatusMatched)}
	if f.Categorized != nil {
		if *f.Categorized {
			q = q.Where("bt.categorization_status IN (?)", bun.In(final))
		} else {
			q = q.Where("bt.categorization_status NOT IN (?)", bun.In(final))
		}
	}
	if len(f.Statuses) > 0 {
		st := make([]string, len(f.Statuses))
		for i, x := range f.Statuses {
			st[i] = string(x)
		}
		q = q.Where("bt.categorization_status IN (?)", bun.In(st))
	}
	if f.Category != nil {
		c, err := categoryContains(*f.Category)
		if err != nil {
			return nil, page.Meta{}, wrap("category filter", err)
		}
		q = q.Where("bt.category @> ?::jsonb", c)
	}
	if f.AmountMin != nil {
		q = q.Where("bt.amount >= ?", int64(*f.AmountMin))
	}
	if f.AmountMax != nil {
		q = q.Where("bt.amount <= ?", int64(*f.AmountMax))
	}
	if f.Query != "" {
		pat := likePattern(f.Query)
		q = q.Where("(bt.description ILIKE ? OR bt.counterparty_name ILIKE ?)", pat, pat)
	}
	if f.ReferenceNumber != "" {
		q = q.Where("bt.reference_number = ?", f.ReferenceNumber)
	}
	if f.TagKey != "" {
		if len(f.TagValues) > 0 {
			q = q.Where(`EXISTS (SELECT 1 FROM bank_transaction_tags t
				WHERE t.business_id = bt.business_id AND t.transaction_id = bt.id AND t.key = ? AND t.value IN (?))`,
				f.TagKey, bun.In(f.TagValues))
		} else {
			q = q.Where(`EXISTS (SELECT 1 FROM bank_transaction_tags t
				WHERE t.business_id = bt.business_id AND t.transaction_id = bt.id AND t.key = ?)`, f.TagKey)
		}
	}
	if len(f.BankAccountIDs) > 0 {
		q = q.Where("(bt.custom_account_id IN (?) OR bt.external_account_id IN (?))", bun.In(f.BankAccountIDs), bun.In(f.BankAccountIDs))
	}
	if len(f.SourceAccountIDs) > 0 {
		q = q.Where("bt.source_account_id IN (?)", bun.In(f.SourceAccountIDs))
	}
	if f.ExternalAccountID != nil {
		q = q.Where("bt.external_account_id = ?", *f.ExternalAccountID)
	}
	rows, meta, err := pagebun.Fetch(ctx, q, p, "bt.id", func(r bankTxnRow) (any, uuid.UUID) {
		switch p.SortBy {
		case "amount":
			return r.Amount, r.ID
		case "imported_at":
			return r.ImportedAt, r.ID
		}
		return r.Date, r.ID
	})
	if err != nil {
		return nil, page.Meta{}, wrap("list bank transactions", err)
	}
	out, err := loadExtras(ctx, db, businessID, rows)
	if err != nil {
		return nil, page.Meta{}, err
	}
	return out, meta, nil
}
