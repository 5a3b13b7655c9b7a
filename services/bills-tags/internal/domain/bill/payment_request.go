package bill

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// AllocationInput is a bill_payment_allocations item: a bill by id or
// external id, the amount paid on it, and its own texts and tags.
type AllocationInput struct {
	BillID          *uuid.UUID
	BillExternalID  *string
	Amount          money.Cents
	Memo            *string
	ReferenceNumber *string
	Metadata        json.RawMessage
	Tags            []tags.KeyValue
}

// PaymentInput is a checked POST /bills/bill-payments body.
type PaymentInput struct {
	ExternalID      *string
	PaidAt          time.Time
	Method          Method
	Amount          money.Cents
	Processor       *string
	Clearing        AccountRef // zero: BANK_ACCOUNTS
	Memo            *string
	ReferenceNumber *string
	Metadata        json.RawMessage
	Tags            []tags.KeyValue
	Allocations     []AllocationInput
}

// PaymentPatch is a checked POST /bills/bill-payments/{id}/update body:
// what changes (the external id does not).
type PaymentPatch struct {
	PaidAt          Optional[time.Time]
	Method          Optional[Method]
	Amount          Optional[money.Cents]
	Processor       Optional[*string]
	Clearing        Optional[AccountRef]
	Memo            Optional[*string]
	ReferenceNumber Optional[*string]
	Metadata        Optional[json.RawMessage]
	Tags            Optional[[]tags.KeyValue]
	Allocations     Optional[[]AllocationInput]
}

type allocationJSON struct {
	Amount          json.RawMessage `json:"amount"`
	BillID          *uuid.UUID      `json:"bill_id"`
	BillExternalID  *string         `json:"bill_external_id"`
	Memo            *string         `json:"memo"`
	Metadata        json.RawMessage `json:"metadata"`
	ReferenceNumber *string         `json:"reference_number"`
	Tags            []tags.KeyValue `json:"tags"`
}

type paymentJSON struct {
	ExternalID      *string          `json:"external_id"`
	PaidAt          *time.Time       `json:"paid_at"`
	Method          *string          `json:"method"`
	Amount          json.RawMessage  `json:"amount"`
	Processor       *string          `json:"processor"`
	ClearingAccount *accountJSON     `json:"payment_clearing_account_identifier"`
	Allocations     []allocationJSON `json:"bill_payment_allocations"`
	Memo            *string          `json:"memo"`
	Metadata        json.RawMessage  `json:"metadata"`
	ReferenceNumber *string          `json:"reference_number"`
	Tags            []tags.KeyValue  `json:"tags"`
}

func invalidPayment(bad map[string]string) error {
	return apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(EnumInvalidPayment)
}

func parseMethod(raw *string, bad map[string]string) Method {
	if raw == nil {
		bad["method"] = "is required: CASH, CHECK, CREDIT_CARD, ACH, CREDIT_BALANCE or OTHER"
		return ""
	}
	m, ok := ParseMethod(*raw)
	if !ok {
		bad["method"] = "must be CASH, CHECK, CREDIT_CARD, ACH, CREDIT_BALANCE or OTHER"
	}
	return m
}

// allocations reads the allocation items (their metadata and tags
// checked here; amounts against the bills by CheckAllocations).
func allocations(in []allocationJSON, bad map[string]string) []AllocationInput {
	out := make([]AllocationInput, len(in))
	for i, a := range in {
		f := fmt.Sprintf("bill_payment_allocations[%d]", i)
		al := AllocationInput{
			BillID: a.BillID, BillExternalID: trimmed(a.BillExternalID), Amount: Cents(f+".amount", a.Amount, true, bad),
			Memo: trimmed(a.Memo), ReferenceNumber: trimmed(a.ReferenceNumber),
		}
		if al.BillID == nil && al.BillExternalID == nil {
			bad[f+".bill_id"] = "bill_id or bill_external_id is required"
		}
		checkText(f+".memo", al.Memo, 2000, bad)
		checkText(f+".reference_number", al.ReferenceNumber, MaxReferenceChars, bad)
		checkText(f+".bill_external_id", al.BillExternalID, 255, bad)
		if md, err := CheckMetadata(f+".metadata", a.Metadata); err != nil {
			bad[f+".metadata"] = "must be a JSON object of at most 1024 bytes"
		} else {
			al.Metadata = md
		}
		kvs, err := tags.NormalizeList(f+".tags", a.Tags)
		if err != nil {
			bad[f+".tags"] = "invalid tags (at most 50 {key, value}; see pkg/tags rules)"
		}
		al.Tags = kvs
		out[i] = al
	}
	return out
}

// ParsePayment reads a create body strictly: paid_at, method and amount
// (> 0) are required, bill_payment_allocations at least one (each a bill
// by id or external id); the sums and balances are the use case's.
// Every violation is named in one 400 InvalidBillPayment.
func ParsePayment(body []byte) (PaymentInput, error) {
	if !jsonraw.IsObject(bytes.TrimSpace(body)) {
		return PaymentInput{}, apperr.PayloadField("body", "must be a JSON object").WithEnum(EnumInvalidPayment)
	}
	var in paymentJSON
	if err := decodeStrict(body, &in); err != nil {
		return PaymentInput{}, apperr.From(err).WithEnum(EnumInvalidPayment)
	}
	bad := map[string]string{}
	out := PaymentInput{
		ExternalID: trimmed(in.ExternalID), Method: parseMethod(in.Method, bad), Amount: Cents("amount", in.Amount, true, bad),
		Processor: trimmed(in.Processor), Memo: trimmed(in.Memo), ReferenceNumber: trimmed(in.ReferenceNumber),
		Allocations: allocations(in.Allocations, bad),
	}
	if in.PaidAt == nil || in.PaidAt.IsZero() {
		bad["paid_at"] = "is required (an ISO 8601 date-time)"
	} else {
		out.PaidAt = in.PaidAt.UTC().Truncate(time.Microsecond)
	}
	if _, given := bad["amount"]; !given && out.Amount <= 0 {
		bad["amount"] = "must be greater than 0"
	}
	if len(in.Allocations) == 0 {
		bad["bill_payment_allocations"] = "at least one bill is required"
	}
	if r := in.ClearingAccount.ref("payment_clearing_account_identifier", bad); r != nil {
		out.Clearing = *r
	}
	checkTexts(map[string]*string{"external_id": out.ExternalID, "memo": out.Memo, "reference_number": out.ReferenceNumber}, bad)
	checkText("processor", out.Processor, 255, bad)
	if len(bad) > 0 {
		return PaymentInput{}, invalidPayment(bad)
	}
	md, err := CheckMetadata("metadata", in.Metadata)
	if err != nil {
		return PaymentInput{}, err
	}
	out.Metadata = md
	if out.Tags, err = tags.NormalizeList("tags", in.Tags); err != nil {
		return PaymentInput{}, err
	}
	return out, nil
}

var paymentPatchable = map[string]bool{"paid_at": true, "method": true, "amount": true, "processor": true,
	"payment_clearing_account_identifier": true, "bill_payment_allocations": true, "memo": true, "metadata": true,
	"reference_number": true, "tags": true}

// ParsePaymentPatch reads an update body: present properties change (null
// clears processor, memo, reference_number, metadata, and resets the
// clearing account to BANK_ACCOUNTS); unknown or immutable ones
// (external_id) are 400.
func ParsePaymentPatch(body []byte) (PaymentPatch, error) {
	b, err := readPatchBody(body, paymentPatchable, EnumInvalidPayment)
	if err != nil {
		return PaymentPatch{}, err
	}
	m, bad := b.m, b.bad
	var p PaymentPatch
	b.text("processor", &p.Processor, 255)
	b.text("memo", &p.Memo, 2000)
	b.text("reference_number", &p.ReferenceNumber, MaxReferenceChars)
	b.instant("paid_at", &p.PaidAt)
	if raw, ok := m["method"]; ok {
		var s *string
		if err := json.Unmarshal(raw, &s); err != nil {
			s = nil
		}
		p.Method = Optional[Method]{Set: true, Value: parseMethod(s, bad)}
	}
	if raw, ok := m["amount"]; ok {
		p.Amount = Optional[money.Cents]{Set: true, Value: Cents("amount", raw, true, bad)}
		if _, given := bad["amount"]; !given && p.Amount.Value <= 0 {
			bad["amount"] = "must be greater than 0"
		}
	}
	if raw, ok := m["payment_clearing_account_identifier"]; ok {
		var a *accountJSON
		if err := json.Unmarshal(raw, &a); err != nil {
			bad["payment_clearing_account_identifier"] = "must be an AccountId or a StableName"
		} else if r := a.ref("payment_clearing_account_identifier", bad); r != nil {
			p.Clearing = Optional[AccountRef]{Set: true, Value: *r}
		} else if a == nil {
			p.Clearing = Optional[AccountRef]{Set: true}
		}
	}
	if raw, ok := m["bill_payment_allocations"]; ok {
		var als []allocationJSON
		if err := decodeStrict(raw, &als); err != nil {
			bad["bill_payment_allocations"] = "must be an array of allocations with known properties"
		} else if len(als) == 0 {
			bad["bill_payment_allocations"] = "at least one bill is required"
		} else {
			p.Allocations = Optional[[]AllocationInput]{Set: true, Value: allocations(als, bad)}
		}
	}
	if len(bad) > 0 {
		return PaymentPatch{}, invalidPayment(bad)
	}
	if err := b.metadataAndTags(&p.Metadata, &p.Tags); err != nil {
		return PaymentPatch{}, err
	}
	return p, nil
}
