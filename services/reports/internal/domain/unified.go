package domain

import (
	"encoding/json"
	"net/url"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Unified reports are the real client's one generic table (the SDK's
// UnifiedReport): columns, rows of cells keyed by column, child rows. Every
// unified report of this service (trial balance, aging) is built as one and
// rendered by the same JSON and the same spreadsheet export.

// Column alignments and pinnings, cell value types and report controls the
// client knows.
const (
	AlignLeft      = "LEFT"
	AlignRight     = "RIGHT"
	AlignCenter    = "CENTER"
	PinLeft        = "LEFT"
	PinRight       = "RIGHT"
	PinUnpinned    = "UNPINNED"
	CellCurrency   = "Currency"
	CellText       = "Text"
	CellEmpty      = "Empty"
	ControlDate    = "date"            // effective_date
	ControlBasis   = "reporting_basis" // reporting_basis
	ControlRange   = "date_range"      // start_date, end_date
	ControlYear    = "year"
	ControlGroupBy = "group_by"
)

// UnifiedReport is the client's UnifiedReport.
type UnifiedReport struct {
	BusinessID uuid.UUID             `json:"business_id"`
	Columns    []UnifiedReportColumn `json:"columns"`
	Rows       []UnifiedReportRow    `json:"rows"`
}

// UnifiedReportColumn is a column, or a group of columns when Columns is set.
type UnifiedReportColumn struct {
	ColumnKey   string                `json:"column_key"`
	DisplayName string                `json:"display_name"`
	IsRowHeader bool                  `json:"is_row_header,omitempty"`
	Alignment   string                `json:"alignment,omitempty"`
	Pinning     string                `json:"pinning,omitempty"`
	Columns     []UnifiedReportColumn `json:"columns,omitempty"`
}

// UnifiedReportRow is a row: a cell (nil: JSON null) per column key, and
// child rows the client shows as expandable.
type UnifiedReportRow struct {
	RowKey string                        `json:"row_key"`
	Cells  map[string]*UnifiedReportCell `json:"cells"`
	Rows   []UnifiedReportRow            `json:"rows,omitempty"`
}

// UnifiedReportCell is a cell; ReportConfig makes it a link to a report.
type UnifiedReportCell struct {
	Value        UnifiedCellValue   `json:"value"`
	Format       *UnifiedCellFormat `json:"format,omitempty"`
	ReportConfig *ReportConfig      `json:"report_config,omitempty"`
}

// UnifiedCellValue is {type, value}: Currency carries integer cents, Text a
// string, Empty nothing.
type UnifiedCellValue struct {
	Type  string `json:"type"`
	Value any    `json:"value,omitempty"`
}

// UnifiedCellFormat is a cell's formatting.
type UnifiedCellFormat struct {
	Bold bool `json:"bold,omitempty"`
}

// TextCell is a cell showing s.
func TextCell(s string) *UnifiedReportCell {
	return &UnifiedReportCell{Value: UnifiedCellValue{Type: CellText, Value: s}}
}

// CurrencyCell is a cell showing cents.
func CurrencyCell(cents int64) *UnifiedReportCell {
	return &UnifiedReportCell{Value: UnifiedCellValue{Type: CellCurrency, Value: cents}}
}

// EmptyCell is a cell showing nothing.
func EmptyCell() *UnifiedReportCell {
	return &UnifiedReportCell{Value: UnifiedCellValue{Type: CellEmpty}}
}

// Bold returns c in bold (for totals).
func (c *UnifiedReportCell) Bold() *UnifiedReportCell {
	c.Format = &UnifiedCellFormat{Bold: true}
	return c
}

// Text is the value as the string a spreadsheet or a reader shows
// (Currency as cents; see Cents), and ok false for Empty.
func (v UnifiedCellValue) Text() (string, bool) {
	switch x := v.Value.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	default:
		b, _ := json.Marshal(x)
		return string(b), true
	}
}

// Cents is a Currency value's cents (ok false for other types).
func (v UnifiedCellValue) Cents() (int64, bool) {
	if v.Type != CellCurrency {
		return 0, false
	}
	switch x := v.Value.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64: // decoded from JSON
		return int64(x), true
	}
	return 0, false
}

// ReportConfig is the client's ReportConfig: a report it can open, where
// (report_route after /reports/unified/), with which controls and fixed
// query parameters.
type ReportConfig struct {
	Key                 string            `json:"key"`
	ReportRoute         string            `json:"report_route"`
	DisplayName         string            `json:"display_name"`
	Controls            []string          `json:"controls"`
	BaseQueryParameters map[string]string `json:"base_query_parameters"`
	IsDefaultReport     bool              `json:"is_default_report,omitempty"`
	// TagControl is the client's TagControl ({tag_dimension,
	// initial_selected_tags}) when the report offers tag filters.
	TagControl any `json:"tag_control,omitempty"`
}

// MarshalJSON keeps controls and base_query_parameters present (the client
// requires both) when they are empty.
func (c ReportConfig) MarshalJSON() ([]byte, error) {
	type plain ReportConfig
	if c.Controls == nil {
		c.Controls = []string{}
	}
	if c.BaseQueryParameters == nil {
		c.BaseQueryParameters = map[string]string{}
	}
	return json.Marshal(plain(c))
}

// ReportGroup is a group of reports in the client's reports menu.
type ReportGroup struct {
	GroupType   string         `json:"group_type"`
	DisplayName string         `json:"display_name"`
	Reports     []ReportConfig `json:"reports"`
}

// Filled is r with its columns and rows never nil and every row's cells
// an object (the client requires them): what the HTTP answer encodes. A
// report is built that way already; Filled only copies what is not. (No
// MarshalJSON: a type that marshals itself has the encoder check and copy
// all its bytes once more, which doubled the time of a large aging.)
func (r UnifiedReport) Filled() UnifiedReport {
	if r.Columns == nil {
		r.Columns = []UnifiedReportColumn{}
	}
	r.Rows = filledRows(r.Rows)
	return r
}

// filledRows is rows, never nil, with every row's cells (and its
// children's) an object.
func filledRows(rows []UnifiedReportRow) []UnifiedReportRow {
	if rows == nil {
		return []UnifiedReportRow{}
	}
	out := rows
	for i, row := range rows {
		if row.Cells != nil && !hasEmptyChild(row.Rows) {
			continue
		}
		if &out[0] == &rows[0] {
			out = slices.Clone(rows)
		}
		if row.Cells == nil {
			out[i].Cells = map[string]*UnifiedReportCell{}
		}
		if len(row.Rows) > 0 {
			out[i].Rows = filledRows(row.Rows)
		}
	}
	return out
}

// hasEmptyChild reports whether a row below rows has no cells.
func hasEmptyChild(rows []UnifiedReportRow) bool {
	for _, r := range rows {
		if r.Cells == nil || hasEmptyChild(r.Rows) {
			return true
		}
	}
	return false
}

// LeafColumns lists the columns that hold cells, depth first (a group's
// own key holds none).
func (r UnifiedReport) LeafColumns() []UnifiedReportColumn {
	var out []UnifiedReportColumn
	var walk func([]UnifiedReportColumn)
	walk = func(cs []UnifiedReportColumn) {
		for _, c := range cs {
			if len(c.Columns) > 0 {
				walk(c.Columns)
				continue
			}
			out = append(out, c)
		}
	}
	walk(r.Columns)
	return out
}

// EnumInvalidDate is the error enum of a malformed effective_date.
const EnumInvalidDate = "InvalidDate"

// ParseEffectiveDate reads effective_date, the `date` control of the
// unified reports: YYYY-MM-DD, once; absent, today (today's UTC day). An
// empty, malformed or repeated value is a 400 InvalidParameters naming it.
func ParseEffectiveDate(q url.Values, today time.Time) (time.Time, error) {
	vs, ok := q["effective_date"]
	if !ok {
		y, m, d := today.UTC().Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), nil
	}
	if len(vs) == 1 {
		if d, err := time.Parse(DateLayout, vs[0]); err == nil {
			return d, nil
		}
	}
	return time.Time{}, apperr.FieldErrors(apperr.InvalidParameters,
		map[string]string{"effective_date": "must be a date YYYY-MM-DD, once"}).WithEnum(EnumInvalidDate)
}
