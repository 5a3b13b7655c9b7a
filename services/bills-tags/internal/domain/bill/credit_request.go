package bill

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// CreditLineInput is a vendor credit's line as sent.
type CreditLineInput struct {
	Amount          money.Cents
	Account         AccountRef // zero: UNCATEGORIZED_EXPENSES
	Memo            *string
	ReferenceNumber *string
	Metadata        json.RawMessage
	Tags            []tags.KeyValue
}

// CreditAllocationInput is an allocations item: the amount of the credit
// applied to the bill.
type CreditAllocationInput struct {
	BillID uuid.UUID
	Amount money.Cents
}

// CreditInput is a checked POST /bills/vendor-credits body.
type CreditInput struct {
	ExternalID       *string
	ReceivedAt       time.Time
	VendorID         *uuid.UUID
	VendorExternalID *string
	Lines            []CreditLineInput
	Allocations      []CreditAllocationInput
	Memo             *string
	ReferenceNumber  *string
	Metadata         json.RawMessage
	Tags             []tags.KeyValue
}

// CreditPatch is a checked PATCH /bills/vendor-credits/{id} body: what
// changes (the external id and the vendor do not).
type CreditPatch struct {
	ReceivedAt      Optional[time.Time]
	Lines           Optional[[]CreditLineInput]
	Allocations     Optional[[]CreditAllocationInput]
	Memo            Optional[*string]
	ReferenceNumber Optional[*string]
	Metadata        Optional[json.RawMessage]
	Tags            Optional[[]tags.KeyValue]
}

type creditLineJSON struct {
	Amount                   json.RawMessage `json:"amount"`
	ExpenseAccountIdentifier *accountJSON    `json:"expense_account_identifier"`
	Memo                     *string         `json:"memo"`
	Metadata                 json.RawMessage `json:"metadata"`
	ReferenceNumber          *string         `json:"reference_number"`
	Tags                     []tags.KeyValue `json:"tags"`
}

type creditAllocationJSON struct {
	Amount json.RawMessage `json:"amount"`
	BillID *uuid.UUID      `json:"bill_id"`
}

type creditJSON struct {
	ExternalID       *string                `json:"external_id"`
	ReceivedAt       *time.Time             `json:"received_at"`
	VendorID         *uuid.UUID             `json:"vendor_id"`
	VendorExternalID *string                `json:"vendor_external_id"`
	LineItems        []creditLineJSON       `json:"line_items"`
	Allocations      []creditAllocationJSON `json:"allocations"`
	Memo             *string                `json:"memo"`
	Metadata         json.RawMessage        `json:"metadata"`
	ReferenceNumber  *string                `json:"reference_number"`
	Tags             []tags.KeyValue        `json:"tags"`
}

func invalidCredit(bad map[string]string) error {
	return apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(EnumInvalidCredit)
}

// creditLines reads the line items (amounts > 0, account, texts, metadata
// and tags checked here).
func creditLines(in []creditLineJSON, bad map[string]string) []CreditLineInput {
	switch n := len(in); {
	case n == 0:
		bad["line_items"] = "at least one line item is required"
	case n > MaxCreditLines:
		bad["line_items"] = fmt.Sprintf("at most %d line items, got %d", MaxCreditLines, n)
	}
	out := make([]CreditLineInput, len(in))
	for i, l := range in {
		f := fmt.Sprintf("line_items[%d]", i)
		li := CreditLineInput{Amount: Cents(f+".amount", l.Amount, true, bad), Memo: trimmed(l.Memo), ReferenceNumber: trimmed(l.ReferenceNumber)}
		if _, given := bad[f+".amount"]; !given && li.Amount <= 0 {
			bad[f+".amount"] = "must be greater than 0"
		}
		if r := l.ExpenseAccountIdentifier.ref(f+".expense_account_identifier", bad); r != nil {
			li.Account = *r
		}
		checkText(f+".memo", li.Memo, 2000, bad)
		checkText(f+".reference_number", li.ReferenceNumber, MaxReferenceChars, bad)
		if md, err := CheckMetadata(f+".metadata", l.Metadata); err != nil {
			bad[f+".metadata"] = "must be a JSON object of at most 1024 bytes"
		} else {
			li.Metadata = md
		}
		kvs, err := tags.NormalizeList(f+".tags", l.Tags)
		if err != nil {
			bad[f+".tags"] = "invalid tags (at most 50 {key, value}; see pkg/tags rules)"
		}
		li.Tags = kvs
		out[i] = li
	}
	return out
}

// creditAllocations reads the allocations (each a bill_id and an amount;
// the sums and balances are CheckAllocations').
func creditAllocations(in []creditAllocationJSON, bad map[string]string) []CreditAllocationInput {
	if len(in) > MaxAllocations {
		bad["allocations"] = fmt.Sprintf("at most %d bills", MaxAllocations)
	}
	out := make([]CreditAllocationInput, len(in))
	for i, a := range in {
		f := fmt.Sprintf("allocations[%d]", i)
		out[i].Amount = Cents(f+".amount", a.Amount, true, bad)
		if a.BillID == nil || *a.BillID == uuid.Nil {
			bad[f+".bill_id"] = "is required"
		} else {
			out[i].BillID = *a.BillID
		}
	}
	return out
}

// ParseCredit reads a create body strictly: received_at, vendor_id or
// vendor_external_id (not both) and at least one line item (amount > 0)
// are required; allocations are checked against the bills by the use
// case. Every violation is named in one 400 InvalidVendorCredit
// (metadata > 1 KB: MetadataTooLarge; bad tags: InvalidTags).
func ParseCredit(body []byte) (CreditInput, error) {
	if !jsonraw.IsObject(bytes.TrimSpace(body)) {
		return CreditInput{}, apperr.PayloadField("body", "must be a JSON object").WithEnum(EnumInvalidCredit)
	}
	var in creditJSON
	if err := decodeStrict(body, &in); err != nil {
		return CreditInput{}, apperr.From(err).WithEnum(EnumInvalidCredit)
	}
	bad := map[string]string{}
	out := CreditInput{
		ExternalID: trimmed(in.ExternalID), VendorID: in.VendorID, VendorExternalID: trimmed(in.VendorExternalID),
		Memo: trimmed(in.Memo), ReferenceNumber: trimmed(in.ReferenceNumber),
		Lines: creditLines(in.LineItems, bad), Allocations: creditAllocations(in.Allocations, bad),
	}
	if in.ReceivedAt == nil || in.ReceivedAt.IsZero() {
		bad["received_at"] = "is required (an ISO 8601 date-time)"
	} else {
		out.ReceivedAt = in.ReceivedAt.UTC().Truncate(time.Microsecond)
	}
	switch {
	case out.VendorID == nil && out.VendorExternalID == nil:
		bad["vendor_id"] = "vendor_id or vendor_external_id is required"
	case out.VendorID != nil && out.VendorExternalID != nil:
		bad["vendor_external_id"] = "send vendor_id or vendor_external_id, not both"
	}
	checkTexts(map[string]*string{"external_id": out.ExternalID, "vendor_external_id": out.VendorExternalID,
		"memo": out.Memo, "reference_number": out.ReferenceNumber}, bad)
	if len(bad) > 0 {
		return CreditInput{}, invalidCredit(bad)
	}
	if _, err := CheckCreditLines(out.Lines); err != nil {
		return CreditInput{}, err
	}
	md, err := CheckMetadata("metadata", in.Metadata)
	if err != nil {
		return CreditInput{}, err
	}
	out.Metadata = md
	if out.Tags, err = tags.NormalizeList("tags", in.Tags); err != nil {
		return CreditInput{}, err
	}
	return out, nil
}

var creditPatchable = map[string]bool{"received_at": true, "line_items": true, "allocations": true, "memo": true,
	"reference_number": true, "metadata": true, "tags": true}

// ParseCreditPatch reads a PATCH body: present properties change (null
// clears memo, reference_number, metadata; allocations [] takes the
// credit off every bill); unknown or immutable ones (external_id,
// vendor_id, vendor_external_id) are 400.
func ParseCreditPatch(body []byte) (CreditPatch, error) {
	b, err := readPatchBody(body, creditPatchable, EnumInvalidCredit)
	if err != nil {
		return CreditPatch{}, err
	}
	m, bad := b.m, b.bad
	var p CreditPatch
	b.text("memo", &p.Memo, 2000)
	b.text("reference_number", &p.ReferenceNumber, MaxReferenceChars)
	b.instant("received_at", &p.ReceivedAt)
	if raw, ok := m["line_items"]; ok {
		var ls []creditLineJSON
		if err := decodeStrict(raw, &ls); err != nil {
			bad["line_items"] = "must be an array of line items with known properties"
		} else {
			p.Lines = Optional[[]CreditLineInput]{Set: true, Value: creditLines(ls, bad)}
		}
	}
	if raw, ok := m["allocations"]; ok {
		var als []creditAllocationJSON
		if err := decodeStrict(raw, &als); err != nil {
			bad["allocations"] = "must be an array of {amount, bill_id}"
		} else {
			p.Allocations = Optional[[]CreditAllocationInput]{Set: true, Value: creditAllocations(als, bad)}
		}
	}
	if len(bad) > 0 {
		return CreditPatch{}, invalidCredit(bad)
	}
	if p.Lines.Set {
		if _, err := CheckCreditLines(p.Lines.Value); err != nil {
			return CreditPatch{}, err
		}
	}
	if err := b.metadataAndTags(&p.Metadata, &p.Tags); err != nil {
		return CreditPatch{}, err
	}
	return p, nil
}

// MaxReferenceNumbers bounds the reference_numbers filter.
const MaxReferenceNumbers = 100

// CreditFilter is GET /bills/vendor-credits's filter; zero fields do not
// filter.
type CreditFilter struct {
	VendorID         *uuid.UUID
	VendorExternalID string
	ReceivedStart    *time.Time
	ReceivedEnd      *time.Time
	ReferenceNumber  string
	ReferenceNumbers []string // any of them (sorted, distinct)
	Memo             string
	MemoContains     string
}

// ParseCreditFilter reads the listing filters: vendor_id,
// vendor_external_id, received_at_start/_end (date-times or dates; an end
// date is the whole day), reference_number (exact), reference_numbers (a
// comma list, any of them), memo (exact), memo_contains (a substring,
// case-insensitive). Every bad value is named in one 400 InvalidFilter.
func ParseCreditFilter(q url.Values) (CreditFilter, error) {
	bf, err := ParseFilter(url.Values{"vendor_id": q["vendor_id"], "vendor_external_id": q["vendor_external_id"],
		"received_at_start": q["received_at_start"], "received_at_end": q["received_at_end"], "reference_number": q["reference_number"]})
	bad := map[string]string{}
	if err != nil {
		if fs, ok := apperr.From(err).Meta["fields"].(map[string]string); ok {
			for k, v := range fs {
				bad[k] = v
			}
		} else {
			return CreditFilter{}, err
		}
	}
	f := CreditFilter{VendorID: bf.VendorID, VendorExternalID: bf.VendorExternalID, ReceivedStart: bf.ReceivedStart,
		ReceivedEnd: bf.ReceivedEnd, ReferenceNumber: bf.ReferenceNumber,
		Memo: strings.TrimSpace(q.Get("memo")), MemoContains: strings.TrimSpace(q.Get("memo_contains"))}
	for _, v := range q["reference_numbers"] {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" && !slices.Contains(f.ReferenceNumbers, s) {
				f.ReferenceNumbers = append(f.ReferenceNumbers, s)
			}
			if utf8.RuneCountInString(s) > MaxReferenceChars {
				bad["reference_numbers"] = "each at most 255 characters"
			}
		}
	}
	slices.Sort(f.ReferenceNumbers)
	if len(f.ReferenceNumbers) > MaxReferenceNumbers {
		bad["reference_numbers"] = fmt.Sprintf("at most %d reference numbers", MaxReferenceNumbers)
	}
	for k, s := range map[string]string{"memo": f.Memo, "memo_contains": f.MemoContains} {
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) || utf8.RuneCountInString(s) > 2000 {
			bad[k] = "at most 2000 characters of valid UTF-8"
		}
	}
	if len(bad) > 0 {
		return CreditFilter{}, apperr.FieldErrors(apperr.InvalidParameters, bad).WithEnum(EnumInvalidFilter)
	}
	return f, nil
}

// Fingerprint binds a cursor to the filter it was issued for.
func (f CreditFilter) Fingerprint() string {
	ts := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.Format(time.RFC3339Nano)
	}
	vid := ""
	if f.VendorID != nil {
		vid = f.VendorID.String()
	}
	s, _ := json.Marshal([]any{"vc1", vid, f.VendorExternalID, ts(f.ReceivedStart), ts(f.ReceivedEnd), f.ReferenceNumber,
		f.ReferenceNumbers, f.Memo, f.MemoContains})
	sum := sha256.Sum256(s)
	return hex.EncodeToString(sum[:16])
}
