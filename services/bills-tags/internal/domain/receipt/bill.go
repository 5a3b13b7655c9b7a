package receipt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// MaxCreateBillBody bounds a create-bill body (500 overridden lines).
const MaxCreateBillBody = 1 << 20

// OtherChargesDescription names the line that carries what the receipt's
// total has beyond its items (tax, tip, fees), so the bill is the total.
const OtherChargesDescription = "Tax, tip and other charges"

// overrideKeys are the create-bill body's properties: the bill's own
// (as POST /bills takes them) that replace what the receipt proposes.
var overrideKeys = map[string]bool{
	"vendor_id": true, "vendor_external_id": true, "received_at": true, "due_at": true, "bill_terms": true,
	"bill_number": true, "memo": true, "reference_number": true, "metadata": true, "tags": true, "line_items": true,
}

// lineOverride is one line of the create-bill body: the receipt's line at
// that index with these fields replaced (a line beyond the proposed ones
// needs its amount).
type lineOverride struct {
	Description       *string         `json:"description"`
	Amount            json.RawMessage `json:"amount"`
	AccountIdentifier json.RawMessage `json:"account_identifier"`
}

// Overrides is a checked create-bill body: bill properties to send as
// they are, and the lines when given.
type Overrides struct {
	fields    map[string]json.RawMessage
	lines     []lineOverride
	linesSet  bool
	VendorSet bool // vendor_id or vendor_external_id given
}

func invalidBill(field, reason string) *apperr.Error {
	return apperr.PayloadField(field, reason).WithEnum(EnumInvalidCreateBill)
}

// ParseOverrides reads a create-bill body: empty, or a JSON object of the
// properties in overrideKeys. Their values are checked by the bill rules
// when the bill is made.
func ParseOverrides(raw []byte) (Overrides, error) {
	o := Overrides{fields: map[string]json.RawMessage{}}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || jsonraw.IsNull(raw) {
		return o, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return o, invalidBill("body", "must be a JSON object")
	}
	for k, v := range m {
		if !overrideKeys[k] {
			return o, invalidBill(k, "unknown property")
		}
		if jsonraw.IsNull(v) {
			continue
		}
		if k == "line_items" {
			if err := json.Unmarshal(v, &o.lines); err != nil {
				return o, invalidBill("line_items", "must be an array of {description, amount, account_identifier}")
			}
			if len(o.lines) == 0 || len(o.lines) > bill.MaxLines {
				return o, invalidBill("line_items", fmt.Sprintf("1 to %d lines", bill.MaxLines))
			}
			o.linesSet = true
			continue
		}
		o.fields[k] = v
	}
	_, a := o.fields["vendor_id"]
	_, b := o.fields["vendor_external_id"]
	o.VendorSet = a || b
	return o, nil
}

type accountRefJSON struct {
	Type       string     `json:"type"`
	ID         *uuid.UUID `json:"id,omitempty"`
	StableName string     `json:"stable_name,omitempty"`
}

func refJSON(r *bill.AccountRef) json.RawMessage {
	if r == nil || r.IsZero() {
		return nil
	}
	a := accountRefJSON{Type: "StableName", StableName: r.StableName}
	if r.ID != nil {
		a = accountRefJSON{Type: "AccountId", ID: r.ID}
	}
	b, _ := json.Marshal(a)
	return b
}

type billLineJSON struct {
	Description       string          `json:"description,omitempty"`
	UnitPrice         json.RawMessage `json:"unit_price"`
	Quantity          int             `json:"quantity"`
	DiscountAmount    int64           `json:"discount_amount,omitempty"`
	AccountIdentifier json.RawMessage `json:"account_identifier,omitempty"`
}

func cents(v int64) json.RawMessage { return json.RawMessage(fmt.Sprint(v)) }

// proposedLines are the bill lines the receipt proposes: its items, made to
// add up to its total (the rest as an OtherChargesDescription line, an
// excess as discounts from the last line up); one line of the total when
// it has no items. A receipt with neither is a 400.
func (r Receipt) proposedLines() ([]billLineJSON, error) {
	var out []billLineJSON
	var sum int64
	for _, l := range r.LineItems {
		out = append(out, billLineJSON{Description: l.Description, UnitPrice: cents(l.AmountCents), Quantity: 1, AccountIdentifier: refJSON(l.Account)})
		sum += l.AmountCents
	}
	if r.AmountCents == nil {
		if len(out) == 0 {
			return nil, invalidBill("line_items", "the receipt shows no amount: send line_items with amounts")
		}
		return out, nil
	}
	total := *r.AmountCents
	switch {
	case len(out) == 0:
		desc := "Receipt"
		if r.VendorDisplay != nil {
			desc = *r.VendorDisplay
		}
		var acct *bill.AccountRef
		if a, ok := KeywordAccount(desc); ok {
			s := bill.StableName(a)
			acct = &s
		}
		out = append(out, billLineJSON{Description: desc, UnitPrice: cents(total), Quantity: 1, AccountIdentifier: refJSON(acct)})
	case sum < total:
		out = append(out, billLineJSON{Description: OtherChargesDescription, UnitPrice: cents(total - sum), Quantity: 1,
			AccountIdentifier: out[0].AccountIdentifier})
	case sum > total:
		excess := sum - total
		for i := len(out) - 1; i >= 0 && excess > 0; i-- {
			d := min(excess, r.LineItems[i].AmountCents)
			out[i].DiscountAmount = d
			excess -= d
		}
	}
	return out, nil
}

// BillBody is the POST /bills body the receipt becomes with o applied:
// vendorID unless o names the vendor; received_at the receipt's date
// (else its import time); memo the import's context; the lines proposed
// (see proposedLines) unless o gives them. bill.ParseInput checks it as
// any bill.
func (r Receipt) BillBody(o Overrides, vendorID *uuid.UUID) ([]byte, error) {
	body := map[string]any{}
	for k, v := range o.fields {
		body[k] = v
	}
	if !o.VendorSet && vendorID != nil {
		body["vendor_id"] = vendorID.String()
	}
	if _, ok := body["received_at"]; !ok {
		at := r.CreatedAt
		if r.PaidAt != nil {
			at = *r.PaidAt
		}
		body["received_at"] = at.UTC().Format(time.RFC3339Nano)
	}
	if _, ok := body["memo"]; !ok && r.Context != nil && *r.Context != "" {
		body["memo"] = *r.Context
	}
	if !o.linesSet {
		lines, err := r.proposedLines()
		if err != nil {
			return nil, err
		}
		body["line_items"] = lines
	} else {
		lines := make([]billLineJSON, len(o.lines))
		for i, l := range o.lines {
			var base LineItem
			known := i < len(r.LineItems)
			if known {
				base = r.LineItems[i]
			}
			bl := billLineJSON{Description: base.Description, UnitPrice: cents(base.AmountCents), Quantity: 1, AccountIdentifier: refJSON(base.Account)}
			if l.Description != nil {
				bl.Description = *l.Description
			}
			switch {
			case len(l.Amount) > 0 && !jsonraw.IsNull(l.Amount):
				if c, err := money.ParseJSONCents(l.Amount); err != nil || c < 0 {
					return nil, invalidBill(fmt.Sprintf("line_items[%d].amount", i), "must be a whole number of cents, at least 0")
				}
				bl.UnitPrice = l.Amount
			case !known:
				return nil, invalidBill(fmt.Sprintf("line_items[%d].amount", i), "is required beyond the receipt's own lines")
			}
			if len(l.AccountIdentifier) > 0 && !jsonraw.IsNull(l.AccountIdentifier) {
				bl.AccountIdentifier = l.AccountIdentifier
			}
			lines[i] = bl
		}
		body["line_items"] = lines
	}
	return json.Marshal(body)
}
