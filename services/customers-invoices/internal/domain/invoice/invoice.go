// Package invoice holds the invoicing entities and rules of the customers
// & invoices service: invoices, payments and write-offs as stored, how a
// request creating or changing one is read and checked, line and invoice
// totals in integer cents, the statuses that payments, write-offs and
// voids cause, the checks on payments and write-offs, and the journal
// lines each of them posts into the ledger. It imports no transport or
// storage package.
package invoice

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// Limits of one invoice.
const (
	MaxLines          = 500
	MaxTaxesPerLine   = 20
	MaxTextLength     = 1000 // product, description, memos
	MaxMetadataBytes  = 1024 // the spec's 1KB
	MaxReferenceChars = 200
)

// Stable error_enum values of the invoice rules' 4xx errors.
const (
	EnumInvalidLine        = "InvalidLineItem"
	EnumInvalidAmount      = "InvalidAmount"
	EnumDiscountTooLarge   = "DiscountExceedsAmount"
	EnumOverpaid           = "InvoiceOverpaid"
	EnumAllocationMismatch = "AllocationMismatch"
	EnumInvoiceVoided      = "InvoiceVoided"
	EnumWriteOffTooLarge   = "WriteOffExceedsBalance"
	EnumHasPayments        = "InvoiceHasPayments"
	EnumNotEditable        = "InvoiceNotEditable"
	EnumMetadataTooLarge   = "MetadataTooLarge"
	// EnumInvoiceDraft: the invoice is a draft (finalize it first).
	EnumInvoiceDraft = "InvoiceIsDraft"
	// EnumRefundTooLarge: a refund exceeds what was paid and not refunded.
	EnumRefundTooLarge = "RefundExceedsPaid"
	// EnumNothingToRefund: the invoice has no payment left to refund.
	EnumNothingToRefund = "NothingToRefund"
	// EnumHasRefunds: payments cannot go below what was refunded.
	EnumHasRefunds = "InvoiceHasRefunds"
	// EnumPaymentSpansInvoices: the payment pays other invoices too.
	EnumPaymentSpansInvoices = "PaymentSpansInvoices"
	// EnumInvalidInvoice: a request body breaks a rule (meta.fields names
	// every offending field).
	EnumInvalidInvoice = "InvalidInvoice"
	// EnumDuplicateExternalID: a retried create's external_id is another
	// document's.
	EnumDuplicateExternalID = "DuplicateExternalId"
	// EnumInvalidBulkDelete: a bulk delete's ids are not 1 to
	// MaxBulkDelete distinct ids.
	EnumInvalidBulkDelete = "InvalidBulkDelete"
)

// DefaultRevenueAccount is the account of a line sent without
// account_identifier.
const DefaultRevenueAccount = "SALES"

// AccountRef names a ledger account the way requests do: by id
// (`{type: "AccountId", id}`) or by stable name (`{type: "StableName",
// stable_name}`). The ledger (the transactions service) resolves it when
// it posts.
type AccountRef struct {
	ID         *uuid.UUID `json:"id,omitempty"`
	StableName string     `json:"stable_name,omitempty"`
}

// StableName is the reference to the account with that stable name.
func StableName(name string) AccountRef { return AccountRef{StableName: name} }

// AccountID is the reference to the account with that id.
func AccountID(id uuid.UUID) AccountRef { return AccountRef{ID: &id} }

// IsZero reports an absent reference.
func (r AccountRef) IsZero() bool { return r.ID == nil && r.StableName == "" }

func (r AccountRef) String() string {
	if r.ID != nil {
		return "account " + r.ID.String()
	}
	return "account " + r.StableName
}

// SalesTax is one tax on a line or on the whole invoice: a tax named by
// the business (`tax_account: {type: "Tax_Name", name}`, journaled to a
// SALES_TAXES_PAYABLE sub-account of that name), a known ledger account
// (Account), or neither (journaled to SALES_TAXES_PAYABLE itself).
type SalesTax struct {
	TaxName string      `json:"tax_name,omitempty"`
	Account *AccountRef `json:"account,omitempty"`
	Amount  money.Cents `json:"amount"`
}

// LineInput is an invoice line as sent.
type LineInput struct {
	ExternalID     *string
	Product        *string
	Description    *string
	UnitPrice      money.Cents
	Quantity       money.Quantity
	Account        AccountRef // zero: DefaultRevenueAccount
	DiscountAmount money.Cents
	SalesTaxes     []SalesTax
	Tags           []tags.KeyValue
	Memo           *string
}

// Line is a checked line with its amounts: Subtotal = quantity × unit
// price (rounded half away from zero to the cent), SalesTaxesTotal the sum
// of its taxes, TotalAmount = Subtotal − DiscountAmount + SalesTaxesTotal.
// Revenue is what the line credits to its revenue account: Subtotal −
// DiscountAmount − its share of the invoice's additional discount.
type Line struct {
	LineInput
	Subtotal        money.Cents
	SalesTaxesTotal money.Cents
	TotalAmount     money.Cents
	Revenue         money.Cents
}

// RevenueAccount is the line's account, SALES when none was sent.
func (l Line) RevenueAccount() AccountRef {
	if l.Account.IsZero() {
		return StableName(DefaultRevenueAccount)
	}
	return l.Account
}

// Draft is what creating or updating an invoice supplies for its amounts.
type Draft struct {
	Lines                []LineInput
	AdditionalDiscount   money.Cents
	AdditionalSalesTaxes []SalesTax
	Tips                 money.Cents
}

// AccountField is an account reference a request names, with its field.
type AccountField struct {
	Field string
	Ref   AccountRef
}

// Accounts are the accounts d names explicitly (line accounts, tax
// accounts), which must be live accounts of the business's chart; the
// defaults (SALES, tax names) are the default chart's and need no check.
func (d Draft) Accounts() []AccountField {
	var out []AccountField
	for i, l := range d.Lines {
		if !l.Account.IsZero() {
			out = append(out, AccountField{fmt.Sprintf("line_items[%d].account_identifier", i), l.Account})
		}
		for k, t := range l.SalesTaxes {
			if t.Account != nil {
				out = append(out, AccountField{fmt.Sprintf("line_items[%d].sales_taxes[%d].tax_account", i, k), *t.Account})
			}
		}
	}
	for k, t := range d.AdditionalSalesTaxes {
		if t.Account != nil {
			out = append(out, AccountField{fmt.Sprintf("additional_sales_taxes[%d].tax_account", k), *t.Account})
		}
	}
	return out
}

// Totals are an invoice's amounts, all in cents:
//
//	Subtotal        Σ line subtotals (quantity × unit price)
//	TotalDiscount   Σ line discounts + AdditionalDiscount
//	LineTaxes       Σ line taxes; AdditionalTaxes the invoice-level ones
//	TotalTax        LineTaxes + AdditionalTaxes (the sales_taxes_total)
//	Total           Subtotal − TotalDiscount + TotalTax + Tips
type Totals struct {
	Subtotal           money.Cents
	LineDiscounts      money.Cents
	AdditionalDiscount money.Cents
	TotalDiscount      money.Cents
	LineTaxes          money.Cents
	AdditionalTaxes    money.Cents
	TotalTax           money.Cents
	Tips               money.Cents
	Total              money.Cents
}

// Computed is a checked draft: its lines with their amounts, the
// invoice's totals and its additional taxes (tax names in canonical form).
type Computed struct {
	Lines                []Line
	Totals               Totals
	AdditionalSalesTaxes []SalesTax
}

// Compute checks d and returns its lines with their amounts, the
// invoice's totals and its additional taxes. Every violation is named in one 400 error whose
// meta.fields maps the body field ("line_items[2].quantity") to the
// reason. The additional discount is spread over the lines' revenue in
// proportion to it (money.Allocate), so the revenue credits sum exactly.
func Compute(d Draft) (Computed, error) {
	bad := map[string]string{}
	if len(d.Lines) == 0 {
		bad["line_items"] = "at least one line item is required"
	}
	if len(d.Lines) > MaxLines {
		bad["line_items"] = fmt.Sprintf("at most %d line items, got %d", MaxLines, len(d.Lines))
	}
	if len(bad) > 0 {
		return Computed{}, invalid(bad, EnumInvalidLine)
	}
	var t Totals
	lines := make([]Line, len(d.Lines))
	add := func(field string, sum *money.Cents, v money.Cents) {
		s, err := sum.Add(v)
		if err != nil {
			bad[field] = "amount out of range"
			return
		}
		*sum = s
	}
	nets := make([]money.Cents, len(d.Lines))
	for i, in := range d.Lines {
		f := fmt.Sprintf("line_items[%d]", i)
		l := Line{LineInput: in}
		checkLineText(f, in, bad)
		if in.UnitPrice < 0 {
			bad[f+".unit_price"] = "must be at least 0"
		}
		if in.Quantity.Sign() <= 0 {
			bad[f+".quantity"] = "must be greater than 0"
		}
		sub, err := money.LineTotal(in.Quantity, in.UnitPrice)
		if err != nil {
			bad[f+".quantity"] = "quantity × unit_price is out of range"
		}
		l.Subtotal = sub
		switch {
		case in.DiscountAmount < 0:
			bad[f+".discount_amount"] = "must be at least 0"
		case in.DiscountAmount > sub && sub >= 0:
			bad[f+".discount_amount"] = fmt.Sprintf("exceeds the line's subtotal (%d cents)", sub)
		}
		if len(in.SalesTaxes) > MaxTaxesPerLine {
			bad[f+".sales_taxes"] = fmt.Sprintf("at most %d taxes per line", MaxTaxesPerLine)
		}
		l.SalesTaxes = make([]SalesTax, len(in.SalesTaxes))
		for k, tx := range in.SalesTaxes {
			l.SalesTaxes[k] = checkTax(fmt.Sprintf("%s.sales_taxes[%d]", f, k), tx, bad)
			add(f+".sales_taxes", &l.SalesTaxesTotal, tx.Amount)
		}
		if tg, err := tags.NormalizeList(f+".tags", in.Tags); err != nil {
			mergeFields(bad, err)
		} else {
			l.Tags = tg
		}
		net, err := sub.Sub(in.DiscountAmount)
		if err != nil {
			bad[f+".discount_amount"] = "amount out of range"
		}
		nets[i] = max(net, 0)
		l.TotalAmount = net
		add(f, &l.TotalAmount, l.SalesTaxesTotal)
		add("line_items", &t.Subtotal, sub)
		add("line_items", &t.LineDiscounts, in.DiscountAmount)
		add("line_items", &t.LineTaxes, l.SalesTaxesTotal)
		lines[i] = l
	}
	if d.AdditionalDiscount < 0 {
		bad["additional_discount"] = "must be at least 0"
	}
	if d.Tips < 0 {
		bad["tips"] = "must be at least 0"
	}
	if len(d.AdditionalSalesTaxes) > MaxTaxesPerLine {
		bad["additional_sales_taxes"] = fmt.Sprintf("at most %d taxes", MaxTaxesPerLine)
	}
	extra := make([]SalesTax, len(d.AdditionalSalesTaxes))
	for k, tx := range d.AdditionalSalesTaxes {
		extra[k] = checkTax(fmt.Sprintf("additional_sales_taxes[%d]", k), tx, bad)
		add("additional_sales_taxes", &t.AdditionalTaxes, tx.Amount)
	}
	if len(bad) > 0 {
		return Computed{}, invalid(bad, EnumInvalidLine)
	}
	var revenue money.Cents
	for _, n := range nets {
		add("line_items", &revenue, n)
	}
	if d.AdditionalDiscount > revenue {
		bad["additional_discount"] = fmt.Sprintf("exceeds the lines' total after their discounts (%d cents)", revenue)
		return Computed{}, invalid(bad, EnumDiscountTooLarge)
	}
	shares := make([]money.Cents, len(lines))
	if d.AdditionalDiscount > 0 {
		var err error
		if shares, err = money.Allocate(d.AdditionalDiscount, nets); err != nil {
			return Computed{}, fmt.Errorf("invoice: spread the additional discount: %w", err)
		}
	}
	for i := range lines {
		lines[i].Revenue = nets[i] - shares[i] // shares[i] <= nets[i]: Allocate's parts are at most their exact share
	}
	t.AdditionalDiscount, t.Tips = d.AdditionalDiscount, d.Tips
	t.TotalDiscount = t.LineDiscounts + t.AdditionalDiscount // both bounded by Subtotal
	add("line_items", &t.TotalTax, t.LineTaxes)
	add("additional_sales_taxes", &t.TotalTax, t.AdditionalTaxes)
	total := t.Subtotal - t.TotalDiscount
	add("tips", &total, t.TotalTax)
	add("tips", &total, t.Tips)
	if len(bad) > 0 {
		return Computed{}, invalid(bad, EnumInvalidAmount)
	}
	t.Total = total
	return Computed{Lines: lines, Totals: t, AdditionalSalesTaxes: extra}, nil
}

func checkLineText(f string, in LineInput, bad map[string]string) {
	if blank(in.Product) && blank(in.Description) {
		bad[f+".product"] = "product or description is required"
	}
	for name, p := range map[string]*string{"product": in.Product, "description": in.Description, "memo": in.Memo, "external_id": in.ExternalID} {
		if p != nil && utf8.RuneCountInString(*p) > MaxTextLength {
			bad[f+"."+name] = fmt.Sprintf("at most %d characters", MaxTextLength)
		} else if p != nil && jsonraw.TextReason(*p) != "" {
			bad[f+"."+name] = jsonraw.TextReason(*p) // stored in jsonb: a NUL is a 400, not a 500
		}
	}
}

// checkTax checks one tax and returns it with its name in canonical form
// (events.NormalizeTaxName: the ledger names the tax's account after it).
func checkTax(f string, tx SalesTax, bad map[string]string) SalesTax {
	switch {
	case tx.Account != nil && tx.TaxName != "":
		bad[f+".tax_account"] = "a tax name or an account identifier, not both"
	case tx.Account == nil && strings.TrimSpace(tx.TaxName) == "":
		tx.TaxName = "" // no tax account named (the SDK sends {amount}): SALES_TAXES_PAYABLE
	case tx.Account == nil:
		n, err := events.NormalizeTaxName(tx.TaxName)
		if err != nil {
			bad[f+".tax_account.name"] = err.Error()
		}
		tx.TaxName = n
	}
	if tx.Amount < 0 {
		bad[f+".amount"] = "must be at least 0"
	}
	return tx
}

func blank(p *string) bool { return p == nil || strings.TrimSpace(*p) == "" }

// invalid is the 400 naming every offending field.
func invalid(fields map[string]string, enum string) error {
	return apperr.FieldErrors(apperr.InvalidPayload, fields).WithEnum(enum)
}

// mergeFields copies the field reasons of a 400 built elsewhere (tags)
// into bad.
func mergeFields(bad map[string]string, err error) {
	var ae *apperr.Error
	if errors.As(err, &ae) {
		if m, ok := ae.Meta["fields"].(map[string]string); ok {
			for k, v := range m {
				bad[k] = v
			}
			return
		}
	}
	bad["tags"] = err.Error()
}
