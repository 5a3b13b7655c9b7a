// Package autocat is the domain of auto-categorization: a business's
// categorization rules (conditions on direction, counterparty or
// description text, amount range and bank account, leading to a
// category), the matcher that picks the rule for an imported transaction,
// and the ranking of category suggestions from the business's own history
// with a counterparty. Storage and the categorize call itself belong to
// the app layer; a matched rule gives it a Category request to validate
// and post with method SERVICE_AUTO.
package autocat

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"

	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// EnumInvalidRule is the error_enum of a refused rule.
const EnumInvalidRule = banking.EnumInvalidRule

// MatchMode says how a text condition compares.
type MatchMode string

// The match modes. Both ignore case.
const (
	// Contains matches when the pattern occurs in the text.
	Contains MatchMode = "CONTAINS"
	// Regex matches Go RE2 syntax anywhere in the text: matching time is
	// linear in the text, so no pattern can backtrack catastrophically.
	Regex MatchMode = "REGEX"
)

// Bounds of a rule.
const (
	MaxPatternLength  = 200 // characters
	MaxRuleNameLength = 255
	// maxRegexInsts bounds a compiled pattern's program, so that a short
	// pattern with nested counted repetitions (`(a{1,100}){1,100}`)
	// cannot make every match expensive.
	maxRegexInsts = 2000
)

// TextCondition is a compiled condition on a text field.
type TextCondition struct {
	Mode    MatchMode
	Pattern string
	lower   string
	re      *regexp.Regexp
}

// NewTextCondition checks and compiles a condition once, so matching never
// compiles. field names it in the error.
func NewTextCondition(field string, mode MatchMode, pattern string) (TextCondition, error) {
	bad := func(reason string) (TextCondition, error) {
		return TextCondition{}, apperr.FieldErrors(apperr.InvalidPayload, map[string]string{field + ".pattern": reason}).WithEnum(EnumInvalidRule)
	}
	if strings.TrimSpace(pattern) == "" {
		return bad("must not be empty")
	}
	if !utf8.ValidString(pattern) || utf8.RuneCountInString(pattern) > MaxPatternLength {
		return bad(fmt.Sprintf("must be valid UTF-8 of at most %d characters", MaxPatternLength))
	}
	c := TextCondition{Mode: mode, Pattern: pattern}
	switch mode {
	case Contains:
		c.lower = strings.ToLower(strings.TrimSpace(pattern))
	case Regex:
		parsed, err := syntax.Parse("(?i)"+pattern, syntax.Perl)
		if err != nil {
			return bad("is not a valid regular expression: " + strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		prog, err := syntax.Compile(parsed.Simplify())
		if err != nil || len(prog.Inst) > maxRegexInsts {
			return bad("is too complex")
		}
		if c.re, err = regexp.Compile("(?i)" + pattern); err != nil {
			return bad("is not a valid regular expression")
		}
	default:
		return TextCondition{}, apperr.FieldErrors(apperr.InvalidPayload, map[string]string{field + ".match": "must be CONTAINS or REGEX"}).WithEnum(EnumInvalidRule)
	}
	return c, nil
}

// Match reports whether s satisfies the condition.
func (c TextCondition) Match(s string) bool {
	if c.re != nil {
		return c.re.MatchString(s)
	}
	return c.lower != "" && strings.Contains(strings.ToLower(s), c.lower)
}

// RuleDraft is a rule as requested, before checking. It is also what the
// store keeps of a rule (as JSON of these Go names), so fields are only
// ever added.
type RuleDraft struct {
	Name          *string
	Direction     *banking.Direction
	Counterparty  *TextDraft
	Description   *TextDraft
	AmountMin     *money.Cents
	AmountMax     *money.Cents
	BankAccountID *uuid.UUID
	// Category is what the rule categorizes matching transactions as; the
	// zero value (Type "") for a rule that only suggests (Suggestions).
	Category banking.Classification
	// The client SDK's draft adds the following.
	ExternalID  *string `json:",omitempty"`
	Suggestions [3]*banking.Classification
	// ClientName is a second condition on the counterparty name
	// (client_name_filter).
	ClientName *TextDraft `json:",omitempty"`
	// TransactionType is the bank's kind of transaction, compared
	// case-insensitively (transaction_type_filter).
	TransactionType *string `json:",omitempty"`
	// Counterparty (counterparty_filter): the id the client names, and the
	// key and name it was resolved to (the key is what is matched).
	CounterpartyID        *uuid.UUID    `json:",omitempty"`
	CounterpartyRef       *Counterparty `json:",omitempty"`
	CreatedBySuggestionID *uuid.UUID    `json:",omitempty"`
}

// Counterparty is a counterparty as rules know it: its id, the key its
// transactions' counterparty names normalise to (NormalizeCounterparty)
// and a name to show.
type Counterparty struct {
	ID         uuid.UUID
	Key        string
	Name       *string
	ExternalID *string `json:",omitempty"`
}

// TextDraft is a text condition as requested.
type TextDraft struct {
	Match   MatchMode
	Pattern string
}

// Rule is a checked categorization rule: every condition set must hold
// for a transaction to get the rule's category.
type Rule struct {
	ID            uuid.UUID
	CreatedAt     time.Time
	Name          *string
	Direction     *banking.Direction
	Counterparty  *TextCondition
	Description   *TextCondition
	AmountMin     *money.Cents
	AmountMax     *money.Cents
	BankAccountID *uuid.UUID
	Category      banking.Classification
	// The client SDK's conditions and actions.
	ClientName      *TextCondition
	TransactionType *string
	CounterpartyRef *Counterparty
	Suggestions     [3]*banking.Classification
	// Stored beside the draft: set by the store.
	ExternalID            *string
	CreatedBySuggestionID *uuid.UUID
	UpdatedAt             time.Time
	ArchivedAt            *time.Time
}

// Categorizes reports whether the rule categorizes what it matches (a rule
// with only suggestions does not).
func (r Rule) Categorizes() bool { return r.Category.Type != "" }

// NewRule checks a draft: at least one condition; amounts ≥ 0 with min ≤
// max; patterns non-empty, bounded and (for REGEX) valid and not too
// complex; a category that is an account or an exclusion other than
// DUPLICATE_TRANSACTION (a duplicate is a fact about two transactions,
// not a pattern). Every violation is named in one 400 InvalidPayload
// (InvalidCategorizationRule).
func NewRule(id uuid.UUID, createdAt time.Time, d RuleDraft) (Rule, error) {
	fields := map[string]string{}
	merge := func(err error) {
		if ae := apperr.From(err); ae != nil {
			if fs, ok := ae.Meta["fields"].(map[string]string); ok {
				for k, v := range fs {
					fields[k] = v
				}
			}
		}
	}
	r := Rule{ID: id, CreatedAt: createdAt, UpdatedAt: createdAt, Direction: d.Direction, AmountMin: d.AmountMin, AmountMax: d.AmountMax,
		BankAccountID: d.BankAccountID, Category: d.Category, CounterpartyRef: d.CounterpartyRef, Suggestions: d.Suggestions,
		ExternalID: d.ExternalID, CreatedBySuggestionID: d.CreatedBySuggestionID}
	if d.Name != nil {
		name := strings.TrimSpace(*d.Name)
		switch {
		case utf8.RuneCountInString(name) > MaxRuleNameLength:
			fields["name"] = fmt.Sprintf("must be at most %d characters", MaxRuleNameLength)
		case name != "":
			r.Name = &name
		}
	}
	if d.Direction != nil && !d.Direction.Valid() {
		fields["direction"] = "must be CREDIT or DEBIT"
	}
	for _, tc := range []struct {
		field string
		draft *TextDraft
		dst   **TextCondition
	}{{"counterparty", d.Counterparty, &r.Counterparty}, {"description", d.Description, &r.Description}, {"client_name_filter", d.ClientName, &r.ClientName}} {
		if tc.draft == nil {
			continue
		}
		c, err := NewTextCondition(tc.field, tc.draft.Match, tc.draft.Pattern)
		if err != nil {
			merge(err)
			continue
		}
		*tc.dst = &c
	}
	if d.AmountMin != nil && *d.AmountMin < 0 {
		fields["amount_min"] = "must be at least 0"
	}
	if d.AmountMax != nil && *d.AmountMax < 0 {
		fields["amount_max"] = "must be at least 0"
	}
	if d.AmountMin != nil && d.AmountMax != nil && *d.AmountMin > *d.AmountMax {
		fields["amount_max"] = "must not be less than amount_min"
	}
	if d.BankAccountID != nil && *d.BankAccountID == uuid.Nil {
		fields["bank_account_id"] = "must be a non-nil UUID"
	}
	hasSuggestion := false
	for i, sg := range d.Suggestions {
		if sg == nil {
			continue
		}
		hasSuggestion = true
		f := fmt.Sprintf("suggestion_%d", i+1)
		if err := sg.Validate(f); err != nil {
			merge(err)
		} else if sg.IsExclusion() {
			fields[f] = "must name an account (AccountId or StableName)"
		}
	}
	switch {
	case d.Category.Type == "" && hasSuggestion:
		// A rule that only suggests.
	case d.Category.Type == "":
		fields["category"] = "is required (or at least one of suggestion_1..3)"
	default:
		if err := d.Category.Validate("category"); err != nil {
			merge(err)
		} else if d.Category.Exclusion == banking.DuplicateTransaction {
			fields["category"] = "DUPLICATE_TRANSACTION cannot be a rule's category"
		}
	}
	if d.TransactionType != nil {
		tt := strings.TrimSpace(*d.TransactionType)
		switch {
		case tt == "":
		case utf8.RuneCountInString(tt) > 64:
			fields["transaction_type_filter"] = "must be at most 64 characters"
		default:
			r.TransactionType = &tt
		}
	}
	if d.CounterpartyRef != nil && d.CounterpartyRef.Key == "" {
		fields["counterparty_filter"] = "names a counterparty without a name to match"
	}
	if d.Direction == nil && d.Counterparty == nil && d.Description == nil && d.AmountMin == nil && d.AmountMax == nil && d.BankAccountID == nil &&
		d.ClientName == nil && r.TransactionType == nil && d.CounterpartyRef == nil {
		fields["conditions"] = "a rule needs at least one condition: counterparty_filter, business_name_filter, client_name_filter, " +
			"transaction_description_filter, transaction_type_filter, bank_direction_filter, amount_min_filter, amount_max_filter " +
			"(or direction, counterparty, description, amount_min, amount_max, bank_account_id)"
	}
	if len(fields) > 0 {
		return Rule{}, apperr.FieldErrors(apperr.InvalidPayload, fields).WithEnum(EnumInvalidRule)
	}
	return r, nil
}

// specificity counts the conditions a rule sets; an amount range counts
// once, whether it has one bound or two.
func (r Rule) specificity() int {
	n := 0
	for _, set := range []bool{r.Direction != nil, r.Counterparty != nil || r.CounterpartyRef != nil, r.Description != nil,
		r.AmountMin != nil || r.AmountMax != nil, r.BankAccountID != nil, r.ClientName != nil, r.TransactionType != nil} {
		if set {
			n++
		}
	}
	return n
}

// Candidate is what the matcher knows of a transaction.
type Candidate struct {
	Direction       banking.Direction
	Amount          money.Cents
	Counterparty    string
	Description     string
	BankAccountID   uuid.UUID
	TransactionType string
}

// CandidateOf is what the matcher knows of t.
func CandidateOf(t banking.BankTransaction) Candidate {
	c := Candidate{Direction: t.Direction, Amount: t.Amount, BankAccountID: t.BankAccountID()}
	if t.CounterpartyName != nil {
		c.Counterparty = *t.CounterpartyName
	}
	if t.Description != nil {
		c.Description = *t.Description
	}
	if t.TransactionType != nil {
		c.TransactionType = *t.TransactionType
	}
	return c
}

// Matches reports whether every condition of r holds for c.
func (r Rule) Matches(c Candidate) bool {
	switch {
	case r.Direction != nil && *r.Direction != c.Direction:
		return false
	case r.AmountMin != nil && c.Amount < *r.AmountMin:
		return false
	case r.AmountMax != nil && c.Amount > *r.AmountMax:
		return false
	case r.BankAccountID != nil && *r.BankAccountID != c.BankAccountID:
		return false
	case r.Counterparty != nil && !r.Counterparty.Match(c.Counterparty):
		return false
	case r.Description != nil && !r.Description.Match(c.Description):
		return false
	case r.ClientName != nil && !r.ClientName.Match(c.Counterparty):
		return false
	case r.TransactionType != nil && !strings.EqualFold(*r.TransactionType, strings.TrimSpace(c.TransactionType)):
		return false
	case r.CounterpartyRef != nil && NormalizeCounterparty(c.Counterparty) != r.CounterpartyRef.Key:
		return false
	}
	return true
}

// Request is the categorize request a matched rule makes.
func (r Rule) Request() banking.CategorizationRequest {
	return banking.CategorizationRequest{Type: banking.TypeCategory, Category: r.Category}
}

// Match picks the rule for a transaction among a business's rules. The
// precedence: the most specific rule wins (the one with the most
// conditions: direction, counterparty, description, amount range, bank
// account); among equally specific rules the oldest (CreatedAt), then the
// smallest id, so the choice never depends on the order rules are listed.
func Match(rules []Rule, c Candidate) (Rule, bool) {
	var best *Rule
	for i := range rules {
		r := &rules[i]
		if r.ArchivedAt != nil || !r.Categorizes() || !r.Matches(c) {
			continue
		}
		if best == nil || precedes(r, best) {
			best = r
		}
	}
	if best == nil {
		return Rule{}, false
	}
	return *best, true
}

// precedes reports whether a wins over b.
func precedes(a, b *Rule) bool {
	if sa, sb := a.specificity(), b.specificity(); sa != sb {
		return sa > sb
	}
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return bytes.Compare(a.ID[:], b.ID[:]) < 0
}

// SortByPrecedence orders rules as Match considers them, for listing.
func SortByPrecedence(rules []Rule) {
	slices.SortStableFunc(rules, func(a, b Rule) int {
		switch {
		case precedes(&a, &b):
			return -1
		case precedes(&b, &a):
			return 1
		}
		return 0
	})
}

// PrecedenceKey is a string that sorts rules as Match considers them
// (ascending: the rule that wins first), for keyset pagination: fewer
// conditions sort later, then newer, then by id.
func PrecedenceKey(r Rule) string {
	return fmt.Sprintf("%02d|%s|%x", 99-r.specificity(), r.CreatedAt.UTC().Format("2006-01-02T15:04:05.000000000Z"), r.ID[:])
}
