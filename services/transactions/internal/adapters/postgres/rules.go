package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking/autocat"
)

// ruleRow is a row of categorization_rules.
type ruleRow struct {
	bun.BaseModel `bun:"table:categorization_rules,alias:cr"`

	BusinessID            uuid.UUID       `bun:"business_id,pk,type:uuid"`
	ID                    uuid.UUID       `bun:"id,pk,type:uuid"`
	Draft                 json.RawMessage `bun:"draft,type:jsonb"`
	CreatedAt             time.Time       `bun:"created_at"`
	UpdatedAt             time.Time       `bun:"updated_at"`
	ArchivedAt            *time.Time      `bun:"archived_at"`
	ExternalID            *string         `bun:"external_id"`
	CreatedBySuggestionID *uuid.UUID      `bun:"created_by_suggestion_id,type:uuid"`
}

// rule rebuilds the row's rule from its draft.
func (r ruleRow) rule() (autocat.Rule, autocat.RuleDraft, error) {
	var d autocat.RuleDraft
	if err := json.Unmarshal(r.Draft, &d); err != nil {
		return autocat.Rule{}, d, fmt.Errorf("decode rule %s: %w", r.ID, err)
	}
	rule, err := autocat.NewRule(r.ID, r.CreatedAt.UTC(), d)
	if err != nil {
		return autocat.Rule{}, d, fmt.Errorf("rebuild rule %s: %w", r.ID, err)
	}
	rule.UpdatedAt, rule.ExternalID, rule.CreatedBySuggestionID = r.UpdatedAt.UTC(), r.ExternalID, r.CreatedBySuggestionID
	if r.ArchivedAt != nil {
		at := r.ArchivedAt.UTC()
		rule.ArchivedAt = &at
	}
	return rule, d, nil
}

func newRuleRow(businessID uuid.UUID, r autocat.Rule, d autocat.RuleDraft) (ruleRow, error) {
	raw, err := json.Marshal(d)
	if err != nil {
		return ruleRow{}, fmt.Errorf("encode rule: %w", err)
	}
	updated := r.UpdatedAt
	if updated.IsZero() {
		updated = r.CreatedAt
	}
	return ruleRow{BusinessID: businessID, ID: r.ID, Draft: raw, CreatedAt: r.CreatedAt, UpdatedAt: updated, ArchivedAt: r.ArchivedAt,
		ExternalID: r.ExternalID, CreatedBySuggestionID: r.CreatedBySuggestionID}, nil
}

// InsertRule implements app.BankStore.
func (s *BankStore) InsertRule(ctx context.Context, businessID uuid.UUID, r autocat.Rule, d autocat.RuleDraft) error {
	db := s.conn(ctx)
	row, err := newRuleRow(businessID, r, d)
	if err != nil {
		return err
	}
	_, err = db.NewInsert().Model(&row).Exec(ctx)
	return wrap("insert rule", err)
}

// ListRules implements app.BankStore: the live rules.
func (s *BankStore) ListRules(ctx context.Context, businessID uuid.UUID) ([]autocat.Rule, error) {
	return s.ListAllRules(ctx, businessID, false)
}

// ListAllRules implements app.BankStore.
func (s *BankStore) ListAllRules(ctx context.Context, businessID uuid.UUID, includeArchived bool) ([]autocat.Rule, error) {
	db := s.conn(ctx)
	var rows []ruleRow
	q := db.NewSelect().Model(&rows).Where("cr.business_id = ?", businessID)
	if !includeArchived {
		q = q.Where("cr.archived_at IS NULL")
	}
	if err := q.OrderExpr("cr.created_at, cr.id").Scan(ctx); err != nil {
		return nil, wrap("list rules", err)
	}
	out := make([]autocat.Rule, 0, len(rows))
	for _, r := range rows {
		rule, _, err := r.rule()
		if err != nil {
			return nil, err
		}
		out = append(out, rule)
	}
	return out, nil
}

// DeleteRule implements app.BankStore.
func (s *BankStore) DeleteRule(ctx context.Context, businessID, id uuid.UUID) (bool, error) {
	db := s.conn(ctx)
	res, err := db.NewDelete().Model((*ruleRow)(nil)).Where("business_id = ? AND id = ?", businessID, id).Exec(ctx)
	if err != nil {
		return false, wrap("delete rule", err)
	}
	n, err := res.RowsAffected()
	return n > 0, wrap("delete rule", err)
}

// CategoryHistory implements app.BankStore: per counterparty key, how
// often each category (split entries included) was used, and when last.
func (s *BankStore) CategoryHistory(ctx context.Context, businessID uuid.UUID, keys []string) (map[string][]app.HistoryEntry, error) {
	db := s.conn(ctx)
	var rows []struct {
		Key           string     `bun:"key"`
		AccountID     *uuid.UUID `bun:"account_id,type:uuid"`
		ExclusionType *string    `bun:"exclusion_type"`
		StableName    *string    `bun:"stable_name"`
		DisplayName   string     `bun:"display_name"`
		Count         int        `bun:"count"`
		LastUsed      time.Time  `bun:"last_used"`
	}
	err := db.NewRaw(`SELECT bt.counterparty_key AS key, (e->>'account_id')::uuid AS account_id,
			e->>'exclusion_type' AS exclusion_type, max(e->>'stable_name') AS stable_name,
			max(e->>'display_name') AS display_name, count(*) AS count, max(bt.updated_at) AS last_used
		FROM bank_transactions bt, jsonb_array_elements(bt.category->'entries') e
		WHERE bt.business_id = ? AND bt.counterparty_key IN (?) AND bt.category IS NOT NULL
		GROUP BY 1, 2, 3`, businessID, bun.In(keys)).Scan(ctx, &rows)
	if err != nil {
		return nil, wrap("category history", err)
	}
	out := map[string][]app.HistoryEntry{}
	for _, r := range rows {
		out[r.Key] = append(out[r.Key], app.HistoryEntry{
			Category: banking.TxnCategoryEntry{AccountID: r.AccountID, ExclusionType: r.ExclusionType, StableName: r.StableName, DisplayName: r.DisplayName},
			Count:    r.Count, LastUsed: r.LastUsed.UTC(),
		})
	}
	return out, nil
}
