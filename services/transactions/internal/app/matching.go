package app

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// Matching: a deposit (a money-in bank transaction) is offered the
// customer payments it may be (suggested_matches); confirming one
// (POST/PUT /bank-transactions/{id}/match) marks the transaction MATCHED
// and replaces its entry by one that moves the money from where the
// payment's entry put it (UNDEPOSITED_FUNDS or PAYMENT_PROCESSOR_CLEARING)
// into the bank account, so the revenue the invoice already booked is not
// counted twice.
const (
	// EnumUnknownMatch is the 400 of a match_id that is not one of the
	// transaction's current suggestions.
	EnumUnknownMatch = "UnknownMatch"
	// EnumNotMatchable is the 400 of a match on a money-out transaction.
	EnumNotMatchable = "NotMatchable"
)

// MatchStore keeps the payment projection and the payments' matches.
type MatchStore interface {
	// UpsertMatchablePayment stores p unless a newer version is stored.
	UpsertMatchablePayment(ctx context.Context, p banking.MatchablePayment) error
	// DeleteMatchablePayment marks the payment deleted (at, version) and
	// returns the transaction it was matched to, if any.
	DeleteMatchablePayment(ctx context.Context, businessID, id uuid.UUID, version int64, at time.Time) (*uuid.UUID, error)
	// OpenPayments are the business's payments neither deleted nor
	// matched whose deposit is one of deposits and date within [from, to].
	OpenPayments(ctx context.Context, businessID uuid.UUID, deposits []money.Cents, from, to time.Time, lock Lock) ([]banking.MatchablePayment, error)
	// SetPaymentMatch records (txnID) or clears (nil) a payment's match.
	SetPaymentMatch(ctx context.Context, businessID, paymentID uuid.UUID, txnID *uuid.UUID) error
}

// openPaymentsFor reads, in one query, the open payments that could fit
// any of txns (lock as asked).
func (b *Banking) openPaymentsFor(ctx context.Context, businessID uuid.UUID, txns []banking.BankTransaction, lock Lock) ([]banking.MatchablePayment, error) {
	var deposits []money.Cents
	var from, to time.Time
	for _, t := range txns {
		if !t.Matchable() {
			continue
		}
		if !slices.Contains(deposits, t.Amount) {
			deposits = append(deposits, t.Amount)
		}
		if from.IsZero() || t.Date.Before(from) {
			from = t.Date
		}
		if t.Date.After(to) {
			to = t.Date
		}
	}
	if len(deposits) == 0 {
		return nil, nil
	}
	open, err := b.store.OpenPayments(ctx, businessID, deposits, from.Add(-banking.MatchWindow), to.Add(banking.MatchWindow), lock)
	if err != nil {
		return nil, fmt.Errorf("open payments of %s: %w", businessID, err)
	}
	return open, nil
}

// withMatches fills the SuggestedMatches of the matchable transactions of
// txns with one query for all of them.
func (b *Banking) withMatches(ctx context.Context, businessID uuid.UUID, txns []banking.BankTransaction) error {
	open, err := b.openPaymentsFor(ctx, businessID, txns, NoLock)
	if err != nil || len(open) == 0 {
		return err
	}
	for i, t := range txns {
		if t.Matchable() {
			txns[i].SuggestedMatches = banking.SuggestMatches(t, open)
		}
	}
	return nil
}

// ConfirmMatch is PUT/POST /bank-transactions/{id}/match: matchID must be
// one of the transaction's current suggestions (400 UnknownMatch
// otherwise; a money-out transaction is 400 NotMatchable). In one
// database transaction the transaction's live entry is replaced by the
// match entry (debit the bank account, credit the account the payment's
// entry put the money in), the transaction becomes MATCHED with its match
// recorded, the payment is marked matched, and the snapshot is published.
// Confirming the transaction's current match again changes nothing. An
// archived transaction is the 409 BankTransactionArchived.
func (b *Banking) ConfirmMatch(ctx context.Context, businessID, id, matchID uuid.UUID) (banking.BankTransaction, error) {
	var out banking.BankTransaction
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		t, err := b.liveTransaction(ctx, businessID, id, LockUpdate)
		if err != nil {
			return err
		}
		out, _, err = b.confirmMatch(ctx, t, matchID, "match_id")
		return err
	})
	return out, err
}

// confirmMatch is ConfirmMatch on t, locked by the caller; field names the
// match id in the request (for its 400s). It reports whether anything
// changed.
func (b *Banking) confirmMatch(ctx context.Context, t banking.BankTransaction, matchID uuid.UUID, field string) (banking.BankTransaction, bool, error) {
	if err := t.CheckLive(); err != nil {
		return banking.BankTransaction{}, false, err
	}
	if t.Match != nil && t.Match.ID == matchID {
		return t, false, nil
	}
	if !t.Direction.MoneyIn() {
		return banking.BankTransaction{}, false, apperr.PayloadField(field, "only money-in transactions are matched to customer payments").
			WithEnum(EnumNotMatchable)
	}
	if t.Status == banking.StatusMatched {
		// A re-match: the current payment becomes open again, and the
		// transaction is offered payments as if unmatched.
		if err := b.releaseMatch(ctx, &t); err != nil {
			return banking.BankTransaction{}, false, err
		}
		t.Status = banking.StatusReadyForInput
	}
	open, err := b.openPaymentsFor(ctx, t.BusinessID, []banking.BankTransaction{t}, LockUpdate)
	if err != nil {
		return banking.BankTransaction{}, false, err
	}
	i := slices.IndexFunc(banking.SuggestMatches(t, open), func(s banking.MatchSuggestion) bool { return s.ID == matchID })
	if i < 0 {
		return banking.BankTransaction{}, false, apperr.PayloadField(field, "not one of the transaction's current suggested matches").
			WithEnum(EnumUnknownMatch)
	}
	s := banking.SuggestMatches(t, open)[i]
	out, err := b.match(ctx, t, s)
	return out, err == nil, err
}

// match posts the match entry of t (locked) to payment s and records it.
func (b *Banking) match(ctx context.Context, t banking.BankTransaction, s banking.MatchSuggestion) (banking.BankTransaction, error) {
	p := s.Payment
	refs := []domain.AccountRef{domain.ByID(t.LedgerAccountID), domain.ByStableName(p.DepositAccount)}
	live, hasLive, known, err := b.ledger.LiveEntryAndAccounts(ctx, t.BusinessID, SourceBankTransaction, t.ID.String(), refs)
	if err != nil {
		return banking.BankTransaction{}, fmt.Errorf("live entry and accounts of %s: %w", t.ID, err)
	}
	t.Version++
	in := &NewEntry{
		EntryType: domain.EntryMatch, Agent: domain.AgentAPI, EntryAt: t.Date, Memo: t.Memo, Tags: t.EntryTags(),
		Source: domain.Source{Type: SourceBankTransaction, ID: t.ID.String(), Version: strconv.Itoa(t.Version)},
		Lines: []domain.JournalLine{
			{Account: domain.ByID(t.LedgerAccountID), Amount: t.Amount, Direction: domain.Debit},
			{Account: domain.ByStableName(p.DepositAccount), Amount: t.Amount, Direction: domain.Credit},
		},
	}
	var reverse *domain.Entry
	if hasLive {
		reverse = &live
	}
	if _, _, err := b.ledger.Repost(ctx, t.BusinessID, reverse, ReverseOptions{Agent: domain.AgentAPI}, in, known); err != nil {
		return banking.BankTransaction{}, fmt.Errorf("post the match of %s: %w", t.ID, err)
	}
	t.MarkMatched(s, b.clock())
	if err := b.store.SetPaymentMatch(ctx, t.BusinessID, p.ID, &t.ID); err != nil {
		return banking.BankTransaction{}, fmt.Errorf("mark payment %s matched: %w", p.ID, err)
	}
	if err := b.store.UpdateBankTransaction(ctx, t); err != nil {
		return banking.BankTransaction{}, fmt.Errorf("update bank transaction %s: %w", t.ID, err)
	}
	if err := b.publishTransactions(ctx, t); err != nil {
		return banking.BankTransaction{}, fmt.Errorf("publish transaction %s: %w", t.ID, err)
	}
	return t, nil
}

// releaseMatch frees the payment t (locked) is matched to and forgets the
// match (the caller reposts t's entry).
func (b *Banking) releaseMatch(ctx context.Context, t *banking.BankTransaction) error {
	if t.Match == nil {
		return nil
	}
	if err := b.store.SetPaymentMatch(ctx, t.BusinessID, t.Match.PaymentID, nil); err != nil {
		return fmt.Errorf("release payment %s: %w", t.Match.PaymentID, err)
	}
	t.Match = nil
	return nil
}

// ApplyPaymentEvent keeps the payment projection from the events of
// acct.invoicing.v1, in the consumer's unit of work (the one ctx carries:
// the inbox transaction): a payment recorded is stored (a newer version
// replaces an older one); a payment deleted is marked so, and the
// transaction matched to it, if any, goes back to uncategorized (its match
// entry reversed, the uncategorized entry posted again). Other event types
// are ignored.
func (b *Banking) ApplyPaymentEvent(ctx context.Context, e events.Event) error {
	switch e.Type {
	case events.TypeInvoicePaymentUpserted:
		var ev events.InvoicePaymentUpserted
		if err := e.Decode(&ev); err != nil {
			return err
		}
		p := ev.Payment
		if p.DepositAccount == "" || p.DepositAccount == "UNEARNED_REVENUE" {
			return nil // no money moved (a credit balance paid): nothing to match
		}
		mp := banking.MatchablePayment{
			BusinessID: p.BusinessID, ID: p.ID, MatchType: banking.MatchTypeInvoicePayment, ExternalID: p.ExternalID,
			ReferenceNumber: p.ReferenceNumber, Memo: p.Memo, PaidAt: p.PaidAt.UTC(), Method: p.Method,
			Amount: money.Cents(p.Amount), Fee: money.Cents(p.Fee), Deposit: money.Cents(p.Deposit),
			DepositAccount: p.DepositAccount, Version: p.Version, UpdatedAt: b.clock(),
		}
		for _, a := range p.Allocations {
			mp.Invoices = append(mp.Invoices, banking.MatchedInvoice{ID: a.InvoiceID, ExternalID: a.InvoiceExternalID,
				ReferenceNumber: a.InvoiceReferenceNumber, InvoiceNumber: a.InvoiceNumber, Amount: money.Cents(a.Amount)})
		}
		return b.store.UpsertMatchablePayment(ctx, mp)
	case events.TypeInvoicePaymentDeleted:
		var ev events.InvoicePaymentDeleted
		if err := e.Decode(&ev); err != nil {
			return err
		}
		var version int64
		if ev.Posting != nil {
			version = ev.Posting.Version
		}
		txnID, err := b.store.DeleteMatchablePayment(ctx, ev.BusinessID, ev.PaymentID, version, b.clock())
		if err != nil || txnID == nil {
			return err
		}
		return b.unmatch(ctx, ev.BusinessID, *txnID)
	}
	return nil
}

// unmatch returns the matched transaction id to uncategorized.
func (b *Banking) unmatch(ctx context.Context, businessID, id uuid.UUID) error {
	t, err := b.liveTransaction(ctx, businessID, id, LockUpdate)
	if err != nil {
		return err
	}
	if t.Status != banking.StatusMatched {
		return nil
	}
	t.Unmatch(b.clock())
	if err := b.repostUncategorized(ctx, &t); err != nil {
		return err
	}
	if err := b.store.UpdateBankTransaction(ctx, t); err != nil {
		return fmt.Errorf("update bank transaction %s: %w", t.ID, err)
	}
	return b.publishTransactions(ctx, t)
}
