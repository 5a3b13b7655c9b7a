package domain

import (
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/csvexport"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// ExportDateLayout is the form of dates in the ledger's CSV exports.
const ExportDateLayout = "2006-01-02"

// EntriesExportHeader is the header row of the journal's CSV export (GET
// /ledger/entries/exports/csv): one row per line.
var EntriesExportHeader = []string{
	"Date", "Entry number", "Entry ID", "Entry type", "Source", "Account", "Account stable name", "Account number",
	"Debit", "Credit", "Memo", "Tags", "Reversal of", "Reversed by",
}

// ExportLine is one row of the journal's CSV export: a line with its
// entry and account.
type ExportLine struct {
	EntryAt           time.Time
	EntryNumber       int64
	EntryID           uuid.UUID
	EntryType         EntryType
	Source            Source
	AccountName       string
	AccountStableName *string
	AccountNumber     *string
	Direction         Direction
	Amount            money.Cents
	// Memo is the line's memo, else its entry's.
	Memo *string
	// Tags apply to the line's amount: its own, then its entry's it lacks.
	Tags         []tags.Tag
	ReversalOfID *uuid.UUID
	ReversedBy   *uuid.UUID
}

// Record is r as CSV fields in EntriesExportHeader's order, reusing buf:
// the date is entry_at's UTC day, the amount a dollar amount under Debit
// or Credit, the tags `key:value` comma-separated; text others wrote is
// defused against formula injection.
func (r ExportLine) Record(buf []string) []string {
	debit, credit := "", ""
	if r.Direction == Debit {
		debit = money.Format(r.Amount)
	} else {
		credit = money.Format(r.Amount)
	}
	return append(buf[:0], r.EntryAt.UTC().Format(ExportDateLayout), strconv.FormatInt(r.EntryNumber, 10), r.EntryID.String(),
		string(r.EntryType), csvexport.SafeCell(r.Source.Type+" "+r.Source.ID), csvexport.SafeCell(r.AccountName),
		csvexport.SafeCell(deref(r.AccountStableName)), csvexport.SafeCell(deref(r.AccountNumber)), debit, credit,
		csvexport.SafeCell(deref(r.Memo)), csvexport.SafeCell(TagsText(r.Tags)), idText(r.ReversalOfID), idText(r.ReversedBy))
}

// BalancesExportHeader is the header row of the balances' CSV export (GET
// /ledger/balances/exports/csv): one row per account of the chart.
var BalancesExportHeader = []string{
	"Account ID", "Account", "Stable name", "Account number", "Parent account", "Level", "Type", "Subtype",
	"Normality", "Debits", "Credits", "Balance",
}

// WalkBalanceRecords calls fn with the CSV fields (BalancesExportHeader's
// order) of every node of the balances tree, depth first in chart order:
// the same figures GET /ledger/balances answers (Debits and Credits of the
// account with its sub-accounts, Balance on its normal side), as dollar
// amounts; Level is 0 for the five roots.
func WalkBalanceRecords(nodes []BalanceNode, fn func(record []string) error) error {
	buf := make([]string, 0, len(BalancesExportHeader))
	var walk func(ns []BalanceNode, parent string, level int) error
	walk = func(ns []BalanceNode, parent string, level int) error {
		for _, n := range ns {
			a := n.Account
			buf = append(buf[:0], a.ID.String(), csvexport.SafeCell(a.Name), csvexport.SafeCell(deref(a.StableName)),
				csvexport.SafeCell(deref(a.AccountNumber)), csvexport.SafeCell(parent), strconv.Itoa(level), string(a.Type),
				a.SubtypeInfo().Value, string(a.Normality), money.Format(n.Totals.Debits), money.Format(n.Totals.Credits),
				money.Format(n.Balance))
			if err := fn(buf); err != nil {
				return err
			}
			if err := walk(n.Children, a.Name, level+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(nodes, "", 0)
}

// TagsText is tags as `key:value` pairs joined by ", ".
func TagsText(ts []tags.Tag) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.Key + ":" + t.Value)
	}
	return b.String()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func idText(id *uuid.UUID) string {
	if id == nil {
		return ""
	}
	return id.String()
}
