package http

import (
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// MaxTransactionsBody bounds a body of up to banking.MaxImportItems
// transactions (each with metadata and tags).
const MaxTransactionsBody = 8 << 20

// bankTxnDataOnlyJSON is the SDK's BankTransactionDataOnly: a transaction
// without category, tags or matches (the answer of creating custom
// transactions).
type bankTxnDataOnlyJSON struct {
	ID                  string          `json:"id"`
	BusinessID          string          `json:"business_id"`
	Source              string          `json:"source"`
	SourceTransactionID string          `json:"source_transaction_id"`
	SourceAccountID     *string         `json:"source_account_id"`
	ExternalID          *string         `json:"external_id"`
	ExternalAccountID   *string         `json:"external_account_id"`
	ImportedAt          time.Time       `json:"imported_at"`
	Date                time.Time       `json:"date"`
	Direction           string          `json:"direction"`
	Amount              int64           `json:"amount"`
	CounterpartyName    *string         `json:"counterparty_name"`
	Description         *string         `json:"description"`
	AccountName         *string         `json:"account_name"`
	CategorizationStat  string          `json:"categorization_status"`
	Metadata            json.RawMessage `json:"metadata"`
	Memo                *string         `json:"memo"`
	ReferenceNumber     *string         `json:"reference_number"`
	CustomerID          *string         `json:"customer_id"`
	VendorID            *string         `json:"vendor_id"`
	CounterpartyID      *string         `json:"counterparty_id"`
	TaxCode             *string         `json:"tax_code"`
}

func toBankTxnDataOnly(t app.BankTransaction) bankTxnDataOnlyJSON {
	out := bankTxnDataOnlyJSON{
		ID: t.ID.String(), BusinessID: t.BusinessID.String(), Source: string(t.Source),
		SourceTransactionID: t.SourceTransactionID, SourceAccountID: t.SourceAccountID, ExternalID: t.ExternalID,
		ImportedAt: t.ImportedAt, Date: t.Date, Direction: string(t.Direction), Amount: int64(t.Amount),
		CounterpartyName: t.CounterpartyName, Description: t.Description, AccountName: t.AccountName,
		CategorizationStat: string(t.Status), Metadata: t.Metadata, Memo: t.Memo, ReferenceNumber: t.ReferenceNumber,
		TaxCode: t.TaxCode,
	}
	if t.ExternalAccountID != nil {
		id := t.ExternalAccountID.String()
		out.ExternalAccountID = &id
	}
	if len(out.Metadata) == 0 {
		out.Metadata = json.RawMessage("null")
	}
	return out
}

// createCustomTransactions is POST
// /v1/businesses/{businessId}/custom-accounts/{customAccountId}/transactions:
// up to 1,000 transactions, checked all together (one 400 names every
// violation, nothing is written), answered as data: [...] in the order
// sent. Items whose external_id exists are answered with the stored row.
func (h *handlers) createCustomTransactions(c *fiber.Ctx) error {
	accountID, err := httpx.UUIDParam(c, "customAccountId")
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxTransactionsBody)
	if err != nil {
		return err
	}
	items, err := banking.ParseCustomTransactions(body)
	if err != nil {
		return err
	}
	txns, err := h.banking.CreateCustomTransactions(c.UserContext(), businessID(c), accountID, items)
	if err != nil {
		return err
	}
	out := make([]bankTxnDataOnlyJSON, len(txns))
	for i, t := range txns {
		out[i] = toBankTxnDataOnly(t)
	}
	return httpx.Created(c, out)
}

// importTransactions is POST /v1/businesses/{businessId}/bank-transactions/bulk:
// up to 1,000 provider or API transactions, checked all together (one 400
// names every violation, nothing is written), answered as data: [...] in
// the order sent; a (source, source_transaction_id) imported before is
// answered with the stored row.
func (h *handlers) importTransactions(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxTransactionsBody)
	if err != nil {
		return err
	}
	items, err := banking.ParseImportBatch(body)
	if err != nil {
		return err
	}
	txns, err := h.banking.ImportTransactions(c.UserContext(), businessID(c), items)
	if err != nil {
		return err
	}
	out := make([]bankTxnDataOnlyJSON, len(txns))
	for i, t := range txns {
		out[i] = toBankTxnDataOnly(t)
	}
	return httpx.Created(c, out)
}
