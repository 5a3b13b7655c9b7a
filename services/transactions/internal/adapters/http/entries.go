package http

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// lineJSON is a journal line (the SDK's LedgerEntryLineItem and ApiLineItem).
type lineJSON struct {
	ID              uuid.UUID        `json:"id"`
	EntryID         uuid.UUID        `json:"entry_id"`
	Account         plainAccountJSON `json:"account"`
	Amount          int64            `json:"amount"`
	Direction       string           `json:"direction"`
	EntryAt         time.Time        `json:"entry_at"`
	CreatedAt       time.Time        `json:"createdAt"`
	EntryReversalOf *uuid.UUID       `json:"entry_reversal_of"`
	EntryReversedBy *uuid.UUID       `json:"entry_reversed_by"`
	Memo            *string          `json:"memo"`
	TransactionTags []tags.Tag       `json:"transaction_tags"`
}

// entryJSON is Ledger_Entry (the SDK's LedgerEntry and ApiLedgerEntry).
// `source` stays null: the SDK decodes product-specific source objects we
// do not have; source_type, source_id and source_version name the source.
type entryJSON struct {
	Type            string          `json:"type"`
	ID              uuid.UUID       `json:"id"`
	BusinessID      uuid.UUID       `json:"business_id"`
	LedgerID        uuid.UUID       `json:"ledger_id"`
	EntryNumber     int64           `json:"entry_number"`
	Agent           string          `json:"agent"`
	EntryType       string          `json:"entry_type"`
	Date            time.Time       `json:"date"`
	EntryAt         time.Time       `json:"entry_at"`
	ReversalOfID    *uuid.UUID      `json:"reversal_of_id"`
	ReversalID      *uuid.UUID      `json:"reversal_id"`
	LineItems       []lineJSON      `json:"line_items"`
	Source          *struct{}       `json:"source"`
	SourceType      string          `json:"source_type"`
	SourceID        string          `json:"source_id"`
	SourceVersion   string          `json:"source_version"`
	TransactionTags []tags.Tag      `json:"transaction_tags"`
	Memo            *string         `json:"memo"`
	Metadata        json.RawMessage `json:"metadata"`
	ReferenceNumber *string         `json:"reference_number"`
	CreatedAt       time.Time       `json:"created_at"`
}

func toEntry(e domain.Entry) entryJSON {
	out := entryJSON{
		Type: "Ledger_Entry", ID: e.ID, BusinessID: e.BusinessID, LedgerID: domain.LedgerID(e.BusinessID),
		EntryNumber: e.EntryNumber, Agent: string(e.Agent), EntryType: string(e.EntryType), Date: e.Date,
		EntryAt: e.EntryAt, ReversalOfID: e.ReversalOfID, ReversalID: e.ReversalID, LineItems: make([]lineJSON, len(e.Lines)),
		SourceType: e.Source.Type, SourceID: e.Source.ID, SourceVersion: e.Source.Version,
		TransactionTags: nonNil(e.Tags), Memo: e.Memo, Metadata: e.Metadata, ReferenceNumber: e.Reference,
		CreatedAt: e.CreatedAt,
	}
	if len(out.Metadata) == 0 {
		out.Metadata = json.RawMessage("null")
	}
	for i, l := range e.Lines {
		out.LineItems[i] = lineJSON{
			ID: l.ID, EntryID: e.ID, Account: toPlainAccount(l.Account), Amount: int64(l.Amount),
			Direction: string(l.Direction), EntryAt: l.EntryAt, CreatedAt: l.CreatedAt,
			EntryReversalOf: e.ReversalOfID, EntryReversedBy: e.ReversalID, Memo: l.Memo, TransactionTags: nonNil(e.LineTags(i)),
		}
	}
	return out
}

func nonNil(ts []tags.Tag) []tags.Tag {
	if ts == nil {
		return []tags.Tag{}
	}
	return ts
}

// entryQuery reads the filters of GET /ledger/entries: start_date,
// end_date, account (an account id or a stable name; its sub-accounts
// count too) and entry_type (repeated or comma-separated).
func entryQuery(q url.Values) (app.EntryQuery, error) {
	var out app.EntryQuery
	var err error
	if out.From, out.Until, err = period(q.Get("start_date"), q.Get("end_date"), ""); err != nil {
		return app.EntryQuery{}, err
	}
	if v := q.Get("account"); v != "" {
		ref := domain.ByStableName(v)
		if id, err := uuid.Parse(v); err == nil && len(v) == 36 {
			ref = domain.ByID(id)
		}
		out.Account = &ref
	}
	for _, raw := range q["entry_type"] {
		for _, v := range strings.Split(raw, ",") {
			t := domain.EntryType(strings.TrimSpace(v))
			if !t.Valid() {
				return app.EntryQuery{}, apperr.Field("entry_type", "unknown entry type "+string(t))
			}
			if !slices.Contains(out.EntryTypes, t) {
				out.EntryTypes = append(out.EntryTypes, t)
			}
		}
	}
	return out, nil
}

// fingerprint binds a cursor to the business and the filters.
func fingerprint(bid uuid.UUID, q url.Values, names ...string) string {
	var b strings.Builder
	b.WriteString(bid.String())
	for _, n := range names {
		vs := slices.Clone(q[n])
		slices.Sort(vs)
		b.WriteString("|" + n + "=" + strings.Join(vs, ","))
	}
	return b.String()
}

// listEntries is GET /v1/businesses/{businessId}/ledger/entries.
func (h *handlers) listEntries(c *fiber.Ctx) error {
	q := httpx.Query(c)
	filters, err := entryQuery(q)
	if err != nil {
		return err
	}
	bid := businessID(c)
	p, err := page.Parse(q, app.EntryPageSpec, h.codec, fingerprint(bid, q, "start_date", "end_date", "account", "entry_type"))
	if err != nil {
		return err
	}
	entries, meta, err := h.ledger.FindEntries(c.UserContext(), bid, filters, p)
	if err != nil {
		return err
	}
	out := make([]entryJSON, len(entries))
	for i, e := range entries {
		out[i] = toEntry(e)
	}
	return httpx.List(c, out, meta)
}

func entryParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "entryId") }

// getEntry is GET /v1/businesses/{businessId}/ledger/entries/{entryId}.
func (h *handlers) getEntry(c *fiber.Ctx) error {
	id, err := entryParam(c)
	if err != nil {
		return err
	}
	e, err := h.ledger.GetEntry(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toEntry(e))
}

// reverseEntry is POST /v1/businesses/{businessId}/ledger/entries/{entryId}/reverse:
// 201 with the reversal entry.
func (h *handlers) reverseEntry(c *fiber.Ctx) error {
	id, err := entryParam(c)
	if err != nil {
		return err
	}
	e, err := h.ledger.ReverseJournalEntry(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.Created(c, toEntry(e))
}
