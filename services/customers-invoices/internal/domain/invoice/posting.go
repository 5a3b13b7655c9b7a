package invoice

import (
	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// Direction is the side of a journal line.
type Direction string

// The two sides.
const (
	Debit  Direction = "DEBIT"
	Credit Direction = "CREDIT"
)

// PostingAccount is the account a journal line goes to: a ledger account
// reference, or (TaxName) the SALES_TAXES_PAYABLE sub-account of a tax
// the business names.
type PostingAccount struct {
	Ref     AccountRef
	TaxName string
}

// PostingLine is one line of the journal entry a document asks the ledger
// to post.
type PostingLine struct {
	Account   PostingAccount
	Direction Direction
	Amount    money.Cents
	Tags      []tags.KeyValue
}

// Accounts the postings use.
const (
	AccountsReceivable = "ACCOUNTS_RECEIVABLE"
	UndepositedFunds   = "UNDEPOSITED_FUNDS"
	ProcessorClearing  = "PAYMENT_PROCESSOR_CLEARING"
	UnearnedRevenue    = "UNEARNED_REVENUE"
	Tips               = "TIPS"
	PaymentFees        = "OTHER_FEES"
	SalesTaxesPayable  = "SALES_TAXES_PAYABLE"
)

// InvoicePosting is the entry of a sent invoice: debit
// ACCOUNTS_RECEIVABLE with the total; credit each line's revenue account
// with its revenue (subtotal − discount − its share of the additional
// discount), each tax to its account, tips to TIPS. Lines carry the
// invoice's tags plus their own. A zero invoice posts nothing (nil).
func InvoicePosting(lines []Line, additionalTaxes []SalesTax, t Totals, invoiceTags []tags.KeyValue) []PostingLine {
	if t.Total == 0 {
		return nil
	}
	out := []PostingLine{{Account: ref(StableName(AccountsReceivable)), Direction: Debit, Amount: t.Total, Tags: invoiceTags}}
	for _, l := range lines {
		lt := mergeTags(invoiceTags, l.Tags)
		if l.Revenue > 0 {
			out = append(out, PostingLine{Account: ref(l.RevenueAccount()), Direction: Credit, Amount: l.Revenue, Tags: lt})
		}
		for _, tx := range l.SalesTaxes {
			if tx.Amount > 0 {
				out = append(out, PostingLine{Account: taxAccount(tx), Direction: Credit, Amount: tx.Amount, Tags: lt})
			}
		}
	}
	for _, tx := range additionalTaxes {
		if tx.Amount > 0 {
			out = append(out, PostingLine{Account: taxAccount(tx), Direction: Credit, Amount: tx.Amount, Tags: invoiceTags})
		}
	}
	if t.Tips > 0 {
		out = append(out, PostingLine{Account: ref(StableName(Tips)), Direction: Credit, Amount: t.Tips, Tags: invoiceTags})
	}
	return out
}

// PaymentPosting is the entry of a payment: debit where the money is
// (UNDEPOSITED_FUNDS; PAYMENT_PROCESSOR_CLEARING when a processor took
// it; UNEARNED_REVENUE when the customer's credit balance paid) with the
// amount net of the fee, the fee to OTHER_FEES, and credit
// ACCOUNTS_RECEIVABLE with each allocation.
func PaymentPosting(method Method, processor string, p PaymentAmounts, paymentTags []tags.KeyValue) []PostingLine {
	cash := DepositAccount(method, processor)
	var out []PostingLine
	if net := p.Amount - p.Fee; net > 0 {
		out = append(out, PostingLine{Account: ref(StableName(cash)), Direction: Debit, Amount: net, Tags: paymentTags})
	}
	if p.Fee > 0 {
		out = append(out, PostingLine{Account: ref(StableName(PaymentFees)), Direction: Debit, Amount: p.Fee, Tags: paymentTags})
	}
	for _, a := range p.Allocations {
		out = append(out, PostingLine{Account: ref(StableName(AccountsReceivable)), Direction: Credit, Amount: a.Amount, Tags: paymentTags})
	}
	return out
}

// WriteOffPosting is the entry of a write-off of amount: credit
// ACCOUNTS_RECEIVABLE; debit the destination (BAD_DEBT by default) in
// EXPENSE mode, or the invoice's revenue accounts in proportion to each
// line's revenue in REVENUE_REVERSAL mode (money.Allocate: the debits sum
// exactly to the amount).
func WriteOffPosting(amount money.Cents, mode WriteOffMode, destination AccountRef, lines []Line, woTags []tags.KeyValue) ([]PostingLine, error) {
	var out []PostingLine
	if mode == ModeRevenueReversal {
		weights := make([]money.Cents, len(lines))
		var sum money.Cents
		for i, l := range lines {
			weights[i] = l.Revenue
			sum += l.Revenue
		}
		if sum == 0 {
			// Only taxes and tips: no revenue to reverse.
			return nil, apperr.PayloadField("write_off_mode", "the invoice credited no revenue to reverse: use EXPENSE").
				WithEnum(EnumInvalidAmount)
		}
		parts, err := money.Allocate(amount, weights)
		if err != nil {
			return nil, err
		}
		for i, l := range lines {
			if parts[i] > 0 {
				out = append(out, PostingLine{Account: ref(l.RevenueAccount()), Direction: Debit, Amount: parts[i], Tags: mergeTags(woTags, l.Tags)})
			}
		}
	} else {
		if destination.IsZero() {
			destination = StableName(DefaultWriteOffAccount)
		}
		out = append(out, PostingLine{Account: ref(destination), Direction: Debit, Amount: amount, Tags: woTags})
	}
	out = append(out, PostingLine{Account: ref(StableName(AccountsReceivable)), Direction: Credit, Amount: amount, Tags: woTags})
	return out, nil
}

func ref(r AccountRef) PostingAccount { return PostingAccount{Ref: r} }

func taxAccount(tx SalesTax) PostingAccount {
	switch {
	case tx.Account != nil:
		return PostingAccount{Ref: *tx.Account}
	case tx.TaxName == "":
		return ref(StableName(SalesTaxesPayable))
	}
	return PostingAccount{TaxName: tx.TaxName}
}

// DepositAccount is where a payment's money is until a deposit is matched
// to it: UNEARNED_REVENUE when the customer's credit balance paid (no
// money moved), PAYMENT_PROCESSOR_CLEARING when a processor took it,
// UNDEPOSITED_FUNDS otherwise.
func DepositAccount(method Method, processor string) string {
	switch {
	case method == CreditBalance:
		return UnearnedRevenue
	case processor != "":
		return ProcessorClearing
	}
	return UndepositedFunds
}

// mergeTags is base plus extra, a key of extra replacing the same key of
// base (a line's own tag wins over the invoice's for that key).
func mergeTags(base, extra []tags.KeyValue) []tags.KeyValue {
	if len(extra) == 0 {
		return base
	}
	keys := map[string]bool{}
	for _, kv := range extra {
		keys[kv.Key] = true
	}
	out := make([]tags.KeyValue, 0, len(base)+len(extra))
	for _, kv := range base {
		if !keys[kv.Key] {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}
