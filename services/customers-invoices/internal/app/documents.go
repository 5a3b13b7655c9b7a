package app

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/exportfiles"
	"github.com/acctsuite/acct/pkg/storage"
)

// EnumStorageNotConfigured is the error_enum of a PDF asked for while the
// service runs without object storage.
const EnumStorageNotConfigured = "StorageNotConfigured"

// InvoiceDocument is what a rendered invoice shows: the invoice with its
// customer, and the business that sends it.
type InvoiceDocument struct {
	Invoice  InvoiceView
	Business events.Business
}

// DocumentRenderer renders an invoice as a page and as a PDF (the
// adapters' document package).
type DocumentRenderer interface {
	HTML(d InvoiceDocument) ([]byte, error)
	PDF(d InvoiceDocument) ([]byte, error)
}

// BusinessFinder finds a business in the kit's projection (its name).
type BusinessFinder interface {
	Find(ctx context.Context, businessID uuid.UUID) (events.Business, bool, error)
}

// Documents renders invoices and keeps their PDFs in object storage.
type Documents struct {
	invoicing  *Invoicing
	businesses BusinessFinder
	render     DocumentRenderer
	store      storage.Store      // nil: no storage, PDFs are 503
	files      *exportfiles.Files // over store
}

// DocumentService names the service in the keys of its files
// (exports/customers-invoices/<business>/invoice-pdf/...).
const DocumentService = "customers-invoices"

// NewDocuments assembles the rendering use cases; UseStore turns PDFs on.
func NewDocuments(inv *Invoicing, businesses BusinessFinder, r DocumentRenderer) *Documents {
	return &Documents{invoicing: inv, businesses: businesses, render: r}
}

// UseStore keeps the PDFs in s, as export files (kept and reused as p
// says: EXPORT_TTL, EXPORT_REUSE_WINDOW).
func (d *Documents) UseStore(s storage.Store, p exportfiles.Policy) {
	d.store = s
	d.files = exportfiles.New(s, exportfiles.Options{Service: DocumentService, Policy: p,
		Now: func() time.Time { return d.invoicing.clock() }})
}

// Files are the stored PDFs (nil without storage).
func (d *Documents) Files() *exportfiles.Files { return d.files }

// document reads the invoice and its business.
func (d *Documents) document(ctx context.Context, businessID, id uuid.UUID) (InvoiceDocument, error) {
	v, err := d.invoicing.Invoice(ctx, businessID, id)
	if err != nil {
		return InvoiceDocument{}, err
	}
	b, ok, err := d.businesses.Find(ctx, businessID)
	if err != nil {
		return InvoiceDocument{}, fmt.Errorf("find business %s: %w", businessID, err)
	}
	if !ok {
		b = events.Business{ID: businessID}
	}
	return InvoiceDocument{Invoice: v, Business: b}, nil
}

// InvoiceHTML is GET /invoices/{id}/html: the invoice as a page.
func (d *Documents) InvoiceHTML(ctx context.Context, businessID, id uuid.UUID) ([]byte, error) {
	doc, err := d.document(ctx, businessID, id)
	if err != nil {
		return nil, err
	}
	return d.render.HTML(doc)
}

// PDFFile is a stored invoice PDF with a pre-signed URL to it.
type PDFFile struct {
	ID        uuid.UUID
	URL       string
	FileName  string
	CreatedAt time.Time
}

// InvoicePDF is GET /invoices/{id}/pdf: the invoice's PDF in storage and a
// pre-signed URL to it. The file is keyed by the invoice's version (and
// its customer's and business's), so asking again for an unchanged
// invoice within the reuse window answers the same file. Without storage
// it is 503 (after the 404 of an unknown invoice).
func (d *Documents) InvoicePDF(ctx context.Context, businessID, id uuid.UUID) (PDFFile, error) {
	doc, err := d.document(ctx, businessID, id)
	if err != nil {
		return PDFFile{}, err
	}
	if d.files == nil {
		return PDFFile{}, apperr.New(apperr.Unavailable, "document storage is not configured").WithEnum(EnumStorageNotConfigured)
	}
	version := map[string]any{"invoice": doc.Invoice.Version, "updated": doc.Invoice.UpdatedAt, "business": doc.Business.UpdatedAt}
	if c := doc.Invoice.Customer; c != nil {
		version["customer"] = c.Version
	}
	name := "invoice-" + id.String() + ".pdf"
	if n := doc.Invoice.InvoiceNumber; n != nil && *n != "" {
		name = "invoice-" + safeFileName(*n) + ".pdf"
	}
	file, err := d.files.Serve(ctx, exportfiles.Request{BusinessID: businessID, Kind: "invoice-pdf", Ext: "pdf",
		Query: id.String(), Version: version, FileName: name, ContentType: "application/pdf"}, func(ctx context.Context, key string) error {
		pdf, err := d.render.PDF(doc)
		if err != nil {
			return fmt.Errorf("render invoice %s: %w", id, err)
		}
		return d.store.Put(ctx, key, bytes.NewReader(pdf), int64(len(pdf)), "application/pdf")
	})
	if err != nil {
		return PDFFile{}, fmt.Errorf("invoice pdf %s: %w", id, err)
	}
	return PDFFile{ID: file.ID, URL: file.URL, FileName: name, CreatedAt: file.Created}, nil
}

// safeFileName keeps letters, digits, '-', '_' and '.' of s (at most 64).
func safeFileName(s string) string {
	var b []rune
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b = append(b, r)
		default:
			b = append(b, '_')
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}
