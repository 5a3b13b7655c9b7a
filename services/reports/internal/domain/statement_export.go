package domain

import "github.com/acctsuite/acct/pkg/csvexport"

// StatementRow is a row of a statement's export: a line's label, its depth
// below its section (0 for the section itself) and its amount in cents;
// Total marks the statement's figures that close it.
type StatementRow struct {
	Label  string
	Depth  int
	Amount int64
	Total  bool
}

// StatementHeader is the header of a statement's CSV export.
var StatementHeader = []string{"Line", "Amount"}

// itemRows appends li and its line items, depth first, in their order.
func itemRows(out []StatementRow, li LineItem, depth int) []StatementRow {
	out = append(out, StatementRow{Label: li.DisplayName, Depth: depth, Amount: li.Value})
	for _, c := range li.LineItems {
		out = itemRows(out, c, depth+1)
	}
	return out
}

// BalanceSheetRows are the rows of balance sheet bs: the assets, then the
// liabilities and the equity, then the totals.
func BalanceSheetRows(bs BalanceSheet) []StatementRow {
	out := itemRows(nil, bs.Assets, 0)
	out = itemRows(out, bs.Liabilities, 0)
	out = itemRows(out, bs.Equity, 0)
	return append(out,
		StatementRow{Label: "Total assets", Amount: bs.Assets.Value, Total: true},
		StatementRow{Label: "Total liabilities and equity", Amount: bs.LiabilitiesAndEquity.Value, Total: true})
}

// CashFlowRows are the rows of statement cf: the three sections, then the
// net cash increase and the cash at the start and at the end.
func CashFlowRows(cf CashFlow) []StatementRow {
	out := itemRows(nil, cf.Operating, 0)
	out = itemRows(out, cf.Investing, 0)
	out = itemRows(out, cf.Financing, 0)
	return append(out,
		StatementRow{Label: "Net cash increase for the period", Amount: cf.NetCashIncrease, Total: true},
		StatementRow{Label: "Cash at the start of the period", Amount: cf.CashAtStart, Total: true},
		StatementRow{Label: "Cash at the end of the period", Amount: cf.CashAtEnd, Total: true})
}

// StatementCSV is rows as CSV records after the header: the label
// (through SafeCell: account names are the clients') indented two spaces
// per depth, the amount as a dollar string.
func StatementCSV(rows []StatementRow) [][]string {
	out := make([][]string, 0, len(rows)+1)
	out = append(out, StatementHeader)
	for _, r := range rows {
		label := csvexport.SafeCell(r.Label)
		for range r.Depth {
			label = "  " + label
		}
		out = append(out, []string{label, MoneyDollarString.Amount(r.Amount)})
	}
	return out
}

// PnLRows are the rows of profit and loss p: each section with its lines,
// the gross profit after the cost of goods sold, the profit before taxes
// after the expenses, the net profit at the end.
func PnLRows(p PnL) []StatementRow {
	out := itemRows(nil, p.Income, 0)
	out = itemRows(out, p.CostOfGoodsSold, 0)
	out = append(out, StatementRow{Label: "Gross profit", Amount: p.GrossProfit, Total: true})
	out = itemRows(out, p.Expenses, 0)
	out = append(out, StatementRow{Label: "Profit before taxes", Amount: p.ProfitBeforeTaxes, Total: true})
	out = itemRows(out, p.Taxes, 0)
	return append(out, StatementRow{Label: "Net profit", Amount: p.NetProfit, Total: true})
}

// DetailHeader is the header of a P&L drill-down's export.
var DetailHeader = []string{"Date", "Account", "Direction", "Amount", "Entry", "Source", "Tags"}
