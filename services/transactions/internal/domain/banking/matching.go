package banking

import (
	"cmp"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/money"
)

// Matching: a deposit (a money-in bank transaction) is offered the
// customer payments it may be (suggested matches); confirming one makes
// the transaction MATCHED.
const (
	// MatchWindow is how far a payment's date may be from the deposit's.
	MatchWindow = 10 * 24 * time.Hour
	// MaxSuggestedMatches bounds a transaction's suggestions.
	MaxSuggestedMatches = 5
	// MatchTypeInvoicePayment is the match type of a customer payment.
	MatchTypeInvoicePayment = "INVOICE_PAYMENT"
)

// matchNamespace makes suggestion ids: one per (transaction, payment),
// stable across reads, so a client confirms the id it was shown.
var matchNamespace = uuid.MustParse("6b0f7a52-3c1e-4d55-9a64-1f0e8f3a2c71")

// SuggestionID is the id of the suggestion of payment for transaction.
func SuggestionID(transactionID, paymentID uuid.UUID) uuid.UUID {
	return uuid.NewSHA1(matchNamespace, append(transactionID[:], paymentID[:]...))
}

// MatchedInvoice is an invoice a payment paid.
type MatchedInvoice struct {
	ID              uuid.UUID   `json:"id"`
	ExternalID      *string     `json:"external_id"`
	ReferenceNumber *string     `json:"reference_number"`
	InvoiceNumber   *string     `json:"invoice_number"`
	Amount          money.Cents `json:"amount"`
}

// MatchablePayment is a customer payment as this service knows it (from
// invoice_payment events): what a deposit can be matched to.
type MatchablePayment struct {
	BusinessID           uuid.UUID
	ID                   uuid.UUID
	MatchType            string
	ExternalID           *string
	ReferenceNumber      *string
	Memo                 *string
	PaidAt               time.Time
	Method               string
	Amount               money.Cents
	Fee                  money.Cents
	Deposit              money.Cents // what reaches the bank: Amount − Fee
	DepositAccount       string      // where the payment's entry put it
	Invoices             []MatchedInvoice
	Version              int64
	DeletedAt            *time.Time
	MatchedTransactionID *uuid.UUID
	UpdatedAt            time.Time
}

// MatchSuggestion is a payment offered for a deposit.
type MatchSuggestion struct {
	ID      uuid.UUID
	Payment MatchablePayment
}

// TxnMatch is a transaction's confirmed match, as stored with it.
type TxnMatch struct {
	ID              uuid.UUID        `json:"id"`
	MatchType       string           `json:"match_type"`
	PaymentID       uuid.UUID        `json:"payment_id"`
	ExternalID      *string          `json:"external_id"`
	ReferenceNumber *string          `json:"reference_number"`
	Memo            *string          `json:"memo"`
	Amount          money.Cents      `json:"amount"`
	Date            time.Time        `json:"date"`
	Invoices        []MatchedInvoice `json:"invoices"`
	MatchedAt       time.Time        `json:"matched_at"`
}

// Matchable reports whether t may be offered payments: money in, not
// matched yet.
func (t BankTransaction) Matchable() bool {
	return t.Direction.MoneyIn() && t.Status != StatusMatched && t.Amount > 0
}

// SuggestMatches ranks the open payments that fit t: the same deposit
// amount, a date within MatchWindow, nearest date first; at most
// MaxSuggestedMatches.
func SuggestMatches(t BankTransaction, open []MatchablePayment) []MatchSuggestion {
	var out []MatchSuggestion
	for _, p := range open {
		d := p.PaidAt.Sub(t.Date).Abs()
		if p.Deposit == t.Amount && d <= MatchWindow {
			out = append(out, MatchSuggestion{ID: SuggestionID(t.ID, p.ID), Payment: p})
		}
	}
	slices.SortStableFunc(out, func(a, b MatchSuggestion) int {
		da, db := a.Payment.PaidAt.Sub(t.Date).Abs(), b.Payment.PaidAt.Sub(t.Date).Abs()
		if da != db {
			return cmp.Compare(da, db)
		}
		return a.Payment.PaidAt.Compare(b.Payment.PaidAt)
	})
	if len(out) > MaxSuggestedMatches {
		out = out[:MaxSuggestedMatches]
	}
	return out
}

// MarkMatched makes t MATCHED to the suggested payment s at now (method
// API): its categorization and tax code are dropped, its match recorded.
func (t *BankTransaction) MarkMatched(s MatchSuggestion, now time.Time) {
	p := s.Payment
	method := MethodAPI
	t.Status, t.Method, t.Category, t.TaxCode, t.UpdatedAt = StatusMatched, &method, nil, nil, now
	t.Match = &TxnMatch{
		ID: s.ID, MatchType: p.MatchType, PaymentID: p.ID, ExternalID: p.ExternalID, ReferenceNumber: p.ReferenceNumber,
		Memo: p.Memo, Amount: p.Amount, Date: p.PaidAt, Invoices: p.Invoices, MatchedAt: now,
	}
	t.SuggestedMatches = nil
}

// Unmatch returns the matched t to uncategorized at now (its payment is
// gone).
func (t *BankTransaction) Unmatch(now time.Time) {
	t.Match = nil
	t.Status, t.Method, t.Category, t.TaxCode, t.UpdatedAt = StatusReadyForInput, nil, nil, nil, now
}
