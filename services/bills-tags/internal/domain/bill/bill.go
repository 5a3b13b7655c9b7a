// Package bill holds the bill rules of the bills & tags service: line and
// bill totals in integer cents, payment terms and due dates, the statuses
// payments, credits and voids cause, and the journal lines a bill posts
// into the ledger. It imports no transport or storage package.
package bill

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// Limits of one bill.
const (
	MaxLines          = 500
	MaxTaxesPerLine   = 20
	MaxTextLength     = 1000 // product_name, description
	MaxMetadataBytes  = 1024 // the spec's 1KB
	MaxReferenceChars = 255
)

// Stable error_enum values of the bill rules' 4xx errors.
const (
	EnumInvalidBill      = "InvalidBill"
	EnumBillNotFound     = "BillNotFound"
	EnumNotEditable      = "BillNotEditable"
	EnumBillVoided       = "BillVoided"
	EnumHasPayments      = "BillHasPayments"
	EnumMetadataTooLarge = "MetadataTooLarge"
	EnumDuplicateExtID   = "DuplicateExternalId"
)

// Accounts the postings use by default.
const (
	AccountsPayable        = "ACCOUNTS_PAYABLE"
	DefaultExpenseAccount  = "UNCATEGORIZED_EXPENSES"
	DefaultClearingAccount = "BANK_ACCOUNTS"
)

// AccountRef names a ledger account the way requests do: by id
// ({type: "AccountId", id}) or by stable name ({type: "StableName",
// stable_name}). The ledger resolves it when it posts.
type AccountRef struct {
	ID         *uuid.UUID `json:"id,omitempty"`
	StableName string     `json:"stable_name,omitempty"`
}

// StableName is the reference to the account with that stable name.
func StableName(name string) AccountRef { return AccountRef{StableName: name} }

// IsZero reports an absent reference.
func (r AccountRef) IsZero() bool { return r.ID == nil && r.StableName == "" }

// Posting is the reference as a posting account.
func (r AccountRef) Posting() events.PostingAccount {
	if r.ID != nil {
		id := *r.ID
		return events.PostingAccount{Type: events.PostingAccountID, ID: &id}
	}
	return events.PostingAccount{Type: events.PostingStableName, StableName: r.StableName}
}

// SalesTax is one tax on a line or on the whole bill: a tax the business
// names (TaxName, canonical form), a known ledger account (Account), or
// neither.
type SalesTax struct {
	TaxName string      `json:"tax_name,omitempty"`
	Account *AccountRef `json:"account,omitempty"`
	Amount  money.Cents `json:"amount"`
}

// LineInput is a bill line as sent.
type LineInput struct {
	ExternalID        *string         `json:"external_id"`
	ProductName       *string         `json:"product_name"`
	Description       *string         `json:"description"`
	UnitPrice         money.Cents     `json:"unit_price"`
	Quantity          money.Quantity  `json:"quantity"`
	DiscountAmount    money.Cents     `json:"discount_amount"`
	Account           AccountRef      `json:"account"` // zero: DefaultExpenseAccount
	PrepaymentAccount *AccountRef     `json:"prepayment_account,omitempty"`
	SalesTaxes        []SalesTax      `json:"sales_taxes"`
	Tags              []tags.KeyValue `json:"tags"`
}

// Line is a checked line with its amounts: Subtotal = quantity × unit
// price (rounded half away from zero), SalesTaxesTotal the sum of its
// taxes, TotalAmount = Subtotal − DiscountAmount + SalesTaxesTotal.
type Line struct {
	ID uuid.UUID `json:"id"`
	LineInput
	Subtotal        money.Cents `json:"subtotal"`
	SalesTaxesTotal money.Cents `json:"sales_taxes_total"`
	TotalAmount     money.Cents `json:"total_amount"`
}

// ExpenseAccount is where the line's cost goes: its prepayment account
// when it has one, else its account, else UNCATEGORIZED_EXPENSES.
func (l Line) ExpenseAccount() AccountRef {
	if l.PrepaymentAccount != nil && !l.PrepaymentAccount.IsZero() {
		return *l.PrepaymentAccount
	}
	if l.Account.IsZero() {
		return StableName(DefaultExpenseAccount)
	}
	return l.Account
}

// AccountOrDefault is the line's account, UNCATEGORIZED_EXPENSES when
// none was sent.
func (l Line) AccountOrDefault() AccountRef {
	if l.Account.IsZero() {
		return StableName(DefaultExpenseAccount)
	}
	return l.Account
}

// Totals are a bill's amounts, in cents:
//
//	Subtotal          Σ line subtotals
//	Discounts         Σ line discounts
//	LineTaxes         Σ line taxes; AdditionalTaxes the bill-level ones
//	SalesTaxesTotal   LineTaxes + AdditionalTaxes
//	Total             Subtotal − Discounts + SalesTaxesTotal
type Totals struct {
	Subtotal        money.Cents
	Discounts       money.Cents
	LineTaxes       money.Cents
	AdditionalTaxes money.Cents
	SalesTaxesTotal money.Cents
	Total           money.Cents
}

// Computed is a checked draft: its lines with their amounts, the bill's
// totals and its additional taxes (tax names canonical).
type Computed struct {
	Lines                []Line
	Totals               Totals
	AdditionalSalesTaxes []SalesTax
}

func invalid(bad map[string]string) error {
	return apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(EnumInvalidBill)
}

// Compute checks the lines and additional taxes and returns them with
// their amounts and the bill's totals (newID names each line). Every
// violation is named in one 400 InvalidBill whose meta.fields maps the
// body field ("line_items[2].quantity") to the reason.
func Compute(lines []LineInput, additional []SalesTax, newID func() uuid.UUID) (Computed, error) {
	bad := map[string]string{}
	switch {
	case len(lines) == 0:
		bad["line_items"] = "at least one line item is required"
	case len(lines) > MaxLines:
		bad["line_items"] = fmt.Sprintf("at most %d line items, got %d", MaxLines, len(lines))
	}
	if len(bad) > 0 {
		return Computed{}, invalid(bad)
	}
	var t Totals
	add := func(field string, sum *money.Cents, v money.Cents) {
		s, err := sum.Add(v)
		if err != nil {
			bad[field] = "amount out of range"
			return
		}
		*sum = s
	}
	out := make([]Line, len(lines))
	for i, in := range lines {
		f := fmt.Sprintf("line_items[%d]", i)
		l := Line{ID: newID(), LineInput: in}
		checkText(f+".product_name", in.ProductName, MaxTextLength, bad)
		checkText(f+".description", in.Description, MaxTextLength, bad)
		checkText(f+".external_id", in.ExternalID, 255, bad)
		if in.UnitPrice < 0 {
			bad[f+".unit_price"] = "must be at least 0"
		}
		if in.Quantity.Sign() <= 0 {
			bad[f+".quantity"] = "must be greater than 0"
		}
		if in.DiscountAmount < 0 {
			bad[f+".discount_amount"] = "must be at least 0"
		}
		sub, err := money.LineTotal(in.Quantity, in.UnitPrice)
		if err != nil {
			bad[f+".unit_price"] = "quantity × unit_price is out of range"
		}
		l.Subtotal = sub
		if in.DiscountAmount > sub && err == nil && in.UnitPrice >= 0 {
			bad[f+".discount_amount"] = "must not exceed the line's subtotal (quantity × unit_price)"
		}
		if len(in.SalesTaxes) > MaxTaxesPerLine {
			bad[f+".sales_taxes"] = fmt.Sprintf("at most %d taxes per line", MaxTaxesPerLine)
		}
		l.SalesTaxes = normalizeTaxes(f+".sales_taxes", in.SalesTaxes, bad)
		for j, tx := range l.SalesTaxes {
			add(fmt.Sprintf("%s.sales_taxes[%d].amount", f, j), &l.SalesTaxesTotal, tx.Amount)
		}
		kvs, terr := tags.NormalizeList(f+".tags", in.Tags)
		if terr != nil {
			bad[f+".tags"] = "invalid tags (at most 50 {key, value}; see pkg/tags rules)"
		}
		l.Tags = kvs
		if total, err := l.Subtotal.Sub(in.DiscountAmount); err == nil {
			if total, err = total.Add(l.SalesTaxesTotal); err == nil {
				l.TotalAmount = total
			} else {
				bad[f] = "amount out of range"
			}
		}
		add("line_items", &t.Subtotal, l.Subtotal)
		add("line_items", &t.Discounts, in.DiscountAmount)
		add("line_items", &t.LineTaxes, l.SalesTaxesTotal)
		out[i] = l
	}
	addl := normalizeTaxes("additional_sales_taxes", additional, bad)
	for j, tx := range addl {
		add(fmt.Sprintf("additional_sales_taxes[%d].amount", j), &t.AdditionalTaxes, tx.Amount)
	}
	add("additional_sales_taxes", &t.SalesTaxesTotal, t.LineTaxes)
	add("additional_sales_taxes", &t.SalesTaxesTotal, t.AdditionalTaxes)
	if net, err := t.Subtotal.Sub(t.Discounts); err == nil {
		if total, err := net.Add(t.SalesTaxesTotal); err == nil {
			t.Total = total
		} else {
			bad["line_items"] = "the bill's total is out of range"
		}
	}
	if len(bad) > 0 {
		return Computed{}, invalid(bad)
	}
	return Computed{Lines: out, Totals: t, AdditionalSalesTaxes: addl}, nil
}

func normalizeTaxes(field string, in []SalesTax, bad map[string]string) []SalesTax {
	out := make([]SalesTax, len(in))
	for i, tx := range in {
		f := fmt.Sprintf("%s[%d]", field, i)
		if tx.Amount < 0 {
			bad[f+".amount"] = "must be at least 0"
		}
		if tx.TaxName != "" {
			n, err := events.NormalizeTaxName(tx.TaxName)
			if err != nil {
				bad[f+".tax_account.name"] = err.Error()
			}
			tx.TaxName = n
		}
		out[i] = tx
	}
	return out
}

func checkText(field string, p *string, max int, bad map[string]string) {
	if p == nil {
		return
	}
	if !utf8.ValidString(*p) {
		bad[field] = "must be valid UTF-8"
	} else if n := utf8.RuneCountInString(*p); n > max {
		bad[field] = fmt.Sprintf("at most %d characters, got %d", max, n)
	} else if strings.ContainsRune(*p, 0) {
		bad[field] = "must not contain NUL"
	}
}

// Terms are a bill's payment terms.
type Terms string

// The terms the client SDK knows (closed here).
const (
	DueOnReceipt Terms = "DUE_ON_RECEIPT"
	Net10        Terms = "NET_10"
	Net15        Terms = "NET_15"
	Net30        Terms = "NET_30"
	Net60        Terms = "NET_60"
)

var termDays = map[Terms]int{DueOnReceipt: 0, Net10: 10, Net15: 15, Net30: 30, Net60: 60}

// Valid reports a known term.
func (t Terms) Valid() bool { _, ok := termDays[t]; return ok }

// DueAt is the due date terms give a bill received at receivedAt: the same
// instant that many calendar days later (DUE_ON_RECEIPT: received_at).
func (t Terms) DueAt(receivedAt time.Time) time.Time {
	return receivedAt.AddDate(0, 0, termDays[t])
}

// TermsFor names the terms a due date matches (received_at + 0, 10, 15,
// 30 or 60 days, to the second); "" when it matches none (custom terms are
// answered as null).
func TermsFor(receivedAt, dueAt time.Time) Terms {
	for _, t := range []Terms{DueOnReceipt, Net10, Net15, Net30, Net60} {
		if t.DueAt(receivedAt).Equal(dueAt) {
			return t
		}
	}
	return ""
}

// Status is a bill's state.
type Status string

// The statuses.
const (
	Received      Status = "RECEIVED"
	PartiallyPaid Status = "PARTIALLY_PAID"
	Paid          Status = "PAID"
	Voided        Status = "VOIDED"
)

// StatusOf is the status of a bill of total with settled (paid + credited)
// applied: VOIDED when voided; PAID when nothing is left and something was
// settled (or a zero bill); PARTIALLY_PAID when some was; else RECEIVED.
func StatusOf(total, settled money.Cents, voided bool) Status {
	switch {
	case voided:
		return Voided
	case settled >= total:
		return Paid
	case settled > 0:
		return PartiallyPaid
	}
	return Received
}

// ParseStatus reads a status filter value.
func ParseStatus(s string) (Status, bool) {
	switch st := Status(strings.ToUpper(strings.TrimSpace(s))); st {
	case Received, PartiallyPaid, Paid, Voided:
		return st, true
	}
	return "", false
}
