package app

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking/autocat"
)

// EnumRuleSuggestionNotFound is the error_enum of a suggestion id the
// business does not have.
const EnumRuleSuggestionNotFound = "CategorizationRuleSuggestionNotFound"

// MaxAffectedTransactions bounds transactions_that_will_be_affected.
const MaxAffectedTransactions = 50

// The statuses of a rule suggestion.
const (
	SuggestionOpen     = "OPEN"
	SuggestionAccepted = "ACCEPTED"
	SuggestionRejected = "REJECTED"
)

// RuleSuggestion is a suggestion to categorize a counterparty's
// transactions by rule, made when a user categorized one of them while
// others were still uncategorized and no rule covered it. There is at most
// one per counterparty of a business, ever: a rejected one is not made
// again.
type RuleSuggestion struct {
	ID               uuid.UUID
	BusinessID       uuid.UUID
	CounterpartyID   uuid.UUID
	CounterpartyKey  string
	CounterpartyName *string
	// Category is what the user categorized the prompting transaction as.
	Category      banking.Classification
	TransactionID uuid.UUID
	Status        string
	RuleID        *uuid.UUID
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// Affected are the counterparty's uncategorized transactions now (read
	// when the suggestion is answered).
	Affected []banking.BankTransaction
}

// NewRule is the draft the suggestion proposes: the category for the
// counterparty, applied retroactively.
func (s RuleSuggestion) NewRule() autocat.RuleDraft {
	id := s.ID
	cp := s.CounterpartyID
	name := "Categorize " + s.CounterpartyKey
	if s.CounterpartyName != nil {
		name = "Categorize " + *s.CounterpartyName
	}
	return autocat.RuleDraft{Name: &name, Category: s.Category, CounterpartyID: &cp,
		CounterpartyRef:       &autocat.Counterparty{ID: cp, Key: s.CounterpartyKey, Name: s.CounterpartyName},
		CreatedBySuggestionID: &id}
}

// RuleSuggestionStore is the persistence of rule suggestions (part of
// RuleStore).
type RuleSuggestionStore interface {
	// InsertRuleSuggestion stores s unless the business has a suggestion
	// for its counterparty already, which it returns instead.
	InsertRuleSuggestion(ctx context.Context, s RuleSuggestion) (RuleSuggestion, bool, error)
	// SetRuleSuggestionStatus moves an OPEN suggestion to status; false
	// when the business has no such suggestion.
	SetRuleSuggestionStatus(ctx context.Context, businessID, id uuid.UUID, status string, ruleID *uuid.UUID, at time.Time) (bool, error)
	// OpenRuleSuggestions are the OPEN suggestions prompted by these
	// transactions, by transaction id.
	OpenRuleSuggestions(ctx context.Context, businessID uuid.UUID, txnIDs []uuid.UUID) (map[uuid.UUID]RuleSuggestion, error)
	// UncategorizedOfCounterparty are the counterparty's uncategorized
	// transactions other than except, oldest first, at most limit.
	UncategorizedOfCounterparty(ctx context.Context, businessID uuid.UUID, key string, except uuid.UUID, limit int) ([]banking.BankTransaction, error)
}

// suggestRule is called once a user categorized t (in the same
// transaction): when t's counterparty has other uncategorized
// transactions, no live rule covers t and the business was never offered
// a rule for that counterparty, it records a suggestion, which t's answer
// carries.
func (b *Banking) suggestRule(ctx context.Context, t banking.BankTransaction) error {
	if t.Category == nil || t.Category.Split || len(t.Category.Entries) != 1 || t.CounterpartyName == nil {
		return nil
	}
	e := t.Category.Entries[0]
	var cat banking.Classification
	switch {
	case e.AccountID != nil:
		cat = banking.Classification{Type: banking.ByAccountID, AccountID: *e.AccountID}
	case e.StableName != nil:
		cat = banking.StableNameClassification(*e.StableName)
	default:
		return nil // exclusions are not offered as rules
	}
	if e.StableName != nil {
		cat = banking.StableNameClassification(*e.StableName)
	}
	key := autocat.NormalizeCounterparty(*t.CounterpartyName)
	if key == "" {
		return nil
	}
	rules, err := b.store.ListRules(ctx, t.BusinessID)
	if err != nil {
		return fmt.Errorf("list rules: %w", err)
	}
	if _, covered := autocat.Match(rules, autocat.CandidateOf(t)); covered {
		return nil
	}
	others, err := b.store.UncategorizedOfCounterparty(ctx, t.BusinessID, key, t.ID, 1)
	if err != nil {
		return fmt.Errorf("uncategorized of counterparty: %w", err)
	}
	if len(others) == 0 {
		return nil
	}
	now := b.clock()
	name := *t.CounterpartyName
	_, _, err = b.store.InsertRuleSuggestion(ctx, RuleSuggestion{
		ID: newID(), BusinessID: t.BusinessID, CounterpartyID: banking.CounterpartyID(t.BusinessID, key), CounterpartyKey: key,
		CounterpartyName: &name, Category: cat, TransactionID: t.ID, Status: SuggestionOpen, CreatedAt: now, UpdatedAt: now,
	})
	if err != nil {
		return fmt.Errorf("insert rule suggestion: %w", err)
	}
	return nil
}

// RuleSuggestionOf is the open suggestion t prompted, with the
// transactions a rule would categorize now; nil when there is none (or
// nothing left to categorize).
func (b *Banking) RuleSuggestionOf(ctx context.Context, t banking.BankTransaction) (*RuleSuggestion, error) {
	open, err := b.store.OpenRuleSuggestions(ctx, t.BusinessID, []uuid.UUID{t.ID})
	if err != nil {
		return nil, fmt.Errorf("open rule suggestions: %w", err)
	}
	s, ok := open[t.ID]
	if !ok {
		return nil, nil
	}
	s.Affected, err = b.store.UncategorizedOfCounterparty(ctx, t.BusinessID, s.CounterpartyKey, t.ID, MaxAffectedTransactions)
	if err != nil {
		return nil, fmt.Errorf("uncategorized of counterparty: %w", err)
	}
	if len(s.Affected) == 0 {
		return nil, nil
	}
	return &s, nil
}

// RejectRuleSuggestion is DELETE /categorization-rules/suggestions/{id}:
// the suggestion is not offered again (its counterparty included). 404
// for an id the business does not have; rejecting again changes nothing.
func (b *Banking) RejectRuleSuggestion(ctx context.Context, businessID, id uuid.UUID) error {
	ok, err := b.store.SetRuleSuggestionStatus(ctx, businessID, id, SuggestionRejected, nil, b.clock())
	if err != nil {
		return fmt.Errorf("reject rule suggestion %s: %w", id, err)
	}
	if !ok {
		return apperr.New(apperr.NotFound, "categorization rule suggestion not found").WithEnum(EnumRuleSuggestionNotFound)
	}
	return nil
}
