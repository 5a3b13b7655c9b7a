package app

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// Uncategorize is POST /bank-transactions/{id}/uncategorize: the
// transaction goes back to READY_FOR_INPUT in one unit of work, its live
// entry (categorization or match) reversed and its uncategorized entry
// posted again, a matched deposit's payment freed. An uncategorized
// transaction is left as it is (the call changes nothing); an archived one
// is the 409 BankTransactionArchived.
func (b *Banking) Uncategorize(ctx context.Context, businessID, id uuid.UUID) (banking.BankTransaction, error) {
	var out banking.BankTransaction
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		t, err := b.liveTransaction(ctx, businessID, id, LockUpdate)
		if err != nil {
			return err
		}
		out, _, err = b.uncategorize(ctx, t, false)
		return err
	})
	return out, err
}

// uncategorize returns t (locked by the caller) to uncategorized and
// reports whether anything changed. Unless force, a transaction with
// neither category nor match is uncategorized already and left alone.
func (b *Banking) uncategorize(ctx context.Context, t banking.BankTransaction, force bool) (banking.BankTransaction, bool, error) {
	if err := t.CheckLive(); err != nil {
		return banking.BankTransaction{}, false, err
	}
	if !force && t.Category == nil && t.Match == nil {
		return t, false, nil
	}
	in := uncategorizedEntry(t)
	refs := []domain.AccountRef{domain.ByID(t.LedgerAccountID), in.Lines[1].Account}
	live, hasLive, known, err := b.ledger.LiveEntryAndAccounts(ctx, t.BusinessID, SourceBankTransaction, t.ID.String(), refs)
	if err != nil {
		return banking.BankTransaction{}, false, fmt.Errorf("live entry and accounts of %s: %w", t.ID, err)
	}
	if err := b.releaseMatch(ctx, &t); err != nil {
		return banking.BankTransaction{}, false, err
	}
	t.Version++
	in = uncategorizedEntry(t)
	var reverse *domain.Entry
	if hasLive {
		reverse = &live
	}
	if _, _, err := b.ledger.Repost(ctx, t.BusinessID, reverse, ReverseOptions{Agent: domain.AgentAPI}, &in, known); err != nil {
		return banking.BankTransaction{}, false, fmt.Errorf("repost the uncategorized entry of %s: %w", t.ID, err)
	}
	t.Status, t.Method, t.Category, t.TaxCode, t.UpdatedAt = banking.StatusReadyForInput, nil, nil, nil, b.clock()
	if err := b.store.UpdateBankTransaction(ctx, t); err != nil {
		return banking.BankTransaction{}, false, fmt.Errorf("update bank transaction %s: %w", t.ID, err)
	}
	if err := b.publishTransactions(ctx, t); err != nil {
		return banking.BankTransaction{}, false, fmt.Errorf("publish transaction %s: %w", t.ID, err)
	}
	return t, true, nil
}

// uncategorizedEntry is t's entry while uncategorized, under its version:
// money out debits UNCATEGORIZED_EXPENSES and credits the bank account,
// money in the reverse into UNCATEGORIZED_REVENUE (as an import posts it).
func uncategorizedEntry(t banking.BankTransaction) NewEntry {
	bank, other := domain.Credit, domain.Debit
	category := domain.StableUncategorizedExpense
	if t.Direction.MoneyIn() {
		bank, other, category = domain.Debit, domain.Credit, domain.StableUncategorizedRevenue
	}
	return NewEntry{
		EntryType: domain.EntryBank, Agent: domain.AgentAPI, EntryAt: t.Date, Memo: t.Memo, Tags: t.EntryTags(),
		Source: domain.Source{Type: SourceBankTransaction, ID: t.ID.String(), Version: strconv.Itoa(t.Version)},
		Lines: []domain.JournalLine{
			{Account: domain.ByID(t.LedgerAccountID), Amount: t.Amount, Direction: bank},
			{Account: domain.ByStableName(category), Amount: t.Amount, Direction: other},
		},
	}
}

// BulkResult is what a bulk call did to one of its transactions.
type BulkResult struct {
	Action banking.BulkAction
	// Changed is false when the transaction was as asked already (a
	// repeated call).
	Changed     bool
	Transaction banking.BankTransaction
}

// BulkApply is POST /bank-transactions/bulk-categorize,
// bulk-match-or-categorize and bulk-uncategorize: every action of the
// business's transactions in one unit of work, all or nothing. Each action
// is the single call's (Categorize, ConfirmMatch, Uncategorize) with the
// same rules, so a bulk call leaves the transactions and the journal as the
// same single calls made one after the other in transaction id order: one
// journal change (a reversal and a new entry) per transaction changed, none
// for a transaction that is as asked already (a repeated call changes
// nothing).
//
// The transactions are locked in id order first. Nothing is written unless
// every action is valid: an id the business does not have is the 404
// BankTransactionNotFound, an archived transaction the 409
// BankTransactionArchived, and the categorizations are all checked (against
// their transactions and the chart) before anything is posted, every
// refusal named by its item's field (`transactions[3].categorization.category`)
// in one 400; meta.transaction_ids lists the failing transactions.
func (b *Banking) BulkApply(ctx context.Context, businessID uuid.UUID, actions []banking.BulkAction) ([]BulkResult, error) {
	switch {
	case len(actions) == 0:
		return nil, apperr.PayloadField("transactions", "must name at least one transaction").WithEnum(banking.EnumNoTransactions)
	case len(actions) > banking.MaxBulkTransactions:
		return nil, apperr.PayloadField("transactions", fmt.Sprintf("at most %d transactions per call", banking.MaxBulkTransactions)).
			WithEnum(banking.EnumTooManyTransactions)
	}
	ordered := slices.Clone(actions)
	slices.SortFunc(ordered, func(x, y banking.BulkAction) int { return slices.Compare(x.TransactionID[:], y.TransactionID[:]) })
	ids := make([]uuid.UUID, len(ordered))
	for i, a := range ordered {
		ids[i] = a.TransactionID
	}
	if len(slices.Compact(slices.Clone(ids))) != len(ids) {
		return nil, apperr.PayloadField("transactions", "names a transaction twice").WithEnum(banking.EnumDuplicateTransactionID)
	}
	results := map[uuid.UUID]BulkResult{}
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		locked, err := b.store.LockBankTransactions(ctx, businessID, ids)
		if err != nil {
			return fmt.Errorf("lock transactions: %w", err)
		}
		txns := make(map[uuid.UUID]banking.BankTransaction, len(locked))
		for _, t := range locked {
			txns[t.ID] = t
		}
		if err := checkBulkTargets(ordered, txns); err != nil {
			return err
		}
		prepared, err := b.prepareBulk(ctx, businessID, ordered, txns)
		if err != nil {
			return err
		}
		for _, a := range ordered {
			t := txns[a.TransactionID]
			var (
				out     banking.BankTransaction
				changed bool
				err     error
			)
			switch a.Type {
			case banking.BulkCategorize:
				out, changed, err = b.post(ctx, t, prepared[a.TransactionID], banking.MethodAPI, domain.AgentAPI)
			case banking.BulkMatch:
				out, changed, err = b.confirmMatch(ctx, t, a.MatchID, a.Field+".suggested_match_id")
			case banking.BulkUncategorize:
				out, changed, err = b.uncategorize(ctx, t, false)
			default:
				err = fmt.Errorf("bulk action %q of %s", a.Type, a.TransactionID)
			}
			if err != nil {
				return bulkItemError(err, a)
			}
			results[a.TransactionID] = BulkResult{Action: a, Changed: changed, Transaction: out}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]BulkResult, len(actions))
	for i, a := range actions {
		out[i] = results[a.TransactionID]
	}
	return out, nil
}

// checkBulkTargets refuses the actions whose transaction the business does
// not have (404) or is archived (409), naming every such item.
func checkBulkTargets(actions []banking.BulkAction, txns map[uuid.UUID]banking.BankTransaction) error {
	missing, archived := map[string]string{}, map[string]string{}
	var missingIDs, archivedIDs []string
	for _, a := range actions {
		t, ok := txns[a.TransactionID]
		switch {
		case !ok:
			missing[idField(a)] = "names no bank transaction of the business"
			missingIDs = append(missingIDs, a.TransactionID.String())
		case t.Archived():
			archived[idField(a)] = "the bank transaction is archived: restore it first"
			archivedIDs = append(archivedIDs, a.TransactionID.String())
		}
	}
	if len(missing) > 0 {
		return apperr.FieldErrors(apperr.NotFound, missing).WithEnum(EnumBankTransactionNotFound).
			WithMeta("transaction_ids", missingIDs)
	}
	if len(archived) > 0 {
		return apperr.FieldErrors(apperr.Conflict, archived).WithEnum(banking.EnumTransactionArchived).
			WithMeta("transaction_ids", archivedIDs)
	}
	return nil
}

// idField is the field of the body that names a's transaction.
func idField(a banking.BulkAction) string {
	if a.Type == banking.BulkUncategorize || strings.HasPrefix(a.Field, "transactions.") {
		return a.Field
	}
	return a.Field + ".transaction_id"
}

// prepareBulk checks every categorization of actions against its
// transaction and the business's chart (as a categorize call would) before
// anything is posted, collecting every refusal, and returns them ready to
// post. A match is only checked for its direction here; whether the
// payment is still to be had is known when it is confirmed (an earlier
// action of the call may free or take it).
func (b *Banking) prepareBulk(ctx context.Context, businessID uuid.UUID, actions []banking.BulkAction, txns map[uuid.UUID]banking.BankTransaction) (map[uuid.UUID]preparedCategorization, error) {
	out := map[uuid.UUID]preparedCategorization{}
	base, err := b.target(ctx, banking.BankTransaction{BusinessID: businessID})
	if err != nil {
		return nil, err
	}
	fields := map[string]string{}
	enums := map[string]bool{}
	var enum string
	var failed []string
	refuse := func(a banking.BulkAction, err error) error {
		ae := apperr.From(err)
		if ae.Status() >= 500 {
			return err
		}
		for f, reason := range prefixedFields(ae, a.Field) {
			fields[f] = reason
		}
		if enum == "" {
			enum = ae.Enum
		}
		enums[ae.Enum] = true
		failed = append(failed, a.TransactionID.String())
		return nil
	}
	for _, a := range actions {
		t := txns[a.TransactionID]
		switch a.Type {
		case banking.BulkCategorize:
			target := base
			target.Amount, target.Direction, target.Date = t.Amount, t.Direction, t.Date
			c, err := a.Categorization.ValidateAt(target, a.Field+".categorization")
			if err != nil {
				if err := refuse(a, err); err != nil {
					return nil, err
				}
				continue
			}
			p, err := b.prepare(ctx, t, c)
			if err != nil {
				if err := refuse(a, prefixCategorization(err, a.Field+".categorization")); err != nil {
					return nil, err
				}
				continue
			}
			out[a.TransactionID] = p
		case banking.BulkMatch:
			if !t.Direction.MoneyIn() {
				err := apperr.PayloadField(a.Field+".suggested_match_id", "only money-in transactions are matched to customer payments").
					WithEnum(EnumNotMatchable)
				if err := refuse(a, err); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(fields) == 0 {
		return out, nil
	}
	if len(enums) > 1 {
		enum = "InvalidBulkItems"
	}
	msg := fmt.Sprintf("%d of the %d transactions cannot be changed as asked; nothing was changed", len(failed), len(actions))
	e := &apperr.Error{Type: apperr.InvalidPayload, Enum: enum, Message: msg}
	return nil, e.WithMeta("fields", fields).WithMeta("transaction_ids", failed)
}

// prefixedFields are the meta.fields of e, each under prefix (the item's
// field) unless it is there already.
func prefixedFields(e *apperr.Error, prefix string) map[string]string {
	out := map[string]string{}
	fields, _ := e.Meta["fields"].(map[string]string)
	for _, f := range slices.Sorted(maps.Keys(fields)) {
		if !strings.HasPrefix(f, prefix) {
			f2 := prefix + "." + f
			out[f2] = fields[f]
			continue
		}
		out[f] = fields[f]
	}
	if len(out) == 0 {
		out[prefix] = e.Message
	}
	return out
}

// prefixCategorization puts the fields a categorization's resolution names
// (`category`, `entries[2].category`) under the item's categorization.
func prefixCategorization(err error, prefix string) error {
	ae := apperr.From(err)
	if ae.Status() >= 500 {
		return err
	}
	out := *ae
	out.Meta = maps.Clone(ae.Meta)
	if fields, ok := ae.Meta["fields"].(map[string]string); ok {
		moved := map[string]string{}
		for f, reason := range fields {
			moved[prefix+"."+f] = reason
		}
		out.Meta["fields"] = moved
	}
	return &out
}

// bulkItemError names a's item in an error met while applying it (after
// every check passed: a conflict with a concurrent change, a payment gone).
func bulkItemError(err error, a banking.BulkAction) error {
	ae := apperr.From(err)
	if ae.Status() >= 500 {
		return err
	}
	out := *ae
	out.Meta = maps.Clone(ae.Meta)
	if out.Meta == nil {
		out.Meta = map[string]any{}
	}
	fields := prefixedFields(ae, a.Field)
	out.Meta["fields"] = fields
	out.Meta["transaction_ids"] = []string{a.TransactionID.String()}
	out.Message = fmt.Sprintf("%s: %s; nothing was changed", a.Field, cmp.Or(ae.Message, string(ae.Type)))
	return &out
}
