package autocat

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// NormalizeCounterparty is the key under which a business's history with a
// counterparty is kept: banking.NormalizeCounterparty.
func NormalizeCounterparty(name string) string { return banking.NormalizeCounterparty(name) }

// HistoryCount is how often the business categorized transactions of one
// counterparty into one category, and when it last did.
type HistoryCount struct {
	Category banking.Classification
	Count    int
	LastUsed time.Time
}

// DefaultSuggestions is how many suggestions a transaction offers.
const DefaultSuggestions = 3

// RankSuggestions ranks the categories of a counterparty's history: the
// most used first, then the most recently used, then by category key so
// the order is stable. The same category counted in several rows (e.g. by
// id and by stable name resolved to one key upstream, or split entries)
// is merged. Rows with no use and DUPLICATE_TRANSACTION (never a sensible
// suggestion) are left out. At most limit categories (DefaultSuggestions
// when limit ≤ 0) are returned, never nil.
func RankSuggestions(history []HistoryCount, limit int) []banking.Classification {
	if limit <= 0 {
		limit = DefaultSuggestions
	}
	merged := map[string]*HistoryCount{}
	var order []*HistoryCount
	for _, h := range history {
		if h.Count <= 0 || h.Category.Exclusion == banking.DuplicateTransaction || h.Category.Validate("category") != nil {
			continue
		}
		k := h.Category.Key()
		if m, ok := merged[k]; ok {
			m.Count += h.Count
			if h.LastUsed.After(m.LastUsed) {
				m.LastUsed = h.LastUsed
			}
			continue
		}
		c := h
		merged[k] = &c
		order = append(order, &c)
	}
	slices.SortFunc(order, func(a, b *HistoryCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		if c := b.LastUsed.Compare(a.LastUsed); c != 0 {
			return c
		}
		return strings.Compare(a.Category.Key(), b.Category.Key())
	})
	out := make([]banking.Classification, 0, min(limit, len(order)))
	for _, h := range order[:min(limit, len(order))] {
		out = append(out, h.Category)
	}
	return out
}

// FlowType is the `categorization_flow.type` of a transaction.
type FlowType string

// The flow types a server sends.
const (
	// FlowAuto: the transaction was categorized by a rule.
	FlowAuto FlowType = "AUTO"
	// FlowAskFromSuggestions: the transaction waits for the business to
	// pick a category, suggestions first.
	FlowAskFromSuggestions FlowType = "ASK_FROM_SUGGESTIONS"
)

// Flow is a transaction's categorization flow: how it is (to be)
// categorized and what is suggested. Suggestions is never nil, as the
// client requires the array.
type Flow struct {
	Type        FlowType
	Category    *banking.Classification
	Suggestions []banking.Classification
}

// SuggestionFlow is the flow of an uncategorized transaction: ask the
// business, offering the ranked suggestions (maybe none).
func SuggestionFlow(suggestions []banking.Classification) Flow {
	if suggestions == nil {
		suggestions = []banking.Classification{}
	}
	return Flow{Type: FlowAskFromSuggestions, Suggestions: suggestions}
}

// AutoFlow is the flow of a transaction a rule categorized.
func AutoFlow(r Rule) Flow {
	c := r.Category
	return Flow{Type: FlowAuto, Category: &c, Suggestions: []banking.Classification{}}
}
