package http

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// accountIDJSON is {type: "AccountId", id}.
type accountIDJSON struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// stableNameJSON is {type: "StableName", stable_name}.
type stableNameJSON struct {
	Type       string `json:"type"`
	StableName string `json:"stable_name"`
}

// ledgerAccountJSON is what this service knows of a line's ledger account:
// its id and, for the default chart's accounts, its stable name.
type ledgerAccountJSON struct {
	ID         accountIDJSON   `json:"id"`
	StableName *stableNameJSON `json:"stable_name"`
}

// accountOf renders ref as the spec's {type: "AccountId", id}: a stable
// name of the default chart by the id the ledger gives it
// (events.DefaultAccountID).
func accountOf(businessID uuid.UUID, ref invoice.AccountRef) (accountIDJSON, ledgerAccountJSON) {
	id := ""
	var sn *stableNameJSON
	switch {
	case ref.ID != nil:
		id = ref.ID.String()
	default:
		id = events.DefaultAccountID(businessID, ref.StableName).String()
		sn = &stableNameJSON{Type: "StableName", StableName: ref.StableName}
	}
	a := accountIDJSON{Type: "AccountId", ID: id}
	return a, ledgerAccountJSON{ID: a, StableName: sn}
}

type taxNameJSON struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type salesTaxOutJSON struct {
	TaxAccount       any               `json:"tax_account"`
	TaxLedgerAccount ledgerAccountJSON `json:"tax_ledger_account"`
	Amount           int64             `json:"amount"`
}

func salesTaxesOut(businessID uuid.UUID, ts []invoice.SalesTax) []salesTaxOutJSON {
	out := make([]salesTaxOutJSON, len(ts))
	for i, t := range ts {
		var o salesTaxOutJSON
		switch {
		case t.Account != nil:
			a, la := accountOf(businessID, *t.Account)
			o.TaxAccount, o.TaxLedgerAccount = a, la
		case t.TaxName != "":
			o.TaxAccount = taxNameJSON{Name: t.TaxName, Type: "Tax_Name"}
			_, o.TaxLedgerAccount = accountOf(businessID, invoice.StableName(events.TaxAccountStableName(t.TaxName)))
		default:
			_, o.TaxLedgerAccount = accountOf(businessID, invoice.StableName(invoice.SalesTaxesPayable))
			o.TaxAccount = taxNameJSON{Name: invoice.SalesTaxesPayable, Type: "Tax_Name"}
		}
		o.Amount = int64(t.Amount)
		out[i] = o
	}
	return out
}

// lineOutJSON is an invoice line: the spec's fields and the SDK's.
type lineOutJSON struct {
	ID                string             `json:"id"`
	ExternalID        *string            `json:"external_id"`
	InvoiceID         string             `json:"invoice_id"`
	AccountIdentifier accountIDJSON      `json:"account_identifier"`
	LedgerAccount     ledgerAccountJSON  `json:"ledger_account"`
	PrepaymentAccount *ledgerAccountJSON `json:"prepayment_account"`
	Description       *string            `json:"description"`
	Product           *string            `json:"product"`
	UnitPrice         int64              `json:"unit_price"`
	Quantity          string             `json:"quantity"`
	Subtotal          int64              `json:"subtotal"`
	DiscountAmount    int64              `json:"discount_amount"`
	SalesTaxesTotal   int64              `json:"sales_taxes_total"`
	SalesTaxes        []salesTaxOutJSON  `json:"sales_taxes"`
	TotalAmount       int64              `json:"total_amount"`
	Memo              *string            `json:"memo"`
	RefundAllocations []any              `json:"refund_allocations"`
	TransactionTags   []tags.Tag         `json:"transaction_tags"`
}

type allocationOutJSON struct {
	PaymentID string    `json:"payment_id"`
	InvoiceID string    `json:"invoice_id"`
	Amount    int64     `json:"amount"`
	PaidAt    time.Time `json:"paid_at"`
	Method    string    `json:"method"`
}

// invoiceOutJSON is an invoice: the spec's Invoice with the SDK's fields.
type invoiceOutJSON struct {
	Type                      string              `json:"type"`
	ID                        string              `json:"id"`
	BusinessID                string              `json:"business_id"`
	ExternalID                *string             `json:"external_id"`
	Status                    string              `json:"status"`
	SentAt                    time.Time           `json:"sent_at"`
	DueAt                     *time.Time          `json:"due_at"`
	PaidAt                    *time.Time          `json:"paid_at"`
	VoidedAt                  *time.Time          `json:"voided_at"`
	InvoiceNumber             *string             `json:"invoice_number"`
	RecipientName             *string             `json:"recipient_name"`
	CustomerID                *string             `json:"customer_id"`
	Customer                  *customerJSON       `json:"customer"`
	LineItems                 []lineOutJSON       `json:"line_items"`
	Subtotal                  int64               `json:"subtotal"`
	AdditionalDiscount        int64               `json:"additional_discount"`
	TotalDiscount             int64               `json:"total_discount"`
	AdditionalSalesTaxesTotal int64               `json:"additional_sales_taxes_total"`
	AdditionalSalesTaxes      []salesTaxOutJSON   `json:"additional_sales_taxes"`
	SalesTaxesTotal           int64               `json:"sales_taxes_total"`
	TotalTax                  int64               `json:"total_tax"`
	Tips                      int64               `json:"tips"`
	TotalAmount               int64               `json:"total_amount"`
	OutstandingBalance        int64               `json:"outstanding_balance"`
	Memo                      *string             `json:"memo"`
	CustomPaymentInstructions *string             `json:"custom_payment_instructions"`
	PaymentAllocations        []allocationOutJSON `json:"payment_allocations"`
	RefundAllocations         []any               `json:"refund_allocations"`
	WriteOffs                 []writeOffOutJSON   `json:"write_offs"`
	ImportedAt                time.Time           `json:"imported_at"`
	UpdatedAt                 time.Time           `json:"updated_at"`
	TransactionTags           []tags.Tag          `json:"transaction_tags"`
	Metadata                  json.RawMessage     `json:"metadata"`
	ReferenceNumber           *string             `json:"reference_number"`
}

func toInvoice(inv app.Invoice) invoiceOutJSON {
	out := invoiceOutJSON{
		Type: "Invoice", ID: inv.ID.String(), BusinessID: inv.BusinessID.String(), ExternalID: inv.ExternalID,
		Status: string(inv.Status), SentAt: inv.SentAt, DueAt: inv.DueAt, PaidAt: inv.PaidAt, VoidedAt: inv.VoidedAt,
		InvoiceNumber: inv.InvoiceNumber, Subtotal: int64(inv.Totals.Subtotal), AdditionalDiscount: int64(inv.AdditionalDiscount),
		TotalDiscount: int64(inv.Totals.TotalDiscount), AdditionalSalesTaxesTotal: int64(inv.Totals.AdditionalTaxes),
		AdditionalSalesTaxes: salesTaxesOut(inv.BusinessID, inv.AdditionalSalesTaxes), SalesTaxesTotal: int64(inv.Totals.TotalTax),
		TotalTax: int64(inv.Totals.TotalTax), Tips: int64(inv.Tips), TotalAmount: int64(inv.Totals.Total),
		OutstandingBalance: int64(inv.Outstanding()), Memo: inv.Memo, CustomPaymentInstructions: inv.CustomPaymentInstructions,
		PaymentAllocations: []allocationOutJSON{}, RefundAllocations: []any{}, WriteOffs: []writeOffOutJSON{},
		ImportedAt: inv.ImportedAt, UpdatedAt: inv.UpdatedAt, TransactionTags: nonNilTags(inv.Tags),
		Metadata: inv.Metadata, ReferenceNumber: inv.ReferenceNumber, LineItems: make([]lineOutJSON, len(inv.Lines)),
	}
	if len(out.Metadata) == 0 {
		out.Metadata = json.RawMessage("null")
	}
	if inv.CustomerID != nil {
		s := inv.CustomerID.String()
		out.CustomerID = &s
	}
	if inv.Customer != nil {
		c := toCustomer(*inv.Customer)
		out.Customer = &c
		if name := inv.Customer.DisplayName(); name != "" {
			out.RecipientName = &name
		}
	}
	for i, l := range inv.Lines {
		a, la := accountOf(inv.BusinessID, l.RevenueAccount())
		lineTags := make([]tags.Tag, len(l.Tags))
		for k, kv := range l.Tags {
			lineTags[k] = tags.NewTag(inv.BusinessID, l.ID, kv, inv.UpdatedAt)
		}
		out.LineItems[i] = lineOutJSON{
			ID: l.ID.String(), ExternalID: l.ExternalID, InvoiceID: inv.ID.String(), AccountIdentifier: a, LedgerAccount: la,
			Description: l.Description, Product: l.Product, UnitPrice: int64(l.UnitPrice), Quantity: l.Quantity.String(),
			Subtotal: int64(l.Subtotal), DiscountAmount: int64(l.DiscountAmount), SalesTaxesTotal: int64(l.SalesTaxesTotal),
			SalesTaxes: salesTaxesOut(inv.BusinessID, l.SalesTaxes), TotalAmount: int64(l.TotalAmount), Memo: l.Memo,
			RefundAllocations: []any{}, TransactionTags: lineTags,
		}
	}
	for _, al := range inv.Allocations {
		out.PaymentAllocations = append(out.PaymentAllocations, allocationOutJSON{PaymentID: al.PaymentID.String(),
			InvoiceID: al.InvoiceID.String(), Amount: int64(al.Amount), PaidAt: al.PaidAt, Method: string(al.Method)})
	}
	for _, w := range inv.WriteOffs {
		out.WriteOffs = append(out.WriteOffs, toWriteOff(w))
	}
	return out
}

func nonNilTags(ts []tags.Tag) []tags.Tag {
	if ts == nil {
		return []tags.Tag{}
	}
	return ts
}

// writeOffOutJSON is the spec's Api_Invoice_Write_Off with the SDK's
// fields.
type writeOffOutJSON struct {
	Type                     string        `json:"type"`
	ID                       string        `json:"id"`
	InvoiceID                string        `json:"invoice_id"`
	ExternalID               *string       `json:"external_id"`
	Amount                   int64         `json:"amount"`
	WriteOffMode             string        `json:"write_off_mode"`
	WriteOffAt               time.Time     `json:"write_off_at"`
	DestinationLedgerAccount accountIDJSON `json:"destination_ledger_account"`
	Memo                     *string       `json:"memo"`
	ReferenceNumber          *string       `json:"reference_number"`
	VoidedAt                 *time.Time    `json:"voided_at"`
	TransactionTags          []tags.Tag    `json:"transaction_tags"`
}

func toWriteOff(w app.WriteOff) writeOffOutJSON {
	dest := w.Destination
	if dest.IsZero() && w.Mode == invoice.ModeExpense {
		dest = invoice.StableName(invoice.DefaultWriteOffAccount)
	}
	out := writeOffOutJSON{
		Type: "Api_Invoice_Write_Off", ID: w.ID.String(), InvoiceID: w.InvoiceID.String(), ExternalID: w.ExternalID,
		Amount: int64(w.Amount), WriteOffMode: string(w.Mode), WriteOffAt: w.WriteOffAt, Memo: w.Memo,
		ReferenceNumber: w.ReferenceNumber, VoidedAt: w.VoidedAt, TransactionTags: nonNilTags(w.Tags),
	}
	if !dest.IsZero() {
		out.DestinationLedgerAccount, _ = accountOf(w.BusinessID, dest)
	} else {
		// A revenue reversal debits the invoice's revenue accounts: SALES
		// stands for them.
		out.DestinationLedgerAccount, _ = accountOf(w.BusinessID, invoice.StableName(invoice.DefaultRevenueAccount))
	}
	return out
}

type paymentAllocOutJSON struct {
	InvoiceID         string  `json:"invoice_id"`
	InvoiceExternalID *string `json:"invoice_external_id"`
	Amount            int64   `json:"amount"`
}

// paymentOutJSON is a payment: the Payment with allocations, and
// the SDK's InvoicePayment fields (at = paid_at).
type paymentOutJSON struct {
	Type            string                `json:"type"`
	ID              string                `json:"id"`
	ExternalID      *string               `json:"external_id"`
	PaidAt          time.Time             `json:"paid_at"`
	At              time.Time             `json:"at"`
	Method          string                `json:"method"`
	Amount          int64                 `json:"amount"`
	Fee             int64                 `json:"fee"`
	Processor       *string               `json:"processor"`
	Memo            *string               `json:"memo"`
	ReferenceNumber *string               `json:"reference_number"`
	Allocations     []paymentAllocOutJSON `json:"allocations"`
	TransactionTags []tags.Tag            `json:"transaction_tags"`
	CreatedAt       time.Time             `json:"created_at"`
	UpdatedAt       time.Time             `json:"updated_at"`
}

func toPayment(p app.Payment) paymentOutJSON {
	out := paymentOutJSON{
		Type: "Payment", ID: p.ID.String(), ExternalID: p.ExternalID, PaidAt: p.PaidAt, At: p.PaidAt, Method: string(p.Method),
		Amount: int64(p.Amount), Fee: int64(p.Fee), Processor: p.Processor, Memo: p.Memo, ReferenceNumber: p.ReferenceNumber,
		Allocations: []paymentAllocOutJSON{}, TransactionTags: nonNilTags(p.Tags), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
	for _, a := range p.Allocations {
		out.Allocations = append(out.Allocations, paymentAllocOutJSON{InvoiceID: a.InvoiceID.String(),
			InvoiceExternalID: a.InvoiceExternalID, Amount: int64(a.Amount)})
	}
	return out
}

func invoiceParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "invoiceId") }

// createInvoice is POST /v1/businesses/{businessId}/invoices: 201 with the
// new invoice, 200 with the stored one for a known external_id.
func (h *handlers) createInvoice(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxInvoiceBody)
	if err != nil {
		return err
	}
	in, err := parseInvoice(body)
	if err != nil {
		return err
	}
	inv, created, err := h.invoicing.CreateInvoice(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	if !created {
		return httpx.OK(c, toInvoice(inv))
	}
	return httpx.Created(c, toInvoice(inv))
}

// getInvoice is GET /v1/businesses/{businessId}/invoices/{invoiceId}.
func (h *handlers) getInvoice(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	inv, err := h.invoicing.Invoice(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toInvoice(inv))
}

// patchInvoice is PATCH /v1/businesses/{businessId}/invoices/{invoiceId}.
func (h *handlers) patchInvoice(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxInvoiceBody)
	if err != nil {
		return err
	}
	p, err := parseInvoicePatch(body)
	if err != nil {
		return err
	}
	inv, err := h.invoicing.UpdateInvoice(c.UserContext(), businessID(c), id, p)
	if err != nil {
		return err
	}
	return httpx.OK(c, toInvoice(inv))
}

// voidInvoice is POST /v1/businesses/{businessId}/invoices/{invoiceId}/void.
func (h *handlers) voidInvoice(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	inv, err := h.invoicing.VoidInvoice(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toInvoice(inv))
}

// deleteInvoice is DELETE /v1/businesses/{businessId}/invoices/{invoiceId}: 204.
func (h *handlers) deleteInvoice(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	if err := h.invoicing.DeleteInvoice(c.UserContext(), businessID(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// listQueryParams are GET /invoices's filter parameters (the pagination's
// are page.Parse's).
var listQueryParams = map[string]bool{
	"status": true, "due_at_start": true, "due_at_end": true, "sent_at_start": true, "sent_at_end": true,
	"customer_id": true, "customer_external_id": true, "reference_number": true, "reference_numbers": true,
	"min_total_amount": true, "max_total_amount": true, "memo": true, "memo_contains": true, "q": true,
	"show_sales_receipts": true,
	"sort_by":             true, "sort_order": true, "cursor": true, "limit": true, "show_total_count": true,
}

// parseInvoiceFilter reads GET /invoices's filters; every bad value is a
// 400 naming its parameter. Dates are ISO 8601 dates or date-times (a
// date is its first instant, UTC; an end date includes its whole day).
func parseInvoiceFilter(q url.Values) (app.InvoiceFilter, error) {
	bad := map[string]string{}
	var f app.InvoiceFilter
	for k := range q {
		if !listQueryParams[k] {
			bad[k] = "unknown parameter"
		}
	}
	one := func(k string) *string {
		vs := q[k]
		switch {
		case len(vs) == 0:
			return nil
		case len(vs) > 1:
			bad[k] = "given more than once"
			return nil
		}
		v := strings.TrimSpace(vs[0])
		if v == "" {
			bad[k] = "is empty"
			return nil
		}
		return &v
	}
	list := func(k string) []string {
		var out []string
		for _, v := range q[k] {
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" {
					out = append(out, s)
				}
			}
		}
		return out
	}
	for _, s := range list("status") {
		st, ok := invoice.ParseStatus(s)
		if !ok {
			bad["status"] = "values are SENT, PARTIALLY_PAID, PAID, VOIDED, PARTIALLY_WRITTEN_OFF, WRITTEN_OFF"
			continue
		}
		f.Statuses = append(f.Statuses, st)
	}
	date := func(k string, end bool) *time.Time {
		v := one(k)
		if v == nil {
			return nil
		}
		if t, err := time.Parse(time.RFC3339Nano, *v); err == nil {
			t = t.UTC()
			return &t
		}
		t, err := time.Parse(time.DateOnly, *v)
		if err != nil {
			bad[k] = "must be an ISO 8601 date (YYYY-MM-DD) or date-time"
			return nil
		}
		if end {
			t = t.Add(24*time.Hour - time.Microsecond)
		}
		return &t
	}
	f.DueAtStart, f.DueAtEnd = date("due_at_start", false), date("due_at_end", true)
	f.SentAtStart, f.SentAtEnd = date("sent_at_start", false), date("sent_at_end", true)
	if v := one("customer_id"); v != nil {
		id, err := uuid.Parse(*v)
		if err != nil {
			bad["customer_id"] = "must be a uuid"
		} else {
			f.CustomerID = &id
		}
	}
	f.CustomerExternalID = one("customer_external_id")
	f.ReferenceNumber = one("reference_number")
	f.ReferenceNumbers = list("reference_numbers")
	amount := func(k string) *money.Cents {
		v := one(k)
		if v == nil {
			return nil
		}
		n, err := strconv.ParseInt(*v, 10, 64)
		if err != nil || n < 0 {
			bad[k] = "must be a whole number of cents, at least 0"
			return nil
		}
		c := money.Cents(n)
		return &c
	}
	f.MinTotal, f.MaxTotal = amount("min_total_amount"), amount("max_total_amount")
	f.Memo, f.MemoContains, f.Q = one("memo"), one("memo_contains"), one("q")
	if v := one("show_sales_receipts"); v != nil {
		if _, err := strconv.ParseBool(*v); err != nil {
			bad["show_sales_receipts"] = "must be true or false"
		}
	}
	if f.DueAtStart != nil && f.DueAtEnd != nil && f.DueAtEnd.Before(*f.DueAtStart) {
		bad["due_at_end"] = "is before due_at_start"
	}
	if f.SentAtStart != nil && f.SentAtEnd != nil && f.SentAtEnd.Before(*f.SentAtStart) {
		bad["sent_at_end"] = "is before sent_at_start"
	}
	if f.MinTotal != nil && f.MaxTotal != nil && *f.MaxTotal < *f.MinTotal {
		bad["max_total_amount"] = "is less than min_total_amount"
	}
	if len(bad) > 0 {
		return app.InvoiceFilter{}, apperr.FieldErrors(apperr.InvalidParameters, bad).WithEnum("InvalidFilter")
	}
	return f, nil
}

// fingerprint binds a cursor to the filter it was issued for.
func fingerprint(q url.Values) string {
	c := url.Values{}
	for k, vs := range q {
		switch k {
		case "cursor", "limit", "show_total_count", "sort_by", "sort_order":
		default:
			c[k] = vs
		}
	}
	sum := sha256.Sum256([]byte(c.Encode()))
	return hex.EncodeToString(sum[:16])
}

// listInvoices is GET /v1/businesses/{businessId}/invoices: the spec's
// pagination (sort_by sent_at|due_at|total_amount|updated_at, sort_order,
// cursor, limit default 100 max 500, show_total_count) over the filters.
func (h *handlers) listInvoices(c *fiber.Ctx) error {
	q := httpx.Query(c)
	f, err := parseInvoiceFilter(q)
	if err != nil {
		return err
	}
	bid := businessID(c)
	p, err := page.Parse(q, postgres.InvoicePageSpec, h.codec, bid.String()+"|"+fingerprint(q))
	if err != nil {
		return err
	}
	list, meta, err := h.invoicing.Invoices(c.UserContext(), bid, f, p)
	if err != nil {
		return err
	}
	out := make([]invoiceOutJSON, len(list))
	for i, inv := range list {
		out[i] = toInvoice(inv)
	}
	return httpx.List(c, out, meta)
}

// createPayment is POST /v1/businesses/{businessId}/invoices/payments.
func (h *handlers) createPayment(c *fiber.Ctx) error {
	return h.payment(c, nil)
}

// payInvoice is POST /v1/businesses/{businessId}/invoices/{invoiceId}/payment
// (also with the SDK's trailing slash): a payment of that one invoice.
func (h *handlers) payInvoice(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	return h.payment(c, &id)
}

func (h *handlers) payment(c *fiber.Ctx, invoiceID *uuid.UUID) error {
	body, err := jsonBody(c, MaxPaymentBody)
	if err != nil {
		return err
	}
	in, err := parsePayment(body, invoiceID)
	if err != nil {
		return err
	}
	p, created, err := h.invoicing.CreatePayment(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	if !created {
		return httpx.OK(c, toPayment(p))
	}
	return httpx.Created(c, toPayment(p))
}

func paymentParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "paymentId") }

// getPayment is GET /v1/businesses/{businessId}/invoices/payments/{paymentId}.
func (h *handlers) getPayment(c *fiber.Ctx) error {
	id, err := paymentParam(c)
	if err != nil {
		return err
	}
	p, err := h.invoicing.PaymentByID(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toPayment(p))
}

// paymentTags is GET /v1/businesses/{businessId}/invoices/payments/{paymentId}/tags.
func (h *handlers) paymentTags(c *fiber.Ctx) error {
	id, err := paymentParam(c)
	if err != nil {
		return err
	}
	p, err := h.invoicing.PaymentByID(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, nonNilTags(p.Tags))
}

// bulkDeletePayments is POST /v1/businesses/{businessId}/invoices/payments/bulk-delete.
func (h *handlers) bulkDeletePayments(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxPaymentBody)
	if err != nil {
		return err
	}
	var in struct {
		IDs []uuid.UUID `json:"ids"`
	}
	if err := httpx.DecodeJSON(body, &in); err != nil {
		return err
	}
	n, err := h.invoicing.BulkDeletePayments(c.UserContext(), businessID(c), in.IDs)
	if err != nil {
		return err
	}
	return httpx.OK(c, map[string]any{"type": "BulkDeleteResponse", "deleted_count": n})
}

// writeOff is POST /v1/businesses/{businessId}/invoices/{invoiceId}/write-off.
func (h *handlers) writeOff(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxWriteOffBody)
	if err != nil {
		return err
	}
	in, err := parseWriteOff(body)
	if err != nil {
		return err
	}
	w, created, err := h.invoicing.CreateWriteOff(c.UserContext(), businessID(c), id, in)
	if err != nil {
		return err
	}
	if !created {
		return httpx.OK(c, toWriteOff(w))
	}
	return httpx.Created(c, toWriteOff(w))
}

// getWriteOff is GET /v1/businesses/{businessId}/invoices/{invoiceId}/write-offs/{writeOffId}.
func (h *handlers) getWriteOff(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	wid, err := httpx.UUIDParam(c, "writeOffId")
	if err != nil {
		return err
	}
	w, err := h.invoicing.WriteOffByID(c.UserContext(), businessID(c), id, wid)
	if err != nil {
		return err
	}
	return httpx.OK(c, toWriteOff(w))
}
