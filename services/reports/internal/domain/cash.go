package domain

import (
	"fmt"
	"slices"

	"github.com/acctsuite/acct/pkg/money"
)

// Reporting bases of a profit and loss.
const (
	BasisAccrual = "ACCRUAL"
	BasisCash    = "CASH"
)

// CashRule says how the cash basis treats the entries of one ledger source
// type (the documents of the invoicing and bills services). Source types
// without a rule count on their date in both bases (bank transactions,
// manual journal entries, payments and their fees...).
type CashRule struct {
	// Deferred: the entry's profit-and-loss lines are not recognized on
	// the entry's date but when the document is paid, in proportion to
	// the payments (Recognize).
	Deferred bool
	// Control is the stable name of the account the document's total sits
	// on until it is paid (ACCOUNTS_RECEIVABLE, ACCOUNTS_PAYABLE), and
	// ControlSign the sign its lines have in a document's entry (+1: a
	// debit, as an invoice's receivable; −1: a credit, as a bill's
	// payable): the document's total is ControlSign × the sum of the
	// entry's control lines.
	Control     string
	ControlSign int64
}

// CashRules are the source types the cash basis does not take on their
// date. An invoice's revenue (and a bill's expenses) are recognized when
// paid (for a bill: by payments and by vendor credits applied to it); a write-off of an unpaid invoice never is on the cash basis (the
// revenue it cancels was never recognized either), so its lines are left
// out entirely: Deferred with no payments ever allocated to it.
var CashRules = map[string]CashRule{
	"INVOICE":           {Deferred: true, Control: "ACCOUNTS_RECEIVABLE", ControlSign: 1},
	"INVOICE_WRITE_OFF": {Deferred: true},
	"BILL":              {Deferred: true, Control: "ACCOUNTS_PAYABLE", ControlSign: -1},
	// A vendor credit (debit A/P, credit expenses) lowers expenses on the
	// cash basis when it is applied to bills, in proportion.
	"VENDOR_CREDIT": {Deferred: true, Control: "ACCOUNTS_PAYABLE", ControlSign: 1},
}

// PaymentSource is the ledger source type of the documents a payment
// kind pays (an invoice payment's allocations pay INVOICE sources).
var PaymentSource = map[string]string{
	"INVOICE_PAYMENT": "INVOICE",
	"BILL_PAYMENT":    "BILL",
	// A vendor credit applied to bills pays them (PaymentCreditToBills)
	// and is itself used up by as much (PaymentCreditUsed).
	PaymentCreditToBills: "BILL",
	PaymentCreditUsed:    "VENDOR_CREDIT",
}

// The payment kinds of a vendor credit's applications.
const (
	PaymentCreditToBills = "VENDOR_CREDIT_TO_BILLS"
	PaymentCreditUsed    = "VENDOR_CREDIT_USED"
)

// IsPnLType reports whether accounts of type typ are profit-and-loss
// accounts (the only ones a report reads).
func IsPnLType(typ string) bool { return typ == TypeRevenue || typ == TypeExpense }

// Recognize spreads a document's profit-and-loss lines (signed cents, the
// sum of every entry of the document: reversals cancel) over its payments:
// total is what the document asks to be paid (positive), paid the amounts
// allocated to it in payment order. The result has one row per payment,
// each the cents of every line that payment recognizes:
//
//   - the payments recognize cumulatively round(S × paid so far / total)
//     of the lines' sum S (paid so far capped at total, so an overpaid
//     document recognizes S exactly once);
//   - when every line has the same sign, each payment's share is divided
//     over the lines in proportion to what each has left to recognize
//     (money.Allocate: the parts sum exactly to the share, no line ever
//     exceeds its amount, and a fully paid document has recognized every
//     line exactly);
//   - with lines of both signs (a contra line), each line is prorated on
//     its own, cumulatively (money.Prorate of the line by paid so far /
//     total), which is exact per line once fully paid.
//
// A document with no positive total recognizes nothing (nothing can be
// paid on it). The only errors are overflows.
func Recognize(lines []int64, total int64, paid []int64) ([][]int64, error) {
	out := make([][]int64, len(paid))
	for i := range out {
		out[i] = make([]int64, len(lines))
	}
	if total <= 0 || len(lines) == 0 {
		return out, nil
	}
	var sum int64
	pos, neg := false, false
	for _, l := range lines {
		sum += l
		pos = pos || l > 0
		neg = neg || l < 0
	}
	if !pos && !neg {
		return out, nil
	}
	var cum, recognized int64
	left := slices.Clone(lines)
	for k, a := range paid {
		prev := cum
		cum = min(max(cum+a, 0), total)
		if pos && neg {
			for i, l := range lines {
				now, err := money.Prorate(money.Cents(l), cum, total)
				if err != nil {
					return nil, fmt.Errorf("recognize: %w", err)
				}
				before, err := money.Prorate(money.Cents(l), prev, total)
				if err != nil {
					return nil, fmt.Errorf("recognize: %w", err)
				}
				out[k][i] = int64(now - before)
			}
			continue
		}
		target, err := money.Prorate(money.Cents(sum), cum, total)
		if err != nil {
			return nil, fmt.Errorf("recognize: %w", err)
		}
		share := int64(target) - recognized
		recognized = int64(target)
		if err := spreadShare(lines, left, share, out[k]); err != nil {
			return nil, fmt.Errorf("recognize: %w", err)
		}
	}
	return out, nil
}

// Spread divides shares (one per payment, in order) over lines: each share
// in proportion to what each line has left (money.Allocate: the parts sum
// exactly to the share), so that when the shares add up to the lines' sum
// and keep its sign every line is reached exactly.
func Spread(lines []int64, shares []int64) ([][]int64, error) {
	out := make([][]int64, len(shares))
	left := slices.Clone(lines)
	for k, share := range shares {
		out[k] = make([]int64, len(lines))
		if err := spreadShare(lines, left, share, out[k]); err != nil {
			return nil, fmt.Errorf("spread: %w", err)
		}
	}
	return out, nil
}

// spreadShare writes into row share divided over lines in proportion to
// left (what each has left, updated), or to the lines themselves when
// nothing is left (a payment taken back after everything was recognized).
func spreadShare(lines, left []int64, share int64, row []int64) error {
	if share == 0 || len(lines) == 0 {
		return nil
	}
	weights := make([]int64, len(lines))
	var wsum int64
	for i, l := range left {
		weights[i] = abs(l)
		wsum += weights[i]
	}
	if wsum == 0 {
		for i, l := range lines {
			weights[i] = abs(l)
			wsum += weights[i]
		}
	}
	if wsum == 0 { // every line is zero: the first takes the share
		weights[0] = 1
	}
	parts, err := money.Allocate(money.Cents(share), weights)
	if err != nil {
		return err
	}
	for i, p := range parts {
		row[i] = int64(p)
		left[i] -= int64(p)
	}
	return nil
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
