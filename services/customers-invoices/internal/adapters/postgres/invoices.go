package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	fastjson "github.com/segmentio/encoding/json"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

var _ app.InvoiceStore = (*Store)(nil)

// noDueDate is due_sort of an invoice without a due date.
var noDueDate = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// invoiceRow is a row of invoices.
type invoiceRow struct {
	bun.BaseModel `bun:"table:invoices,alias:i"`

	BusinessID                uuid.UUID          `bun:"business_id,pk,type:uuid"`
	ID                        uuid.UUID          `bun:"id,pk,type:uuid"`
	ExternalID                *string            `bun:"external_id"`
	InvoiceNumber             *string            `bun:"invoice_number"`
	CustomerID                *uuid.UUID         `bun:"customer_id,type:uuid"`
	SentAt                    time.Time          `bun:"sent_at"`
	DueAt                     *time.Time         `bun:"due_at"`
	DueSort                   time.Time          `bun:"due_sort"`
	PaidAt                    *time.Time         `bun:"paid_at"`
	VoidedAt                  *time.Time         `bun:"voided_at"`
	Memo                      *string            `bun:"memo"`
	CustomPaymentInstructions *string            `bun:"custom_payment_instructions"`
	ReferenceNumber           *string            `bun:"reference_number"`
	Metadata                  json.RawMessage    `bun:"metadata,type:jsonb"`
	Tags                      []tags.Tag         `bun:"tags,type:jsonb"`
	AdditionalDiscount        int64              `bun:"additional_discount"`
	AdditionalSalesTaxes      []invoice.SalesTax `bun:"additional_sales_taxes,type:jsonb"`
	Tips                      int64              `bun:"tips"`
	Subtotal                  int64              `bun:"subtotal"`
	TotalDiscount             int64              `bun:"total_discount"`
	TotalTax                  int64              `bun:"total_tax"`
	AdditionalTaxesTotal      int64              `bun:"additional_taxes_total"`
	TotalAmount               int64              `bun:"total_amount"`
	PaidAmount                int64              `bun:"paid_amount"`
	WrittenOffAmount          int64              `bun:"written_off_amount"`
	RefundedAmount            int64              `bun:"refunded_amount"`
	PaymentMethods            []string           `bun:"payment_methods,type:jsonb"`
	OutstandingBalance        int64              `bun:"outstanding_balance"`
	Status                    string             `bun:"status"`
	Version                   int                `bun:"version"`
	ImportedAt                time.Time          `bun:"imported_at"`
	UpdatedAt                 time.Time          `bun:"updated_at"`

	// Read with a listing's rows (withParts): the lines, allocations and
	// write-offs of each invoice as JSON arrays.
	LinesJSON     json.RawMessage `bun:"lines_json,scanonly"`
	AllocsJSON    json.RawMessage `bun:"allocs_json,scanonly"`
	WriteOffsJSON json.RawMessage `bun:"write_offs_json,scanonly"`
	RefundsJSON   json.RawMessage `bun:"refunds_json,scanonly"`
}

// withParts makes q (a select of invoiceRow) read each invoice's lines,
// payment allocations and write-offs in the same statement (correlated
// subqueries, evaluated for the rows returned only): a page is one
// round trip.
func withParts(q *bun.SelectQuery) *bun.SelectQuery {
	return q.ColumnExpr("i.*").
		ColumnExpr(`(SELECT coalesce(json_agg(il ORDER BY il.line_number), '[]') FROM invoice_lines il
			WHERE il.business_id = i.business_id AND il.invoice_id = i.id) AS lines_json`).
		ColumnExpr(`(SELECT coalesce(json_agg(json_build_object('payment_id', a.payment_id, 'invoice_id', a.invoice_id,
				'amount', a.amount, 'paid_at', p.paid_at, 'method', p.method, 'processor', p.processor) ORDER BY p.paid_at, p.id), '[]')
			FROM payment_allocations a JOIN invoice_payments p ON p.business_id = a.business_id AND p.id = a.payment_id
			WHERE a.business_id = i.business_id AND a.invoice_id = i.id) AS allocs_json`).
		ColumnExpr(`(SELECT coalesce(json_agg(w ORDER BY w.created_at, w.id), '[]') FROM invoice_write_offs w
			WHERE w.business_id = i.business_id AND w.invoice_id = i.id) AS write_offs_json`).
		ColumnExpr(`(SELECT coalesce(json_agg(r ORDER BY r.created_at, r.id), '[]') FROM invoice_refunds r
			WHERE r.business_id = i.business_id AND r.invoice_id = i.id) AS refunds_json`)
}

// allocationOf is a payment allocation as the invoice shows it.
func allocationOf(paymentID, invoiceID uuid.UUID, amount int64, paidAt time.Time, method string, processor *string) invoice.InvoiceAllocation {
	proc := ""
	if processor != nil {
		proc = *processor
	}
	return invoice.InvoiceAllocation{PaymentID: paymentID, InvoiceID: invoiceID, Amount: money.Cents(amount), PaidAt: paidAt.UTC(),
		Method: invoice.Method(method), DepositAccount: invoice.DepositAccount(invoice.Method(method), proc)}
}

// parts decodes what withParts read into inv (with the faster decoder:
// a listing page decodes the parts of every invoice on it).
func (r invoiceRow) parts(inv *invoice.Invoice) error {
	var lines []invoiceLineRow
	if err := fastjson.Unmarshal(r.LinesJSON, &lines); err != nil {
		return fmt.Errorf("lines of invoice %s: %w", r.ID, err)
	}
	for _, l := range lines {
		inv.Lines = append(inv.Lines, l.line())
	}
	var allocs []struct {
		PaymentID uuid.UUID `json:"payment_id"`
		InvoiceID uuid.UUID `json:"invoice_id"`
		Amount    int64     `json:"amount"`
		PaidAt    time.Time `json:"paid_at"`
		Method    string    `json:"method"`
		Processor *string   `json:"processor"`
	}
	if err := fastjson.Unmarshal(r.AllocsJSON, &allocs); err != nil {
		return fmt.Errorf("allocations of invoice %s: %w", r.ID, err)
	}
	for _, a := range allocs {
		inv.Allocations = append(inv.Allocations, allocationOf(a.PaymentID, a.InvoiceID, a.Amount, a.PaidAt, a.Method, a.Processor))
	}
	var refunds []refundRow
	if err := fastjson.Unmarshal(r.RefundsJSON, &refunds); err != nil {
		return fmt.Errorf("refunds of invoice %s: %w", r.ID, err)
	}
	for _, rf := range refunds {
		inv.Refunds = append(inv.Refunds, rf.refund())
	}
	var wos []writeOffRow
	if err := fastjson.Unmarshal(r.WriteOffsJSON, &wos); err != nil {
		return fmt.Errorf("write-offs of invoice %s: %w", r.ID, err)
	}
	for _, w := range wos {
		inv.WriteOffs = append(inv.WriteOffs, w.writeOff())
	}
	return nil
}

func toInvoiceRow(inv invoice.Invoice) invoiceRow {
	r := invoiceRow{
		BusinessID: inv.BusinessID, ID: inv.ID, ExternalID: inv.ExternalID, InvoiceNumber: inv.InvoiceNumber,
		CustomerID: inv.CustomerID, SentAt: inv.SentAt, DueAt: inv.DueAt, DueSort: noDueDate, PaidAt: inv.PaidAt,
		VoidedAt: inv.VoidedAt, Memo: inv.Memo, CustomPaymentInstructions: inv.CustomPaymentInstructions,
		ReferenceNumber: inv.ReferenceNumber, Tags: nonNil(inv.Tags), AdditionalDiscount: int64(inv.AdditionalDiscount),
		AdditionalSalesTaxes: nonNil(inv.AdditionalSalesTaxes), Tips: int64(inv.Tips), Subtotal: int64(inv.Totals.Subtotal),
		TotalDiscount: int64(inv.Totals.TotalDiscount), TotalTax: int64(inv.Totals.TotalTax),
		AdditionalTaxesTotal: int64(inv.Totals.AdditionalTaxes), TotalAmount: int64(inv.Totals.Total),
		PaidAmount: int64(inv.Paid), WrittenOffAmount: int64(inv.WrittenOff), OutstandingBalance: int64(inv.Outstanding()),
		RefundedAmount: int64(inv.Refunded), PaymentMethods: []string{},
		Status: string(inv.Status), Version: inv.Version, ImportedAt: inv.ImportedAt, UpdatedAt: inv.UpdatedAt,
	}
	if inv.DueAt != nil {
		r.DueSort = *inv.DueAt
	}
	for _, m := range inv.PaymentMethods {
		r.PaymentMethods = append(r.PaymentMethods, string(m))
	}
	if len(inv.Metadata) > 0 && string(inv.Metadata) != "null" {
		r.Metadata = inv.Metadata
	}
	return r
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func (r invoiceRow) invoice() invoice.Invoice {
	inv := invoice.Invoice{
		ID: r.ID, BusinessID: r.BusinessID, ExternalID: r.ExternalID, InvoiceNumber: r.InvoiceNumber, CustomerID: r.CustomerID,
		SentAt: r.SentAt.UTC(), DueAt: utcPtr(r.DueAt), PaidAt: utcPtr(r.PaidAt), VoidedAt: utcPtr(r.VoidedAt), Memo: r.Memo,
		CustomPaymentInstructions: r.CustomPaymentInstructions, ReferenceNumber: r.ReferenceNumber, Tags: nonNil(r.Tags),
		AdditionalDiscount: money.Cents(r.AdditionalDiscount), AdditionalSalesTaxes: nonNil(r.AdditionalSalesTaxes),
		Tips: money.Cents(r.Tips), Paid: money.Cents(r.PaidAmount), WrittenOff: money.Cents(r.WrittenOffAmount),
		Refunded: money.Cents(r.RefundedAmount), IsDraft: r.Status == string(invoice.DraftStatus),
		PaymentMethods: []invoice.OnlineMethod{}, Status: invoice.Status(r.Status), Version: r.Version, ImportedAt: r.ImportedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		Totals: invoice.Totals{
			Subtotal: money.Cents(r.Subtotal), TotalDiscount: money.Cents(r.TotalDiscount), TotalTax: money.Cents(r.TotalTax),
			AdditionalDiscount: money.Cents(r.AdditionalDiscount), AdditionalTaxes: money.Cents(r.AdditionalTaxesTotal),
			LineTaxes: money.Cents(r.TotalTax - r.AdditionalTaxesTotal), LineDiscounts: money.Cents(r.TotalDiscount - r.AdditionalDiscount),
			Tips: money.Cents(r.Tips), Total: money.Cents(r.TotalAmount),
		},
	}
	if len(r.Metadata) > 0 && string(r.Metadata) != "null" {
		inv.Metadata = r.Metadata
	}
	for _, m := range r.PaymentMethods {
		inv.PaymentMethods = append(inv.PaymentMethods, invoice.OnlineMethod(m))
	}
	return inv
}

// invoiceLineRow is a row of invoice_lines.
type invoiceLineRow struct {
	bun.BaseModel `bun:"table:invoice_lines,alias:il"`

	BusinessID        uuid.UUID          `bun:"business_id,pk,type:uuid" json:"business_id"`
	ID                uuid.UUID          `bun:"id,pk,type:uuid" json:"id"`
	InvoiceID         uuid.UUID          `bun:"invoice_id,type:uuid" json:"invoice_id"`
	LineNumber        int                `bun:"line_number" json:"line_number"`
	ExternalID        *string            `bun:"external_id" json:"external_id"`
	Product           *string            `bun:"product" json:"product"`
	Description       *string            `bun:"description" json:"description"`
	UnitPrice         int64              `bun:"unit_price" json:"unit_price"`
	Quantity          int64              `bun:"quantity" json:"quantity"`
	AccountID         *uuid.UUID         `bun:"account_id,type:uuid" json:"account_id"`
	AccountStableName *string            `bun:"account_stable_name" json:"account_stable_name"`
	DiscountAmount    int64              `bun:"discount_amount" json:"discount_amount"`
	SalesTaxes        []invoice.SalesTax `bun:"sales_taxes,type:jsonb" json:"sales_taxes"`
	Subtotal          int64              `bun:"subtotal" json:"subtotal"`
	SalesTaxesTotal   int64              `bun:"sales_taxes_total" json:"sales_taxes_total"`
	TotalAmount       int64              `bun:"total_amount" json:"total_amount"`
	Revenue           int64              `bun:"revenue" json:"revenue"`
	Memo              *string            `bun:"memo" json:"memo"`
	Tags              []tags.KeyValue    `bun:"tags,type:jsonb" json:"tags"`
}

func toLineRows(inv invoice.Invoice) []invoiceLineRow {
	out := make([]invoiceLineRow, len(inv.Lines))
	for i, l := range inv.Lines {
		r := invoiceLineRow{
			BusinessID: inv.BusinessID, ID: l.ID, InvoiceID: inv.ID, LineNumber: l.Number, ExternalID: l.ExternalID,
			Product: l.Product, Description: l.Description, UnitPrice: int64(l.UnitPrice), Quantity: l.Quantity.Scaled(),
			AccountID: l.Account.ID, DiscountAmount: int64(l.DiscountAmount), SalesTaxes: nonNil(l.SalesTaxes),
			Subtotal: int64(l.Subtotal), SalesTaxesTotal: int64(l.SalesTaxesTotal), TotalAmount: int64(l.TotalAmount),
			Revenue: int64(l.Revenue), Memo: l.Memo, Tags: nonNil(l.Tags),
		}
		if l.Account.StableName != "" {
			s := l.Account.StableName
			r.AccountStableName = &s
		}
		out[i] = r
	}
	return out
}

func (r invoiceLineRow) line() invoice.LineItem {
	l := invoice.LineItem{ID: r.ID, Number: r.LineNumber, Line: invoice.Line{
		LineInput: invoice.LineInput{
			ExternalID: r.ExternalID, Product: r.Product, Description: r.Description, UnitPrice: money.Cents(r.UnitPrice),
			Quantity: money.QuantityFromScaled(r.Quantity), Account: invoice.AccountRef{ID: r.AccountID},
			DiscountAmount: money.Cents(r.DiscountAmount), SalesTaxes: nonNil(r.SalesTaxes), Tags: nonNil(r.Tags), Memo: r.Memo,
		},
		Subtotal: money.Cents(r.Subtotal), SalesTaxesTotal: money.Cents(r.SalesTaxesTotal),
		TotalAmount: money.Cents(r.TotalAmount), Revenue: money.Cents(r.Revenue),
	}}
	if r.AccountStableName != nil {
		l.Account.StableName = *r.AccountStableName
	}
	return l
}

// InsertInvoice implements app.InvoiceStore.
func (s *Store) InsertInvoice(ctx context.Context, inv invoice.Invoice) (bool, error) {
	db := s.conn(ctx)
	r := toInvoiceRow(inv)
	res, err := db.NewInsert().Model(&r).
		On("CONFLICT (business_id, external_id) WHERE external_id IS NOT NULL DO NOTHING").Exec(ctx)
	if err != nil {
		return false, wrap("insert invoice", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, wrap("insert invoice", err)
	}
	lines := toLineRows(inv)
	if _, err := db.NewInsert().Model(&lines).Exec(ctx); err != nil {
		return false, wrap("insert invoice lines", err)
	}
	return true, nil
}

// FindInvoice implements app.InvoiceStore.
func (s *Store) FindInvoice(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (invoice.Invoice, bool, error) {
	db := s.conn(ctx)
	return s.findInvoice(ctx, db, db.NewSelect().Where("i.business_id = ? AND i.id = ?", businessID, id), forUpdate)
}

// FindInvoiceByExternalID implements app.InvoiceStore.
func (s *Store) FindInvoiceByExternalID(ctx context.Context, businessID uuid.UUID, externalID string, forUpdate bool) (invoice.Invoice, bool, error) {
	db := s.conn(ctx)
	return s.findInvoice(ctx, db, db.NewSelect().Where("i.business_id = ? AND i.external_id = ?", businessID, externalID), forUpdate)
}

func (s *Store) findInvoice(ctx context.Context, db bun.IDB, q *bun.SelectQuery, forUpdate bool) (invoice.Invoice, bool, error) {
	var r invoiceRow
	if forUpdate {
		q = q.For("UPDATE OF i")
	}
	err := q.Model(&r).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return invoice.Invoice{}, false, nil
	}
	if err != nil {
		return invoice.Invoice{}, false, wrap("find invoice", err)
	}
	invs := []invoice.Invoice{r.invoice()}
	if err := s.loadInvoiceParts(ctx, db, r.BusinessID, invs, true); err != nil {
		return invoice.Invoice{}, false, err
	}
	return invs[0], true, nil
}

// loadInvoiceParts fills the lines and allocations of invs (and, with
// writeOffs, their write-offs): one query each for all of them.
func (s *Store) loadInvoiceParts(ctx context.Context, db bun.IDB, businessID uuid.UUID, invs []invoice.Invoice, writeOffs bool) error {
	if len(invs) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(invs))
	at := make(map[uuid.UUID]int, len(invs))
	for i, inv := range invs {
		ids[i], at[inv.ID] = inv.ID, i
	}
	var lines []invoiceLineRow
	if err := db.NewSelect().Model(&lines).Where("il.business_id = ? AND il.invoice_id IN (?)", businessID, bun.In(ids)).
		OrderExpr("il.invoice_id, il.line_number").Scan(ctx); err != nil {
		return wrap("find invoice lines", err)
	}
	for _, l := range lines {
		k := at[l.InvoiceID]
		invs[k].Lines = append(invs[k].Lines, l.line())
	}
	var allocs []struct {
		PaymentID uuid.UUID `bun:"payment_id,type:uuid"`
		InvoiceID uuid.UUID `bun:"invoice_id,type:uuid"`
		Amount    int64     `bun:"amount"`
		PaidAt    time.Time `bun:"paid_at"`
		Method    string    `bun:"method"`
		Processor *string   `bun:"processor"`
	}
	if err := db.NewRaw(`SELECT a.payment_id, a.invoice_id, a.amount, p.paid_at, p.method, p.processor
		FROM payment_allocations a JOIN invoice_payments p ON p.business_id = a.business_id AND p.id = a.payment_id
		WHERE a.business_id = ? AND a.invoice_id IN (?) ORDER BY p.paid_at, p.id`, businessID, bun.In(ids)).Scan(ctx, &allocs); err != nil {
		return wrap("find payment allocations", err)
	}
	for _, a := range allocs {
		k := at[a.InvoiceID]
		invs[k].Allocations = append(invs[k].Allocations, allocationOf(a.PaymentID, a.InvoiceID, a.Amount, a.PaidAt, a.Method, a.Processor))
	}
	if !writeOffs {
		return nil
	}
	var refunds []refundRow
	if err := db.NewSelect().Model(&refunds).Where("r.business_id = ? AND r.invoice_id IN (?)", businessID, bun.In(ids)).
		OrderExpr("r.created_at, r.id").Scan(ctx); err != nil {
		return wrap("find refunds", err)
	}
	for _, rf := range refunds {
		k := at[rf.InvoiceID]
		invs[k].Refunds = append(invs[k].Refunds, rf.refund())
	}
	var wos []writeOffRow
	if err := db.NewSelect().Model(&wos).Where("w.business_id = ? AND w.invoice_id IN (?)", businessID, bun.In(ids)).
		OrderExpr("w.created_at, w.id").Scan(ctx); err != nil {
		return wrap("find write-offs", err)
	}
	for _, w := range wos {
		k := at[w.InvoiceID]
		invs[k].WriteOffs = append(invs[k].WriteOffs, w.writeOff())
	}
	return nil
}

// UpdateInvoice implements app.InvoiceStore.
func (s *Store) UpdateInvoice(ctx context.Context, inv invoice.Invoice, lines bool) error {
	db := s.conn(ctx)
	r := toInvoiceRow(inv)
	if _, err := db.NewUpdate().Model(&r).ExcludeColumn("business_id", "id", "external_id", "imported_at").
		WherePK().Exec(ctx); err != nil {
		return wrap("update invoice", err)
	}
	if !lines {
		return nil
	}
	rows := toLineRows(inv)
	return wrap("replace invoice lines", pgdb.ReplaceChildren(ctx, db, (*invoiceLineRow)(nil), "invoice_id", inv.BusinessID, inv.ID, &rows))
}

// DeleteInvoice implements app.InvoiceStore (lines and write-offs go with
// it: ON DELETE CASCADE).
func (s *Store) DeleteInvoice(ctx context.Context, businessID, id uuid.UUID) error {
	db := s.conn(ctx)
	_, err := db.NewDelete().Model((*invoiceRow)(nil)).Where("business_id = ? AND id = ?", businessID, id).Exec(ctx)
	return wrap("delete invoice", err)
}

// FindInvoices implements app.InvoiceStore: one keyset page, every value
// (the cursor's included) bound into the query.
func (s *Store) FindInvoices(ctx context.Context, businessID uuid.UUID, f invoice.Filter, p page.Params) ([]invoice.Invoice, page.Meta, error) {
	db := s.conn(ctx)
	q := withParts(db.NewSelect().Model((*invoiceRow)(nil))).Where("i.business_id = ?", businessID)
	if len(f.Statuses) > 0 {
		ss := make([]string, len(f.Statuses))
		for i, st := range f.Statuses {
			ss[i] = string(st)
		}
		q = q.Where("i.status = ANY(?::text[])", pgdialect.Array(ss))
	}
	if f.DueAtStart != nil {
		q = q.Where("i.due_at >= ?", *f.DueAtStart)
	}
	if f.DueAtEnd != nil {
		q = q.Where("i.due_at <= ?", *f.DueAtEnd)
	}
	if f.SentAtStart != nil {
		q = q.Where("i.sent_at >= ?", *f.SentAtStart)
	}
	if f.SentAtEnd != nil {
		q = q.Where("i.sent_at <= ?", *f.SentAtEnd)
	}
	if f.CustomerID != nil {
		q = q.Where("i.customer_id = ?", *f.CustomerID)
	}
	if f.ReferenceNumber != nil {
		q = q.Where("i.reference_number = ?", *f.ReferenceNumber)
	}
	if len(f.ReferenceNumbers) > 0 {
		q = q.Where("i.reference_number = ANY(?::text[])", pgdialect.Array(f.ReferenceNumbers))
	}
	if f.MinTotal != nil {
		q = q.Where("i.total_amount >= ?", int64(*f.MinTotal))
	}
	if f.MaxTotal != nil {
		q = q.Where("i.total_amount <= ?", int64(*f.MaxTotal))
	}
	if f.Memo != nil {
		q = q.Where("i.memo = ?", *f.Memo)
	}
	if f.MemoContains != nil {
		q = q.Where("i.memo ILIKE ?", likePattern(*f.MemoContains))
	}
	if f.Q != nil {
		pat := likePattern(*f.Q)
		q = q.Where("(i.invoice_number ILIKE ? OR i.external_id ILIKE ? OR i.reference_number ILIKE ? OR i.memo ILIKE ?)", pat, pat, pat, pat)
	}
	rows, meta, err := pagebun.Fetch(ctx, q, p, "i.id", func(r invoiceRow) (any, uuid.UUID) {
		switch p.SortBy {
		case "due_at":
			return r.DueSort, r.ID
		case "total_amount":
			return r.TotalAmount, r.ID
		case "updated_at":
			return r.UpdatedAt, r.ID
		}
		return r.SentAt, r.ID
	})
	if err != nil {
		return nil, page.Meta{}, wrap("list invoices", err)
	}
	// With their lines, allocations and write-offs (read by withParts): a
	// listed invoice is the invoice GET answers.
	out := make([]invoice.Invoice, len(rows))
	for i, r := range rows {
		out[i] = r.invoice()
		if err := r.parts(&out[i]); err != nil {
			return nil, page.Meta{}, err
		}
	}
	return out, meta, nil
}
