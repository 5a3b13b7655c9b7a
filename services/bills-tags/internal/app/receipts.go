package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/receipts"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/receipt"
)

// MaxReceiptBytes is the largest receipt file an import takes (the
// spec's limit is not shown; pkg/receipts' default, 10 MiB).
const MaxReceiptBytes = 10 << 20

// ReceiptPageSpec is the pagination of GET /receipts: sort_by created_at
// (the import time, the only key), backed by (business_id, created_at,
// id) and (business_id, status, created_at, id); limit default 100, at
// most 500.
var ReceiptPageSpec = page.Spec{
	Keys:         map[string]page.Key{"created_at": {Column: "r.created_at", Kind: page.KindTime}},
	Default:      "created_at",
	DefaultLimit: 100,
	MaxLimit:     500,
}

// ReceiptStore is the receipts' persistence (scoped by business, in the
// unit of work ctx carries, else on the pool), with the reads a proposal
// needs.
type ReceiptStore interface {
	InsertReceipt(ctx context.Context, r receipt.Receipt) error
	FindReceipt(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (receipt.Receipt, bool, error)
	UpdateReceipt(ctx context.Context, r receipt.Receipt) error
	FindReceipts(ctx context.Context, businessID uuid.UUID, f receipt.Filter, p page.Params) ([]receipt.Receipt, page.Meta, error)
	// ActiveVendorNames are the names the business's active vendors go by.
	ActiveVendorNames(ctx context.Context, businessID uuid.UUID) ([]receipt.VendorName, error)
	// VendorTopAccount is the account most used on the vendor's bills'
	// lines (nil: no history).
	VendorTopAccount(ctx context.Context, businessID, vendorID uuid.UUID) (*bill.AccountRef, error)
}

// TextExtractor reads a receipt file's text (*receipts.Extractor: one per
// service, so its OCR pool bounds the whole process).
type TextExtractor interface {
	Extract(ctx context.Context, data []byte) (receipts.Text, error)
}

// ReceiptView is a receipt with what its answer shows: the vendor it
// matched (nil when none, or when that vendor is gone).
type ReceiptView struct {
	Receipt       receipt.Receipt
	MatchedVendor *domain.Vendor
}

// Upload is a receipt file as sent.
type Upload struct {
	FileName string
	Data     []byte
	Context  *string
}

// Receipts holds the receipt use cases.
type Receipts struct {
	uow   UnitOfWork
	store ReceiptStore
	bills *Bills
	pub   Publisher
	files storage.Store
	x     TextExtractor
	log   *slog.Logger
	clk   clock.Clock
	dir   BusinessDirectory
}

// BusinessDirectory is what the service knows of each business (the
// kit's projection of acct.business.v1).
type BusinessDirectory interface {
	Find(ctx context.Context, businessID uuid.UUID) (events.Business, bool, error)
}

// UseBusinesses gives the reading of a receipt its business's country
// (how an ambiguous date such as 03/04 reads).
func (a *Receipts) UseBusinesses(d BusinessDirectory) { a.dir = d }

// hints is what is known of a business's receipt before reading it; a
// business the directory cannot answer for reads without its country.
func (a *Receipts) hints(ctx context.Context, businessID uuid.UUID) receipts.Hints {
	if a.dir == nil {
		return receipts.Hints{}
	}
	b, ok, err := a.dir.Find(ctx, businessID)
	if err != nil {
		a.log.Warn("receipts: business directory", "business", businessID, "error", err)
		return receipts.Hints{}
	}
	if !ok {
		return receipts.Hints{}
	}
	return receipts.Hints{Country: b.Country}
}

// NewReceipts assembles the receipt use cases; bills makes their bills
// (in the receipt's unit of work), pub publishes each import's
// receipt.parsed. Without UseFileStore every one answers 503.
func NewReceipts(uow UnitOfWork, store ReceiptStore, bills *Bills, pub Publisher, x TextExtractor, logger *slog.Logger) *Receipts {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Receipts{uow: uow, store: store, bills: bills, pub: pub, x: x, log: logger, clk: clock.System}
}

// UseExtractor replaces the reader of receipt files (another OCR engine,
// or a test's).
func (a *Receipts) UseExtractor(x TextExtractor) { a.x = x }

// UseFileStore turns receipts on: files go to s.
func (a *Receipts) UseFileStore(s storage.Store) { a.files = s }

// ErrStorageNotConfigured is the 503 of every receipt request while the
// service runs without storage.
func ErrStorageNotConfigured() *apperr.Error {
	return apperr.New(apperr.Unavailable, "receipt storage is not configured").WithEnum(receipt.EnumStorageNotConfigured)
}

func (a *Receipts) ready() error {
	if a.files == nil {
		return ErrStorageNotConfigured()
	}
	return nil
}

// extractError maps pkg/receipts' refusals to the import's 4xx; nil for
// ErrUnreadable (the receipt is kept, FAILED) and other errors.
func extractError(err error) *apperr.Error {
	reason := receipts.Reason(err)
	switch {
	case errors.Is(err, receipts.ErrTooLarge):
		return apperr.New(apperr.PayloadTooLarge, "receipt file too large: "+reason).WithEnum(receipt.EnumReceiptTooLarge).
			WithMeta("max_bytes", MaxReceiptBytes)
	case errors.Is(err, receipts.ErrUnsupportedType):
		return apperr.New(apperr.UnsupportedMediaType, "the file must be a PDF, PNG or JPEG: "+reason).WithEnum(receipt.EnumUnsupportedType)
	case errors.Is(err, receipts.ErrBadInput):
		return apperr.PayloadField("file", reason).WithEnum(receipt.EnumInvalidReceipt)
	case errors.Is(err, receipts.ErrBusy):
		return apperr.New(apperr.Unavailable, "the receipt readers are busy, retry after the Retry-After delay: "+reason).
			WithMeta(apperr.RetryAfterMeta, BusyRetryAfter)
	}
	return nil
}

// BusyRetryAfter is the Retry-After (seconds) of an import refused while
// the receipt readers are busy: about one read's time.
const BusyRetryAfter = 5

var contentTypes = map[receipts.Kind]string{receipts.KindPDF: "application/pdf", receipts.KindPNG: "image/png", receipts.KindJPEG: "image/jpeg"}

// Import is POST /receipts/import, synchronous: the file's size and type
// (by content) are checked, the file is stored, its text read (OCR through
// the extractor's bounded pool) and parsed, the proposal completed (the
// matching vendor, each line's account) and the receipt inserted,
// READY_FOR_BILL, or FAILED with the reason when no text or no amount
// could be read, with its receipt.parsed event. A corrupt file is 400 and
// leaves nothing stored or published.
func (a *Receipts) Import(ctx context.Context, businessID uuid.UUID, up Upload) (ReceiptView, error) {
	if err := a.ready(); err != nil {
		return ReceiptView{}, err
	}
	if len(up.Data) > MaxReceiptBytes {
		return ReceiptView{}, extractError(&receipts.Error{Kind: receipts.ErrTooLarge, Reason: fmt.Sprintf("%d bytes, over the limit of %d", len(up.Data), MaxReceiptBytes)})
	}
	if len(up.Data) == 0 {
		return ReceiptView{}, extractError(&receipts.Error{Kind: receipts.ErrUnsupportedType, Reason: "empty file"})
	}
	kind, err := receipts.Detect(up.Data)
	if err != nil {
		return ReceiptView{}, extractError(err)
	}
	now := a.clk.Now()
	r := receipt.Receipt{
		ID: newID(), BusinessID: businessID, StorageDocumentID: newID(), FileName: up.FileName, FileType: string(kind),
		SizeBytes: int64(len(up.Data)), Context: up.Context, Source: receipt.SourceBookkeeperUpload, Status: receipt.ReadyForBill,
		LineItems: []receipt.LineItem{}, CreatedAt: now, UpdatedAt: now,
	}
	r.StorageKey = businessID.String() + "/receipts/" + r.ID.String() + "/" + r.StorageDocumentID.String()
	if err := a.files.Put(ctx, r.StorageKey, bytes.NewReader(up.Data), int64(len(up.Data)), contentTypes[kind]); err != nil {
		return ReceiptView{}, fmt.Errorf("store receipt: %w", err)
	}
	view, err := a.read(ctx, r, up.Data)
	if err != nil {
		a.discard(ctx, r.StorageKey)
		return ReceiptView{}, err
	}
	return view, nil
}

// read extracts, parses, completes and inserts r with its receipt.parsed
// (READY_FOR_BILL or FAILED alike), in one transaction.
func (a *Receipts) read(ctx context.Context, r receipt.Receipt, data []byte) (ReceiptView, error) {
	text, err := a.x.Extract(ctx, data)
	switch {
	case err == nil:
		src := string(text.Source)
		r.TextSource = &src
		a.propose(&r, receipts.ParseFor(text.Content, r.CreatedAt, a.hints(ctx, r.BusinessID)))
	case errors.Is(err, receipts.ErrUnreadable):
		reason := receipts.Reason(err)
		r.Status, r.FailureReason = receipt.Failed, &reason
	default:
		if e := extractError(err); e != nil {
			return ReceiptView{}, e
		}
		return ReceiptView{}, fmt.Errorf("read receipt: %w", err)
	}
	var matched *domain.Vendor
	if r.Status == receipt.ReadyForBill {
		if matched, err = a.complete(ctx, &r); err != nil {
			return ReceiptView{}, err
		}
	}
	// The OCR above runs outside the transaction, which holds only the
	// insert and its event.
	err = a.uow.Do(ctx, func(ctx context.Context) error {
		if err := a.store.InsertReceipt(ctx, r); err != nil {
			return err
		}
		return publish(ctx, a.pub, receiptParsedEvent(r))
	})
	if err != nil {
		return ReceiptView{}, err
	}
	return ReceiptView{Receipt: r, MatchedVendor: matched}, nil
}

// propose copies the parse result onto r; nothing to bill (no amount, no
// line) makes it FAILED.
func (a *Receipts) propose(r *receipt.Receipt, res receipts.Result) {
	r.Confidence = res.Confidence
	f := res.FieldConfidence
	r.FieldConfidence = receipt.FieldConfidence{Vendor: f.Vendor, PaidAt: f.PaidAt, Amount: f.Amount}
	if res.Note != "" {
		note := res.Note
		r.Note = &note
	}
	if c := res.ProposedCurrency; c != "" {
		r.Currency = &c
	}
	if v := res.ProposedVendorDisplay; v != "" {
		r.VendorDisplay = &v
	}
	r.PaidAt = res.ProposedPaidAt
	if res.ProposedAmountCents != nil {
		c := int64(*res.ProposedAmountCents)
		r.AmountCents = &c
	}
	for _, l := range res.ProposedLineItems {
		r.LineItems = append(r.LineItems, receipt.LineItem{Description: l.Description, AmountCents: int64(l.AmountCents)})
	}
	if r.AmountCents == nil && len(r.LineItems) == 0 {
		reason := "no amount found in the receipt's text"
		r.Status, r.FailureReason = receipt.Failed, &reason
	}
}

// complete matches the vendor and proposes each line's account.
func (a *Receipts) complete(ctx context.Context, r *receipt.Receipt) (*domain.Vendor, error) {
	var (
		matched *domain.Vendor
		history *bill.AccountRef
		name    string
	)
	if r.VendorDisplay != nil {
		name = *r.VendorDisplay
		names, err := a.store.ActiveVendorNames(ctx, r.BusinessID)
		if err != nil {
			return nil, err
		}
		if m, ok := receipt.MatchVendor(name, names); ok {
			v, found, err := a.bills.vendors.store.FindVendor(ctx, r.BusinessID, m.ID, false)
			if err != nil {
				return nil, fmt.Errorf("find vendor: %w", err)
			}
			if found {
				matched = &v
				r.MatchedVendorID, r.VendorExternalID = &v.ID, v.ExternalID
				r.FieldConfidence.Vendor = 1
				if history, err = a.store.VendorTopAccount(ctx, r.BusinessID, v.ID); err != nil {
					return nil, err
				}
			}
		}
	}
	for i := range r.LineItems {
		r.LineItems[i].Account = receipt.ProposeAccount(history, r.LineItems[i].Description, name)
	}
	return matched, nil
}

// discard deletes a stored file of a failed import; a cancelled request
// must not leave it behind, so it runs on its own context.
func (a *Receipts) discard(ctx context.Context, key string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := a.files.Delete(ctx, key); err != nil && !errors.Is(err, storage.ErrNotFound) {
		a.log.ErrorContext(ctx, "delete the file of a failed receipt import", "key", key, "error", err)
	}
}

func (a *Receipts) view(ctx context.Context, r receipt.Receipt) (ReceiptView, error) {
	out := ReceiptView{Receipt: r}
	if r.MatchedVendorID == nil {
		return out, nil
	}
	v, ok, err := a.bills.vendors.store.FindVendor(ctx, r.BusinessID, *r.MatchedVendorID, false)
	if err != nil {
		return ReceiptView{}, fmt.Errorf("find vendor: %w", err)
	}
	if ok {
		out.MatchedVendor = &v
	}
	return out, nil
}

// Receipt is GET /receipts/{id}.
func (a *Receipts) Receipt(ctx context.Context, businessID, id uuid.UUID) (ReceiptView, error) {
	if err := a.ready(); err != nil {
		return ReceiptView{}, err
	}
	r, ok, err := a.store.FindReceipt(ctx, businessID, id, false)
	if err != nil {
		return ReceiptView{}, err
	}
	if !ok {
		return ReceiptView{}, receipt.ErrNotFound()
	}
	return a.view(ctx, r)
}

// Receipts is GET /receipts: one page, newest last by default.
func (a *Receipts) Receipts(ctx context.Context, businessID uuid.UUID, f receipt.Filter, p page.Params) ([]ReceiptView, page.Meta, error) {
	if err := a.ready(); err != nil {
		return nil, page.Meta{}, err
	}
	list, meta, err := a.store.FindReceipts(ctx, businessID, f, p)
	if err != nil {
		return nil, page.Meta{}, err
	}
	var ids []uuid.UUID
	for _, r := range list {
		if r.MatchedVendorID != nil {
			ids = append(ids, *r.MatchedVendorID)
		}
	}
	vs, err := a.bills.vendors.store.FindVendorsByIDs(ctx, businessID, ids)
	if err != nil {
		return nil, page.Meta{}, err
	}
	out := make([]ReceiptView, len(list))
	for i, r := range list {
		out[i] = ReceiptView{Receipt: r}
		if r.MatchedVendorID != nil {
			if v, ok := vs[*r.MatchedVendorID]; ok {
				out[i].MatchedVendor = &v
			}
		}
	}
	return out, meta, nil
}

// CreateBill is POST /receipts/{id}/create-bill: in one transaction the
// receipt (locked; READY_FOR_BILL only, 409 otherwise) becomes a bill
// through the bill use case (the same rules and bill.upserted as POST
// /bills) and BILL_CREATED with its bill_id. The vendor is the override's,
// else the matched one, else a new vendor named as the receipt says.
func (a *Receipts) CreateBill(ctx context.Context, businessID, id uuid.UUID, o receipt.Overrides) (ReceiptView, BillView, error) {
	if err := a.ready(); err != nil {
		return ReceiptView{}, BillView{}, err
	}
	var (
		out ReceiptView
		bv  BillView
	)
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		r, ok, err := a.store.FindReceipt(ctx, businessID, id, true)
		if err != nil {
			return err
		}
		if !ok {
			return receipt.ErrNotFound()
		}
		if err := r.CheckCreateBill(); err != nil {
			return err
		}
		var vendorID *uuid.UUID
		if !o.VendorSet {
			if vendorID, err = a.receiptVendor(ctx, r); err != nil {
				return err
			}
		}
		body, err := r.BillBody(o, vendorID)
		if err != nil {
			return err
		}
		in, err := bill.ParseInput(body)
		if err != nil {
			return err
		}
		if bv, _, err = a.bills.create(ctx, businessID, in); err != nil {
			return err
		}
		r = r.WithBill(bv.Bill.ID, a.clk.Now())
		if err := a.store.UpdateReceipt(ctx, r); err != nil {
			return err
		}
		out, err = a.view(ctx, r)
		return err
	})
	return out, bv, err
}

// receiptVendor is the vendor a bill from r goes to without an override:
// the matched vendor, else a new one with the receipt's vendor name (and
// its vendor.upserted); 400 when the receipt names none.
func (a *Receipts) receiptVendor(ctx context.Context, r receipt.Receipt) (*uuid.UUID, error) {
	if r.MatchedVendorID != nil {
		return r.MatchedVendorID, nil
	}
	if r.VendorDisplay == nil {
		return nil, apperr.PayloadField("vendor_id", "the receipt names no vendor: send vendor_id or vendor_external_id").
			WithEnum(receipt.EnumInvalidCreateBill)
	}
	name := *r.VendorDisplay
	if n := []rune(name); len(n) > 255 {
		name = string(n[:255])
	}
	v, _, err := a.bills.vendors.create(ctx, r.BusinessID, domain.VendorInput{CompanyName: &name})
	if err != nil {
		return nil, err
	}
	return &v.ID, nil
}

// Reject is POST /receipts/{id}/reject: REJECTED with rejected_at; 409
// once a bill was created; rejecting again changes nothing.
func (a *Receipts) Reject(ctx context.Context, businessID, id uuid.UUID) (ReceiptView, error) {
	if err := a.ready(); err != nil {
		return ReceiptView{}, err
	}
	var out ReceiptView
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		r, ok, err := a.store.FindReceipt(ctx, businessID, id, true)
		if err != nil {
			return err
		}
		if !ok {
			return receipt.ErrNotFound()
		}
		next, changed, err := r.Reject(a.clk.Now())
		if err != nil {
			return err
		}
		if changed {
			if err := a.store.UpdateReceipt(ctx, next); err != nil {
				return err
			}
		}
		out, err = a.view(ctx, next)
		return err
	})
	return out, err
}
