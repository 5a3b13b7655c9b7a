package http

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// MaxInvoiceBody bounds an invoice create or patch body (500 lines with
// taxes and tags).
const MaxInvoiceBody = 1 << 20

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
	Type                      string               `json:"type"`
	ID                        string               `json:"id"`
	BusinessID                string               `json:"business_id"`
	ExternalID                *string              `json:"external_id"`
	Status                    string               `json:"status"`
	SentAt                    *time.Time           `json:"sent_at"`
	DueAt                     *time.Time           `json:"due_at"`
	PaidAt                    *time.Time           `json:"paid_at"`
	VoidedAt                  *time.Time           `json:"voided_at"`
	InvoiceNumber             *string              `json:"invoice_number"`
	RecipientName             *string              `json:"recipient_name"`
	CustomerID                *string              `json:"customer_id"`
	Customer                  *customerJSON        `json:"customer"`
	LineItems                 []lineOutJSON        `json:"line_items"`
	Subtotal                  int64                `json:"subtotal"`
	AdditionalDiscount        int64                `json:"additional_discount"`
	TotalDiscount             int64                `json:"total_discount"`
	AdditionalSalesTaxesTotal int64                `json:"additional_sales_taxes_total"`
	AdditionalSalesTaxes      []salesTaxOutJSON    `json:"additional_sales_taxes"`
	SalesTaxesTotal           int64                `json:"sales_taxes_total"`
	TotalTax                  int64                `json:"total_tax"`
	Tips                      int64                `json:"tips"`
	TotalAmount               int64                `json:"total_amount"`
	OutstandingBalance        int64                `json:"outstanding_balance"`
	Memo                      *string              `json:"memo"`
	CustomPaymentInstructions *string              `json:"custom_payment_instructions"`
	PaymentAllocations        []allocationOutJSON  `json:"payment_allocations"`
	RefundAllocations         []refundAllocOutJSON `json:"refund_allocations"`
	TotalRefunded             int64                `json:"total_refunded"`
	PaymentMethods            []string             `json:"payment_methods"`
	WriteOffs                 []writeOffOutJSON    `json:"write_offs"`
	ImportedAt                time.Time            `json:"imported_at"`
	UpdatedAt                 time.Time            `json:"updated_at"`
	TransactionTags           []tags.Tag           `json:"transaction_tags"`
	Metadata                  json.RawMessage      `json:"metadata"`
	ReferenceNumber           *string              `json:"reference_number"`
}

func toInvoice(inv app.InvoiceView) invoiceOutJSON {
	out := invoiceOutJSON{
		Type: "Invoice", ID: inv.ID.String(), BusinessID: inv.BusinessID.String(), ExternalID: inv.ExternalID,
		Status: string(inv.Status), DueAt: inv.DueAt, PaidAt: inv.PaidAt, VoidedAt: inv.VoidedAt,
		InvoiceNumber: inv.InvoiceNumber, Subtotal: int64(inv.Totals.Subtotal), AdditionalDiscount: int64(inv.AdditionalDiscount),
		TotalDiscount: int64(inv.Totals.TotalDiscount), AdditionalSalesTaxesTotal: int64(inv.Totals.AdditionalTaxes),
		AdditionalSalesTaxes: salesTaxesOut(inv.BusinessID, inv.AdditionalSalesTaxes), SalesTaxesTotal: int64(inv.Totals.TotalTax),
		TotalTax: int64(inv.Totals.TotalTax), Tips: int64(inv.Tips), TotalAmount: int64(inv.Totals.Total),
		OutstandingBalance: int64(inv.Outstanding()), Memo: inv.Memo, CustomPaymentInstructions: inv.CustomPaymentInstructions,
		PaymentAllocations: []allocationOutJSON{}, RefundAllocations: []refundAllocOutJSON{}, WriteOffs: []writeOffOutJSON{},
		TotalRefunded: int64(inv.Refunded), PaymentMethods: []string{},
		ImportedAt: inv.ImportedAt, UpdatedAt: inv.UpdatedAt, TransactionTags: nonNilTags(inv.Tags),
		Metadata: inv.Metadata, ReferenceNumber: inv.ReferenceNumber, LineItems: make([]lineOutJSON, len(inv.Lines)),
	}
	if len(out.Metadata) == 0 {
		out.Metadata = json.RawMessage("null")
	}
	if !inv.IsDraft { // a draft is not sent yet
		sent := inv.SentAt
		out.SentAt = &sent
	}
	for _, m := range inv.PaymentMethods {
		out.PaymentMethods = append(out.PaymentMethods, string(m))
	}
	for _, r := range inv.LiveRefunds() {
		out.RefundAllocations = append(out.RefundAllocations, toRefundAlloc(r))
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

func invoiceParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "invoiceId") }

// createInvoice is POST /v1/businesses/{businessId}/invoices: 201 with the
// new invoice, 200 with the stored one for a known external_id.
func (h *handlers) createInvoice(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxInvoiceBody)
	if err != nil {
		return err
	}
	in, err := invoice.ParseInvoice(body)
	if err != nil {
		return err
	}
	inv, created, err := h.invoicing.CreateInvoice(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	return httpx.Saved(c, created, toInvoice(inv))
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
	p, err := invoice.ParsePatch(body)
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
	f, err := invoice.ParseFilter(q)
	if err != nil {
		return err
	}
	bid := businessID(c)
	p, err := page.Parse(q, app.InvoicePageSpec, h.codec, bid.String()+"|"+fingerprint(q))
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
