package http

import (
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/httplist"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// MaxCreditBody bounds a vendor credit request (500 lines, 100
// allocations, their metadata and tags).
const MaxCreditBody = 1 << 20

// creditAccountIDJSON is {type: "AccountId", id}.
type creditAccountIDJSON struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// creditStableNameJSON is {type: "StableName", stable_name}.
type creditStableNameJSON struct {
	Type       string `json:"type"`
	StableName string `json:"stable_name"`
}

// creditLedgerAccountJSON is what this service knows of a line's ledger
// account: its id (a stable name of the default chart by the id the
// ledger gives it) and, for those, its stable name.
type creditLedgerAccountJSON struct {
	ID         creditAccountIDJSON   `json:"id"`
	StableName *creditStableNameJSON `json:"stable_name"`
}

func creditLedgerAccount(businessID uuid.UUID, r bill.AccountRef) creditLedgerAccountJSON {
	if r.ID != nil {
		return creditLedgerAccountJSON{ID: creditAccountIDJSON{Type: "AccountId", ID: r.ID.String()}}
	}
	return creditLedgerAccountJSON{
		ID:         creditAccountIDJSON{Type: "AccountId", ID: events.DefaultAccountID(businessID, r.StableName).String()},
		StableName: &creditStableNameJSON{Type: "StableName", StableName: r.StableName},
	}
}

// creditLineJSON is the spec's vendor credit line item (plus the
// request's expense_account_identifier).
type creditLineJSON struct {
	ID                       string                  `json:"id"`
	Amount                   int64                   `json:"amount"`
	LedgerAccount            creditLedgerAccountJSON `json:"ledger_account"`
	ExpenseAccountIdentifier accountIDJSON           `json:"expense_account_identifier"`
	Memo                     *string                 `json:"memo"`
	Metadata                 json.RawMessage         `json:"metadata"`
	ReferenceNumber          *string                 `json:"reference_number"`
	TransactionTags          []tags.Tag              `json:"transaction_tags"`
}

// creditAllocationJSON is the spec's allocation (plus the bill's
// external id).
type creditAllocationJSON struct {
	ID             string  `json:"id"`
	VendorCreditID string  `json:"vendor_credit_id"`
	Amount         int64   `json:"amount"`
	BillID         string  `json:"bill_id"`
	BillExternalID *string `json:"bill_external_id"`
}

// creditJSON is the spec's Vendor_Credit, every field it lists present
// (null where empty), plus business_id, total_amount and
// unapplied_amount.
type creditJSON struct {
	Type            string                 `json:"type"`
	ID              string                 `json:"id"`
	BusinessID      string                 `json:"business_id"`
	ExternalID      *string                `json:"external_id"`
	Vendor          vendorJSON             `json:"vendor"`
	ReceivedAt      time.Time              `json:"received_at"`
	LineItems       []creditLineJSON       `json:"line_items"`
	Allocations     []creditAllocationJSON `json:"allocations"`
	TotalAmount     int64                  `json:"total_amount"`
	UnappliedAmount int64                  `json:"unapplied_amount"`
	Memo            *string                `json:"memo"`
	Metadata        json.RawMessage        `json:"metadata"`
	ReferenceNumber *string                `json:"reference_number"`
	TransactionTags []tags.Tag             `json:"transaction_tags"`
	CreatedAt       time.Time              `json:"created_at"`
	UpdatedAt       time.Time              `json:"updated_at"`
	DeletedAt       *time.Time             `json:"deleted_at"`
}

func toCredit(v app.CreditView) creditJSON {
	c := v.Credit
	out := creditJSON{
		Type: "Vendor_Credit", ID: c.ID.String(), BusinessID: c.BusinessID.String(), ExternalID: c.ExternalID,
		Vendor: toVendor(v.Vendor), ReceivedAt: c.ReceivedAt, LineItems: make([]creditLineJSON, len(c.Lines)),
		Allocations: make([]creditAllocationJSON, len(c.Allocations)), TotalAmount: int64(c.Total()),
		UnappliedAmount: int64(c.Unapplied()), Memo: c.Memo, Metadata: rawOrNull(c.Metadata),
		ReferenceNumber: c.ReferenceNumber, TransactionTags: tagList(c.Tags), CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
	for i, l := range c.Lines {
		out.LineItems[i] = creditLineJSON{ID: l.ID.String(), Amount: int64(l.Amount),
			LedgerAccount: creditLedgerAccount(c.BusinessID, l.ExpenseAccount()), ExpenseAccountIdentifier: accountJSON(l.ExpenseAccount()),
			Memo: l.Memo, Metadata: rawOrNull(l.Metadata), ReferenceNumber: l.ReferenceNumber, TransactionTags: tagList(l.Tags)}
	}
	for i, a := range c.Allocations {
		out.Allocations[i] = creditAllocationJSON{ID: a.ID.String(), VendorCreditID: c.ID.String(), Amount: int64(a.Amount),
			BillID: a.BillID.String(), BillExternalID: a.BillExternalID}
	}
	return out
}

func creditParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "vendorCreditId") }

// createCredit is POST /bills/vendor-credits: 201 with the new credit,
// 200 with the existing one when its external_id was used before.
func (h *handlers) createCredit(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxCreditBody)
	if err != nil {
		return err
	}
	in, err := bill.ParseCredit(body)
	if err != nil {
		return err
	}
	v, created, err := h.credits.Create(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	return httpx.Saved(c, created, toCredit(v))
}

// listCredits is GET /bills/vendor-credits.
func (h *handlers) listCredits(c *fiber.Ctx) error {
	return httplist.List[bill.CreditFilter, app.CreditView, creditJSON]{
		Spec: app.CreditPageSpec, Codec: h.codec, Filter: bill.ParseCreditFilter, Find: h.credits.Credits, Render: toCredit,
	}.Handle(c)
}

// getCredit is GET /bills/vendor-credits/{vendorCreditId}.
func (h *handlers) getCredit(c *fiber.Ctx) error {
	id, err := creditParam(c)
	if err != nil {
		return err
	}
	v, err := h.credits.Credit(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toCredit(v))
}

// updateCredit is PATCH /bills/vendor-credits/{vendorCreditId}.
func (h *handlers) updateCredit(c *fiber.Ctx) error {
	id, err := creditParam(c)
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxCreditBody)
	if err != nil {
		return err
	}
	patch, err := bill.ParseCreditPatch(body)
	if err != nil {
		return err
	}
	v, err := h.credits.Update(c.UserContext(), businessID(c), id, patch)
	if err != nil {
		return err
	}
	return httpx.OK(c, toCredit(v))
}
