package http

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// journalEntryBody is the body of POST /ledger/journal-entries.
type journalEntryBody struct {
	ExternalID      *string           `json:"external_id"`
	EntryAt         *string           `json:"entry_at"`
	CreatedBy       *string           `json:"created_by"`
	Memo            *string           `json:"memo"`
	EntryType       *string           `json:"entry_type"`
	LineItems       []journalLineBody `json:"line_items"`
	Tags            []tags.KeyValue   `json:"tags"`
	Metadata        json.RawMessage   `json:"metadata"`
	ReferenceNumber *string           `json:"reference_number"`
}

// journalLineBody is one line: the amount is whole cents as a JSON number
// or a string (the SDK sends a BigInt as a string).
type journalLineBody struct {
	AccountIdentifier *accountIdentifier `json:"account_identifier"`
	Amount            json.RawMessage    `json:"amount"`
	Direction         *string            `json:"direction"`
	Memo              *string            `json:"memo"`
	ExternalID        *string            `json:"external_id"`
	Tags              []tags.KeyValue    `json:"tags"`
}

// MaxJournalEntryBody bounds the body parser's input (500 lines with tags
// fit comfortably).
const MaxJournalEntryBody = 1 << 20

// ParseJournalEntryBody decodes and checks a journal-entry body: known
// fields only, every line with an account identifier, whole positive-or-not
// cents (the journal checks signs and balance), a direction, dates as
// RFC 3339 date-times or YYYY-MM-DD. Errors are 400 InvalidPayload naming
// the field. It does no I/O, so it is fuzzed directly.
func ParseJournalEntryBody(body []byte) (app.JournalEntryInput, error) {
	if len(body) > MaxJournalEntryBody {
		return app.JournalEntryInput{}, apperr.New(apperr.PayloadTooLarge, "request body too large")
	}
	var b journalEntryBody
	if err := httpx.DecodeJSON(body, &b); err != nil {
		return app.JournalEntryInput{}, err
	}
	return b.input()
}

// input checks the decoded body (see ParseJournalEntryBody).
func (b journalEntryBody) input() (app.JournalEntryInput, error) {
	in := app.JournalEntryInput{
		ExternalID: b.ExternalID, CreatedBy: b.CreatedBy, Memo: b.Memo, Reference: b.ReferenceNumber,
		Metadata: b.Metadata, Tags: b.Tags,
	}
	fields := map[string]string{}
	if b.EntryAt != nil {
		t, _, ok := parseInstant(*b.EntryAt)
		if !ok {
			fields["entry_at"] = "must be an RFC 3339 date-time or a date (YYYY-MM-DD)"
		}
		in.EntryAt = &t
	}
	if b.EntryType != nil {
		in.EntryType = domain.EntryType(*b.EntryType)
		if in.EntryType != domain.EntryManual && in.EntryType != domain.EntryOpeningBalance {
			fields["entry_type"] = "must be MANUAL or OPENING_BALANCE"
		}
	}
	if b.LineItems == nil {
		fields["line_items"] = "is required"
	}
	// Stored as text: a NUL (or invalid UTF-8) is a 400, not a 500.
	storable := func(field string, p *string) {
		if p != nil && jsonraw.TextReason(*p) != "" {
			fields[field] = jsonraw.TextReason(*p)
		}
	}
	storable("external_id", b.ExternalID)
	storable("created_by", b.CreatedBy)
	storable("memo", b.Memo)
	storable("reference_number", b.ReferenceNumber)
	meta, err := domain.CheckMetadata("metadata", b.Metadata)
	if err != nil {
		return app.JournalEntryInput{}, err
	}
	in.Metadata = meta
	for i, l := range b.LineItems {
		var line app.JournalEntryLineInput
		prefix := fmt.Sprintf("line_items[%d].", i)
		if l.AccountIdentifier == nil {
			fields[prefix+"account_identifier"] = "is required"
		} else {
			line.Account = l.AccountIdentifier.ref
		}
		if len(l.Amount) == 0 || string(l.Amount) == "null" {
			fields[prefix+"amount"] = "is required"
		} else if cents, err := money.ParseJSONCents(l.Amount); err != nil {
			// Malformed, fractional or out-of-range cents, with money's error_enum.
			return app.JournalEntryInput{}, money.FieldError(apperr.InvalidPayload, prefix+"amount", err)
		} else {
			line.Amount = cents
		}
		switch {
		case l.Direction == nil:
			fields[prefix+"direction"] = "is required"
		case domain.Direction(*l.Direction).Valid():
			line.Direction = domain.Direction(*l.Direction)
		default:
			fields[prefix+"direction"] = "must be DEBIT or CREDIT"
		}
		storable(prefix+"memo", l.Memo)
		storable(prefix+"external_id", l.ExternalID)
		line.Memo, line.ExternalID, line.Tags = l.Memo, l.ExternalID, l.Tags
		in.Lines = append(in.Lines, line)
	}
	if len(fields) > 0 {
		return app.JournalEntryInput{}, apperr.FieldErrors(apperr.InvalidPayload, fields)
	}
	return in, nil
}

// journalLineItemJSON is the SDK's CustomJournalEntryLineItem.
type journalLineItemJSON struct {
	ID              uuid.UUID  `json:"id"`
	ExternalID      *string    `json:"external_id"`
	Memo            *string    `json:"memo"`
	LineItemID      uuid.UUID  `json:"line_item_id"`
	TransactionTags []tags.Tag `json:"transaction_tags"`
}

// journalEntryJSON is the SDK's CustomJournalEntry: the journal entry as
// created and the full ledger entry it posted.
type journalEntryJSON struct {
	Type            string                `json:"type"`
	ID              uuid.UUID             `json:"id"`
	ExternalID      *string               `json:"external_id"`
	CreatedBy       string                `json:"created_by"`
	Memo            string                `json:"memo"`
	EntryID         uuid.UUID             `json:"entry_id"`
	LineItems       []journalLineItemJSON `json:"line_items"`
	Entry           entryJSON             `json:"entry"`
	TransactionTags []tags.Tag            `json:"transaction_tags"`
	Metadata        json.RawMessage       `json:"metadata"`
	ReferenceNumber *string               `json:"reference_number"`
	CreatedAt       time.Time             `json:"created_at"`
}

func toJournalEntry(r app.JournalEntryResult) journalEntryJSON {
	j := r.JournalEntry
	out := journalEntryJSON{
		Type: "Custom_Journal_Entry", ID: j.ID, ExternalID: j.ExternalID, CreatedBy: j.CreatedBy, Memo: j.Memo,
		EntryID: j.EntryID, LineItems: make([]journalLineItemJSON, len(j.LineItems)), Entry: toEntry(r.Entry),
		TransactionTags: nonNil(j.Tags), Metadata: j.Metadata, ReferenceNumber: j.Reference, CreatedAt: j.CreatedAt,
	}
	if len(out.Metadata) == 0 {
		out.Metadata = json.RawMessage("null")
	}
	for i, l := range j.LineItems {
		out.LineItems[i] = journalLineItemJSON{ID: l.ID, ExternalID: l.ExternalID, Memo: l.Memo, LineItemID: l.LineID, TransactionTags: nonNil(l.Tags)}
	}
	return out
}

// createJournalEntry is POST /v1/businesses/{businessId}/ledger/journal-entries:
// 201 for a new entry, 200 for an external_id posted before with the same
// content.
func (h *handlers) createJournalEntry(c *fiber.Ctx) error {
	var body journalEntryBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	id := identity(c)
	in.DefaultCreatedBy = id.ClientName
	if in.DefaultCreatedBy == "" {
		in.DefaultCreatedBy = id.ClientID
	}
	res, err := h.ledger.CreateJournalEntry(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	if !res.Created {
		return httpx.OK(c, toJournalEntry(res))
	}
	return httpx.Created(c, toJournalEntry(res))
}
