package invoice

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// Input is a checked POST /invoices body; the amounts' rules are
// Compute's.
type Input struct {
	ExternalID                *string
	InvoiceNumber             *string
	SentAt                    *time.Time
	DueAt                     *time.Time
	CustomerID                *uuid.UUID
	CustomerExternalID        *string
	Memo                      *string
	CustomPaymentInstructions *string
	ReferenceNumber           *string
	Metadata                  json.RawMessage
	Tags                      []tags.KeyValue
	Draft                     Draft
	// AsDraft: the invoice is created as a DRAFT (status "DRAFT" in the
	// body): it posts nothing until it is finalized.
	AsDraft bool
}

// Check is the create's rules that need no stored state: sent_at is
// required (except for a draft), metadata is CheckMetadata's.
func (in Input) Check() error {
	if in.SentAt == nil && !in.AsDraft {
		return errSentAtRequired()
	}
	return CheckMetadata(in.Metadata)
}

func errSentAtRequired() error {
	return apperr.PayloadField("sent_at", "is required").WithEnum(EnumInvalidInvoice)
}

// Optional is a patch property: Set when the request named it (Value may
// be the zero value: null clears).
type Optional[T any] struct {
	Set   bool
	Value T
}

// Patch is a checked PATCH /invoices/{id} body: the properties named
// change; Lines (when set) replace the whole draft's lines.
type Patch struct {
	InvoiceNumber             Optional[*string]
	SentAt                    Optional[time.Time]
	DueAt                     Optional[*time.Time]
	CustomerID                Optional[*uuid.UUID]
	CustomerExternalID        Optional[*string]
	Memo                      Optional[*string]
	CustomPaymentInstructions Optional[*string]
	ReferenceNumber           Optional[*string]
	Metadata                  Optional[json.RawMessage]
	Tags                      Optional[[]tags.KeyValue]
	Lines                     Optional[[]LineInput]
	AdditionalDiscount        Optional[money.Cents]
	AdditionalSalesTaxes      Optional[[]SalesTax]
	Tips                      Optional[money.Cents]
}

// Check is the patch's rules that need no stored state: metadata, when
// named, is CheckMetadata's.
func (p Patch) Check() error {
	if p.Metadata.Set {
		return CheckMetadata(p.Metadata.Value)
	}
	return nil
}

// Empty reports a patch naming no property.
func (p Patch) Empty() bool {
	return !(p.InvoiceNumber.Set || p.SentAt.Set || p.DueAt.Set || p.CustomerID.Set || p.CustomerExternalID.Set ||
		p.Memo.Set || p.CustomPaymentInstructions.Set || p.ReferenceNumber.Set || p.Metadata.Set || p.Tags.Set ||
		p.Lines.Set || p.AdditionalDiscount.Set || p.AdditionalSalesTaxes.Set || p.Tips.Set)
}

// Amounts is base with the amounts the patch names (lines, additional
// discount and taxes, tips); ok reports whether it names any.
func (p Patch) Amounts(base Draft) (d Draft, ok bool) {
	if !(p.Lines.Set || p.AdditionalDiscount.Set || p.AdditionalSalesTaxes.Set || p.Tips.Set) {
		return base, false
	}
	d = base
	if p.Lines.Set {
		d.Lines = p.Lines.Value
	}
	if p.AdditionalDiscount.Set {
		d.AdditionalDiscount = p.AdditionalDiscount.Value
	}
	if p.AdditionalSalesTaxes.Set {
		d.AdditionalSalesTaxes = p.AdditionalSalesTaxes.Value
	}
	if p.Tips.Set {
		d.Tips = p.Tips.Value
	}
	return d, true
}

// Customer is the customer the patch gives an invoice whose customer is
// current: by id, by external id, or both (named false when the patch
// names neither). A customer_external_id alone replaces the customer, id
// included.
func (p Patch) Customer(current *uuid.UUID) (id *uuid.UUID, externalID *string, named bool) {
	if !p.CustomerID.Set && !p.CustomerExternalID.Set {
		return nil, nil, false
	}
	id = current
	if p.CustomerID.Set {
		id = p.CustomerID.Value
	}
	if p.CustomerExternalID.Set {
		externalID = p.CustomerExternalID.Value
		if !p.CustomerID.Set {
			id = nil
		}
	}
	return id, externalID, true
}

// CheckMetadata is the spec's rule on metadata: a JSON object of at most
// 1 KB that PostgreSQL's jsonb can hold (null or absent is none).
func CheckMetadata(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if len(raw) > MaxMetadataBytes {
		return apperr.PayloadField("metadata", fmt.Sprintf("at most %d bytes of JSON", MaxMetadataBytes)).
			WithEnum(EnumMetadataTooLarge)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return apperr.PayloadField("metadata", "must be a JSON object").WithEnum(EnumInvalidInvoice)
	}
	// Stored as jsonb: NUL, unpaired surrogates and invalid UTF-8 are the
	// caller's 400, not the database's 500.
	if reason := jsonraw.StorableReason(raw); reason != "" {
		return apperr.PayloadField("metadata", reason).WithEnum(EnumInvalidInvoice)
	}
	return nil
}

// accountIdentJSON is an AccountIdentifier: {type: "AccountId", id} or
// {type: "StableName", stable_name}.
type accountIdentJSON struct {
	Type       string     `json:"type"`
	ID         *uuid.UUID `json:"id"`
	StableName *string    `json:"stable_name"`
}

// ref checks a sent identifier and returns it (field names it in errors).
func (a *accountIdentJSON) ref(field string, bad map[string]string) AccountRef {
	if a == nil {
		return AccountRef{}
	}
	switch a.Type {
	case "AccountId":
		if a.ID == nil || a.StableName != nil {
			bad[field] = `an AccountId takes "id" (a uuid) only`
			return AccountRef{}
		}
		return AccountID(*a.ID)
	case "StableName":
		if a.StableName == nil || strings.TrimSpace(*a.StableName) == "" || a.ID != nil {
			bad[field] = `a StableName takes "stable_name" only`
			return AccountRef{}
		}
		return StableName(strings.TrimSpace(*a.StableName))
	}
	bad[field+".type"] = `must be "AccountId" or "StableName"`
	return AccountRef{}
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

func salesTaxes(field string, in []salesTaxJSON, bad map[string]string) []SalesTax {
	out := make([]SalesTax, 0, len(in))
	for i, t := range in {
		f := fmt.Sprintf("%s[%d]", field, i)
		st := SalesTax{Amount: cents(f+".amount", t.Amount, true, bad)}
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

func lineInputs(in []lineJSON, bad map[string]string) []LineInput {
	out := make([]LineInput, len(in))
	for i, l := range in {
		f := fmt.Sprintf("line_items[%d]", i)
		li := LineInput{
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

// InvoiceBody is POST /invoices's body as the transport decodes it
// (strictly: unknown properties are refused there); Input checks it.
type InvoiceBody struct {
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
	// Status is DRAFT to create a draft (SENT, the default, sends it).
	Status *string `json:"status"`
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

// invalidRequest is the 400 of a request body naming every offending
// field.
func invalidRequest(bad map[string]string) error {
	return apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(EnumInvalidInvoice)
}

// Input checks a create body: sent_at is required, customer_id or
// customer_external_id (a blank one is refused, the other trimmed), texts
// within their limits and without NUL, amounts whole cents, account
// identifiers well formed, tags pkg/tags' rules. Every violation is named
// in one 400 InvalidInvoice (tags: pkg/tags' error).
func (b InvoiceBody) Input() (Input, error) {
	bad := map[string]string{}
	draft := false
	if b.Status != nil {
		switch Status(*b.Status) {
		case DraftStatus:
			draft = true
		case Sent:
		default:
			bad["status"] = "must be DRAFT or SENT"
		}
	}
	if b.SentAt == nil && !draft {
		bad["sent_at"] = "is required (except for a DRAFT)"
	}
	if b.CustomerID == nil && b.CustomerExternalID == nil {
		bad["customer_id"] = "customer_id or customer_external_id is required"
	}
	b.CustomerExternalID = externalRef("customer_external_id", b.CustomerExternalID, bad)
	checkTexts(map[string]*string{"external_id": b.ExternalID, "invoice_number": b.InvoiceNumber,
		"customer_external_id": b.CustomerExternalID, "memo": b.Memo,
		"custom_payment_instructions": b.CustomPaymentInstructions, "reference_number": b.ReferenceNumber}, bad)
	kvs, err := tags.NormalizeList("tags", b.Tags)
	if err != nil {
		return Input{}, err
	}
	out := Input{
		ExternalID: b.ExternalID, InvoiceNumber: b.InvoiceNumber, SentAt: b.SentAt, DueAt: b.DueAt,
		CustomerID: b.CustomerID, CustomerExternalID: b.CustomerExternalID, Memo: b.Memo,
		CustomPaymentInstructions: b.CustomPaymentInstructions, ReferenceNumber: b.ReferenceNumber,
		Metadata: b.Metadata, Tags: kvs, AsDraft: draft,
		Draft: Draft{
			Lines:                lineInputs(b.LineItems, bad),
			AdditionalDiscount:   cents("additional_discount", b.AdditionalDiscount, false, bad),
			AdditionalSalesTaxes: salesTaxes("additional_sales_taxes", b.AdditionalSalesTaxes, bad),
			Tips:                 cents("tips", b.Tips, false, bad),
		},
	}
	if len(bad) > 0 {
		return Input{}, invalidRequest(bad)
	}
	return out, nil
}

// patchProperties are what PATCH /invoices/{id} may change.
var patchProperties = map[string]bool{
	"invoice_number": true, "sent_at": true, "due_at": true, "customer_id": true, "customer_external_id": true,
	"line_items": true, "additional_discount": true, "additional_sales_taxes": true, "tips": true, "memo": true,
	"custom_payment_instructions": true, "reference_number": true, "metadata": true, "tags": true,
}

// PatchBody is a PATCH /invoices/{id} body as the transport decodes it: a
// JSON object's properties; Patch checks them.
type PatchBody map[string]json.RawMessage

// Patch checks a patch body: the properties present change (null clears
// a nullable one; sent_at cannot be cleared); unknown properties,
// external_id included (an invoice keeps its external id), are refused;
// the values follow the create's rules. Every violation is named in one
// 400 InvalidInvoice (tags: pkg/tags' error).
func (b PatchBody) Patch() (Patch, error) {
	m := b
	bad := map[string]string{}
	for k := range m {
		if !patchProperties[k] {
			bad[k] = "unknown or immutable property"
		}
	}
	var p Patch
	str := func(k string, dst *Optional[*string]) {
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
		p.Metadata = Optional[json.RawMessage]{Set: true, Value: raw}
	}
	if raw, ok := m["tags"]; ok {
		var kvs []tags.KeyValue
		if err := json.Unmarshal(raw, &kvs); err != nil {
			bad["tags"] = "must be a list of {key, value}"
		} else if n, err := tags.NormalizeList("tags", kvs); err != nil {
			return Patch{}, err
		} else {
			p.Tags = Optional[[]tags.KeyValue]{Set: true, Value: n}
		}
	}
	if raw, ok := m["line_items"]; ok {
		var ls []lineJSON
		if err := decodeStrict(raw, &ls); err != nil {
			bad["line_items"] = err.Error()
		} else {
			p.Lines = Optional[[]LineInput]{Set: true, Value: lineInputs(ls, bad)}
		}
	}
	if raw, ok := m["additional_sales_taxes"]; ok {
		var ts []salesTaxJSON
		if err := decodeStrict(raw, &ts); err != nil {
			bad["additional_sales_taxes"] = err.Error()
		} else {
			p.AdditionalSalesTaxes = Optional[[]SalesTax]{Set: true, Value: salesTaxes("additional_sales_taxes", ts, bad)}
		}
	}
	if raw, ok := m["additional_discount"]; ok {
		p.AdditionalDiscount = Optional[money.Cents]{Set: true, Value: cents("additional_discount", raw, false, bad)}
	}
	if raw, ok := m["tips"]; ok {
		p.Tips = Optional[money.Cents]{Set: true, Value: cents("tips", raw, false, bad)}
	}
	if len(bad) > 0 {
		return Patch{}, invalidRequest(bad)
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

// ParseInvoice reads an invoice create body: decoded strictly (an unknown
// property, a wrong type or malformed JSON is a 400 naming it), then
// checked (InvoiceBody.Input).
func ParseInvoice(raw []byte) (Input, error) {
	var b InvoiceBody
	if err := jsonraw.Decode(raw, &b); err != nil {
		return Input{}, err
	}
	return b.Input()
}

// ParsePatch reads an invoice patch body: decoded strictly, then checked
// (PatchBody.Patch).
func ParsePatch(raw []byte) (Patch, error) {
	var b PatchBody
	if err := jsonraw.Decode(raw, &b); err != nil {
		return Patch{}, err
	}
	return b.Patch()
}
