package app

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking/autocat"
)

// HistoryEntry is how often the business put transactions of one
// counterparty into one category, and when last.
type HistoryEntry struct {
	Category banking.TxnCategoryEntry
	Count    int
	LastUsed time.Time
}

// HistoryStore reads the business's categorization history (part of
// BankStore).
type HistoryStore interface {
	// CategoryHistory is the history of each counterparty key.
	CategoryHistory(ctx context.Context, businessID uuid.UUID, keys []string) (map[string][]HistoryEntry, error)
}

// withSuggestions fills the Suggestions of the uncategorized transactions
// of txns: the categories the business used most (then most recently) for
// the same counterparty (autocat.NormalizeCounterparty), at most
// autocat.DefaultSuggestions.
func (b *Banking) withSuggestions(ctx context.Context, businessID uuid.UUID, txns []banking.BankTransaction) error {
	keyOf := make([]string, len(txns))
	var keys []string
	seen := map[string]bool{}
	for i, t := range txns {
		if t.Category != nil || t.CounterpartyName == nil {
			continue
		}
		k := autocat.NormalizeCounterparty(*t.CounterpartyName)
		keyOf[i] = k
		if k != "" && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	history, err := b.store.CategoryHistory(ctx, businessID, keys)
	if err != nil {
		return fmt.Errorf("category history: %w", err)
	}
	ranked := map[string][]banking.TxnCategoryEntry{}
	for k, entries := range history {
		counts := make([]autocat.HistoryCount, len(entries))
		byKey := map[string]banking.TxnCategoryEntry{}
		for i, h := range entries {
			c := h.Category.Classification()
			counts[i] = autocat.HistoryCount{Category: c, Count: h.Count, LastUsed: h.LastUsed}
			byKey[c.Key()] = h.Category
		}
		for _, c := range autocat.RankSuggestions(counts, autocat.DefaultSuggestions) {
			ranked[k] = append(ranked[k], byKey[c.Key()])
		}
	}
	for i := range txns {
		if keyOf[i] != "" {
			txns[i].Suggestions = ranked[keyOf[i]]
		}
	}
	return nil
}
