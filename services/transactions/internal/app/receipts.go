package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// Error enums of the document (receipt) use cases.
const (
	EnumStorageNotConfigured = "StorageNotConfigured"
	EnumDocumentNotFound     = "DocumentNotFound"
)

// DocumentURLExpiry is how long a receipt's pre-signed URL is valid.
const DocumentURLExpiry = storage.DefaultPresignExpiry

// ErrStorageNotConfigured is the 503 of a receipt request while the
// service runs without storage.
func ErrStorageNotConfigured() *apperr.Error {
	return apperr.New(apperr.Unavailable, "receipt storage is not configured").WithEnum(EnumStorageNotConfigured)
}

// Document is a receipt of a bank transaction, stored under StorageKey.
type Document struct {
	ID            uuid.UUID
	BusinessID    uuid.UUID
	TransactionID uuid.UUID
	FileName      string
	FileType      string
	DocumentType  *string
	StorageKey    string
	SizeBytes     int64
	CreatedAt     time.Time
	ArchivedAt    *time.Time
}

// DocumentURL is a live document with a pre-signed download URL.
type DocumentURL struct {
	Document
	URL string
}

// DocumentStore is the persistence of receipts (part of BankStore).
type DocumentStore interface {
	InsertDocuments(ctx context.Context, db bun.IDB, docs []Document) error
	// LiveDocuments are the transaction's unarchived documents, oldest first.
	LiveDocuments(ctx context.Context, db bun.IDB, businessID, transactionID uuid.UUID) ([]Document, error)
	// ArchiveDocuments archives the given documents of the transaction and
	// returns how many it archived.
	ArchiveDocuments(ctx context.Context, db bun.IDB, businessID, transactionID uuid.UUID, ids []uuid.UUID, at time.Time) (int, error)
}

// UseReceiptStore turns receipts on: files go to s. Without it every
// receipt use case is the 503 ErrStorageNotConfigured.
func (b *Banking) UseReceiptStore(s storage.Store) { b.files = s }

// storedFiles are the objects a request put, deleted again unless the
// request commits.
type storedFiles struct {
	b    *Banking
	keys []string
	docs []Document
}

// put stores the spooled receipts of transaction txnID and returns their
// document rows (not yet inserted).
func (b *Banking) putReceipts(ctx context.Context, businessID, txnID uuid.UUID, files []*banking.ReceiptFile, documentType *string) (*storedFiles, error) {
	sf := &storedFiles{b: b}
	if len(files) == 0 {
		return sf, nil
	}
	if b.files == nil {
		return nil, ErrStorageNotConfigured()
	}
	now := b.clock()
	for _, f := range files {
		id := newID()
		key := businessID.String() + "/receipts/" + txnID.String() + "/" + id.String()
		if err := b.putOne(ctx, key, f); err != nil {
			sf.discard(ctx)
			return nil, err
		}
		sf.keys = append(sf.keys, key)
		sf.docs = append(sf.docs, Document{
			ID: id, BusinessID: businessID, TransactionID: txnID, FileName: f.Filename, FileType: f.ContentType,
			DocumentType: documentType, StorageKey: key, SizeBytes: f.Size, CreatedAt: now,
		})
	}
	return sf, nil
}

func (b *Banking) putOne(ctx context.Context, key string, f *banking.ReceiptFile) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	if err := b.files.Put(ctx, key, r, f.Size, f.ContentType); err != nil {
		return fmt.Errorf("store receipt %q: %w", f.Filename, err)
	}
	return nil
}

// discard deletes the stored objects (the request failed). A context
// already cancelled must not leave them behind, so it runs on its own.
func (sf *storedFiles) discard(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for _, k := range sf.keys {
		if err := sf.b.files.Delete(ctx, k); err != nil && !errors.Is(err, storage.ErrNotFound) {
			sf.b.log.ErrorContext(ctx, "delete receipt of a failed request", "key", k, "error", err)
		}
	}
}

// Documents is GET /bank-transactions/{id}/documents: the live documents
// with pre-signed URLs valid for DocumentURLExpiry; attachment makes the
// download a "save as" under the document's file name.
func (b *Banking) Documents(ctx context.Context, businessID, id uuid.UUID, attachment bool) ([]DocumentURL, error) {
	if b.files == nil {
		return nil, ErrStorageNotConfigured()
	}
	if _, err := b.liveTransaction(ctx, b.db, businessID, id, NoLock); err != nil {
		return nil, err
	}
	docs, err := b.store.LiveDocuments(ctx, b.db, businessID, id)
	if err != nil {
		return nil, fmt.Errorf("documents of %s: %w", id, err)
	}
	out := make([]DocumentURL, len(docs))
	for i, d := range docs {
		var opts storage.PresignOptions
		if attachment {
			opts.Filename = d.FileName
		}
		url, err := b.files.PresignGet(ctx, d.StorageKey, DocumentURLExpiry, opts)
		if err != nil {
			return nil, fmt.Errorf("presign document %s: %w", d.ID, err)
		}
		out[i] = DocumentURL{Document: d, URL: url}
	}
	return out, nil
}

// AddDocument is POST /bank-transactions/{id}/documents: one receipt of
// the given document type. The file is stored first and deleted again if
// the transaction is missing or the insert fails.
func (b *Banking) AddDocument(ctx context.Context, businessID, id uuid.UUID, f *banking.ReceiptFile, documentType *string) (Document, error) {
	if b.files == nil {
		return Document{}, ErrStorageNotConfigured()
	}
	if _, err := b.liveTransaction(ctx, b.db, businessID, id, NoLock); err != nil {
		return Document{}, err
	}
	sf, err := b.putReceipts(ctx, businessID, id, []*banking.ReceiptFile{f}, documentType)
	if err != nil {
		return Document{}, err
	}
	err = outbox.RunInTx(ctx, b.db, func(ctx context.Context, tx bun.Tx) error {
		t, err := b.liveTransaction(ctx, tx, businessID, id, LockUpdate)
		if err != nil {
			return err
		}
		if err := b.store.InsertDocuments(ctx, tx, sf.docs); err != nil {
			return fmt.Errorf("insert receipt: %w", err)
		}
		return b.touch(ctx, tx, t)
	})
	if err != nil {
		sf.discard(ctx)
		return Document{}, err
	}
	return sf.docs[0], nil
}

// ArchiveDocument is POST /bank-transactions/{id}/documents/{documentId}/archive.
// Archiving an archived document again is a no-op; a document the
// transaction does not have is 404.
func (b *Banking) ArchiveDocument(ctx context.Context, businessID, id, documentID uuid.UUID) error {
	if b.files == nil {
		return ErrStorageNotConfigured()
	}
	return outbox.RunInTx(ctx, b.db, func(ctx context.Context, tx bun.Tx) error {
		t, err := b.liveTransaction(ctx, tx, businessID, id, LockUpdate)
		if err != nil {
			return err
		}
		var exists int
		if err := tx.NewRaw("SELECT count(*) FROM bank_transaction_documents WHERE business_id = ? AND transaction_id = ? AND id = ?",
			businessID, id, documentID).Scan(ctx, &exists); err != nil {
			return fmt.Errorf("find document %s: %w", documentID, err)
		}
		if exists == 0 {
			return apperr.New(apperr.NotFound, "document not found").WithEnum(EnumDocumentNotFound)
		}
		n, err := b.store.ArchiveDocuments(ctx, tx, businessID, id, []uuid.UUID{documentID}, b.clock())
		if err != nil {
			return fmt.Errorf("archive document %s: %w", documentID, err)
		}
		if n == 0 {
			return nil
		}
		return b.touch(ctx, tx, t)
	})
}

// touch saves a new version of t after its documents changed and
// publishes its snapshot.
func (b *Banking) touch(ctx context.Context, tx bun.IDB, t banking.BankTransaction) error {
	docs, err := b.store.LiveDocuments(ctx, tx, t.BusinessID, t.ID)
	if err != nil {
		return fmt.Errorf("documents of %s: %w", t.ID, err)
	}
	t.DocumentIDs = nil
	for _, d := range docs {
		t.DocumentIDs = append(t.DocumentIDs, d.ID)
	}
	t.Version++
	t.UpdatedAt = b.clock()
	if err := b.store.SaveRecordedTransaction(ctx, tx, t); err != nil {
		return fmt.Errorf("save bank transaction %s: %w", t.ID, err)
	}
	if err := b.pub.TransactionsUpserted(ctx, tx, []banking.BankTransaction{t}); err != nil {
		return fmt.Errorf("publish transaction %s: %w", t.ID, err)
	}
	return nil
}

// EnumRecordedTxnNotFound is the error_enum of a recorded transaction
// the custom account does not have.
const EnumRecordedTxnNotFound = "RecordedTransactionNotFound"

// RecordStore saves what a record update changes (part of BankStore).
type RecordStore interface {
	// SaveRecordedTransaction saves every column a record update may
	// change: amount, direction, date, counterparty, description,
	// reference number, memo, metadata, update time and version.
	SaveRecordedTransaction(ctx context.Context, db bun.IDB, t banking.BankTransaction) error
	// ReplaceTags deletes the transaction's tags and inserts ts.
	ReplaceTags(ctx context.Context, db bun.IDB, businessID, transactionID uuid.UUID, ts []tags.Tag) error
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
	err = outbox.RunInTx(ctx, b.db, func(ctx context.Context, tx bun.Tx) error {
		acct, err := b.CustomAccount(ctx, tx, businessID, accountID)
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
		ins, err := b.store.InsertBankTransactions(ctx, tx, []banking.BankTransaction{t})
		if err != nil {
			return fmt.Errorf("insert recorded transaction: %w", err)
		}
		inserted = ins[t.ID]
		settled, err := b.settle(ctx, tx, businessID, []banking.BankTransaction{t}, ins)
		if err != nil {
			return err
		}
		if !inserted {
			out = settled[0]
			return nil
		}
		if err := b.store.InsertDocuments(ctx, tx, sf.docs); err != nil {
			return fmt.Errorf("insert receipts: %w", err)
		}
		for _, d := range sf.docs {
			t.DocumentIDs = append(t.DocumentIDs, d.ID)
		}
		if err := b.postUncategorized(ctx, tx, businessID, []banking.BankTransaction{t}, ins); err != nil {
			return err
		}
		if !p.Categorization.Set {
			got, err := b.autoCategorize(ctx, tx, businessID, []banking.BankTransaction{t}, ins)
			if err != nil {
				return err
			}
			out = got[0]
			return nil
		}
		out, err = b.apply(ctx, tx, t, c, banking.MethodAPI, domain.AgentAPI)
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
func (b *Banking) recordedTransaction(ctx context.Context, tx bun.IDB, businessID, accountID, id uuid.UUID) (banking.BankTransaction, error) {
	if _, err := b.CustomAccount(ctx, tx, businessID, accountID); err != nil {
		return banking.BankTransaction{}, err
	}
	t, ok, err := b.store.FindBankTransaction(ctx, tx, businessID, id, LockUpdate)
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
	err = outbox.RunInTx(ctx, b.db, func(ctx context.Context, tx bun.Tx) error {
		t, err := b.recordedTransaction(ctx, tx, businessID, accountID, id)
		if err != nil {
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
			live, err := b.store.LiveDocuments(ctx, tx, businessID, t.ID)
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
			if _, err := b.store.ArchiveDocuments(ctx, tx, businessID, t.ID, archive, now); err != nil {
				return fmt.Errorf("archive documents of %s: %w", t.ID, err)
			}
		}
		if err := b.store.InsertDocuments(ctx, tx, sf.docs); err != nil {
			return fmt.Errorf("insert receipts: %w", err)
		}
		if p.Tags.Set {
			t.Tags = make([]tags.Tag, 0, len(p.Tags.Value))
			for _, kv := range p.Tags.Value {
				t.Tags = append(t.Tags, tags.NewTag(businessID, t.ID, kv, now))
			}
			if err := b.store.ReplaceTags(ctx, tx, businessID, t.ID, t.Tags); err != nil {
				return fmt.Errorf("replace tags of %s: %w", t.ID, err)
			}
		}
		docs, err := b.store.LiveDocuments(ctx, tx, businessID, t.ID)
		if err != nil {
			return fmt.Errorf("documents of %s: %w", t.ID, err)
		}
		t.DocumentIDs = nil
		for _, d := range docs {
			t.DocumentIDs = append(t.DocumentIDs, d.ID)
		}
		t.UpdatedAt = now
		if err := b.store.SaveRecordedTransaction(ctx, tx, t); err != nil {
			return fmt.Errorf("save recorded transaction %s: %w", t.ID, err)
		}
		if recategorize {
			method := banking.MethodAPI
			if !p.Categorization.Set && t.Method != nil {
				method = *t.Method
			}
			out, err = b.apply(ctx, tx, t, c, method, domain.AgentAPI)
			return err
		}
		unmatched := moved && t.Match != nil
		if unmatched {
			// The deposit no longer is what was matched.
			if err := b.releaseMatch(ctx, tx, &t); err != nil {
				return err
			}
			t.Status, t.Method = banking.StatusReadyForInput, nil
		}
		if moved {
			if err := b.repostUncategorized(ctx, tx, &t); err != nil {
				return err
			}
		} else {
			t.Version++
			// New tags: the live entry (uncategorized, categorized or a
			// match) is reposted carrying them.
			if err := b.retagLive(ctx, tx, t); err != nil {
				return err
			}
		}
		if err := b.store.SaveRecordedTransaction(ctx, tx, t); err != nil {
			return fmt.Errorf("save recorded transaction %s: %w", t.ID, err)
		}
		if unmatched {
			if err := b.store.UpdateBankTransaction(ctx, tx, t); err != nil {
				return fmt.Errorf("update bank transaction %s: %w", t.ID, err)
			}
		}
		if err := b.pub.TransactionsUpserted(ctx, tx, []banking.BankTransaction{t}); err != nil {
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
func (b *Banking) repostUncategorized(ctx context.Context, tx bun.IDB, t *banking.BankTransaction) error {
	live, ok, err := b.ledger.LiveEntryForSource(ctx, tx, t.BusinessID, SourceBankTransaction, t.ID.String())
	if err != nil {
		return fmt.Errorf("live entry of %s: %w", t.ID, err)
	}
	if ok {
		if _, err := b.ledger.ReverseEntry(ctx, tx, t.BusinessID, live.ID, ReverseOptions{Agent: domain.AgentAPI}); err != nil {
			return fmt.Errorf("reverse entry %s: %w", live.ID, err)
		}
	}
	t.Version++
	return b.postUncategorized(ctx, tx, t.BusinessID, []banking.BankTransaction{*t}, map[uuid.UUID]bool{t.ID: true})
}
