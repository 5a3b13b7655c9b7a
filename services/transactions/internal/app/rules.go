package app

import (
	"context"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking/autocat"
)

// EnumRuleNotFound is the error_enum of a rule id the business does not
// have.
const EnumRuleNotFound = "CategorizationRuleNotFound"

// RuleStore is the persistence of categorization rules (part of
// BankStore).
type RuleStore interface {
	InsertRule(ctx context.Context, businessID uuid.UUID, r autocat.Rule, d autocat.RuleDraft) error
	// ListRules returns the business's live (unarchived) rules, oldest
	// first.
	ListRules(ctx context.Context, businessID uuid.UUID) ([]autocat.Rule, error)
	// ListAllRules is ListRules with the archived ones too when asked.
	ListAllRules(ctx context.Context, businessID uuid.UUID, includeArchived bool) ([]autocat.Rule, error)
	DeleteRule(ctx context.Context, businessID, id uuid.UUID) (bool, error)
	// FindRule returns the rule and the draft it is kept as.
	FindRule(ctx context.Context, businessID, id uuid.UUID, lock Lock) (autocat.Rule, autocat.RuleDraft, bool, error)
	FindRuleByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (autocat.Rule, bool, error)
	// UpdateRule saves r's draft, external id, update and archive times.
	UpdateRule(ctx context.Context, businessID uuid.UUID, r autocat.Rule, d autocat.RuleDraft) error
	// FindRuleCounterparty is the business's counterparty id (GET
	// /counterparties), as rules match it.
	FindRuleCounterparty(ctx context.Context, businessID, id uuid.UUID) (autocat.Counterparty, bool, error)
	// UncategorizedCandidates are the business's uncategorized
	// transactions that may match r (narrowed in SQL by its direction,
	// amount range and counterparty), at most limit, oldest first.
	UncategorizedCandidates(ctx context.Context, businessID uuid.UUID, r autocat.Rule, limit int) ([]RuleCandidate, error)
	RuleSuggestionStore
}

// RuleCandidate is a transaction as the matcher sees it.
type RuleCandidate struct {
	ID uuid.UUID
	autocat.Candidate
}

// DeleteRule is DELETE /categorization-rules/{id}: 404 when the business
// has no such rule. Transactions it categorized stay as they are.
func (b *Banking) DeleteRule(ctx context.Context, businessID, id uuid.UUID) error {
	ok, err := b.store.DeleteRule(ctx, businessID, id)
	if err != nil {
		return fmt.Errorf("delete rule %s: %w", id, err)
	}
	if !ok {
		return apperr.New(apperr.NotFound, "categorization rule not found").WithEnum(EnumRuleNotFound)
	}
	return nil
}

// autoCategorize applies the business's rules to the freshly inserted
// transactions of txns (method SERVICE_AUTO, posted like a categorize
// call) and returns txns with them updated. A rule whose categorization
// no longer fits (its account archived since, say) leaves the
// transaction uncategorized.
func (b *Banking) autoCategorize(ctx context.Context, businessID uuid.UUID, txns []banking.BankTransaction, inserted map[uuid.UUID]bool) ([]banking.BankTransaction, error) {
	if len(inserted) == 0 {
		return txns, nil
	}
	rules, err := b.store.ListRules(ctx, businessID)
	if err != nil || len(rules) == 0 {
		return txns, err
	}
	for i, t := range txns {
		if !inserted[t.ID] {
			continue
		}
		rule, ok := autocat.Match(rules, autocat.CandidateOf(t))
		if !ok {
			continue
		}
		target, err := b.target(ctx, t)
		if err != nil {
			return nil, err
		}
		cat, err := rule.Request().Validate(target)
		if err != nil {
			b.log.InfoContext(ctx, "rule does not fit the transaction", "rule_id", rule.ID, "transaction_id", t.ID, "error", err)
			continue
		}
		// A savepoint (a unit of work inside the import's), so that a rule
		// refused halfway leaves nothing behind.
		var applied banking.BankTransaction
		err = b.uow.Do(ctx, func(ctx context.Context) error {
			var err error
			applied, err = b.apply(ctx, t, cat, banking.MethodServiceAuto, domain.AgentServiceAuto)
			return err
		})
		if ae := apperr.From(err); ae != nil && ae.Status() < 500 {
			b.log.InfoContext(ctx, "rule does not fit the transaction", "rule_id", rule.ID, "transaction_id", t.ID, "error", err)
			continue
		}
		if err != nil {
			return nil, err
		}
		txns[i] = applied
	}
	return txns, nil
}

// postUncategorized posts, for each freshly inserted transaction of txns,
// its entry while uncategorized (source version 1): money out debits
// UNCATEGORIZED_EXPENSES and credits the bank account, money in the
// reverse into UNCATEGORIZED_REVENUE. So the bank account's balance always
// equals the signed sum of its (non-duplicate) transactions; categorizing
// reverses this entry like any other.
func (b *Banking) postUncategorized(ctx context.Context, businessID uuid.UUID, txns []banking.BankTransaction, inserted map[uuid.UUID]bool) error {
	var ins []NewEntry
	for _, t := range txns {
		if !inserted[t.ID] || t.Amount <= 0 {
			continue
		}
		bank, other := domain.Credit, domain.Debit
		category := domain.StableUncategorizedExpense
		if t.Direction.MoneyIn() {
			bank, other, category = domain.Debit, domain.Credit, domain.StableUncategorizedRevenue
		}
		ins = append(ins, NewEntry{
			EntryType: domain.EntryBank, Agent: domain.AgentAPI, EntryAt: t.Date, Memo: t.Memo, Tags: t.EntryTags(),
			Source: domain.Source{Type: SourceBankTransaction, ID: t.ID.String(), Version: strconv.Itoa(t.Version)},
			Lines: []domain.JournalLine{
				{Account: domain.ByID(t.LedgerAccountID), Amount: t.Amount, Direction: bank},
				{Account: domain.ByStableName(category), Amount: t.Amount, Direction: other},
			},
		})
	}
	if len(ins) == 0 {
		return nil
	}
	if _, err := b.ledger.PostEntries(ctx, businessID, ins); err != nil {
		return fmt.Errorf("post uncategorized entries: %w", err)
	}
	return nil
}

// storeNew is the end of every import: insert the rows whose source ids are
// new, read back the stored ones (a repeat answers the first import), post
// the new ones as uncategorized and apply the business's rules to them, all
// in the caller's unit of work.
func (b *Banking) storeNew(ctx context.Context, businessID uuid.UUID, txns []banking.BankTransaction) ([]banking.BankTransaction, error) {
	inserted, err := b.store.InsertBankTransactions(ctx, txns)
	if err != nil {
		return nil, fmt.Errorf("insert bank transactions: %w", err)
	}
	out, err := b.settle(ctx, businessID, txns, inserted)
	if err != nil {
		return nil, err
	}
	if err := b.postUncategorized(ctx, businessID, out, inserted); err != nil {
		return nil, err
	}
	return b.autoCategorize(ctx, businessID, out, inserted)
}
