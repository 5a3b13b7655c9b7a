package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// EnumRecordedTxnNotFound is the error_enum of a recorded transaction
// the custom account does not have.
const EnumRecordedTxnNotFound = "RecordedTransactionNotFound"

// RecordStore saves what a record update changes (part of BankStore).
type RecordStore interface {
	// SaveRecordedTransaction saves every column a record update may
	// change: amount, direction, date, counterparty, description,
	// reference number, memo, metadata, update time and version.
	SaveRecordedTransaction(ctx context.Context, t banking.BankTransaction) error
	// ReplaceTags deletes the transaction's tags and inserts ts.
	ReplaceTags(ctx context.Context, businessID, transactionID uuid.UUID, ts []tags.Tag) error
}

// RecordTransaction is POST /custom-accounts/{id}/transactions/record: one
// CUSTOM transaction with its receipts. The files are stored first, then
// one database transaction inserts the transaction (posted as
// uncategorized, like every import), its documents and tags and applies
// the optional categorization; when anything fails the stored files are
// deleted. A repeated external_id answers the existing transaction and
// keeps nothing of the new request.
func (b *Banking) RecordTransaction(ctx context.Context, businessID, accountID uuid.UUID, req *banking.RecordRequest) (banking.BankTransaction, error) {
	p := req.Transaction
	id := newID()
	sf, err := b.putReceipts(ctx, businessID, id, req.Files, nil)
	if err != nil {
		return banking.BankTransaction{}, err
	}
	var (
		out      banking.BankTransaction
		inserted bool
	)
	err = b.uow.Do(ctx, func(ctx context.Context) error {
		acct, err := b.CustomAccount(ctx, businessID, accountID)
		if err != nil {
			return err
		}
		now := b.clock()
		t := banking.BankTransaction{
			ID: id, BusinessID: businessID, Source: banking.SourceCustom, SourceTransactionID: id.String(),
			CustomAccountID: &acct.ID, LedgerAccountID: acct.LedgerAccountID, AccountName: &acct.AccountName,
			AccountMask: acct.Mask, InstitutionName: acct.InstitutionName, Date: p.Date.Value.UTC(),
			Direction: p.Direction.Value, Amount: p.Amount.Value, Status: banking.StatusReadyForInput,
			ImportedAt: now, UpdatedAt: now, Version: 1, Tags: []tags.Tag{},
		}
		if p.ExternalID.Set {
			x := p.ExternalID.Value
			t.ExternalID, t.SourceTransactionID = &x, x
		}
		t.ApplyRecord(p)
		for _, kv := range p.Tags.Value {
			t.Tags = append(t.Tags, tags.NewTag(businessID, id, kv, now))
		}
		var c banking.Categorization
		if p.Categorization.Set {
			// Checked before anything is written: a 400 posts nothing.
			target, err := b.target(ctx, t)
			if err != nil {
				return err
			}
			if c, err = p.Categorization.Value.Validate(target); err != nil {
				return err
			}
		}
		ins, err := b.store.InsertBankTransactions(ctx, []banking.BankTransaction{t})
		if err != nil {
			return fmt.Errorf("insert recorded transaction: %w", err)
		}
		inserted = ins[t.ID]
		settled, err := b.settle(ctx, businessID, []banking.BankTransaction{t}, ins)
		if err != nil {
			return err
		}
		if !inserted {
			out = settled[0]
			return nil
		}
		if err := b.store.InsertDocuments(ctx, sf.docs); err != nil {
			return fmt.Errorf("insert receipts: %w", err)
		}
		for _, d := range sf.docs {
			t.DocumentIDs = append(t.DocumentIDs, d.ID)
		}
		if err := b.postUncategorized(ctx, businessID, []banking.BankTransaction{t}, ins); err != nil {
			return err
		}
		if !p.Categorization.Set {
			got, err := b.autoCategorize(ctx, businessID, []banking.BankTransaction{t}, ins)
			if err != nil {
				return err
			}
			out = got[0]
			return nil
		}
		out, err = b.apply(ctx, t, c, banking.MethodAPI, domain.AgentAPI)
		return err
	})
	if err != nil || !inserted {
		sf.discard(ctx)
	}
	if err != nil {
		return banking.BankTransaction{}, err
	}
	return out, nil
}

// recordedTransaction locks the custom account's transaction id: 404 when
// the account or the transaction is missing or the transaction is not in
// that account.
func (b *Banking) recordedTransaction(ctx context.Context, businessID, accountID, id uuid.UUID) (banking.BankTransaction, error) {
	if _, err := b.CustomAccount(ctx, businessID, accountID); err != nil {
		return banking.BankTransaction{}, err
	}
	t, ok, err := b.store.FindBankTransaction(ctx, businessID, id, LockUpdate)
	if err != nil {
		return banking.BankTransaction{}, fmt.Errorf("find bank transaction %s: %w", id, err)
	}
	if !ok || t.CustomAccountID == nil || *t.CustomAccountID != accountID {
		return banking.BankTransaction{}, apperr.New(apperr.NotFound, "recorded transaction not found").WithEnum(EnumRecordedTxnNotFound)
	}
	return t, nil
}

// UpdateRecordedTransaction is PATCH
// /custom-accounts/{id}/transactions/{transactionId}/record. Omitted
// properties stay unchanged; document_ids keeps the listed documents (each
// must be a live document of the transaction) and archives the others; new
// files are added; tags replace the transaction's tags; categorization
// recategorizes as PUT /categorize does. A change of amount, direction or
// date reverses the live entry and posts it again with the new values (the
// stored categorization re-checked against them: a split whose amounts no
// longer add up is a 400). Files are stored before the database
// transaction and deleted again if it fails.
func (b *Banking) UpdateRecordedTransaction(ctx context.Context, businessID, accountID, id uuid.UUID, req *banking.RecordRequest) (banking.BankTransaction, error) {
	p := req.Transaction
	if p == nil {
		p = &banking.RecordPatch{}
	}
	sf, err := b.putReceipts(ctx, businessID, id, req.Files, nil)
	if err != nil {
		return banking.BankTransaction{}, err
	}
	var out banking.BankTransaction
	err = b.uow.Do(ctx, func(ctx context.Context) error {
		t, err := b.recordedTransaction(ctx, businessID, accountID, id)
		if err != nil {
			return err
		}
		if err := t.CheckLive(); err != nil {
			return err
		}
		now := b.clock()
		moved := p.Amount.Set && p.Amount.Value != t.Amount || p.Direction.Set && p.Direction.Value != t.Direction ||
			p.Date.Set && !p.Date.Value.UTC().Equal(t.Date)
		if p.Amount.Set {
			t.Amount = p.Amount.Value
		}
		if p.Direction.Set {
			t.Direction = p.Direction.Value
		}
		if p.Date.Set {
			t.Date = p.Date.Value.UTC()
		}
		t.ApplyRecord(p)

		// Check the categorization to apply before writing anything.
		var c banking.Categorization
		recategorize := p.Categorization.Set || moved && t.Category != nil
		if recategorize {
			creq := p.Categorization.Value
			if !p.Categorization.Set {
				creq = t.Category.Request()
			}
			target, err := b.target(ctx, t)
			if err != nil {
				return err
			}
			if c, err = creq.Validate(target); err != nil {
				return err
			}
		}

		if p.DocumentIDs.Set {
			live, err := b.store.LiveDocuments(ctx, businessID, t.ID)
			if err != nil {
				return fmt.Errorf("documents of %s: %w", t.ID, err)
			}
			keep := map[uuid.UUID]bool{}
			for _, d := range p.DocumentIDs.Value {
				keep[d] = true
			}
			var archive []uuid.UUID
			for _, d := range live {
				if keep[d.ID] {
					delete(keep, d.ID)
				} else {
					archive = append(archive, d.ID)
				}
			}
			for d := range keep {
				return apperr.FieldErrors(apperr.InvalidPayload, map[string]string{
					"transaction.document_ids": "document " + d.String() + " is not a live document of the transaction",
				}).WithEnum(EnumDocumentNotFound)
			}
			if _, err := b.store.ArchiveDocuments(ctx, businessID, t.ID, archive, now); err != nil {
				return fmt.Errorf("archive documents of %s: %w", t.ID, err)
			}
		}
		if err := b.store.InsertDocuments(ctx, sf.docs); err != nil {
			return fmt.Errorf("insert receipts: %w", err)
		}
		if p.Tags.Set {
			t.Tags = make([]tags.Tag, 0, len(p.Tags.Value))
			for _, kv := range p.Tags.Value {
				t.Tags = append(t.Tags, tags.NewTag(businessID, t.ID, kv, now))
			}
			if err := b.store.ReplaceTags(ctx, businessID, t.ID, t.Tags); err != nil {
				return fmt.Errorf("replace tags of %s: %w", t.ID, err)
			}
		}
		docs, err := b.store.LiveDocuments(ctx, businessID, t.ID)
		if err != nil {
			return fmt.Errorf("documents of %s: %w", t.ID, err)
		}
		t.DocumentIDs = nil
		for _, d := range docs {
			t.DocumentIDs = append(t.DocumentIDs, d.ID)
		}
		t.UpdatedAt = now
		if err := b.store.SaveRecordedTransaction(ctx, t); err != nil {
			return fmt.Errorf("save recorded transaction %s: %w", t.ID, err)
		}
		if recategorize {
			method := banking.MethodAPI
			if !p.Categorization.Set && t.Method != nil {
				method = *t.Method
			}
			out, err = b.apply(ctx, t, c, method, domain.AgentAPI)
			return err
		}
		unmatched := moved && t.Match != nil
		if unmatched {
			// The deposit no longer is what was matched.
			if err := b.releaseMatch(ctx, &t); err != nil {
				return err
			}
			t.Status, t.Method = banking.StatusReadyForInput, nil
		}
		if moved {
			if err := b.repostUncategorized(ctx, &t); err != nil {
				return err
			}
		} else {
			t.Version++
			// New tags: the live entry (uncategorized, categorized or a
			// match) is reposted carrying them.
			if err := b.retagLive(ctx, t); err != nil {
				return err
			}
		}
		if err := b.store.SaveRecordedTransaction(ctx, t); err != nil {
			return fmt.Errorf("save recorded transaction %s: %w", t.ID, err)
		}
		if unmatched {
			if err := b.store.UpdateBankTransaction(ctx, t); err != nil {
				return fmt.Errorf("update bank transaction %s: %w", t.ID, err)
			}
		}
		if err := b.publishTransactions(ctx, t); err != nil {
			return fmt.Errorf("publish transaction %s: %w", t.ID, err)
		}
		out = t
		return nil
	})
	if err != nil {
		sf.discard(ctx)
		return banking.BankTransaction{}, err
	}
	return out, nil
}

// repostUncategorized reverses the live entry of the uncategorized t and
// posts its uncategorized entry again under the next version.
func (b *Banking) repostUncategorized(ctx context.Context, t *banking.BankTransaction) error {
	live, ok, err := b.ledger.LiveEntryForSource(ctx, t.BusinessID, SourceBankTransaction, t.ID.String())
	if err != nil {
		return fmt.Errorf("live entry of %s: %w", t.ID, err)
	}
	if ok {
		if _, err := b.ledger.ReverseEntry(ctx, t.BusinessID, live.ID, ReverseOptions{Agent: domain.AgentAPI}); err != nil {
			return fmt.Errorf("reverse entry %s: %w", live.ID, err)
		}
	}
	t.Version++
	return b.postUncategorized(ctx, t.BusinessID, []banking.BankTransaction{*t}, map[uuid.UUID]bool{t.ID: true})
}
