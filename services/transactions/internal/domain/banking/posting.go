package banking

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"

	"github.com/acctsuite/acct/services/transactions/internal/domain/banking/salestax"
)

// Stable names of the chart accounts a categorization posts to besides
// its categories.
const (
	// StableSalesTaxesReceivable holds the input tax credits (GST/HST,
	// QST refunds) of money paid out with tax; Canadian charts only.
	StableSalesTaxesReceivable = "SALES_TAXES_RECEIVABLE"
	// StableSalesTaxesPayable holds the sales tax collected on money in.
	StableSalesTaxesPayable = "SALES_TAXES_PAYABLE"
	// StableDistributions (owner's draw) takes PERSONAL_EXPENSES: business
	// money the owner spent privately.
	StableDistributions = "DISTRIBUTIONS"
	// StableContributions takes PERSONAL_INFLOWS: the owner's own money
	// put into the business.
	StableContributions = "CONTRIBUTIONS"
	// StableTransfersInTransit takes TRANSFER_BETWEEN_ACCOUNTS: an asset
	// clearing account that the two legs of a transfer (money out of one
	// account, money into the other) bring back to zero, so a transfer
	// with only one leg imported shows up as a balance there instead of
	// vanishing. The chart must have it (ASSETS › TRANSFERS_IN_TRANSIT).
	StableTransfersInTransit = "TRANSFERS_IN_TRANSIT"
)

// ExclusionStableName is the chart account an exclusion posts to, or ""
// for DUPLICATE_TRANSACTION, which posts nothing. The account is the same
// whatever the direction; the direction picks the side (a personal
// expense refunded reduces the draw).
func ExclusionStableName(x ExclusionType) string {
	switch x {
	case PersonalExpenses:
		return StableDistributions
	case PersonalInflows:
		return StableContributions
	case TransferBetweenAccounts:
		return StableTransfersInTransit
	}
	return ""
}

// AccountClass is the fundamental class of a ledger account, with the
// ledger's values.
type AccountClass string

// The account classes.
const (
	ClassAsset     AccountClass = "ASSET"
	ClassLiability AccountClass = "LIABILITY"
	ClassEquity    AccountClass = "EQUITY"
	ClassRevenue   AccountClass = "REVENUE"
	ClassExpense   AccountClass = "EXPENSE"
)

// InPnL reports whether accounts of the class appear in the profit and
// loss.
func (c AccountClass) InPnL() bool { return c == ClassRevenue || c == ClassExpense }

// LedgerAccount is the part of a ledger account that posting needs.
type LedgerAccount struct {
	ID         uuid.UUID
	StableName string // "" when the account has none
	Name       string
	Class      AccountClass
}

// AccountRef names a ledger account by id or by stable name; exactly one
// is set.
type AccountRef struct {
	ID         uuid.UUID
	StableName string
}

// ErrAccountNotFound is what an AccountResolver returns (wrapped or not)
// for a reference that names no live account of the business.
var ErrAccountNotFound = errors.New("ledger account not found")

// AccountResolver finds the business's live ledger accounts; the app layer
// implements it over the ledger's store (one business, one transaction).
type AccountResolver interface {
	// ResolveAccount returns the account ref names, or an error wrapping
	// ErrAccountNotFound when the business has no such live account
	// (another business's account included).
	ResolveAccount(ctx context.Context, ref AccountRef) (LedgerAccount, error)
}

// ResolvedCategorization is a categorization whose classifications are
// ledger accounts, ready to be turned into journal lines.
type ResolvedCategorization struct {
	Categorization
	// Accounts[i] is the account of entry i; the zero value for a
	// DUPLICATE_TRANSACTION, which has none.
	Accounts []LedgerAccount
	// TaxAccount takes the recoverable (money out) or collected (money in)
	// tax; the zero value when no entry has a tax code.
	TaxAccount LedgerAccount
}

// Resolve looks up the ledger account of every entry (the category named,
// or the account of the exclusion) and, when an entry has a tax code, the
// tax account for the direction. A category that names no account of the
// business is a 400 InvalidPayload UnknownAccount naming the field
// (`category`, `entries[2].category`); a missing exclusion or tax account
// is a server-side chart problem and comes back as a plain error.
func Resolve(ctx context.Context, r AccountResolver, c Categorization) (ResolvedCategorization, error) {
	out := ResolvedCategorization{Categorization: c, Accounts: make([]LedgerAccount, len(c.entries))}
	v := apperr.NewViolations(apperr.InvalidPayload)
	needTax := false
	for i, e := range c.entries {
		f := "category"
		if c.split {
			f = fmt.Sprintf("entries[%d].category", i)
		}
		needTax = needTax || e.Tax != nil
		var ref AccountRef
		switch e.Category.Type {
		case ByAccountID:
			ref.ID = e.Category.AccountID
		case ByStableName:
			ref.StableName = e.Category.StableName
		case ByExclusion:
			name := ExclusionStableName(e.Category.Exclusion)
			if name == "" {
				continue
			}
			a, err := r.ResolveAccount(ctx, AccountRef{StableName: name})
			if err != nil {
				return ResolvedCategorization{}, fmt.Errorf("resolve the %s account of %s: %w", name, e.Category.Exclusion, err)
			}
			out.Accounts[i] = a
			continue
		}
		a, err := r.ResolveAccount(ctx, ref)
		switch {
		case errors.Is(err, ErrAccountNotFound):
			v.Add(f, EnumUnknownAccount, "names no ledger account of the business")
		case err != nil:
			return ResolvedCategorization{}, fmt.Errorf("resolve %s: %w", e.Category.Key(), err)
		default:
			out.Accounts[i] = a
		}
	}
	if err := v.Err(); err != nil {
		return ResolvedCategorization{}, err
	}
	if needTax {
		name := StableSalesTaxesReceivable
		if c.direction.MoneyIn() {
			name = StableSalesTaxesPayable
		}
		a, err := r.ResolveAccount(ctx, AccountRef{StableName: name})
		if err != nil {
			return ResolvedCategorization{}, fmt.Errorf("resolve the tax account %s: %w", name, err)
		}
		out.TaxAccount = a
	}
	return out, nil
}

// Refs lists every account Resolve asks its resolver for when resolving c
// (the categories named, the accounts of the exclusions, the tax account),
// without duplicates, so a caller can fetch them all in one go first.
func Refs(c Categorization) []AccountRef {
	var out []AccountRef
	add := func(r AccountRef) {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	needTax := false
	for _, e := range c.entries {
		needTax = needTax || e.Tax != nil
		switch e.Category.Type {
		case ByAccountID:
			add(AccountRef{ID: e.Category.AccountID})
		case ByStableName:
			add(AccountRef{StableName: e.Category.StableName})
		case ByExclusion:
			if name := ExclusionStableName(e.Category.Exclusion); name != "" {
				add(AccountRef{StableName: name})
			}
		}
	}
	if needTax {
		name := StableSalesTaxesReceivable
		if c.direction.MoneyIn() {
			name = StableSalesTaxesPayable
		}
		add(AccountRef{StableName: name})
	}
	return out
}

// EnumUnknownAccount is the error_enum of a category naming no account.
const EnumUnknownAccount = "UnknownAccount"

// Side is the side of a journal line, with the ledger's values.
type Side string

// The sides.
const (
	SideDebit  Side = "DEBIT"
	SideCredit Side = "CREDIT"
)

// Opposite is the other side.
func (s Side) Opposite() Side {
	if s == SideDebit {
		return SideCredit
	}
	return SideDebit
}

// LineRole says why a line is in a posting.
type LineRole string

// The line roles.
const (
	RoleBank      LineRole = "BANK"      // the bank or card account, for the whole amount
	RoleCategory  LineRole = "CATEGORY"  // an entry's category, net of recoverable tax
	RoleExclusion LineRole = "EXCLUSION" // an exclusion's equity or clearing account
	RoleTax       LineRole = "TAX"       // a tax component's share
)

// PostingLine is a journal line a categorization posts.
type PostingLine struct {
	Account LedgerAccount
	Side    Side
	Amount  money.Cents // positive
	Role    LineRole
	// Entry is the index of the categorization entry the line comes from,
	// -1 for the bank line and for tax lines (merged across entries).
	Entry int
	// Tax is the component of a tax line.
	Tax  salestax.Tax
	Tags []tags.KeyValue
}

// Posting is the journal entry a categorization posts through the
// ledger: balanced lines, or none at all for a duplicate.
type Posting struct {
	Lines []PostingLine
	// ExcludedFromPnL is true when no line reaches a revenue or expense
	// account: an exclusion, or a split made only of exclusions.
	ExcludedFromPnL bool
}

// Empty reports whether nothing is to be posted.
func (p Posting) Empty() bool { return len(p.Lines) == 0 }

// Totals are the sums of the debit and the credit lines.
func (p Posting) Totals() (debits, credits money.Cents, err error) {
	var d, c []money.Cents
	for _, l := range p.Lines {
		if l.Side == SideDebit {
			d = append(d, l.Amount)
		} else {
			c = append(c, l.Amount)
		}
	}
	if debits, err = money.Sum(d...); err != nil {
		return 0, 0, err
	}
	credits, err = money.Sum(c...)
	return debits, credits, err
}

// BuildPosting turns a resolved categorization of a transaction of the
// bank (or card) ledger account bank into balanced journal lines:
//
//   - money out (DEBIT): each category is debited and the bank account
//     credited with the whole amount; money in (CREDIT): the reverse. On
//     a card account the same rule holds: a charge credits the card's
//     liability, a payment debits it.
//   - a split gets one line per entry and the one bank line;
//   - an entry with a tax code posts only its net to the category: for
//     money out the recoverable taxes (GST, HST, QST) go to
//     SALES_TAXES_RECEIVABLE as input tax credits while non-recoverable
//     PST stays in the category (it is part of the cost); for money in
//     every tax goes to SALES_TAXES_PAYABLE. Tax lines are merged per
//     component across entries;
//   - exclusions post to their account (ExclusionStableName) and are out
//     of the P&L; a DUPLICATE_TRANSACTION posts nothing.
//
// Lines of zero amount are left out. A category that is the bank account
// itself is a 400 CategoryIsBankAccount.
func BuildPosting(bank LedgerAccount, rc ResolvedCategorization) (Posting, error) {
	if len(rc.Accounts) != len(rc.entries) {
		return Posting{}, fmt.Errorf("build posting: %d accounts for %d entries", len(rc.Accounts), len(rc.entries))
	}
	if rc.IsDuplicate() {
		return Posting{ExcludedFromPnL: true}, nil
	}
	bankSide := SideCredit // money out credits the bank account
	if rc.direction.MoneyIn() {
		bankSide = SideDebit
	}
	catSide := bankSide.Opposite()

	var lines, taxLines []PostingLine
	inPnL := false
	for i, e := range rc.entries {
		acct := rc.Accounts[i]
		f := "category"
		if rc.split {
			f = fmt.Sprintf("entries[%d].category", i)
		}
		if acct.ID == uuid.Nil {
			return Posting{}, fmt.Errorf("build posting: entry %d has no resolved account", i)
		}
		if acct.ID == bank.ID {
			return Posting{}, fieldError(apperr.InvalidPayload, f, EnumCategoryIsBankAccount,
				"cannot be the transaction's own bank account")
		}
		role := RoleCategory
		if e.Category.IsExclusion() {
			role = RoleExclusion
		} else if acct.Class.InPnL() {
			inPnL = true
		}
		amount := e.Amount
		if e.Tax != nil {
			net, shares, err := e.Tax.Split(e.Amount)
			if err != nil {
				return Posting{}, fmt.Errorf("build posting: entry %d: %w", i, err)
			}
			amount = net
			for _, s := range shares {
				if !rc.direction.MoneyIn() && !s.Recoverable {
					if amount, err = amount.Add(s.Amount); err != nil {
						return Posting{}, fmt.Errorf("build posting: entry %d: %w", i, err)
					}
					continue
				}
				if taxLines, err = addTax(taxLines, rc.TaxAccount, catSide, s); err != nil {
					return Posting{}, fmt.Errorf("build posting: entry %d: %w", i, err)
				}
			}
		}
		if amount > 0 {
			lines = append(lines, PostingLine{Account: acct, Side: catSide, Amount: amount, Role: role, Entry: i, Tags: slices.Clone(e.Tags)})
		}
	}
	lines = append(lines, taxLines...)
	lines = append(lines, PostingLine{Account: bank, Side: bankSide, Amount: rc.amount, Role: RoleBank, Entry: -1})
	p := Posting{Lines: lines, ExcludedFromPnL: !inPnL}
	d, c, err := p.Totals()
	if err != nil || d != c {
		return Posting{}, fmt.Errorf("build posting: unbalanced lines (debits %d, credits %d, %v)", d, c, err)
	}
	return p, nil
}

// addTax adds a tax share to the merged tax lines.
func addTax(lines []PostingLine, acct LedgerAccount, side Side, s salestax.Share) ([]PostingLine, error) {
	if s.Amount == 0 {
		return lines, nil
	}
	if acct.ID == uuid.Nil {
		return nil, errors.New("no tax account resolved")
	}
	for i := range lines {
		if lines[i].Tax == s.Tax {
			sum, err := lines[i].Amount.Add(s.Amount)
			if err != nil {
				return nil, err
			}
			lines[i].Amount = sum
			return lines, nil
		}
	}
	return append(lines, PostingLine{Account: acct, Side: side, Amount: s.Amount, Role: RoleTax, Entry: -1, Tax: s.Tax}), nil
}

// ProjectIncome is the transaction's `projected_income_category`: for an
// uncategorized transaction (rc nil) it follows the direction (money in
// is expected REVENUE, money out EXPENSE); a categorized one follows the
// class of its largest revenue or expense entry (the first on a tie), and
// is EXCLUDE when no entry reaches the P&L (exclusions, transfers to
// balance-sheet accounts).
func ProjectIncome(d Direction, rc *ResolvedCategorization) ProjectedIncomeCategory {
	if rc == nil {
		if d.MoneyIn() {
			return ProjectedRevenue
		}
		return ProjectedExpense
	}
	best := -1
	for i, e := range rc.entries {
		if i >= len(rc.Accounts) || e.Category.IsExclusion() || !rc.Accounts[i].Class.InPnL() {
			continue
		}
		if best < 0 || e.Amount > rc.entries[best].Amount {
			best = i
		}
	}
	switch {
	case best < 0:
		return ProjectedExclude
	case rc.Accounts[best].Class == ClassRevenue:
		return ProjectedRevenue
	default:
		return ProjectedExpense
	}
}
