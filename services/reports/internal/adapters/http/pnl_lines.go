package http

import (
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/reports/internal/app"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// valueWithDisplayName is the client's AccountValueWithDisplayName.
type valueWithDisplayName struct {
	Value       string `json:"value"`
	DisplayName string `json:"display_name"`
}

// pnlDetailAccount is the client's PnlDetailAccount.
type pnlDetailAccount struct {
	ID             uuid.UUID            `json:"id"`
	Name           string               `json:"name"`
	StableName     *string              `json:"stable_name"`
	Normality      string               `json:"normality"`
	AccountType    valueWithDisplayName `json:"account_type"`
	AccountSubtype valueWithDisplayName `json:"account_subtype"`
}

// pnlDetailLine is the client's PnlDetailLine (source left out: the
// client decodes it strictly, and absent is what it accepts for a line
// whose source this service does not describe).
type pnlDetailLine struct {
	ID        string           `json:"id"`
	EntryID   string           `json:"entry_id"`
	Account   pnlDetailAccount `json:"account"`
	Amount    int64            `json:"amount"`
	Direction string           `json:"direction"`
	Date      time.Time        `json:"date"`
	// SourceType and SourceID name what posted the line (the document
	// whose payment recognized it, on the cash basis).
	SourceType string       `json:"source_type"`
	SourceID   string       `json:"source_id"`
	Tags       []domain.Tag `json:"tags"`
}

// pnlDetailLines is the client's PnlDetailLines, with the line item's
// value.
type pnlDetailLines struct {
	Type                     string           `json:"type"`
	BusinessID               uuid.UUID        `json:"business_id"`
	StartDate                time.Time        `json:"start_date"`
	EndDate                  time.Time        `json:"end_date"`
	PnlStructureLineItemName string           `json:"pnl_structure_line_item_name"`
	ReportingBasis           string           `json:"reporting_basis"`
	PnlStructure             string           `json:"pnl_structure"`
	TagFilter                *pnlDetailFilter `json:"tag_filter"`
	Value                    int64            `json:"value"`
	Lines                    []pnlDetailLine  `json:"lines"`
}

// pnlDetailFilter is the client's PnlDetailTagFilter.
type pnlDetailFilter struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

var typeNames = map[string]string{"ASSET": "Asset", "LIABILITY": "Liability", "EQUITY": "Equity", "REVENUE": "Revenue", "EXPENSE": "Expense"}

// displayOf is a SCREAMING_SNAKE value as words ("COST_OF_GOODS_SOLD" →
// "Cost of goods sold").
func displayOf(v string) string {
	b := []byte(v)
	for i, c := range b {
		switch {
		case c == '_':
			b[i] = ' '
		case i > 0 && c >= 'A' && c <= 'Z':
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func renderPnLLines(r app.PnLLinesReport) pnlDetailLines {
	q := r.Query
	out := pnlDetailLines{Type: "Profit_And_Loss_Detail_Lines", BusinessID: r.BusinessID, StartDate: q.Start.UTC(), EndDate: endOfDay(q.End),
		PnlStructureLineItemName: q.LineItemName, ReportingBasis: r.Basis, PnlStructure: string(q.Structure), Value: r.Value,
		Lines: make([]pnlDetailLine, len(r.Lines))}
	if q.Filter.Key != "" {
		out.TagFilter = &pnlDetailFilter{Key: q.Filter.Key, Values: append([]string{}, q.Filter.Values...)}
	}
	for i, l := range r.Lines {
		a := l.Account
		acct := pnlDetailAccount{ID: a.ID, Name: a.Name, StableName: a.StableName, Normality: "DEBIT",
			AccountType: valueWithDisplayName{Value: a.Type, DisplayName: typeNames[a.Type]}}
		if a.Normality != nil {
			acct.Normality = *a.Normality
		}
		if a.Subtype != nil {
			acct.AccountSubtype = valueWithDisplayName{Value: *a.Subtype, DisplayName: displayOf(*a.Subtype)}
		}
		amount, dir := l.Amount, "DEBIT"
		if amount < 0 {
			amount, dir = -amount, "CREDIT"
		}
		tags := []domain.Tag(l.Tags)
		if tags == nil {
			tags = []domain.Tag{}
		}
		out.Lines[i] = pnlDetailLine{ID: l.ID, EntryID: l.EntryID, Account: acct, Amount: amount, Direction: dir, Date: l.EntryAt.UTC(),
			SourceType: l.SourceType, SourceID: l.SourceID, Tags: tags}
	}
	return out
}

// pnlLines is GET /v1/businesses/{businessId}/reports/profit-and-loss/lines.
func (h *handlers) pnlLines(c *fiber.Ctx) error {
	q, err := domain.ParsePnLLinesQuery(httpx.Query(c))
	if err != nil {
		return err
	}
	r, err := h.reports.PnLLines(c.UserContext(), businessID(c), q)
	if err != nil {
		return err
	}
	return httpx.List(c, renderPnLLines(r), pnlMeta{ReportingBasis: r.Basis, LastEventAt: r.LastEventAt})
}

// The document types of the P&L's exports.
const (
	DocPnLExcel      = "PROFIT_AND_LOSS_EXCEL"
	DocPnLLinesExcel = "PROFIT_AND_LOSS_LINES_EXCEL"
)

// pnlExportQuery is the P&L's query of its workbook: money_format is
// accepted, as the client sends it, and checked (the workbook's amounts
// are numbers with a currency format either way).
func pnlExportQuery(q url.Values) (domain.PnLQuery, error) {
	if _, err := domain.ParseMoneyFormat(q); err != nil {
		return domain.PnLQuery{}, err
	}
	return domain.ParsePnLQuery(q)
}
