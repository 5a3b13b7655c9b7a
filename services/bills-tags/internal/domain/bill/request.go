package bill

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// Input is a checked POST /bills body (or one bill of /bills/bulk).
type Input struct {
	ExternalID       *string
	BillNumber       *string
	ReceivedAt       time.Time
	DueAt            *time.Time // given, or computed from Terms
	VendorID         *uuid.UUID
	VendorExternalID *string
	Lines            []LineInput
	Additional       []SalesTax
	Memo             *string
	ReferenceNumber  *string
	Metadata         json.RawMessage
	Tags             []tags.KeyValue
}

// Optional is a patch property: absent (Set false) or given.
type Optional[T any] struct {
	Set   bool
	Value T
}

// Patch is a checked PATCH /bills/{id} body: what to change.
type Patch struct {
	BillNumber       Optional[*string]
	ReceivedAt       Optional[time.Time]
	DueAt            Optional[*time.Time]
	Terms            Optional[Terms]
	VendorID         Optional[*uuid.UUID]
	VendorExternalID Optional[*string]
	Lines            Optional[[]LineInput]
	Additional       Optional[[]SalesTax]
	Memo             Optional[*string]
	ReferenceNumber  Optional[*string]
	Metadata         Optional[json.RawMessage]
	Tags             Optional[[]tags.KeyValue]
}

type accountJSON struct {
	Type       string     `json:"type"`
	ID         *uuid.UUID `json:"id"`
	StableName *string    `json:"stable_name"`
	Name       *string    `json:"name"` // Tax_Name only
}

func (a *accountJSON) ref(field string, bad map[string]string) *AccountRef {
	if a == nil {
		return nil
	}
	switch a.Type {
	case "AccountId":
		if a.ID == nil || a.StableName != nil || a.Name != nil {
			bad[field] = `an AccountId takes "id" (a uuid) only`
			return nil
		}
		id := *a.ID
		return &AccountRef{ID: &id}
	case "StableName":
		if a.StableName == nil || strings.TrimSpace(*a.StableName) == "" || a.ID != nil || a.Name != nil {
			bad[field] = `a StableName takes a non-blank "stable_name" only`
			return nil
		}
		return &AccountRef{StableName: strings.TrimSpace(*a.StableName)}
	}
	bad[field+".type"] = `must be "AccountId" or "StableName"`
	return nil
}

type salesTaxJSON struct {
	TaxAccount *accountJSON    `json:"tax_account"`
	Amount     json.RawMessage `json:"amount"`
}

type lineJSON struct {
	ExternalID                  *string         `json:"external_id"`
	ProductName                 *string         `json:"product_name"`
	Description                 *string         `json:"description"`
	UnitPrice                   json.RawMessage `json:"unit_price"`
	Quantity                    json.RawMessage `json:"quantity"`
	DiscountAmount              json.RawMessage `json:"discount_amount"`
	AccountIdentifier           *accountJSON    `json:"account_identifier"`
	PrepaymentAccountIdentifier *accountJSON    `json:"prepayment_account_identifier"`
	SalesTaxes                  []salesTaxJSON  `json:"sales_taxes"`
	Tags                        []tags.KeyValue `json:"tags"`
}

type billJSON struct {
	ExternalID           *string         `json:"external_id"`
	BillNumber           *string         `json:"bill_number"`
	ReceivedAt           *time.Time      `json:"received_at"`
	DueAt                *time.Time      `json:"due_at"`
	BillTerms            *string         `json:"bill_terms"`
	VendorID             *uuid.UUID      `json:"vendor_id"`
	VendorExternalID     *string         `json:"vendor_external_id"`
	LineItems            []lineJSON      `json:"line_items"`
	AdditionalSalesTaxes []salesTaxJSON  `json:"additional_sales_taxes"`
	Memo                 *string         `json:"memo"`
	Metadata             json.RawMessage `json:"metadata"`
	ReferenceNumber      *string         `json:"reference_number"`
	Tags                 []tags.KeyValue `json:"tags"`
}

// Cents reads an amount in cents sent as a JSON number or a string of
// digits into bad's field when it is not; absent is 0 unless required.
func Cents(field string, raw json.RawMessage, required bool, bad map[string]string) money.Cents {
	if len(raw) == 0 || jsonraw.IsNull(raw) {
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

func taxes(field string, in []salesTaxJSON, bad map[string]string) []SalesTax {
	out := make([]SalesTax, 0, len(in))
	for i, t := range in {
		f := fmt.Sprintf("%s[%d]", field, i)
		st := SalesTax{Amount: Cents(f+".amount", t.Amount, true, bad)}
		if ta := t.TaxAccount; ta != nil {
			if ta.Type == "Tax_Name" {
				if ta.Name == nil || ta.ID != nil || ta.StableName != nil {
					bad[f+".tax_account"] = `a Tax_Name takes "name" only`
				} else {
					st.TaxName = *ta.Name
					if strings.TrimSpace(st.TaxName) == "" {
						bad[f+".tax_account.name"] = "must not be blank"
					}
				}
			} else {
				st.Account = ta.ref(f+".tax_account", bad)
			}
		}
		out = append(out, st)
	}
	return out
}

func lines(in []lineJSON, bad map[string]string) []LineInput {
	out := make([]LineInput, len(in))
	for i, l := range in {
		f := fmt.Sprintf("line_items[%d]", i)
		li := LineInput{
			ExternalID: trimmed(l.ExternalID), ProductName: trimmed(l.ProductName), Description: trimmed(l.Description), Tags: l.Tags,
			UnitPrice:      Cents(f+".unit_price", l.UnitPrice, true, bad),
			DiscountAmount: Cents(f+".discount_amount", l.DiscountAmount, false, bad),
			SalesTaxes:     taxes(f+".sales_taxes", l.SalesTaxes, bad),
		}
		if r := l.AccountIdentifier.ref(f+".account_identifier", bad); r != nil {
			li.Account = *r
		}
		li.PrepaymentAccount = l.PrepaymentAccountIdentifier.ref(f+".prepayment_account_identifier", bad)
		switch q := bytes.TrimSpace(l.Quantity); {
		case len(q) == 0 || jsonraw.IsNull(q):
			li.Quantity, _ = money.QuantityOf(1)
		default:
			qty, err := money.ParseJSONQuantity(q)
			if err != nil {
				bad[f+".quantity"] = "must be a decimal number (a number or a string, at most 6 decimal places)"
			}
			li.Quantity = qty
		}
		out[i] = li
	}
	return out
}

func trimmed(p *string) *string {
	if p == nil {
		return nil
	}
	s := strings.TrimSpace(*p)
	if s == "" {
		return nil
	}
	return &s
}

// textLimits bound the bill's own texts, in characters.
var textLimits = map[string]int{"external_id": 255, "bill_number": 255, "vendor_external_id": 255, "memo": 2000, "reference_number": MaxReferenceChars}

func checkTexts(vals map[string]*string, bad map[string]string) {
	for k, v := range vals {
		checkText(k, v, textLimits[k], bad)
	}
}

// CheckMetadata is the spec's rule: a JSON object of at most 1 KB (null is
// none).
func CheckMetadata(field string, raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || jsonraw.IsNull(raw) {
		return nil, nil
	}
	if len(raw) > MaxMetadataBytes {
		return nil, apperr.PayloadField(field, fmt.Sprintf("at most %d bytes of JSON", MaxMetadataBytes)).WithEnum(EnumMetadataTooLarge)
	}
	if !jsonraw.IsObject(raw) {
		return nil, apperr.PayloadField(field, "must be a JSON object").WithEnum(EnumInvalidBill)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, apperr.PayloadField(field, "must be a JSON object").WithEnum(EnumInvalidBill)
	}
	// Stored as jsonb: NUL, unpaired surrogates and invalid UTF-8 are the
	// caller's 400, not the database's 500.
	if reason := jsonraw.StorableReason(compact.Bytes()); reason != "" {
		return nil, apperr.PayloadField(field, reason).WithEnum(EnumInvalidBill)
	}
	return compact.Bytes(), nil
}

// decodeStrict decodes one JSON value into v, refusing unknown properties
// and trailing data.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return apperr.PayloadField("body", strings.TrimPrefix(err.Error(), "json: ")).WithEnum(EnumInvalidBill)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apperr.PayloadField("body", "unexpected data after the JSON value").WithEnum(EnumInvalidBill)
	}
	return nil
}

func parseTerms(raw *string, bad map[string]string) Terms {
	if raw == nil {
		return ""
	}
	t := Terms(strings.ToUpper(strings.TrimSpace(*raw)))
	if !t.Valid() {
		bad["bill_terms"] = "must be DUE_ON_RECEIPT, NET_10, NET_15, NET_30 or NET_60"
		return ""
	}
	return t
}

// ParseInput reads a create body strictly: received_at is required;
// vendor_id or vendor_external_id (not both); due_at or bill_terms (not
// both; terms compute the due date); line_items at least one (Compute
// checks their amounts); metadata a JSON object ≤ 1 KB; tags pkg/tags
// rules. Every violation is named in one 400 InvalidBill.
func ParseInput(body []byte) (Input, error) {
	if !jsonraw.IsObject(bytes.TrimSpace(body)) {
		return Input{}, apperr.PayloadField("body", "must be a JSON object").WithEnum(EnumInvalidBill)
	}
	var in billJSON
	if err := decodeStrict(body, &in); err != nil {
		return Input{}, err
	}
	return in.input()
}

func (in billJSON) input() (Input, error) {
	bad := map[string]string{}
	if in.ReceivedAt == nil || in.ReceivedAt.IsZero() {
		bad["received_at"] = "is required (an ISO 8601 date-time)"
	}
	in.VendorExternalID = trimmed(in.VendorExternalID)
	switch {
	case in.VendorID == nil && in.VendorExternalID == nil:
		bad["vendor_id"] = "vendor_id or vendor_external_id is required"
	case in.VendorID != nil && in.VendorExternalID != nil:
		bad["vendor_external_id"] = "send vendor_id or vendor_external_id, not both"
	}
	terms := parseTerms(in.BillTerms, bad)
	if terms != "" && in.DueAt != nil {
		bad["bill_terms"] = "send due_at or bill_terms, not both"
	}
	out := Input{
		ExternalID: trimmed(in.ExternalID), BillNumber: trimmed(in.BillNumber), DueAt: in.DueAt, VendorID: in.VendorID,
		VendorExternalID: in.VendorExternalID, Memo: trimmed(in.Memo), ReferenceNumber: trimmed(in.ReferenceNumber),
		Lines: lines(in.LineItems, bad), Additional: taxes("additional_sales_taxes", in.AdditionalSalesTaxes, bad),
	}
	if in.ReceivedAt != nil {
		out.ReceivedAt = in.ReceivedAt.UTC().Truncate(time.Microsecond)
		if terms != "" {
			d := terms.DueAt(out.ReceivedAt)
			out.DueAt = &d
		}
	}
	if out.DueAt != nil {
		d := out.DueAt.UTC().Truncate(time.Microsecond)
		out.DueAt = &d
		if in.ReceivedAt != nil && d.Before(out.ReceivedAt) {
			bad["due_at"] = "must not be before received_at"
		}
	}
	checkTexts(map[string]*string{"external_id": out.ExternalID, "bill_number": out.BillNumber,
		"vendor_external_id": out.VendorExternalID, "memo": out.Memo, "reference_number": out.ReferenceNumber}, bad)
	if len(bad) > 0 {
		return Input{}, invalid(bad)
	}
	md, err := CheckMetadata("metadata", in.Metadata)
	if err != nil {
		return Input{}, err
	}
	out.Metadata = md
	kvs, err := tags.NormalizeList("tags", in.Tags)
	if err != nil {
		return Input{}, err
	}
	out.Tags = kvs
	return out, nil
}

// MaxBulk bounds POST /bills/bulk.
const MaxBulk = 100

// ParseBulk reads POST /bills/bulk: {"bills": [bill, ...]} (1 to MaxBulk)
// or a bare array of bills. A violation names its bill (bills[2].…).
func ParseBulk(body []byte) ([]Input, error) {
	body = bytes.TrimSpace(body)
	var items []json.RawMessage
	if jsonraw.IsObject(body) {
		var w struct {
			Bills []json.RawMessage `json:"bills"`
		}
		if err := decodeStrict(body, &w); err != nil {
			return nil, err
		}
		items = w.Bills
	} else if err := json.Unmarshal(body, &items); err != nil || len(body) == 0 || body[0] != '[' {
		return nil, apperr.PayloadField("bills", "must be an array of bills (or {\"bills\": [...]})").WithEnum(EnumInvalidBill)
	}
	if len(items) == 0 || len(items) > MaxBulk {
		return nil, apperr.PayloadField("bills", fmt.Sprintf("1 to %d bills", MaxBulk)).WithEnum(EnumInvalidBill)
	}
	out := make([]Input, len(items))
	for i, raw := range items {
		in, err := ParseInput(raw)
		if err != nil {
			e := apperr.From(err)
			if fields, ok := e.Meta["fields"].(map[string]string); ok {
				prefixed := make(map[string]string, len(fields))
				for k, v := range fields {
					prefixed[fmt.Sprintf("bills[%d].%s", i, k)] = v
				}
				e.Meta["fields"] = prefixed
			}
			return nil, e
		}
		out[i] = in
	}
	return out, nil
}

// patchable are the properties a patch may have (a bill keeps its
// external_id).
var patchable = map[string]bool{"bill_number": true, "received_at": true, "due_at": true, "bill_terms": true,
	"vendor_id": true, "vendor_external_id": true, "line_items": true, "additional_sales_taxes": true, "memo": true,
	"metadata": true, "reference_number": true, "tags": true}

// ParsePatch reads a PATCH /bills/{id} (or POST /update) body: present
// properties change (null clears a nullable one); unknown or immutable
// ones (external_id) are 400.
func ParsePatch(body []byte) (Patch, error) {
	b, err := readPatchBody(body, patchable, EnumInvalidBill)
	if err != nil {
		return Patch{}, err
	}
	m, bad := b.m, b.bad
	var p Patch
	b.text("bill_number", &p.BillNumber, 0)
	b.text("memo", &p.Memo, 0)
	b.text("reference_number", &p.ReferenceNumber, 0)
	b.text("vendor_external_id", &p.VendorExternalID, 0)
	checkTexts(map[string]*string{"bill_number": p.BillNumber.Value, "memo": p.Memo.Value,
		"reference_number": p.ReferenceNumber.Value, "vendor_external_id": p.VendorExternalID.Value}, bad)
	b.instant("received_at", &p.ReceivedAt)
	if raw, ok := m["due_at"]; ok {
		p.DueAt.Set = true
		if err := json.Unmarshal(raw, &p.DueAt.Value); err != nil {
			bad["due_at"] = "must be an ISO 8601 date-time or null"
		} else if p.DueAt.Value != nil {
			d := p.DueAt.Value.UTC().Truncate(time.Microsecond)
			p.DueAt.Value = &d
		}
	}
	if raw, ok := m["bill_terms"]; ok {
		var s *string
		if err := json.Unmarshal(raw, &s); err != nil || s == nil {
			bad["bill_terms"] = "must be DUE_ON_RECEIPT, NET_10, NET_15, NET_30 or NET_60"
		} else if t := parseTerms(s, bad); t != "" {
			p.Terms = Optional[Terms]{Set: true, Value: t}
		}
		if p.DueAt.Set {
			bad["bill_terms"] = "send due_at or bill_terms, not both"
		}
	}
	if raw, ok := m["vendor_id"]; ok {
		p.VendorID.Set = true
		if err := json.Unmarshal(raw, &p.VendorID.Value); err != nil || p.VendorID.Value == nil {
			bad["vendor_id"] = "must be a vendor id (uuid); a bill always has a vendor"
		}
	}
	if p.VendorExternalID.Set && p.VendorExternalID.Value == nil {
		bad["vendor_external_id"] = "must not be null or blank: a bill always has a vendor"
	}
	if p.VendorID.Set && p.VendorExternalID.Set {
		bad["vendor_external_id"] = "send vendor_id or vendor_external_id, not both"
	}
	if raw, ok := m["line_items"]; ok {
		var ls []lineJSON
		if err := decodeStrict(raw, &ls); err != nil {
			bad["line_items"] = "must be an array of line items with known properties"
		} else {
			p.Lines = Optional[[]LineInput]{Set: true, Value: lines(ls, bad)}
		}
	}
	if raw, ok := m["additional_sales_taxes"]; ok {
		var ts []salesTaxJSON
		if err := decodeStrict(raw, &ts); err != nil {
			bad["additional_sales_taxes"] = "must be an array of {tax_account, amount}"
		} else {
			p.Additional = Optional[[]SalesTax]{Set: true, Value: taxes("additional_sales_taxes", ts, bad)}
		}
	}
	if len(bad) > 0 {
		return Patch{}, invalid(bad)
	}
	if err := b.metadataAndTags(&p.Metadata, &p.Tags); err != nil {
		return Patch{}, err
	}
	if p.Tags.Set && p.Tags.Value == nil {
		p.Tags.Value = []tags.KeyValue{}
	}
	return p, nil
}

// DecodeStrict decodes one JSON value into v, refusing unknown properties
// and trailing data (a 400 naming "body").
func DecodeStrict(raw []byte, v any) error { return decodeStrict(raw, v) }
