package domain

import (
	"slices"
	"strings"

	"github.com/acctsuite/acct/pkg/events"
)

// CategorizedStatuses are the categorization statuses of a categorized
// bank transaction; every other status (PENDING, READY_FOR_INPUT,
// SERVICE_REVIEW, JOURNALING...) is uncategorized.
var CategorizedStatuses = []string{"CATEGORIZED", "SPLIT", "MATCHED"}

// Categorized reports whether a transaction of status s is categorized.
func Categorized(status string) bool { return slices.Contains(CategorizedStatuses, status) }

// BankTransaction is the read model's row of a bank_transaction.upserted
// snapshot.
type BankTransaction struct {
	events.BankTransactionUpserted
	// CategoryStableNames are the stable names of its category (of every
	// split's category for a split); CategoryDisplay what a CSV shows.
	CategoryStableNames []string
	CategoryDisplay     *string
	TagsText            string
}

// NewBankTransaction is the row of snapshot p.
func NewBankTransaction(p events.BankTransactionUpserted) BankTransaction {
	b := BankTransaction{BankTransactionUpserted: p, CategoryStableNames: []string{}}
	add := func(c events.BankCategory) {
		if c.StableName != nil && !slices.Contains(b.CategoryStableNames, *c.StableName) {
			b.CategoryStableNames = append(b.CategoryStableNames, *c.StableName)
		}
	}
	switch {
	case p.Category != nil:
		add(*p.Category)
		b.CategoryDisplay = &p.Category.DisplayName
	case len(p.Splits) > 0:
		names := make([]string, 0, len(p.Splits))
		for _, s := range p.Splits {
			add(s.Category)
			names = append(names, s.Category.DisplayName)
		}
		d := strings.Join(names, "; ")
		b.CategoryDisplay = &d
	}
	tags := make([]string, 0, len(p.Tags))
	for _, t := range p.Tags {
		tags = append(tags, t.Key+":"+t.Value)
	}
	b.TagsText = strings.Join(tags, ", ")
	return b
}
