package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking/autocat"
)

// finalStatuses are the categorization statuses of a categorized
// transaction.
var finalStatuses = []string{string(banking.StatusCategorized), string(banking.StatusSplit), string(banking.StatusMatched)}

// FindRule implements app.BankStore.
func (s *BankStore) FindRule(ctx context.Context, businessID, id uuid.UUID, lock app.Lock) (autocat.Rule, autocat.RuleDraft, bool, error) {
	db := s.conn(ctx)
	var row ruleRow
	q := db.NewSelect().Model(&row).Where("cr.business_id = ? AND cr.id = ?", businessID, id)
	if lock == app.LockUpdate {
		q = q.For("UPDATE")
	}
	err := q.Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return autocat.Rule{}, autocat.RuleDraft{}, false, nil
	}
	if err != nil {
		return autocat.Rule{}, autocat.RuleDraft{}, false, wrap("find rule", err)
	}
	r, d, err := row.rule()
	return r, d, err == nil, err
}

// FindRuleByExternalID implements app.BankStore.
func (s *BankStore) FindRuleByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (autocat.Rule, bool, error) {
	db := s.conn(ctx)
	var row ruleRow
	err := db.NewSelect().Model(&row).Where("cr.business_id = ? AND cr.external_id = ?", businessID, externalID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return autocat.Rule{}, false, nil
	}
	if err != nil {
		return autocat.Rule{}, false, wrap("find rule by external id", err)
	}
	r, _, err := row.rule()
	return r, err == nil, err
}

// UpdateRule implements app.BankStore.
func (s *BankStore) UpdateRule(ctx context.Context, businessID uuid.UUID, r autocat.Rule, d autocat.RuleDraft) error {
	db := s.conn(ctx)
	row, err := newRuleRow(businessID, r, d)
	if err != nil {
		return err
	}
	_, err = db.NewUpdate().Model(&row).Column("draft", "updated_at", "archived_at", "external_id").WherePK().Exec(ctx)
	return wrap("update rule", err)
}

// FindRuleCounterparty implements app.BankStore: a counterparty of GET
// /counterparties (bank_counterparties, one per normalised name).
func (s *BankStore) FindRuleCounterparty(ctx context.Context, businessID, id uuid.UUID) (autocat.Counterparty, bool, error) {
	db := s.conn(ctx)
	var row struct {
		Key        string  `bun:"key"`
		Name       string  `bun:"name"`
		ExternalID *string `bun:"external_id"`
	}
	err := db.NewRaw("SELECT key, name, external_id FROM bank_counterparties WHERE business_id = ? AND id = ?", businessID, id).Scan(ctx, &row)
	if errors.Is(err, sql.ErrNoRows) {
		return autocat.Counterparty{}, false, nil
	}
	if err != nil {
		return autocat.Counterparty{}, false, wrap("find counterparty", err)
	}
	name := row.Name
	return autocat.Counterparty{ID: id, Key: row.Key, Name: &name, ExternalID: row.ExternalID}, true, nil
}

// uncategorized selects the business's uncategorized transactions.
func uncategorized(q *bun.SelectQuery, businessID uuid.UUID) *bun.SelectQuery {
	return q.Where("bt.business_id = ? AND bt.category IS NULL AND bt.categorization_status NOT IN (?)", businessID, bun.In(finalStatuses))
}

// UncategorizedCandidates implements app.BankStore.
func (s *BankStore) UncategorizedCandidates(ctx context.Context, businessID uuid.UUID, r autocat.Rule, limit int) ([]app.RuleCandidate, error) {
	db := s.conn(ctx)
	var rows []struct {
		ID                uuid.UUID  `bun:"id,type:uuid"`
		Direction         string     `bun:"direction"`
		Amount            int64      `bun:"amount"`
		CounterpartyName  *string    `bun:"counterparty_name"`
		Description       *string    `bun:"description"`
		TransactionType   *string    `bun:"transaction_type"`
		CustomAccountID   *uuid.UUID `bun:"custom_account_id,type:uuid"`
		ExternalAccountID *uuid.UUID `bun:"external_account_id,type:uuid"`
	}
	q := uncategorized(db.NewSelect().TableExpr("bank_transactions AS bt").
		ColumnExpr("bt.id, bt.direction, bt.amount, bt.counterparty_name, bt.description, bt.transaction_type, bt.custom_account_id, bt.external_account_id"), businessID)
	if r.Direction != nil {
		q = q.Where("bt.direction = ?", string(*r.Direction))
	}
	if r.AmountMin != nil {
		q = q.Where("bt.amount >= ?", int64(*r.AmountMin))
	}
	if r.AmountMax != nil {
		q = q.Where("bt.amount <= ?", int64(*r.AmountMax))
	}
	if r.CounterpartyRef != nil {
		q = q.Where("bt.counterparty_key = ?", r.CounterpartyRef.Key)
	}
	if err := q.OrderExpr("bt.date, bt.id").Limit(int64(limit)).Scan(ctx, &rows); err != nil {
		return nil, wrap("uncategorized candidates", err)
	}
	out := make([]app.RuleCandidate, len(rows))
	for i, x := range rows {
		c := autocat.Candidate{Direction: banking.Direction(x.Direction), Amount: moneyOf(x.Amount)}
		if x.CounterpartyName != nil {
			c.Counterparty = *x.CounterpartyName
		}
		if x.Description != nil {
			c.Description = *x.Description
		}
		if x.TransactionType != nil {
			c.TransactionType = *x.TransactionType
		}
		switch {
		case x.CustomAccountID != nil:
			c.BankAccountID = *x.CustomAccountID
		case x.ExternalAccountID != nil:
			c.BankAccountID = *x.ExternalAccountID
		}
		out[i] = app.RuleCandidate{ID: x.ID, Candidate: c}
	}
	return out, nil
}

// ruleSuggestionRow is a row of categorization_rule_suggestions.
type ruleSuggestionRow struct {
	bun.BaseModel `bun:"table:categorization_rule_suggestions,alias:rs"`

	BusinessID       uuid.UUID       `bun:"business_id,pk,type:uuid"`
	ID               uuid.UUID       `bun:"id,pk,type:uuid"`
	CounterpartyID   uuid.UUID       `bun:"counterparty_id,type:uuid"`
	CounterpartyKey  string          `bun:"counterparty_key"`
	CounterpartyName *string         `bun:"counterparty_name"`
	Category         json.RawMessage `bun:"category,type:jsonb"`
	TransactionID    uuid.UUID       `bun:"transaction_id,type:uuid"`
	Status           string          `bun:"status"`
	RuleID           *uuid.UUID      `bun:"rule_id,type:uuid"`
	CreatedAt        time.Time       `bun:"created_at"`
	UpdatedAt        time.Time       `bun:"updated_at"`
}

func (r ruleSuggestionRow) suggestion() (app.RuleSuggestion, error) {
	var c banking.Classification
	if err := json.Unmarshal(r.Category, &c); err != nil {
		return app.RuleSuggestion{}, fmt.Errorf("decode suggestion %s: %w", r.ID, err)
	}
	return app.RuleSuggestion{ID: r.ID, BusinessID: r.BusinessID, CounterpartyID: r.CounterpartyID, CounterpartyKey: r.CounterpartyKey,
		CounterpartyName: r.CounterpartyName, Category: c, TransactionID: r.TransactionID, Status: r.Status, RuleID: r.RuleID,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}, nil
}

// InsertRuleSuggestion implements app.BankStore.
func (s *BankStore) InsertRuleSuggestion(ctx context.Context, sg app.RuleSuggestion) (app.RuleSuggestion, bool, error) {
	db := s.conn(ctx)
	cat, err := json.Marshal(sg.Category)
	if err != nil {
		return app.RuleSuggestion{}, false, fmt.Errorf("encode suggestion category: %w", err)
	}
	row := ruleSuggestionRow{BusinessID: sg.BusinessID, ID: sg.ID, CounterpartyID: sg.CounterpartyID, CounterpartyKey: sg.CounterpartyKey,
		CounterpartyName: sg.CounterpartyName, Category: cat, TransactionID: sg.TransactionID, Status: sg.Status, CreatedAt: sg.CreatedAt, UpdatedAt: sg.UpdatedAt}
	res, err := db.NewInsert().Model(&row).On("CONFLICT (business_id, counterparty_key) DO NOTHING").Exec(ctx)
	if err != nil {
		return app.RuleSuggestion{}, false, wrap("insert rule suggestion", err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return sg, true, nil
	}
	var existing ruleSuggestionRow
	if err := db.NewSelect().Model(&existing).Where("rs.business_id = ? AND rs.counterparty_key = ?", sg.BusinessID, sg.CounterpartyKey).Scan(ctx); err != nil {
		return app.RuleSuggestion{}, false, wrap("find rule suggestion", err)
	}
	out, err := existing.suggestion()
	return out, false, err
}

// SetRuleSuggestionStatus implements app.BankStore: an OPEN suggestion
// moves; one already decided stays as it is (true all the same).
func (s *BankStore) SetRuleSuggestionStatus(ctx context.Context, businessID, id uuid.UUID, status string, ruleID *uuid.UUID, at time.Time) (bool, error) {
	db := s.conn(ctx)
	var n int
	err := db.NewRaw(`WITH u AS (
			UPDATE categorization_rule_suggestions SET status = ?, rule_id = ?, updated_at = ?
			WHERE business_id = ? AND id = ? AND status = 'OPEN' RETURNING 1)
		SELECT (SELECT count(*) FROM u) + (SELECT count(*) FROM categorization_rule_suggestions WHERE business_id = ? AND id = ?)`,
		status, ruleID, at, businessID, id, businessID, id).Scan(ctx, &n)
	if err != nil {
		return false, wrap("set rule suggestion status", err)
	}
	return n > 0, nil
}

// OpenRuleSuggestions implements app.BankStore.
func (s *BankStore) OpenRuleSuggestions(ctx context.Context, businessID uuid.UUID, txnIDs []uuid.UUID) (map[uuid.UUID]app.RuleSuggestion, error) {
	out := map[uuid.UUID]app.RuleSuggestion{}
	if len(txnIDs) == 0 {
		return out, nil
	}
	db := s.conn(ctx)
	var rows []ruleSuggestionRow
	err := db.NewSelect().Model(&rows).Where("rs.business_id = ? AND rs.status = 'OPEN' AND rs.transaction_id IN (?)", businessID, bun.In(txnIDs)).Scan(ctx)
	if err != nil {
		return nil, wrap("open rule suggestions", err)
	}
	for _, r := range rows {
		sg, err := r.suggestion()
		if err != nil {
			return nil, err
		}
		out[r.TransactionID] = sg
	}
	return out, nil
}

// UncategorizedOfCounterparty implements app.BankStore.
func (s *BankStore) UncategorizedOfCounterparty(ctx context.Context, businessID uuid.UUID, key string, except uuid.UUID, limit int) ([]banking.BankTransaction, error) {
	db := s.conn(ctx)
	var rows []bankTxnRow
	q := uncategorized(db.NewSelect().Model(&rows), businessID).Where("bt.counterparty_key = ? AND bt.id <> ?", key, except)
	if err := q.OrderExpr("bt.date, bt.id").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, wrap("uncategorized of counterparty", err)
	}
	return transactions(rows)
}
