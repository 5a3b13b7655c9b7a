package http

import (
	"fmt"
	"net/url"
	"strconv"
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

// paramWithSubAccounts is the query parameter that lists the lines of the
// accounts below the account too (default true, as the client SDK sends
// it and as GET /ledger/balances and the entries' account filter count
// sub-accounts).
const paramWithSubAccounts = "include_child_account_lines"

// accountLineJSON is the SDK's LedgerAccountLineItem: one line of the
// account's general ledger detail. `source` is null, as on GET
// /ledger/entries; entry_type, source_type, source_id and memo are beside
// the SDK's fields.
type accountLineJSON struct {
	ID              uuid.UUID        `json:"id"`
	EntryID         uuid.UUID        `json:"entry_id"`
	EntryNumber     int64            `json:"entry_number"`
	Account         plainAccountJSON `json:"account"`
	Amount          int64            `json:"amount"`
	Direction       string           `json:"direction"`
	Date            time.Time        `json:"date"`
	Source          *struct{}        `json:"source"`
	EntryReversalOf *uuid.UUID       `json:"entry_reversal_of"`
	EntryReversedBy *uuid.UUID       `json:"entry_reversed_by"`
	IsReversed      bool             `json:"is_reversed"`
	RunningBalance  int64            `json:"running_balance"`
	Tags            []tags.Tag       `json:"tags"`
	EntryType       string           `json:"entry_type"`
	SourceType      string           `json:"source_type"`
	SourceID        string           `json:"source_id"`
	Memo            *string          `json:"memo"`
}

func toAccountLine(l domain.AccountLine) accountLineJSON {
	return accountLineJSON{
		ID: l.ID, EntryID: l.EntryID, EntryNumber: l.EntryNumber, Account: toPlainAccount(l.Account),
		Amount: int64(l.Amount), Direction: string(l.Direction), Date: l.EntryAt,
		EntryReversalOf: l.ReversalOfID, EntryReversedBy: l.ReversedBy, IsReversed: l.Reversed(),
		RunningBalance: int64(l.RunningBalance), Tags: nonNil(l.AppliedTags()), EntryType: string(l.EntryType),
		SourceType: l.Source.Type, SourceID: l.Source.ID, Memo: l.ShownMemo(),
	}
}

// parseAccountLinesQuery reads the filters of GET
// /ledger/accounts/{accountId}/lines: include_child_account_lines (a
// boolean, default true), start_date and end_date (inclusive; a date is a
// UTC day, a date-time an instant).
func parseAccountLinesQuery(q url.Values) (app.AccountLinesQuery, error) {
	out := app.AccountLinesQuery{WithSubAccounts: true}
	if v := q.Get(paramWithSubAccounts); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return app.AccountLinesQuery{}, apperr.Field(paramWithSubAccounts, "must be true or false")
		}
		out.WithSubAccounts = b
	}
	var err error
	if out.From, out.Until, err = period(q.Get("start_date"), q.Get("end_date"), ""); err != nil {
		return app.AccountLinesQuery{}, err
	}
	return out, nil
}

// accountLinesFingerprint binds a cursor to the business, the account and
// the filters as read (so "1" and "true" are the same listing).
func accountLinesFingerprint(bid uuid.UUID, q app.AccountLinesQuery) string {
	instant := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("%s|lines|%s|%t|%s|%s", bid, q.AccountID, q.WithSubAccounts, instant(q.From), instant(q.Until))
}

// listAccountLines is GET /v1/businesses/{businessId}/ledger/accounts/{accountId}/lines.
func (h *handlers) listAccountLines(c *fiber.Ctx) error {
	id, err := accountParam(c)
	if err != nil {
		return err
	}
	q := httpx.Query(c)
	in, err := parseAccountLinesQuery(q)
	if err != nil {
		return err
	}
	in.AccountID = id
	bid := businessID(c)
	p, err := page.Parse(q, app.AccountLinePageSpec, h.codec, accountLinesFingerprint(bid, in))
	if err != nil {
		return err
	}
	lines, meta, err := h.ledger.FindAccountLines(c.UserContext(), bid, in, p)
	if err != nil {
		return err
	}
	out := make([]accountLineJSON, len(lines))
	for i, l := range lines {
		out[i] = toAccountLine(l)
	}
	return httpx.List(c, out, meta)
}
