package http

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// Body limits of the invoicing requests.
const (
	MaxInvoiceBody  = 1 << 20 // 500 lines with taxes and tags
	MaxPaymentBody  = 64 << 10
	MaxWriteOffBody = 16 << 10
)

// accountIdentJSON is an AccountIdentifier: {type: "AccountId", id} or
// {type: "StableName", stable_name}.
type accountIdentJSON struct {
	Type       string     `json:"type"`
	ID         *uuid.UUID `json:"id"`
	StableName *string    `json:"stable_name"`
}

// ref checks a sent identifier and returns it (field names it in errors).
func (a *accountIdentJSON) ref(field string, bad map[string]string) invoice.AccountRef {
	if a == nil {
		return invoice.AccountRef{}
	}
	switch a.Type {
	case "AccountId":
		if a.ID == nil || a.StableName != nil {
			bad[field] = `an AccountId takes "id" (a uuid) only`
			return invoice.AccountRef{}
		}
		return invoice.AccountID(*a.ID)
	case "StableName":
		if a.StableName == nil || strings.TrimSpace(*a.StableName) == "" || a.ID != nil {
			bad[field] = `a StableName takes "stable_name" only`
			return invoice.AccountRef{}
		}
		return invoice.StableName(strings.TrimSpace(*a.StableName))
	}
	bad[field+".type"] = `must be "AccountId" or "StableName"`
	return invoice.AccountRef{}
}

// taxAccountJSON is a sales tax's tax_account: {type: "Tax_Name", name} or
// an AccountIdentifier.
type taxAccountJSON struct {
	Type       string     `json:"type"`
	Name       *string    `json:"name"`
	ID         *uuid.UUID `json:"id"`
	StableName *string    `json:"stable_name"`
}

type salesTaxJSON struct {
	TaxAccount *taxAccountJSON `json:"tax_account"`
	Amount     json.RawMessage `json:"amount"`
}

func salesTaxes(field string, in []salesTaxJSON, bad map[string]string) []invoice.SalesTax {
	out := make([]invoice.SalesTax, 0, len(in))
	for i, t := range in {
		f := fmt.Sprintf("%s[%d]", field, i)
		st := invoice.SalesTax{Amount: cents(f+".amount", t.Amount, true, bad)}
		if ta := t.TaxAccount; ta != nil {
			switch ta.Type {
			case "Tax_Name":
				if ta.Name == nil {
					bad[f+".tax_account.name"] = "is required for a Tax_Name"
				} else {
					st.TaxName = *ta.Name
				}
			case "AccountId", "StableName":
				r := (&accountIdentJSON{Type: ta.Type, ID: ta.ID, StableName: ta.StableName}).ref(f+".tax_account", bad)
				st.Account = &r
			default:
				bad[f+".tax_account.type"] = `must be "Tax_Name", "AccountId" or "StableName"`
			}
		}
		out = append(out, st)
	}
	return out
}

// cents reads an amount in cents sent as a JSON number or string; absent
// is 0 unless required.
func cents(field string, raw json.RawMessage, required bool, bad map[string]string) money.Cents {
	if len(raw) == 0 || string(raw) == "null" {
		if required {
			bad[field] = "is required"
		}
		return 0
	}
	c, err := money.ParseJSONCents(raw)
	if err != nil {
		bad[field] = "must be a whole number of cents"
		return 0
	}
	return c
}

type lineJSON struct {
	ExternalID        *string           `json:"external_id"`
	Product           *string           `json:"product"`
	Description       *string           `json:"description"`
	UnitPrice         json.RawMessage   `json:"unit_price"`
	Quantity          json.RawMessage   `json:"quantity"`
	AccountIdentifier *accountIdentJSON `json:"account_identifier"`
	DiscountAmount    json.RawMessage   `json:"discount_amount"`
	SalesTaxes        []salesTaxJSON    `json:"sales_taxes"`
	Tags              []tags.KeyValue   `json:"tags"`
	Memo              *string           `json:"memo"`
}

func lineInputs(in []lineJSON, bad map[string]string) []invoice.LineInput {
	out := make([]invoice.LineInput, len(in))
	for i, l := range in {
		f := fmt.Sprintf("line_items[%d]", i)
		li := invoice.LineInput{
			ExternalID: l.ExternalID, Product: l.Product, Description: l.Description, Memo: l.Memo, Tags: l.Tags,
			UnitPrice:      cents(f+".unit_price", l.UnitPrice, true, bad),
			DiscountAmount: cents(f+".discount_amount", l.DiscountAmount, false, bad),
			Account:        l.AccountIdentifier.ref(f+".account_identifier", bad),
			SalesTaxes:     salesTaxes(f+".sales_taxes", l.SalesTaxes, bad),
		}
		switch q := bytes.TrimSpace(l.Quantity); {
		case len(q) == 0 || string(q) == "null":
			li.Quantity, _ = money.QuantityOf(1) // the real product's default
		default:
			qty, err := money.ParseJSONQuantity(q)
			if err != nil {
				bad[f+".quantity"] = "must be a decimal number (as a number or a string, at most 6 decimal places)"
			}
			li.Quantity = qty
		}
		out[i] = li
	}
	return out
}

// invoiceJSONIn is POST /invoices's body.
type invoiceJSONIn struct {
	ExternalID                *string         `json:"external_id"`
	InvoiceNumber             *string         `json:"invoice_number"`
	SentAt                    *time.Time      `json:"sent_at"`
	DueAt                     *time.Time      `json:"due_at"`
	CustomerID                *uuid.UUID      `json:"customer_id"`
	CustomerExternalID        *string         `json:"customer_external_id"`
	LineItems                 []lineJSON      `json:"line_items"`
	AdditionalDiscount        json.RawMessage `json:"additional_discount"`
	AdditionalSalesTaxes      []salesTaxJSON  `json:"additional_sales_taxes"`
	Tips                      json.RawMessage `json:"tips"`
	Memo                      *string         `json:"memo"`
	CustomPaymentInstructions *string         `json:"custom_payment_instructions"`
	ReferenceNumber           *string         `json:"reference_number"`
	Metadata                  json.RawMessage `json:"metadata"`
	Tags                      []tags.KeyValue `json:"tags"`
}

// textRules bound the invoice's own texts.
var textRules = []struct {
	field string
	max   int
}{
	{"external_id", 255}, {"invoice_number", 255}, {"customer_external_id", 255}, {"memo", 2000},
	{"custom_payment_instructions", 2000}, {"reference_number", 255},
}

func checkTexts(vals map[string]*string, bad map[string]string) {
	for _, r := range textRules {
		if v := vals[r.field]; v != nil && len([]rune(*v)) > r.max {
			bad[r.field] = fmt.Sprintf("at most %d characters", r.max)
		} else if v != nil && jsonraw.TextReason(*v) != "" {
			bad[r.field] = jsonraw.TextReason(*v) // stored as text: a NUL is a 400, not a 500
		}
	}
}

// externalRef trims an external id naming another record (the customer's,
// which the customers routes store trimmed); blank is a 400.
func externalRef(field string, p *string, bad map[string]string) *string {
	if p == nil {
		return nil
	}
	v := strings.TrimSpace(*p)
	if v == "" {
		bad[field] = "must not be blank"
		return nil
	}
	return &v
}

// parseInvoice reads a create body strictly (unknown properties are 400).
func parseInvoice(body []byte) (app.InvoiceInput, error) {
	var in invoiceJSONIn
	if err := httpx.DecodeJSON(body, &in); err != nil {
		return app.InvoiceInput{}, err
	}
	bad := map[string]string{}
	if in.SentAt == nil {
		bad["sent_at"] = "is required"
	}
	if in.CustomerID == nil && in.CustomerExternalID == nil {
		bad["customer_id"] = "customer_id or customer_external_id is required"
	}
	in.CustomerExternalID = externalRef("customer_external_id", in.CustomerExternalID, bad)
	checkTexts(map[string]*string{"external_id": in.ExternalID, "invoice_number": in.InvoiceNumber,
		"customer_external_id": in.CustomerExternalID, "memo": in.Memo,
		"custom_payment_instructions": in.CustomPaymentInstructions, "reference_number": in.ReferenceNumber}, bad)
	kvs, err := tags.NormalizeList("tags", in.Tags)
	if err != nil {
		return app.InvoiceInput{}, err
	}
	out := app.InvoiceInput{
		ExternalID: in.ExternalID, InvoiceNumber: in.InvoiceNumber, SentAt: in.SentAt, DueAt: in.DueAt,
		CustomerID: in.CustomerID, CustomerExternalID: in.CustomerExternalID, Memo: in.Memo,
		CustomPaymentInstructions: in.CustomPaymentInstructions, ReferenceNumber: in.ReferenceNumber,
		Metadata: in.Metadata, Tags: kvs,
		Draft: invoice.Draft{
			Lines:                lineInputs(in.LineItems, bad),
			AdditionalDiscount:   cents("additional_discount", in.AdditionalDiscount, false, bad),
			AdditionalSalesTaxes: salesTaxes("additional_sales_taxes", in.AdditionalSalesTaxes, bad),
			Tips:                 cents("tips", in.Tips, false, bad),
		},
	}
	if len(bad) > 0 {
		return app.InvoiceInput{}, apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(app.EnumInvalidInvoice)
	}
	return out, nil
}

// patchProperties are what PATCH /invoices/{id} may change.
var patchProperties = map[string]bool{
	"invoice_number": true, "sent_at": true, "due_at": true, "customer_id": true, "customer_external_id": true,
	"line_items": true, "additional_discount": true, "additional_sales_taxes": true, "tips": true, "memo": true,
	"custom_payment_instructions": true, "reference_number": true, "metadata": true, "tags": true,
}

// parseInvoicePatch reads a patch: the properties present change (null
// clears a nullable one); unknown properties, external_id included (an
// invoice keeps its external id), are 400.
func parseInvoicePatch(body []byte) (app.InvoicePatch, error) {
	var m map[string]json.RawMessage
	if err := httpx.DecodeJSON(body, &m); err != nil {
		return app.InvoicePatch{}, err
	}
	bad := map[string]string{}
	for k := range m {
		if !patchProperties[k] {
			bad[k] = "unknown or immutable property"
		}
	}
	var p app.InvoicePatch
	str := func(k string, dst *app.Optional[*string]) {
		if raw, ok := m[k]; ok {
			dst.Set = true
			if err := json.Unmarshal(raw, &dst.Value); err != nil {
				bad[k] = "must be a string or null"
			}
		}
	}
	str("invoice_number", &p.InvoiceNumber)
	str("memo", &p.Memo)
	str("custom_payment_instructions", &p.CustomPaymentInstructions)
	str("reference_number", &p.ReferenceNumber)
	str("customer_external_id", &p.CustomerExternalID)
	p.CustomerExternalID.Value = externalRef("customer_external_id", p.CustomerExternalID.Value, bad)
	checkTexts(map[string]*string{"invoice_number": p.InvoiceNumber.Value, "memo": p.Memo.Value,
		"custom_payment_instructions": p.CustomPaymentInstructions.Value, "reference_number": p.ReferenceNumber.Value,
		"customer_external_id": p.CustomerExternalID.Value}, bad)
	if raw, ok := m["sent_at"]; ok {
		p.SentAt.Set = true
		if err := json.Unmarshal(raw, &p.SentAt.Value); err != nil || p.SentAt.Value.IsZero() {
			bad["sent_at"] = "must be an ISO 8601 date-time (it cannot be cleared)"
		}
	}
	if raw, ok := m["due_at"]; ok {
		p.DueAt.Set = true
		if err := json.Unmarshal(raw, &p.DueAt.Value); err != nil {
			bad["due_at"] = "must be an ISO 8601 date-time or null"
		}
	}
	if raw, ok := m["customer_id"]; ok {
		p.CustomerID.Set = true
		if err := json.Unmarshal(raw, &p.CustomerID.Value); err != nil {
			bad["customer_id"] = "must be a uuid or null"
		}
	}
	if raw, ok := m["metadata"]; ok {
		p.Metadata = app.Optional[json.RawMessage]{Set: true, Value: raw}
	}
	if raw, ok := m["tags"]; ok {
		var kvs []tags.KeyValue
		if err := json.Unmarshal(raw, &kvs); err != nil {
			bad["tags"] = "must be a list of {key, value}"
		} else if n, err := tags.NormalizeList("tags", kvs); err != nil {
			return app.InvoicePatch{}, err
		} else {
			p.Tags = app.Optional[[]tags.KeyValue]{Set: true, Value: n}
		}
	}
	if raw, ok := m["line_items"]; ok {
		var ls []lineJSON
		if err := decodeStrict(raw, &ls); err != nil {
			bad["line_items"] = err.Error()
		} else {
			p.Lines = app.Optional[[]invoice.LineInput]{Set: true, Value: lineInputs(ls, bad)}
		}
	}
	if raw, ok := m["additional_sales_taxes"]; ok {
		var ts []salesTaxJSON
		if err := decodeStrict(raw, &ts); err != nil {
			bad["additional_sales_taxes"] = err.Error()
		} else {
			p.AdditionalSalesTaxes = app.Optional[[]invoice.SalesTax]{Set: true, Value: salesTaxes("additional_sales_taxes", ts, bad)}
		}
	}
	if raw, ok := m["additional_discount"]; ok {
		p.AdditionalDiscount = app.Optional[money.Cents]{Set: true, Value: cents("additional_discount", raw, false, bad)}
	}
	if raw, ok := m["tips"]; ok {
		p.Tips = app.Optional[money.Cents]{Set: true, Value: cents("tips", raw, false, bad)}
	}
	if len(bad) > 0 {
		return app.InvoicePatch{}, apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(app.EnumInvalidInvoice)
	}
	return p, nil
}

// decodeStrict decodes a nested value refusing unknown properties.
func decodeStrict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// paymentJSONIn is POST /invoices/payments's body (and, without
// invoice_payments, the single-invoice shortcut's).
type paymentJSONIn struct {
	ExternalID      *string         `json:"external_id"`
	PaidAt          *time.Time      `json:"paid_at"`
	Method          *string         `json:"method"`
	Amount          json.RawMessage `json:"amount"`
	Fee             json.RawMessage `json:"fee"`
	Processor       *string         `json:"processor"`
	Memo            *string         `json:"memo"`
	ReferenceNumber *string         `json:"reference_number"`
	Tags            []tags.KeyValue `json:"tags"`
	InvoicePayments []struct {
		InvoiceID         *uuid.UUID      `json:"invoice_id"`
		InvoiceExternalID *string         `json:"invoice_external_id"`
		Amount            json.RawMessage `json:"amount"`
	} `json:"invoice_payments"`
}

// parsePayment reads a payment; shortcut is the invoice of
// POST /invoices/{id}/payment (which takes no invoice_payments).
func parsePayment(body []byte, shortcut *uuid.UUID) (app.PaymentInput, error) {
	var in paymentJSONIn
	if err := httpx.DecodeJSON(body, &in); err != nil {
		return app.PaymentInput{}, err
	}
	bad := map[string]string{}
	out := app.PaymentInput{
		ExternalID: in.ExternalID, PaidAt: in.PaidAt, Processor: in.Processor, Memo: in.Memo, ReferenceNumber: in.ReferenceNumber,
		Amount: cents("amount", in.Amount, true, bad), Fee: cents("fee", in.Fee, false, bad),
	}
	if in.PaidAt == nil {
		bad["paid_at"] = "is required"
	}
	switch {
	case in.Method == nil:
		bad["method"] = "is required"
	default:
		m, ok := invoice.ParseMethod(*in.Method)
		if !ok {
			bad["method"] = "must be one of CASH, CHECK, CREDIT_CARD, ACH, CREDIT_BALANCE, OTHER"
		}
		out.Method = m
	}
	if in.Processor != nil && strings.TrimSpace(*in.Processor) == "" {
		out.Processor = nil
	}
	checkTexts(map[string]*string{"external_id": in.ExternalID, "memo": in.Memo, "reference_number": in.ReferenceNumber}, bad)
	if in.Processor != nil && len(*in.Processor) > 100 {
		bad["processor"] = "at most 100 characters"
	} else if in.Processor != nil && jsonraw.TextReason(*in.Processor) != "" {
		bad["processor"] = jsonraw.TextReason(*in.Processor) // stored as text: a NUL is a 400, not a 500 (found by contract fuzzing)
	}
	if shortcut != nil {
		if in.InvoicePayments != nil {
			bad["invoice_payments"] = "not taken here: the payment is for the invoice of the path"
		}
		out.Allocations = []app.AllocationInput{{InvoiceID: shortcut, Amount: out.Amount}}
		out.PathInvoice = shortcut
	} else {
		for i, ip := range in.InvoicePayments {
			out.Allocations = append(out.Allocations, app.AllocationInput{InvoiceID: ip.InvoiceID, InvoiceExternalID: ip.InvoiceExternalID,
				Amount: cents(fmt.Sprintf("invoice_payments[%d].amount", i), ip.Amount, true, bad)})
		}
	}
	kvs, err := tags.NormalizeList("tags", in.Tags)
	if err != nil {
		return app.PaymentInput{}, err
	}
	out.Tags = kvs
	if len(bad) > 0 {
		return app.PaymentInput{}, apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(app.EnumInvalidInvoice)
	}
	return out, nil
}

// writeOffJSONIn is POST /invoices/{id}/write-off's body.
type writeOffJSONIn struct {
	ExternalID               *string           `json:"external_id"`
	Amount                   json.RawMessage   `json:"amount"`
	WriteOffMode             *string           `json:"write_off_mode"`
	WriteOffAt               *time.Time        `json:"write_off_at"`
	DestinationLedgerAccount *accountIdentJSON `json:"destination_ledger_account"`
	Memo                     *string           `json:"memo"`
	ReferenceNumber          *string           `json:"reference_number"`
	Tags                     []tags.KeyValue   `json:"tags"`
}

func parseWriteOff(body []byte) (app.WriteOffInput, error) {
	var in writeOffJSONIn
	if err := httpx.DecodeJSON(body, &in); err != nil {
		return app.WriteOffInput{}, err
	}
	bad := map[string]string{}
	out := app.WriteOffInput{
		ExternalID: in.ExternalID, Amount: cents("amount", in.Amount, true, bad), WriteOffAt: in.WriteOffAt,
		Memo: in.Memo, ReferenceNumber: in.ReferenceNumber, Mode: invoice.ModeExpense,
		Destination: in.DestinationLedgerAccount.ref("destination_ledger_account", bad),
	}
	if in.WriteOffMode != nil {
		m, ok := invoice.ParseWriteOffMode(*in.WriteOffMode)
		if !ok {
			bad["write_off_mode"] = "must be EXPENSE or REVENUE_REVERSAL"
		}
		out.Mode = m
	}
	checkTexts(map[string]*string{"external_id": in.ExternalID, "memo": in.Memo, "reference_number": in.ReferenceNumber}, bad)
	kvs, err := tags.NormalizeList("tags", in.Tags)
	if err != nil {
		return app.WriteOffInput{}, err
	}
	out.Tags = kvs
	if len(bad) > 0 {
		return app.WriteOffInput{}, apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(app.EnumInvalidInvoice)
	}
	return out, nil
}
