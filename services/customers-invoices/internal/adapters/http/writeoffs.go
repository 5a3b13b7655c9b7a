package http

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// MaxWriteOffBody bounds a write-off body.
const MaxWriteOffBody = 16 << 10

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

func toWriteOff(w invoice.WriteOff) writeOffOutJSON {
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
	in, err := invoice.ParseWriteOff(body)
	if err != nil {
		return err
	}
	w, created, err := h.invoicing.CreateWriteOff(c.UserContext(), businessID(c), id, in)
	if err != nil {
		return err
	}
	return httpx.Saved(c, created, toWriteOff(w))
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
