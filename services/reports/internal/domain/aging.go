package domain

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Aging: the open receivables (payables) on a date, per customer (vendor)
// and by days past due. Every movement of the control account (A/R, A/P)
// in the ledger is kept once, in the open-amount sense (positive: owed to
// the business for A/R, owed by it for A/P), on a holder:
//
//   - a document (an invoice, a bill) holds its own entries' control
//     lines, its write-offs' (once the write-off is known to be of it) and
//     minus what payments and vendor credits applied to it, on their days;
//   - a payment or a vendor credit holds its own entries' control lines
//     plus what it applied to documents, so what is left is what it did not
//     apply (zero for a payment whose snapshot and entry agree);
//   - any other source (a journal entry to A/R, a bank transaction
//     categorized there, a write-off of an unknown invoice) holds its own
//     lines.
//
// An allocation moves an amount from its payer to its document and sums
// to zero, so the holders together always sum to the ledger's balance of
// the control account: the report's total equals it by construction.
// Documents are bucketed by their due date; every other holder is on the
// row "Unapplied and other", as current.

// AgingSide is one of the two aging reports.
type AgingSide struct {
	// Side is the stored side (AR, AP).
	Side string
	// Control is the stable name of the control account (its descendants
	// too).
	Control string
	// Sign turns signed ledger cents (debit positive) into open amounts.
	Sign int64
	// DocType is the ledger source type of the documents that age.
	DocType string
	// PartyType is the stored kind of their parties (CUSTOMER, VENDOR).
	PartyType string
	// Report config and presentation.
	Key, Route, DisplayName            string
	PartyColumn, PartyHeader, TotalRow string
	UnknownParty                       string
}

// The two aging reports.
var (
	AgingAR = AgingSide{Side: "AR", Control: "ACCOUNTS_RECEIVABLE", Sign: 1, DocType: "INVOICE", PartyType: "CUSTOMER",
		Key: "AR_AGING", Route: "ar-aging", DisplayName: "Accounts receivable aging",
		PartyColumn: "customer", PartyHeader: "Customer", TotalRow: "total_ar_aging", UnknownParty: "Unknown customer"}
	AgingAP = AgingSide{Side: "AP", Control: "ACCOUNTS_PAYABLE", Sign: -1, DocType: "BILL", PartyType: "VENDOR",
		Key: "AP_AGING", Route: "ap-aging", DisplayName: "Accounts payable aging",
		PartyColumn: "vendor", PartyHeader: "Vendor", TotalRow: "total_ap_aging", UnknownParty: "Unknown vendor"}
	AgingSides = []AgingSide{AgingAR, AgingAP}
)

// SourceInvoiceWriteOff is the ledger source type of an invoice's
// write-off: its control lines belong to the invoice it writes off.
const SourceInvoiceWriteOff = "INVOICE_WRITE_OFF"

// RowUnappliedAndOther is the row key of what no document holds.
const RowUnappliedAndOther = "unapplied_and_other"

// The buckets, in column order: days past due (effective date − due date)
// up to 30 (not yet due included), 31–60, 61–90, over 90.
const (
	BucketCurrent = iota
	Bucket31To60
	Bucket61To90
	BucketOver90
	// BucketOther marks an amount that is on no document (the row
	// "Unapplied and other", shown as current).
	BucketOther = -1
)

// AgingBuckets are the bucket columns (the client's AgingBucket keys).
var AgingBuckets = []struct{ Key, Name string }{
	{"current_0_30", "Current (0-30 days)"},
	{"days_31_60", "31-60 days"},
	{"days_61_90", "61-90 days"},
	{"days_90_plus", "Over 90 days"},
}

// AgingBucket is the bucket of a document due on due, on day on.
func AgingBucket(due, on time.Time) int {
	starts := AgingBucketStarts(on)
	for b, s := range starts {
		if !due.Before(s) {
			return b
		}
	}
	return BucketOver90
}

// AgingBucketStarts are the earliest due dates of the buckets Current,
// 31–60 and 61–90 on day on (a due date before the last is over 90 days
// past due): a store buckets with them exactly as AgingBucket does.
func AgingBucketStarts(on time.Time) [3]time.Time {
	return [3]time.Time{on.AddDate(0, 0, -30), on.AddDate(0, 0, -60), on.AddDate(0, 0, -90)}
}

// AgingHolder names what holds an open amount: a side and a ledger source
// (a document, a payment, a vendor credit, or any other source).
type AgingHolder struct {
	Side, Type, ID string
}

// Origin kinds of aging moves.
const (
	// OriginLedger: a source's control lines (Type, ID: the source).
	OriginLedger int16 = 0
	// OriginAllocation: what a payment applied (Type, ID: the payment's
	// kind and id).
	OriginAllocation int16 = 1
)

// AgingOrigin is where a move comes from, so that it can be replaced when
// its origin changes (a payment's new snapshot) or moved to another holder
// (a write-off once its invoice is known).
type AgingOrigin struct {
	Kind     int16
	Type, ID string
}

// AgingMove is an amount (open-amount sense) on a holder on a day.
type AgingMove struct {
	Origin AgingOrigin
	Holder AgingHolder
	Day    time.Time
	Amount int64
}

// LedgerHolder is the holder of the control lines of a ledger source on
// side s: a write-off's are its invoice's once writeOffs (write-off id →
// invoice id) knows it; every other source holds its own.
func LedgerHolder(s AgingSide, sourceType, sourceID string, writeOffs map[string]string) AgingHolder {
	if sourceType == SourceInvoiceWriteOff && s.Side == AgingAR.Side {
		if inv, ok := writeOffs[sourceID]; ok {
			return AgingHolder{Side: s.Side, Type: AgingAR.DocType, ID: inv}
		}
	}
	if sourceType == "" {
		sourceType = "OTHER"
	}
	return AgingHolder{Side: s.Side, Type: sourceType, ID: sourceID}
}

// agingPayers are the payment kinds that apply to aging documents: their
// side and the ledger source type of the payer (whose entry moved the
// control account). A vendor credit's use of itself
// (PaymentCreditUsed) moves nothing here.
var agingPayers = map[string]AgingSide{
	"INVOICE_PAYMENT":    AgingAR,
	"BILL_PAYMENT":       AgingAP,
	PaymentCreditToBills: AgingAP,
}

// AgingPayerType is the ledger source type of payment kind kind's payer
// (a vendor credit's applications are the VENDOR_CREDIT's), and whether
// the kind applies to aging documents at all.
func AgingPayerType(kind string) (AgingSide, string, bool) {
	side, ok := agingPayers[kind]
	if !ok {
		return AgingSide{}, "", false
	}
	if kind == PaymentCreditToBills {
		return side, "VENDOR_CREDIT", true
	}
	return side, kind, true
}

// AllocationMoves are the moves of what payment id of kind applied
// (allocs, its documents on its side): each amount leaves the document and
// goes to the payer, so they sum to zero. Nil for a kind that applies to
// no aging document.
func AllocationMoves(kind string, id uuid.UUID, allocs []Allocation) []AgingMove {
	side, payer, ok := AgingPayerType(kind)
	if !ok {
		return nil
	}
	origin := AgingOrigin{Kind: OriginAllocation, Type: kind, ID: id.String()}
	out := make([]AgingMove, 0, 2*len(allocs))
	for _, a := range allocs {
		if a.Amount == 0 || a.Doc.SourceType != side.DocType {
			continue
		}
		out = append(out,
			AgingMove{Origin: origin, Holder: AgingHolder{Side: side.Side, Type: side.DocType, ID: a.Doc.SourceID}, Day: a.Day, Amount: -a.Amount},
			AgingMove{Origin: origin, Holder: AgingHolder{Side: side.Side, Type: payer, ID: id.String()}, Day: a.Day, Amount: a.Amount})
	}
	return out
}

// AgingLine is an amount of an aging report: a party's (nil: none known)
// in a bucket, or (BucketOther) what no document holds. PartyName is the
// party's display name when known.
type AgingLine struct {
	Party     *uuid.UUID
	PartyName *string
	Bucket    int
	Amount    int64
}

// AgingDocument is a document's open amount on a day, with its party and
// the date it ages from (its due date, else its date).
type AgingDocument struct {
	ID     string
	Party  *uuid.UUID
	Due    time.Time
	Amount int64
}

// BuildAging is the aging report of side s for business bid from its
// lines: a row per party with an open amount (by name, then id), the row
// "Unapplied and other" when anything is on no document, and the bold
// total row. Amounts are Currency cells in cents; the total is the sum of
// every line.
func BuildAging(s AgingSide, bid uuid.UUID, lines []AgingLine) UnifiedReport {
	cols := []UnifiedReportColumn{{ColumnKey: s.PartyColumn, DisplayName: s.PartyHeader, IsRowHeader: true, Alignment: AlignLeft, Pinning: PinLeft}}
	for _, b := range AgingBuckets {
		cols = append(cols, UnifiedReportColumn{ColumnKey: b.Key, DisplayName: b.Name, Alignment: AlignRight})
	}
	cols = append(cols, UnifiedReportColumn{ColumnKey: "total", DisplayName: "Total", Alignment: AlignRight})

	type row struct {
		key, name, sortName string
		buckets             [4]int64
	}
	byKey := map[string]*row{}
	var rows []*row
	var other, totals = int64(0), [4]int64{}
	for _, l := range lines {
		if l.Amount == 0 {
			continue
		}
		if l.Bucket == BucketOther || l.Bucket < 0 || l.Bucket > BucketOver90 {
			other += l.Amount
			totals[BucketCurrent] += l.Amount
			continue
		}
		key, name := "unknown_"+strings.ToLower(s.PartyType), s.UnknownParty
		if l.Party != nil {
			key, name = l.Party.String(), l.Party.String()
			if l.PartyName != nil && strings.TrimSpace(*l.PartyName) != "" {
				name = *l.PartyName
			}
		}
		r, ok := byKey[key]
		if !ok {
			r = &row{key: key, name: name, sortName: strings.ToLower(name)}
			byKey[key] = r
			rows = append(rows, r)
		}
		r.buckets[l.Bucket] += l.Amount
		totals[l.Bucket] += l.Amount
	}
	rows = slices.DeleteFunc(rows, func(r *row) bool { return r.buckets == [4]int64{} })
	slices.SortFunc(rows, func(a, b *row) int {
		return cmp.Or(cmp.Compare(a.sortName, b.sortName), cmp.Compare(a.key, b.key))
	})
	cells := func(name string, b [4]int64, bold bool) map[string]*UnifiedReportCell {
		out := map[string]*UnifiedReportCell{s.PartyColumn: TextCell(name)}
		var sum int64
		for i, k := range AgingBuckets {
			out[k.Key] = CurrencyCell(b[i])
			sum += b[i]
		}
		out["total"] = CurrencyCell(sum)
		if bold {
			for _, c := range out {
				c.Bold()
			}
		}
		return out
	}
	out := UnifiedReport{BusinessID: bid, Columns: cols, Rows: make([]UnifiedReportRow, 0, len(rows)+2)}
	for _, r := range rows {
		out.Rows = append(out.Rows, UnifiedReportRow{RowKey: r.key, Cells: cells(r.name, r.buckets, false)})
	}
	if other != 0 {
		out.Rows = append(out.Rows, UnifiedReportRow{RowKey: RowUnappliedAndOther, Cells: cells("Unapplied and other", [4]int64{other}, false)})
	}
	out.Rows = append(out.Rows, UnifiedReportRow{RowKey: s.TotalRow, Cells: cells("Total", totals, true)})
	return out
}

// AgingConfig is side s's report config (its one control: the date).
func AgingConfig(s AgingSide) ReportConfig {
	return ReportConfig{Key: s.Key, ReportRoute: s.Route, DisplayName: s.DisplayName, Controls: []string{ControlDate},
		BaseQueryParameters: map[string]string{}}
}
