package http

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// MaxMatchBody bounds a match request.
const MaxMatchBody = 4 << 10

// identifiersJSON is the SDK's FinancialEventIdentifiers of an invoice.
type identifiersJSON struct {
	ID              string  `json:"id"`
	ExternalID      *string `json:"external_id"`
	ReferenceNumber *string `json:"reference_number"`
	Metadata        any     `json:"metadata"`
}

// matchDetailsJSON is the SDK's MatchDetails of a payment
// (Invoice_Match).
type matchDetailsJSON struct {
	ID                 string            `json:"id"`
	Type               string            `json:"type"`
	ExternalID         *string           `json:"external_id"`
	Amount             int64             `json:"amount"`
	Date               time.Time         `json:"date"`
	Description        string            `json:"description"`
	Adjustment         any               `json:"adjustment"`
	ReferenceNumber    *string           `json:"reference_number"`
	Metadata           any               `json:"metadata"`
	InvoiceIdentifiers []identifiersJSON `json:"invoice_identifiers"`
}

// suggestedMatchJSON is a suggestion: the spec's {id, matchType, details}
// with the SDK's match_type spelling too.
type suggestedMatchJSON struct {
	ID             string           `json:"id"`
	MatchTypeCamel string           `json:"matchType"`
	MatchType      string           `json:"match_type"`
	Details        matchDetailsJSON `json:"details"`
}

// minimalTxnJSON is the SDK's MinimalBankTransaction.
type minimalTxnJSON struct {
	ID               string    `json:"id"`
	Date             time.Time `json:"date"`
	Direction        string    `json:"direction"`
	Amount           int64     `json:"amount"`
	CounterpartyName *string   `json:"counterparty_name"`
	Description      *string   `json:"description"`
}

// matchJSON is a confirmed match: the spec's {type: "Match", id,
// match_type} with the SDK's bank_transaction and details.
type matchJSON struct {
	Type            string           `json:"type"`
	ID              string           `json:"id"`
	MatchType       string           `json:"match_type"`
	BankTransaction minimalTxnJSON   `json:"bank_transaction"`
	Details         matchDetailsJSON `json:"details"`
}

// paymentDescription names a payment by the invoices it paid.
func paymentDescription(invoices []banking.MatchedInvoice) string {
	var names []string
	for _, inv := range invoices {
		switch {
		case inv.InvoiceNumber != nil:
			names = append(names, "#"+*inv.InvoiceNumber)
		case inv.ExternalID != nil:
			names = append(names, *inv.ExternalID)
		}
	}
	if len(names) == 0 {
		return "Invoice payment"
	}
	return "Payment of invoice " + strings.Join(names, ", ")
}

func details(id uuid.UUID, externalID, reference *string, amount int64, date time.Time, invoices []banking.MatchedInvoice) matchDetailsJSON {
	out := matchDetailsJSON{
		ID: id.String(), Type: "Invoice_Match", ExternalID: externalID, Amount: amount, Date: date,
		Description: paymentDescription(invoices), ReferenceNumber: reference, InvoiceIdentifiers: []identifiersJSON{},
	}
	for _, inv := range invoices {
		out.InvoiceIdentifiers = append(out.InvoiceIdentifiers,
			identifiersJSON{ID: inv.ID.String(), ExternalID: inv.ExternalID, ReferenceNumber: inv.ReferenceNumber})
	}
	return out
}

func suggestedMatches(t banking.BankTransaction) []suggestedMatchJSON {
	out := make([]suggestedMatchJSON, 0, len(t.SuggestedMatches))
	for _, s := range t.SuggestedMatches {
		p := s.Payment
		out = append(out, suggestedMatchJSON{
			ID: s.ID.String(), MatchTypeCamel: p.MatchType, MatchType: p.MatchType,
			Details: details(p.ID, p.ExternalID, p.ReferenceNumber, int64(p.Amount), p.PaidAt, p.Invoices),
		})
	}
	return out
}

// matchOf renders t's confirmed match (nil when not matched).
func matchOf(t banking.BankTransaction) *matchJSON {
	m := t.Match
	if m == nil {
		return nil
	}
	return &matchJSON{
		Type: "Match", ID: m.ID.String(), MatchType: m.MatchType,
		BankTransaction: minimalTxnJSON{
			ID: t.ID.String(), Date: t.Date, Direction: string(t.Direction), Amount: int64(t.Amount),
			CounterpartyName: t.CounterpartyName, Description: t.Description,
		},
		Details: details(m.PaymentID, m.ExternalID, m.ReferenceNumber, int64(m.Amount), m.Date, m.Invoices),
	}
}

// matchRequest is the body of PUT/POST /bank-transactions/{id}/match.
type matchRequest struct {
	Type    *string    `json:"type"`
	MatchID *uuid.UUID `json:"match_id"`
}

// confirmMatch is PUT and POST /v1/businesses/{businessId}/bank-transactions/{bankTransactionId}/match:
// {type: "Confirm_Match", match_id} confirms one of the transaction's
// suggested matches; the answer is the match.
func (h *handlers) confirmMatch(c *fiber.Ctx) error {
	id, err := bankTxnParam(c)
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxMatchBody)
	if err != nil {
		return err
	}
	var req matchRequest
	if err := httpx.DecodeJSON(body, &req); err != nil {
		return err
	}
	bad := map[string]string{}
	if req.Type != nil && *req.Type != "Confirm_Match" {
		bad["type"] = `must be "Confirm_Match"`
	}
	if req.MatchID == nil {
		bad["match_id"] = "is required"
	}
	if len(bad) > 0 {
		return apperr.FieldErrors(apperr.InvalidPayload, bad)
	}
	t, err := h.banking.ConfirmMatch(c.UserContext(), businessID(c), id, *req.MatchID)
	if err != nil {
		return err
	}
	return httpx.OK(c, matchOf(t))
}
