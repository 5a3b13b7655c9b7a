package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// Stable error_enum values of the invoice use cases' 4xx errors (the
// amounts' rules are invoice.Enum*).
const (
	EnumInvoiceNotFound   = "InvoiceNotFound"
	EnumInvalidInvoice    = "InvalidInvoice"
	EnumUnknownCustomer   = "UnknownCustomer"
	EnumCustomerMismatch  = "CustomerMismatch"
	EnumPaymentNotFound   = "PaymentNotFound"
	EnumWriteOffNotFound  = "WriteOffNotFound"
	EnumDuplicateInvoice  = "DuplicateExternalId"
	EnumInvalidBulkDelete = "InvalidBulkDelete"
)

// ErrInvoiceNotFound is the 404 of an invoice id the business does not have.
func ErrInvoiceNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "invoice not found").WithEnum(EnumInvoiceNotFound)
}

// InvoiceLine is a stored line of an invoice.
type InvoiceLine struct {
	ID     uuid.UUID
	Number int
	invoice.Line
}

// Allocation is a payment's part on one invoice, as an invoice shows it.
type Allocation struct {
	PaymentID uuid.UUID
	InvoiceID uuid.UUID
	Amount    money.Cents
	PaidAt    time.Time
	Method    invoice.Method
}

// Invoice is an invoice as stored, with its lines, its customer (when it
// has one), the payments allocated to it and its write-offs.
type Invoice struct {
	ID                        uuid.UUID
	BusinessID                uuid.UUID
	ExternalID                *string
	InvoiceNumber             *string
	CustomerID                *uuid.UUID
	Customer                  *domain.Customer
	SentAt                    time.Time
	DueAt                     *time.Time
	PaidAt                    *time.Time
	VoidedAt                  *time.Time
	Memo                      *string
	CustomPaymentInstructions *string
	ReferenceNumber           *string
	Metadata                  json.RawMessage
	Tags                      []tags.Tag
	Lines                     []InvoiceLine
	AdditionalDiscount        money.Cents
	AdditionalSalesTaxes      []invoice.SalesTax
	Tips                      money.Cents
	Totals                    invoice.Totals
	Paid                      money.Cents
	WrittenOff                money.Cents
	Status                    invoice.Status
	Version                   int
	ImportedAt                time.Time
	UpdatedAt                 time.Time
	Allocations               []Allocation
	WriteOffs                 []WriteOff
}

// Balance is what the invoice's status follows from.
func (i Invoice) Balance() invoice.Balance {
	return invoice.Balance{Total: i.Totals.Total, Paid: i.Paid, WrittenOff: i.WrittenOff, Voided: i.VoidedAt != nil}
}

// Outstanding is the invoice's outstanding balance.
func (i Invoice) Outstanding() money.Cents { return i.Balance().Outstanding() }

// DomainLines are the invoice's lines as the domain computes with them.
func (i Invoice) DomainLines() []invoice.Line {
	out := make([]invoice.Line, len(i.Lines))
	for k, l := range i.Lines {
		out[k] = l.Line
	}
	return out
}

// KeyValues are the tag inputs of ts.
func KeyValues(ts []tags.Tag) []tags.KeyValue {
	out := make([]tags.KeyValue, len(ts))
	for i, t := range ts {
		out[i] = tags.KeyValue{Key: t.Key, Value: t.Value, DimensionDisplayName: t.DimensionDisplayName, ValueDisplayName: t.ValueDisplayName}
	}
	return out
}

// InvoiceInput is a create request, read and checked for shape by the HTTP
// layer; the amounts' rules are the domain's (invoice.Compute).
type InvoiceInput struct {
	ExternalID                *string
	InvoiceNumber             *string
	SentAt                    *time.Time
	DueAt                     *time.Time
	CustomerID                *uuid.UUID
	CustomerExternalID        *string
	Memo                      *string
	CustomPaymentInstructions *string
	ReferenceNumber           *string
	Metadata                  json.RawMessage
	Tags                      []tags.KeyValue
	Draft                     invoice.Draft
}

// Optional is a patch field: Set when the request named it (Value may be
// the zero value: null clears).
type Optional[T any] struct {
	Set   bool
	Value T
}

// InvoicePatch is PATCH /invoices/{id}: the fields named change; Lines
// (when set) replace the whole draft's lines.
type InvoicePatch struct {
	InvoiceNumber             Optional[*string]
	SentAt                    Optional[time.Time]
	DueAt                     Optional[*time.Time]
	CustomerID                Optional[*uuid.UUID]
	CustomerExternalID        Optional[*string]
	Memo                      Optional[*string]
	CustomPaymentInstructions Optional[*string]
	ReferenceNumber           Optional[*string]
	Metadata                  Optional[json.RawMessage]
	Tags                      Optional[[]tags.KeyValue]
	Lines                     Optional[[]invoice.LineInput]
	AdditionalDiscount        Optional[money.Cents]
	AdditionalSalesTaxes      Optional[[]invoice.SalesTax]
	Tips                      Optional[money.Cents]
}

// InvoiceStore is the invoices' persistence. Every method runs on the db
// it is given and filters by business.
type InvoiceStore interface {
	// InsertInvoice inserts inv and its lines unless the business has an
	// invoice with its external id (inserted false).
	InsertInvoice(ctx context.Context, db bun.IDB, inv Invoice) (inserted bool, err error)
	// FindInvoice reads an invoice with its lines, allocations and
	// write-offs; forUpdate locks its row.
	FindInvoice(ctx context.Context, db bun.IDB, businessID, id uuid.UUID, forUpdate bool) (Invoice, bool, error)
	FindInvoiceByExternalID(ctx context.Context, db bun.IDB, businessID uuid.UUID, externalID string, forUpdate bool) (Invoice, bool, error)
	// UpdateInvoice writes inv's row; with lines, its lines replace the
	// stored ones.
	UpdateInvoice(ctx context.Context, db bun.IDB, inv Invoice, lines bool) error
	// DeleteInvoice deletes the invoice, its lines and write-offs.
	DeleteInvoice(ctx context.Context, db bun.IDB, businessID, id uuid.UUID) error
	// FindInvoices is one keyset page of the business's invoices matching
	// f (with their lines, allocations and write-offs).
	FindInvoices(ctx context.Context, db bun.IDB, businessID uuid.UUID, f InvoiceFilter, p page.Params) ([]Invoice, page.Meta, error)
	WriteOffStore
	PaymentStore
}

// InvoicePublisher enqueues the invoicing events in the caller's
// transaction.
type InvoicePublisher interface {
	// InvoiceUpserted publishes inv's snapshot; withPosting adds the
	// posting of its current version (its entry changed).
	InvoiceUpserted(ctx context.Context, db bun.IDB, inv Invoice, withPosting bool) error
	InvoiceDeleted(ctx context.Context, db bun.IDB, inv Invoice) error
	PaymentUpserted(ctx context.Context, db bun.IDB, p Payment) error
	PaymentDeleted(ctx context.Context, db bun.IDB, p Payment) error
	WriteOffUpserted(ctx context.Context, db bun.IDB, w WriteOff, inv Invoice) error
}

// Invoicing holds the invoice, payment and write-off use cases.
type Invoicing struct {
	db        *bun.DB
	store     InvoiceStore
	customers CustomerStore
	accounts  AccountStore
	pub       InvoicePublisher
	cpub      CustomerPublisher
	log       *slog.Logger
	now       func() time.Time
}

// NewInvoicing assembles the invoicing use cases on db.
func NewInvoicing(db *bun.DB, store InvoiceStore, customers CustomerStore, accounts AccountStore, pub InvoicePublisher, cpub CustomerPublisher, logger *slog.Logger) *Invoicing {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Invoicing{db: db, store: store, customers: customers, accounts: accounts, pub: pub, cpub: cpub, log: logger, now: time.Now}
}

func (a *Invoicing) clock() time.Time { return a.now().UTC().Truncate(time.Microsecond) }

// resolveCustomer finds the invoice's customer: by id (400 UnknownCustomer
// when the business has no such customer), by external id (an unknown one
// creates the customer, without a name, and publishes it), or both (they
// must name the same customer: 400 CustomerMismatch).
func (a *Invoicing) resolveCustomer(ctx context.Context, tx bun.IDB, businessID uuid.UUID, id *uuid.UUID, externalID *string) (*domain.Customer, error) {
	var byID *domain.Customer
	if id != nil {
		c, ok, err := a.customers.FindCustomer(ctx, tx, businessID, *id, false)
		if err != nil {
			return nil, fmt.Errorf("find customer %s: %w", *id, err)
		}
		if !ok {
			return nil, apperr.PayloadField("customer_id", "the business has no such customer").WithEnum(EnumUnknownCustomer)
		}
		byID = &c
	}
	if externalID == nil {
		return byID, nil
	}
	c, ok, err := a.customers.FindCustomerByExternalID(ctx, tx, businessID, *externalID)
	if err != nil {
		return nil, fmt.Errorf("find customer %q: %w", *externalID, err)
	}
	if byID != nil {
		if !ok || c.ID != byID.ID {
			return nil, apperr.PayloadField("customer_external_id", "names another customer than customer_id").WithEnum(EnumCustomerMismatch)
		}
		return byID, nil
	}
	if ok {
		return &c, nil
	}
	nc := domain.NewCustomer(businessID, newID(), domain.CustomerInput{ExternalID: externalID}, a.clock())
	inserted, err := a.customers.InsertCustomer(ctx, tx, nc)
	if err != nil {
		return nil, fmt.Errorf("create customer %q: %w", *externalID, err)
	}
	if !inserted { // created concurrently: use that one
		c, ok, err := a.customers.FindCustomerByExternalID(ctx, tx, businessID, *externalID)
		if err != nil || !ok {
			return nil, fmt.Errorf("find customer %q created concurrently: %v", *externalID, err)
		}
		return &c, nil
	}
	if err := a.cpub.CustomerUpserted(ctx, tx, nc); err != nil {
		return nil, err
	}
	return &nc, nil
}

// checkMetadata is the spec's 1 KB limit on a JSON object.
func checkMetadata(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if len(raw) > invoice.MaxMetadataBytes {
		return apperr.PayloadField("metadata", fmt.Sprintf("at most %d bytes of JSON", invoice.MaxMetadataBytes)).
			WithEnum(invoice.EnumMetadataTooLarge)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return apperr.PayloadField("metadata", "must be a JSON object").WithEnum(EnumInvalidInvoice)
	}
	// Stored as jsonb: NUL, unpaired surrogates and invalid UTF-8 are the
	// caller's 400, not the database's 500.
	if reason := jsonraw.StorableReason(raw); reason != "" {
		return apperr.PayloadField("metadata", reason).WithEnum(EnumInvalidInvoice)
	}
	return nil
}

// applyDraft computes d onto inv: its lines (new ids) and totals.
func (a *Invoicing) applyDraft(inv *Invoice, d invoice.Draft) error {
	c, err := invoice.Compute(d)
	if err != nil {
		return err
	}
	inv.Lines = make([]InvoiceLine, len(c.Lines))
	for k, l := range c.Lines {
		inv.Lines[k] = InvoiceLine{ID: newID(), Number: k + 1, Line: l}
	}
	inv.AdditionalDiscount, inv.Tips, inv.AdditionalSalesTaxes, inv.Totals = d.AdditionalDiscount, d.Tips, c.AdditionalSalesTaxes, c.Totals
	return nil
}

// settle sets the status (and paid_at) that the invoice's balance gives:
// paid_at is the latest payment's date when PAID (the sent date for a zero
// invoice), nil otherwise.
func settle(inv *Invoice) {
	inv.Status = inv.Balance().Status()
	inv.PaidAt = nil
	if inv.Status != invoice.Paid {
		return
	}
	at := inv.SentAt
	for _, al := range inv.Allocations {
		if al.PaidAt.After(at) {
			at = al.PaidAt
		}
	}
	inv.PaidAt = &at
}

// CreateInvoice is POST /invoices: the invoice (status SENT, or PAID for a
// zero total) and its invoice.upserted event with the entry to post, with
// created true. An external_id the business already has answers the
// stored invoice unchanged with created false (a retried create).
func (a *Invoicing) CreateInvoice(ctx context.Context, businessID uuid.UUID, in InvoiceInput) (Invoice, bool, error) {
	if in.SentAt == nil {
		return Invoice{}, false, apperr.PayloadField("sent_at", "is required").WithEnum(EnumInvalidInvoice)
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return Invoice{}, false, err
	}
	var out Invoice
	var created bool
	err := outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		if in.ExternalID != nil {
			existing, ok, err := a.store.FindInvoiceByExternalID(ctx, tx, businessID, *in.ExternalID, false)
			if err != nil {
				return fmt.Errorf("find invoice %q: %w", *in.ExternalID, err)
			}
			if ok {
				out = existing
				return a.withCustomer(ctx, tx, &out)
			}
		}
		now := a.clock()
		inv := Invoice{
			ID: newID(), BusinessID: businessID, ExternalID: in.ExternalID, InvoiceNumber: in.InvoiceNumber,
			SentAt: micro(*in.SentAt), DueAt: utc(in.DueAt), Memo: in.Memo, CustomPaymentInstructions: in.CustomPaymentInstructions,
			ReferenceNumber: in.ReferenceNumber, Metadata: in.Metadata, Version: 1, ImportedAt: now, UpdatedAt: now,
		}
		if err := a.applyDraft(&inv, in.Draft); err != nil {
			return err
		}
		if err := a.checkAccounts(ctx, tx, businessID, draftAccounts(in.Draft)); err != nil {
			return err
		}
		inv.Tags = entityTags(businessID, inv.ID, in.Tags, now)
		c, err := a.resolveCustomer(ctx, tx, businessID, in.CustomerID, in.CustomerExternalID)
		if err != nil {
			return err
		}
		if c != nil {
			inv.CustomerID, inv.Customer = &c.ID, c
		}
		settle(&inv)
		inserted, err := a.store.InsertInvoice(ctx, tx, inv)
		if err != nil {
			return err
		}
		if !inserted { // the same external id created concurrently
			existing, ok, err := a.store.FindInvoiceByExternalID(ctx, tx, businessID, *in.ExternalID, false)
			if err != nil || !ok {
				return fmt.Errorf("find invoice %q created concurrently: %v", *in.ExternalID, err)
			}
			out = existing
			return a.withCustomer(ctx, tx, &out)
		}
		out, created = inv, true
		return a.pub.InvoiceUpserted(ctx, tx, inv, true)
	})
	if err != nil {
		return Invoice{}, false, err
	}
	return out, created, nil
}

// micro is t as PostgreSQL stores it (UTC, microseconds), so that an
// answer shows the instant a later read shows.
func micro(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := micro(*t)
	return &u
}

// entityTags are the tags kvs (already normalised) on entity at now.
func entityTags(businessID, entityID uuid.UUID, kvs []tags.KeyValue, now time.Time) []tags.Tag {
	out := make([]tags.Tag, len(kvs))
	for i, kv := range kvs {
		out[i] = tags.NewTag(businessID, entityID, kv, now)
	}
	return out
}

// withCustomer loads inv's customer.
func (a *Invoicing) withCustomer(ctx context.Context, db bun.IDB, inv *Invoice) error {
	if inv.CustomerID == nil {
		return nil
	}
	c, ok, err := a.customers.FindCustomer(ctx, db, inv.BusinessID, *inv.CustomerID, false)
	if err != nil {
		return fmt.Errorf("find customer %s: %w", *inv.CustomerID, err)
	}
	if ok {
		inv.Customer = &c
	}
	return nil
}

// lockInvoice reads and locks the business's invoice id, or its 404.
func (a *Invoicing) lockInvoice(ctx context.Context, tx bun.IDB, businessID, id uuid.UUID) (Invoice, error) {
	inv, ok, err := a.store.FindInvoice(ctx, tx, businessID, id, true)
	if err != nil {
		return Invoice{}, fmt.Errorf("lock invoice %s: %w", id, err)
	}
	if !ok {
		return Invoice{}, ErrInvoiceNotFound()
	}
	return inv, nil
}

// Invoice is GET /invoices/{id}.
func (a *Invoicing) Invoice(ctx context.Context, businessID, id uuid.UUID) (Invoice, error) {
	inv, ok, err := a.store.FindInvoice(ctx, a.db, businessID, id, false)
	if err != nil {
		return Invoice{}, fmt.Errorf("find invoice %s: %w", id, err)
	}
	if !ok {
		return Invoice{}, ErrInvoiceNotFound()
	}
	return inv, a.withCustomer(ctx, a.db, &inv)
}

// empty reports a patch naming no property.
func (p InvoicePatch) empty() bool {
	return !(p.InvoiceNumber.Set || p.SentAt.Set || p.DueAt.Set || p.CustomerID.Set || p.CustomerExternalID.Set ||
		p.Memo.Set || p.CustomPaymentInstructions.Set || p.ReferenceNumber.Set || p.Metadata.Set || p.Tags.Set ||
		p.Lines.Set || p.AdditionalDiscount.Set || p.AdditionalSalesTaxes.Set || p.Tips.Set)
}

// UpdateInvoice is PATCH /invoices/{id} while nothing is paid or written
// off (409 otherwise): the named fields change, the amounts are computed
// again, the version grows and the new entry replaces the old one. A patch
// naming no property ({}) writes nothing and answers the invoice as it is.
func (a *Invoicing) UpdateInvoice(ctx context.Context, businessID, id uuid.UUID, p InvoicePatch) (Invoice, error) {
	if p.Metadata.Set {
		if err := checkMetadata(p.Metadata.Value); err != nil {
			return Invoice{}, err
		}
	}
	var out Invoice
	err := outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		inv, err := a.lockInvoice(ctx, tx, businessID, id)
		if err != nil {
			return err
		}
		if err := inv.Balance().Editable(); err != nil {
			return err
		}
		if p.empty() {
			out = inv
			return nil
		}
		next := inv
		setPtr(&next.InvoiceNumber, p.InvoiceNumber)
		setPtr(&next.Memo, p.Memo)
		setPtr(&next.CustomPaymentInstructions, p.CustomPaymentInstructions)
		setPtr(&next.ReferenceNumber, p.ReferenceNumber)
		if p.SentAt.Set {
			next.SentAt = micro(p.SentAt.Value)
		}
		if p.DueAt.Set {
			next.DueAt = utc(p.DueAt.Value)
		}
		if p.Metadata.Set {
			next.Metadata = p.Metadata.Value
		}
		now := a.clock()
		if p.Tags.Set {
			next.Tags = entityTags(businessID, inv.ID, p.Tags.Value, now)
		}
		amounts := p.Lines.Set || p.AdditionalDiscount.Set || p.AdditionalSalesTaxes.Set || p.Tips.Set
		if amounts {
			d := invoice.Draft{AdditionalDiscount: inv.AdditionalDiscount, AdditionalSalesTaxes: inv.AdditionalSalesTaxes, Tips: inv.Tips}
			d.Lines = make([]invoice.LineInput, len(inv.Lines))
			for k, l := range inv.Lines {
				d.Lines[k] = l.LineInput
			}
			if p.Lines.Set {
				d.Lines = p.Lines.Value
			}
			if p.AdditionalDiscount.Set {
				d.AdditionalDiscount = p.AdditionalDiscount.Value
			}
			if p.AdditionalSalesTaxes.Set {
				d.AdditionalSalesTaxes = p.AdditionalSalesTaxes.Value
			}
			if p.Tips.Set {
				d.Tips = p.Tips.Value
			}
			if err := a.applyDraft(&next, d); err != nil {
				return err
			}
			if err := a.checkAccounts(ctx, tx, businessID, draftAccounts(d)); err != nil {
				return err
			}
		}
		if p.CustomerID.Set || p.CustomerExternalID.Set {
			cid, cext := inv.CustomerID, (*string)(nil)
			if p.CustomerID.Set {
				cid = p.CustomerID.Value
			}
			if p.CustomerExternalID.Set {
				cext = p.CustomerExternalID.Value
				if !p.CustomerID.Set {
					cid = nil
				}
			}
			c, err := a.resolveCustomer(ctx, tx, businessID, cid, cext)
			if err != nil {
				return err
			}
			if c == nil {
				return apperr.PayloadField("customer_id", "an invoice needs a customer: customer_id or customer_external_id").
					WithEnum(EnumInvalidInvoice)
			}
			next.CustomerID, next.Customer = &c.ID, c
		}
		settle(&next)
		next.Version, next.UpdatedAt = inv.Version+1, now
		if err := a.store.UpdateInvoice(ctx, tx, next, amounts); err != nil {
			return err
		}
		out = next
		return a.pub.InvoiceUpserted(ctx, tx, next, true)
	})
	if err != nil {
		return Invoice{}, err
	}
	return out, a.withCustomer(ctx, a.db, &out)
}

func setPtr[T any](dst **T, o Optional[*T]) {
	if o.Set {
		*dst = o.Value
	}
}

// VoidInvoice is POST /invoices/{id}/void: not while payments are
// allocated (409); the invoice becomes VOIDED with nothing outstanding,
// and its entry and its write-offs' entries are reversed. Voiding a voided
// invoice changes nothing.
func (a *Invoicing) VoidInvoice(ctx context.Context, businessID, id uuid.UUID) (Invoice, error) {
	var out Invoice
	err := outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		inv, err := a.lockInvoice(ctx, tx, businessID, id)
		if err != nil {
			return err
		}
		if inv.VoidedAt != nil {
			out = inv
			return nil
		}
		if err := inv.Balance().CanRemove("voided"); err != nil {
			return err
		}
		now := a.clock()
		inv.VoidedAt, inv.Version, inv.UpdatedAt = &now, inv.Version+1, now
		if err := a.voidWriteOffs(ctx, tx, &inv, now); err != nil {
			return err
		}
		settle(&inv)
		if err := a.store.UpdateInvoice(ctx, tx, inv, false); err != nil {
			return err
		}
		out = inv
		return a.pub.InvoiceUpserted(ctx, tx, inv, true)
	})
	if err != nil {
		return Invoice{}, err
	}
	return out, a.withCustomer(ctx, a.db, &out)
}

// DeleteInvoice is DELETE /invoices/{id}: only without payments (409
// otherwise); the invoice, its lines and write-offs are deleted and their
// entries reversed.
func (a *Invoicing) DeleteInvoice(ctx context.Context, businessID, id uuid.UUID) error {
	return outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		inv, err := a.lockInvoice(ctx, tx, businessID, id)
		if err != nil {
			return err
		}
		if err := inv.Balance().CanRemove("deleted"); err != nil {
			return err
		}
		now := a.clock()
		if err := a.voidWriteOffs(ctx, tx, &inv, now); err != nil {
			return err
		}
		if err := a.store.DeleteInvoice(ctx, tx, businessID, id); err != nil {
			return err
		}
		inv.Version++
		return a.pub.InvoiceDeleted(ctx, tx, inv)
	})
}
