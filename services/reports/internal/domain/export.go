package domain

import (
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/csvexport"
	"github.com/acctsuite/acct/pkg/money"
)

// EnumInvalidFilter is the error enum of a bad export filter.
const EnumInvalidFilter = "InvalidFilter"

// Categorization status filters of the transactions export.
const (
	StatusFilterCategorized   = "CATEGORIZED"   // CATEGORIZED, SPLIT or MATCHED
	StatusFilterUncategorized = "UNCATEGORIZED" // every other status
	StatusFilterPending       = "PENDING"       // PENDING only
)

// ExportQuery is a transactions CSV export request: the bank transactions
// dated Start..End (inclusive, UTC) that the filters keep.
type ExportQuery struct {
	Start, End  time.Time
	Categorized *bool
	Category    string // a category stable name ("" any)
	Status      string // a StatusFilter* ("" any)
}

// ParseExportQuery reads start_date (default activation's UTC day),
// end_date (default today's UTC day), both YYYY-MM-DD or an ISO 8601
// timestamp (its UTC day), categorized (true|false), category (a stable
// name) and categorization_status (CATEGORIZED|UNCATEGORIZED|PENDING).
func ParseExportQuery(q url.Values, activation, now time.Time) (ExportQuery, error) {
	out := ExportQuery{Start: Day(activation), End: Day(now)}
	bad := map[string]string{}
	errEnum := ""
	date := func(name string, def time.Time) time.Time {
		s := strings.TrimSpace(q.Get(name))
		if s == "" {
			return def
		}
		if d, err := time.Parse(DateLayout, s); err == nil {
			return d
		}
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return Day(t)
		}
		bad[name] = "must be a date YYYY-MM-DD or an ISO 8601 timestamp"
		errEnum = EnumInvalidDateRange
		return def
	}
	out.Start, out.End = date("start_date", out.Start), date("end_date", out.End)
	if len(bad) == 0 && out.End.Before(out.Start) {
		bad["end_date"] = "must not be before start_date"
		errEnum = EnumInvalidDateRange
	}
	if s := q.Get("categorized"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			bad["categorized"] = "must be true or false"
			errEnum = EnumInvalidFilter
		} else {
			out.Categorized = &b
		}
	}
	if _, ok := q["category"]; ok {
		out.Category = strings.TrimSpace(q.Get("category"))
		// PostgreSQL text holds neither NUL nor invalid UTF-8: such a
		// filter is the client's mistake (400), not a failed query (500).
		if out.Category == "" || len(out.Category) > 200 || !utf8.ValidString(out.Category) ||
			strings.ContainsFunc(out.Category, unicode.IsControl) {
			bad["category"] = "must be a category stable name"
			errEnum = EnumInvalidFilter
		}
	}
	switch s := q.Get("categorization_status"); s {
	case "", StatusFilterCategorized, StatusFilterUncategorized, StatusFilterPending:
		out.Status = s
	default:
		bad["categorization_status"] = "must be CATEGORIZED, UNCATEGORIZED or PENDING"
		errEnum = EnumInvalidFilter
	}
	if len(bad) > 0 {
		return ExportQuery{}, apperr.FieldErrors(apperr.InvalidParameters, bad).WithEnum(errEnum)
	}
	return out, nil
}

// Day is t's UTC calendar day.
func Day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// ExportHeader is the transactions CSV's header row.
var ExportHeader = []string{"Date", "Description", "Counterparty", "Account", "Direction", "Amount", "Category",
	"Categorization status", "Tags", "Memo", "Reference number"}

// ExportRow is one bank transaction of the export; a missing text is "".
type ExportRow struct {
	Day             string // YYYY-MM-DD
	Description     string
	Counterparty    string
	Account         string
	Direction       string
	Amount          int64
	Category        string
	Status          string
	Tags            string
	Memo            string
	ReferenceNumber string
}

// Record is r as CSV fields, in ExportHeader's order; the amount is a
// dollar string ("1234.50", positive: Direction tells its side). Text that
// clients wrote (descriptions, names, memos, tags...) goes through
// csvexport.SafeCell, so a spreadsheet never runs it as a formula.
func (r ExportRow) Record(buf []string) []string {
	return append(buf[:0], r.Day, csvexport.SafeCell(r.Description), csvexport.SafeCell(r.Counterparty), csvexport.SafeCell(r.Account), r.Direction,
		money.Format(money.Cents(r.Amount)), csvexport.SafeCell(r.Category), r.Status, csvexport.SafeCell(r.Tags), csvexport.SafeCell(r.Memo), csvexport.SafeCell(r.ReferenceNumber))
}
