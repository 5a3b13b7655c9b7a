package http

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// MaxRefundBody bounds a refund or finalize body.
const MaxRefundBody = 16 << 10

// summaryStatsJSON is the client's InvoiceSummaryStats: the overdue and
// the upcoming ("sent") invoices of the last 12 months with their
// outstanding cents, and the payments of the last 30 days.
type summaryStatsJSON struct {
	Type     string `json:"type"`
	Invoices struct {
		OverdueCount int64 `json:"overdue_count"`
		OverdueTotal int64 `json:"overdue_total"`
		SentCount    int64 `json:"sent_count"`
		SentTotal    int64 `json:"sent_total"`
	} `json:"invoices"`
	InvoicePayments struct {
		SumTotal int64 `json:"sum_total"`
	} `json:"invoice_payments"`
}

// summaryStats is GET /v1/businesses/{businessId}/invoices/summary-stats.
func (h *handlers) summaryStats(c *fiber.Ctx) error {
	s, err := h.invoicing.Summary(c.UserContext(), businessID(c))
	if err != nil {
		return err
	}
	out := summaryStatsJSON{Type: "Invoice_Summary_Stats"}
	out.Invoices.OverdueCount, out.Invoices.OverdueTotal = s.OverdueCount, int64(s.OverdueTotal)
	out.Invoices.SentCount, out.Invoices.SentTotal = s.UpcomingCount, int64(s.UpcomingTotal)
	out.InvoicePayments.SumTotal = int64(s.PaidLast30Days)
	return httpx.OK(c, out)
}

// finalizedJSON is the finalize answer: the Invoice (what the brief's
// client reads) and the SDK's FinalizeInvoiceData ({invoice,
// payment_methods}) in one object.
type finalizedJSON struct {
	invoiceOutJSON
	Invoice invoiceOutJSON `json:"invoice"`
}

// optionalBody is the request's body (a JSON object) or nothing when it
// has none.
func optionalBody(c *fiber.Ctx, limit int) ([]byte, error) {
	if len(c.Body()) == 0 {
		return nil, nil
	}
	return jsonBody(c, limit)
}

// finalizeInvoice is PUT /v1/businesses/{businessId}/invoices/{invoiceId}/finalize-invoice.
func (h *handlers) finalizeInvoice(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	body, err := optionalBody(c, MaxRefundBody)
	if err != nil {
		return err
	}
	in, err := invoice.ParseFinalize(body)
	if err != nil {
		return err
	}
	inv, err := h.invoicing.FinalizeInvoice(c.UserContext(), businessID(c), id, in)
	if err != nil {
		return err
	}
	out := toInvoice(inv)
	return httpx.OK(c, finalizedJSON{invoiceOutJSON: out, Invoice: out})
}

// resetInvoice is POST /v1/businesses/{businessId}/invoices/{invoiceId}/reset (no body).
func (h *handlers) resetInvoice(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	inv, err := h.invoicing.ResetInvoice(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toInvoice(inv))
}

// updatePayment is PUT /v1/businesses/{businessId}/invoices/{invoiceId}/payment/{paymentId}.
func (h *handlers) updatePayment(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	pid, err := paymentParam(c)
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxPaymentBody)
	if err != nil {
		return err
	}
	in, err := invoice.ParsePayment(body, &id)
	if err != nil {
		return err
	}
	p, err := h.invoicing.UpdatePayment(c.UserContext(), businessID(c), id, pid, in)
	if err != nil {
		return err
	}
	return httpx.OK(c, toPayment(p))
}

// refundOutJSON is the client's CustomerRefund: external_id is left out
// when there is none (the SDK reads it as absent or a string, never null).
type refundOutJSON struct {
	Type            string     `json:"type"`
	ID              string     `json:"id"`
	InvoiceID       string     `json:"invoice_id"`
	ExternalID      *string    `json:"external_id,omitempty"`
	RefundedAmount  int64      `json:"refunded_amount"`
	Status          string     `json:"status"`
	CompletedAt     time.Time  `json:"completed_at"`
	IsDedicated     bool       `json:"is_dedicated"`
	Method          string     `json:"method"`
	ReferenceNumber *string    `json:"reference_number"`
	Memo            *string    `json:"memo"`
	VoidedAt        *time.Time `json:"voided_at"`
}

// toRefund is r as answered: a refund is completed when recorded, so its
// status is PAID (paid out in full); it is dedicated to one invoice.
func toRefund(r invoice.Refund) refundOutJSON {
	return refundOutJSON{Type: "CustomerRefund", ID: r.ID.String(), InvoiceID: r.InvoiceID.String(), ExternalID: r.ExternalID,
		RefundedAmount: int64(r.Amount), Status: "PAID", CompletedAt: r.CompletedAt, IsDedicated: true, Method: string(r.Method),
		ReferenceNumber: r.ReferenceNumber, Memo: r.Memo, VoidedAt: r.VoidedAt}
}

// refundAllocOutJSON is a refund's part on the invoice (the spec's
// refund_allocations).
type refundAllocOutJSON struct {
	RefundID        string    `json:"refund_id"`
	InvoiceID       string    `json:"invoice_id"`
	ExternalID      *string   `json:"external_id"`
	Amount          int64     `json:"amount"`
	CompletedAt     time.Time `json:"completed_at"`
	Method          string    `json:"method"`
	ReferenceNumber *string   `json:"reference_number"`
	Memo            *string   `json:"memo"`
}

func toRefundAlloc(r invoice.Refund) refundAllocOutJSON {
	return refundAllocOutJSON{RefundID: r.ID.String(), InvoiceID: r.InvoiceID.String(), ExternalID: r.ExternalID,
		Amount: int64(r.Amount), CompletedAt: r.CompletedAt, Method: string(r.Method), ReferenceNumber: r.ReferenceNumber, Memo: r.Memo}
}

// refundInvoice is POST /v1/businesses/{businessId}/invoices/{invoiceId}/refund:
// 201 with the new refund, 200 with the stored one for a known external_id.
func (h *handlers) refundInvoice(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxRefundBody)
	if err != nil {
		return err
	}
	in, err := invoice.ParseRefund(body)
	if err != nil {
		return err
	}
	r, created, err := h.invoicing.RefundInvoice(c.UserContext(), businessID(c), id, in)
	if err != nil {
		return err
	}
	return httpx.Saved(c, created, toRefund(r))
}

// paymentMethods is GET /v1/businesses/{businessId}/invoices/{invoiceId}/payment-methods:
// the client's InvoicePaymentMethods, the online methods set when the
// invoice was finalized (none until then).
func (h *handlers) paymentMethods(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	inv, err := h.invoicing.Invoice(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	methods := []string{}
	for _, m := range inv.PaymentMethods {
		methods = append(methods, string(m))
	}
	return httpx.OK(c, map[string]any{"type": "Invoice_Payment_Methods", "payment_methods": methods})
}

// presignedURLJSON is the client's S3PresignedUrl (camelCase keys).
type presignedURLJSON struct {
	Type         string    `json:"type"`
	PresignedURL string    `json:"presignedUrl"`
	FileType     string    `json:"fileType"`
	FileName     string    `json:"fileName"`
	CreatedAt    time.Time `json:"createdAt"`
	DocumentID   string    `json:"documentId"`
}

// invoicePDF is GET /v1/businesses/{businessId}/invoices/{invoiceId}/pdf:
// a pre-signed URL to the invoice's PDF (503 without storage).
func (h *handlers) invoicePDF(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	f, err := h.documents.InvoicePDF(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, presignedURLJSON{Type: "Storage_Presigned_Url", PresignedURL: f.URL, FileType: "pdf", FileName: f.FileName,
		CreatedAt: f.CreatedAt, DocumentID: f.ID.String()})
}

// invoiceHTML is GET /v1/businesses/{businessId}/invoices/{invoiceId}/html:
// the invoice as a page (text/html).
func (h *handlers) invoiceHTML(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	page, err := h.documents.InvoiceHTML(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	c.Set("X-Content-Type-Options", "nosniff")
	return c.Status(fiber.StatusOK).Send(page)
}
