package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/storage"
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
	InsertDocuments(ctx context.Context, docs []Document) error
	// LiveDocuments are the transaction's unarchived documents, oldest first.
	LiveDocuments(ctx context.Context, businessID, transactionID uuid.UUID) ([]Document, error)
	// DocumentExists reports whether the transaction has the document,
	// archived or not.
	DocumentExists(ctx context.Context, businessID, transactionID, id uuid.UUID) (bool, error)
	// ArchiveDocuments archives the given documents of the transaction and
	// returns how many it archived.
	ArchiveDocuments(ctx context.Context, businessID, transactionID uuid.UUID, ids []uuid.UUID, at time.Time) (int, error)
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
	if _, err := b.liveTransaction(ctx, businessID, id, NoLock); err != nil {
		return nil, err
	}
	docs, err := b.store.LiveDocuments(ctx, businessID, id)
	if err != nil {
		return nil, fmt.Errorf("documents of %s: %w", id, err)
	}
	out := make([]DocumentURL, len(docs))
	for i, d := range docs {
		opts := storage.PresignOptions{ContentType: d.FileType}
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
	if _, err := b.liveTransaction(ctx, businessID, id, NoLock); err != nil {
		return Document{}, err
	}
	sf, err := b.putReceipts(ctx, businessID, id, []*banking.ReceiptFile{f}, documentType)
	if err != nil {
		return Document{}, err
	}
	err = b.uow.Do(ctx, func(ctx context.Context) error {
		t, err := b.liveTransaction(ctx, businessID, id, LockUpdate)
		if err != nil {
			return err
		}
		if err := b.store.InsertDocuments(ctx, sf.docs); err != nil {
			return fmt.Errorf("insert receipt: %w", err)
		}
		return b.touch(ctx, t)
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
	return b.uow.Do(ctx, func(ctx context.Context) error {
		t, err := b.liveTransaction(ctx, businessID, id, LockUpdate)
		if err != nil {
			return err
		}
		exists, err := b.store.DocumentExists(ctx, businessID, id, documentID)
		if err != nil {
			return fmt.Errorf("find document %s: %w", documentID, err)
		}
		if !exists {
			return apperr.New(apperr.NotFound, "document not found").WithEnum(EnumDocumentNotFound)
		}
		n, err := b.store.ArchiveDocuments(ctx, businessID, id, []uuid.UUID{documentID}, b.clock())
		if err != nil {
			return fmt.Errorf("archive document %s: %w", documentID, err)
		}
		if n == 0 {
			return nil
		}
		return b.touch(ctx, t)
	})
}

// touch saves a new version of t after its documents changed and
// publishes its snapshot.
func (b *Banking) touch(ctx context.Context, t banking.BankTransaction) error {
	docs, err := b.store.LiveDocuments(ctx, t.BusinessID, t.ID)
	if err != nil {
		return fmt.Errorf("documents of %s: %w", t.ID, err)
	}
	t.DocumentIDs = nil
	for _, d := range docs {
		t.DocumentIDs = append(t.DocumentIDs, d.ID)
	}
	t.Version++
	t.UpdatedAt = b.clock()
	if err := b.store.SaveRecordedTransaction(ctx, t); err != nil {
		return fmt.Errorf("save bank transaction %s: %w", t.ID, err)
	}
	if err := b.publishTransactions(ctx, t); err != nil {
		return fmt.Errorf("publish transaction %s: %w", t.ID, err)
	}
	return nil
}
