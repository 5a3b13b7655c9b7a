package http

import (
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httplist"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// Body limits of the bill requests.
const (
	MaxBillBody = 1 << 20 // 500 lines with taxes and tags
	MaxBulkBody = 8 << 20
)

type accountIDJSON struct {
	Type       string  `json:"type"`
	ID         *string `json:"id"`
	StableName *string `json:"stable_name"`
}

func accountJSON(r bill.AccountRef) accountIDJSON {
	if r.ID != nil {
		id := r.ID.String()
		return accountIDJSON{Type: "AccountId", ID: &id}
	}
	s := r.StableName
	return accountIDJSON{Type: "StableName", StableName: &s}
}

// lineAccountJSON is the account of a bill line: the SDK's
// BillAccountIdentifier ({type, id}), id always the account's (resolved
// from the stable name when the line names it so), stable_name as sent.
type lineAccountJSON struct {
	Type       string  `json:"type"`
	ID         string  `json:"id"`
	StableName *string `json:"stable_name"`
}

func lineAccount(v app.BillView, r bill.AccountRef) lineAccountJSON {
	a := accountJSON(r)
	out := lineAccountJSON{Type: a.Type, StableName: a.StableName}
	if id := v.AccountID(r); id != nil {
		out.ID = id.String()
	}
	return out
}

type taxAccountJSON struct {
	Type       string  `json:"type"`
	Name       *string `json:"name"`
	ID         *string `json:"id"`
	StableName *string `json:"stable_name"`
}

type salesTaxJSON struct {
	TaxAccount taxAccountJSON `json:"tax_account"`
	Amount     int64          `json:"amount"`
}

func taxesJSON(ts []bill.SalesTax) []salesTaxJSON {
	out := make([]salesTaxJSON, len(ts))
	for i, t := range ts {
		var ta taxAccountJSON
		switch {
		case t.Account != nil:
			a := accountJSON(*t.Account)
			ta = taxAccountJSON{Type: a.Type, ID: a.ID, StableName: a.StableName}
		case t.TaxName != "":
			n := t.TaxName
			ta = taxAccountJSON{Type: "Tax_Name", Name: &n}
		default:
			n := "SALES_TAXES"
			ta = taxAccountJSON{Type: "Tax_Name", Name: &n}
		}
		out[i] = salesTaxJSON{TaxAccount: ta, Amount: int64(t.Amount)}
	}
	return out
}

// billLineJSON is a line: the SDK's BillLineItem (quantity a number;
// external_id and description "" when the line has none).
type billLineJSON struct {
	ID                          string           `json:"id"`
	BillID                      string           `json:"bill_id"`
	ExternalID                  string           `json:"external_id"`
	ProductName                 *string          `json:"product_name"`
	Description                 string           `json:"description"`
	UnitPrice                   int64            `json:"unit_price"`
	Quantity                    json.Number      `json:"quantity"`
	Subtotal                    int64            `json:"subtotal"`
	DiscountAmount              int64            `json:"discount_amount"`
	SalesTaxes                  []salesTaxJSON   `json:"sales_taxes"`
	SalesTaxesTotal             int64            `json:"sales_taxes_total"`
	TotalAmount                 int64            `json:"total_amount"`
	AccountIdentifier           lineAccountJSON  `json:"account_identifier"`
	PrepaymentAccountIdentifier *lineAccountJSON `json:"prepayment_account_identifier"`
	TransactionTags             []tags.Tag       `json:"transaction_tags"`
}

// billPaidJSON is a payment allocation as its bill shows it (the SDK's
// BillPaymentAllocation, with the allocation's id).
type billPaidJSON struct {
	ID              string     `json:"id"`
	BillID          string     `json:"bill_id"`
	PaymentID       string     `json:"payment_id"`
	Amount          int64      `json:"amount"`
	TransactionTags []tags.Tag `json:"transaction_tags"`
}

// billVendorJSON is a bill's vendor: the vendor routes' vendorJSON (same
// keys and values) except that the SDK's BillVendor leaves out
// individual_name, email, mobile_phone, office_phone, address_string and
// notes when they are null, and types external_id as a string ("" when the
// vendor has none): the fields declared here shadow the embedded ones of
// the same key (encoding/json takes the shallower).
type billVendorJSON struct {
	vendorJSON
	ExternalID     string  `json:"external_id"`
	IndividualName *string `json:"individual_name,omitempty"`
	Email          *string `json:"email,omitempty"`
	MobilePhone    *string `json:"mobile_phone,omitempty"`
	OfficePhone    *string `json:"office_phone,omitempty"`
	AddressString  *string `json:"address_string,omitempty"`
	Notes          *string `json:"notes,omitempty"`
}

func toBillVendor(v domain.Vendor) billVendorJSON {
	j := toVendor(v)
	return billVendorJSON{vendorJSON: j, ExternalID: deref(j.ExternalID), IndividualName: j.IndividualName, Email: j.Email, MobilePhone: j.MobilePhone,
		OfficePhone: j.OfficePhone, AddressString: j.AddressString, Notes: j.Notes}
}

// billJSON is the bill on every route: its own fields plus the SDK's
// Bill (external_id and bill_number are strings, "" when none was given,
// as the SDK types them). due_at is always set (received_at for a bill without a due date,
// which is due on receipt); paid_at is left out until the bill is paid.
type billJSON struct {
	Type                      string          `json:"type"`
	ID                        string          `json:"id"`
	BusinessID                string          `json:"business_id"`
	ExternalID                string          `json:"external_id"`
	BillNumber                string          `json:"bill_number"`
	Status                    string          `json:"status"`
	Terms                     *string         `json:"terms"`
	ReceivedAt                time.Time       `json:"received_at"`
	DueAt                     time.Time       `json:"due_at"`
	PaidAt                    *time.Time      `json:"paid_at,omitempty"`
	VoidedAt                  *time.Time      `json:"voided_at"`
	Memo                      *string         `json:"memo"`
	ReferenceNumber           *string         `json:"reference_number"`
	Metadata                  json.RawMessage `json:"metadata"`
	LineItems                 []billLineJSON  `json:"line_items"`
	AdditionalSalesTaxes      []salesTaxJSON  `json:"additional_sales_taxes"`
	AdditionalSalesTaxesTotal int64           `json:"additional_sales_taxes_total"`
	Subtotal                  int64           `json:"subtotal"`
	SalesTaxesTotal           int64           `json:"sales_taxes_total"`
	TotalAmount               int64           `json:"total_amount"`
	OutstandingBalance        int64           `json:"outstanding_balance"`
	PaymentAllocations        []billPaidJSON  `json:"payment_allocations"`
	ImportedAt                time.Time       `json:"imported_at"`
	UpdatedAt                 time.Time       `json:"updated_at"`
	Vendor                    billVendorJSON  `json:"vendor"`
	TransactionTags           []tags.Tag      `json:"transaction_tags"`
}

func tagList(ts []tags.Tag) []tags.Tag {
	if ts == nil {
		return []tags.Tag{}
	}
	return ts
}

func toBill(v app.BillView) billJSON {
	b := v.Bill
	out := billJSON{
		Type: "Bill", ID: b.ID.String(), BusinessID: b.BusinessID.String(), ExternalID: deref(b.ExternalID), BillNumber: deref(b.BillNumber),
		Status: string(b.Status), ReceivedAt: b.ReceivedAt, DueAt: b.Due(), PaidAt: b.PaidAt, VoidedAt: b.VoidedAt,
		Memo: b.Memo, ReferenceNumber: b.ReferenceNumber, Metadata: b.Metadata, LineItems: make([]billLineJSON, len(b.Lines)),
		AdditionalSalesTaxes: taxesJSON(b.AdditionalSalesTaxes), AdditionalSalesTaxesTotal: int64(b.Totals.AdditionalTaxes),
		Subtotal: int64(b.Totals.Subtotal), SalesTaxesTotal: int64(b.Totals.SalesTaxesTotal), TotalAmount: int64(b.Totals.Total),
		OutstandingBalance: int64(b.Outstanding), PaymentAllocations: make([]billPaidJSON, len(b.Payments)), ImportedAt: b.ImportedAt, UpdatedAt: b.UpdatedAt,
		Vendor: toBillVendor(v.Vendor), TransactionTags: tagList(b.Tags),
	}
	if len(out.Metadata) == 0 {
		out.Metadata = json.RawMessage("null")
	}
	for i, p := range b.Payments {
		out.PaymentAllocations[i] = billPaidJSON{ID: p.ID.String(), BillID: b.ID.String(), PaymentID: p.PaymentID.String(),
			Amount: int64(p.Amount), TransactionTags: tagList(p.Tags)}
	}
	if t := b.Terms(); t != "" {
		s := string(t)
		out.Terms = &s
	}
	for i, l := range b.Lines {
		lj := billLineJSON{
			ID: l.ID.String(), BillID: b.ID.String(), ExternalID: deref(l.ExternalID), ProductName: l.ProductName,
			Description: deref(l.Description),
			UnitPrice:   int64(l.UnitPrice), Quantity: json.Number(l.Quantity.String()), Subtotal: int64(l.Subtotal),
			DiscountAmount: int64(l.DiscountAmount), SalesTaxes: taxesJSON(l.SalesTaxes), SalesTaxesTotal: int64(l.SalesTaxesTotal),
			TotalAmount: int64(l.TotalAmount), AccountIdentifier: lineAccount(v, l.AccountOrDefault()),
			TransactionTags: bill.TagSet(b.BusinessID, l.ID, nil, l.Tags, b.ImportedAt),
		}
		if l.PrepaymentAccount != nil {
			a := lineAccount(v, *l.PrepaymentAccount)
			lj.PrepaymentAccountIdentifier = &a
		}
		out.LineItems[i] = lj
	}
	return out
}

// deref is *s, "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func billParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "billId") }

// createBill is POST /bills: 201 with the new bill, 200 with the existing
// one when its external_id was used before.
func (h *handlers) createBill(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxBillBody)
	if err != nil {
		return err
	}
	in, err := bill.ParseInput(body)
	if err != nil {
		return err
	}
	v, created, err := h.bills.Create(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	return httpx.Saved(c, created, toBill(v))
}

// createBills is POST /bills/bulk: 201 with every bill (all or none).
func (h *handlers) createBills(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxBulkBody)
	if err != nil {
		return err
	}
	ins, err := bill.ParseBulk(body)
	if err != nil {
		return err
	}
	list, err := h.bills.CreateBulk(c.UserContext(), businessID(c), ins)
	if err != nil {
		return err
	}
	out := make([]billJSON, len(list))
	for i, v := range list {
		out[i] = toBill(v)
	}
	return httpx.Created(c, out)
}

// listBills is GET /bills.
func (h *handlers) listBills(c *fiber.Ctx) error {
	return httplist.List[bill.Filter, app.BillView, billJSON]{
		Spec: app.BillPageSpec, Codec: h.codec, Filter: bill.ParseFilter, Find: h.bills.Bills, Render: toBill,
	}.Handle(c)
}

// getBill is GET /bills/{billId}.
func (h *handlers) getBill(c *fiber.Ctx) error {
	id, err := billParam(c)
	if err != nil {
		return err
	}
	v, err := h.bills.Bill(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toBill(v))
}

// updateBill is PATCH /bills/{billId} and POST /bills/{billId}/update.
func (h *handlers) updateBill(c *fiber.Ctx) error {
	id, err := billParam(c)
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxBillBody)
	if err != nil {
		return err
	}
	p, err := bill.ParsePatch(body)
	if err != nil {
		return err
	}
	v, err := h.bills.Update(c.UserContext(), businessID(c), id, p)
	if err != nil {
		return err
	}
	return httpx.OK(c, toBill(v))
}

// voidBill is POST /bills/{billId}/void (no body).
func (h *handlers) voidBill(c *fiber.Ctx) error {
	id, err := billParam(c)
	if err != nil {
		return err
	}
	v, err := h.bills.Void(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toBill(v))
}
