package banking

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking/salestax"
)

// chart is an in-memory AccountResolver over a few accounts of a
// Canadian chart.
type chart struct {
	byName map[string]LedgerAccount
	byID   map[uuid.UUID]LedgerAccount
	fail   error
	calls  int
}

func newChart() *chart {
	c := &chart{byName: map[string]LedgerAccount{}, byID: map[uuid.UUID]LedgerAccount{}}
	for _, a := range []struct {
		name  string
		class AccountClass
	}{
		{"CHECKING", ClassAsset}, {"VISA", ClassLiability}, {"OFFICE_EXPENSES", ClassExpense}, {"MEALS", ClassExpense},
		{"TRAVEL", ClassExpense}, {"SALES", ClassRevenue}, {"LINE_OF_CREDIT", ClassLiability},
		{StableSalesTaxesReceivable, ClassAsset}, {StableSalesTaxesPayable, ClassLiability},
		{StableDistributions, ClassEquity}, {StableContributions, ClassEquity}, {StableTransfersInTransit, ClassAsset},
	} {
		acct := LedgerAccount{ID: uuid.NewSHA1(uuid.NameSpaceOID, []byte(a.name)), StableName: a.name, Name: a.name, Class: a.class}
		c.byName[a.name], c.byID[acct.ID] = acct, acct
	}
	return c
}

func (c *chart) ResolveAccount(_ context.Context, ref AccountRef) (LedgerAccount, error) {
	c.calls++
	if c.fail != nil {
		return LedgerAccount{}, c.fail
	}
	a, ok := c.byName[ref.StableName]
	if ref.ID != uuid.Nil {
		a, ok = c.byID[ref.ID]
	}
	if !ok {
		return LedgerAccount{}, fmt.Errorf("account %v: %w", ref, ErrAccountNotFound)
	}
	return a, nil
}

// line is a compact form of a posting line for comparisons.
func line(l PostingLine) string {
	s := fmt.Sprintf("%s %s %d", l.Side, l.Account.StableName, l.Amount)
	if l.Tax != "" {
		s += " " + string(l.Tax)
	}
	return s
}

func post(t *testing.T, c *chart, bank string, target CategorizationTarget, body string) Posting {
	t.Helper()
	cat, err := ParseCategorization([]byte(body), target)
	if err != nil {
		t.Fatalf("ParseCategorization: %v", err)
	}
	rc, err := Resolve(context.Background(), c, cat)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	p, err := BuildPosting(c.byName[bank], rc)
	if err != nil {
		t.Fatalf("BuildPosting: %v", err)
	}
	return p
}

func single(name, taxCode string) string {
	tax := ""
	if taxCode != "" {
		tax = `,"tax_code":"` + taxCode + `"`
	}
	return `{"type":"Category","category":{"type":"StableName","stable_name":"` + name + `"}` + tax + `}`
}

func exclusion(x ExclusionType) string {
	return `{"type":"Category","category":{"type":"Exclusion","exclusion_type":"` + string(x) + `"}}`
}

func target(amount money.Cents, d Direction, p salestax.Province) CategorizationTarget {
	country := "US"
	if p != "" {
		country = "CA"
	}
	return CategorizationTarget{Amount: amount, Direction: d, Date: day("2025-06-01"), Country: country, Province: p}
}

func TestBuildPosting(t *testing.T) {
	tests := []struct {
		name     string
		bank     string
		target   CategorizationTarget
		body     string
		lines    []string
		excluded bool
	}{
		{"money out", "CHECKING", target(5000, Debit, ""), single("OFFICE_EXPENSES", ""),
			[]string{"DEBIT OFFICE_EXPENSES 5000", "CREDIT CHECKING 5000"}, false},
		{"money in", "CHECKING", target(5000, Credit, ""), single("SALES", ""),
			[]string{"CREDIT SALES 5000", "DEBIT CHECKING 5000"}, false},
		{"card charge", "VISA", target(2500, Debit, ""), single("MEALS", ""),
			[]string{"DEBIT MEALS 2500", "CREDIT VISA 2500"}, false},
		{"card refund", "VISA", target(2500, Credit, ""), single("MEALS", ""),
			[]string{"CREDIT MEALS 2500", "DEBIT VISA 2500"}, false},
		{"loan payment stays off the P&L", "CHECKING", target(9000, Debit, ""), single("LINE_OF_CREDIT", ""),
			[]string{"DEBIT LINE_OF_CREDIT 9000", "CREDIT CHECKING 9000"}, true},
		{"Ontario HST money out", "CHECKING", target(11300, Debit, salestax.ON), single("OFFICE_EXPENSES", "HST_ON"),
			[]string{"DEBIT OFFICE_EXPENSES 10000", "DEBIT SALES_TAXES_RECEIVABLE 1300 HST", "CREDIT CHECKING 11300"}, false},
		{"Ontario HST money in", "CHECKING", target(11300, Credit, salestax.ON), single("SALES", "HST_ON"),
			[]string{"CREDIT SALES 10000", "CREDIT SALES_TAXES_PAYABLE 1300 HST", "DEBIT CHECKING 11300"}, false},
		{"BC PST stays in the expense", "CHECKING", target(11200, Debit, salestax.BC), single("OFFICE_EXPENSES", "GST_PST_BC"),
			[]string{"DEBIT OFFICE_EXPENSES 10700", "DEBIT SALES_TAXES_RECEIVABLE 500 GST", "CREDIT CHECKING 11200"}, false},
		{"BC PST collected is payable", "CHECKING", target(11200, Credit, salestax.BC), single("SALES", "GST_PST_BC"),
			[]string{"CREDIT SALES 10000", "CREDIT SALES_TAXES_PAYABLE 500 GST", "CREDIT SALES_TAXES_PAYABLE 700 PST", "DEBIT CHECKING 11200"}, false},
		{"Quebec QST is recoverable", "CHECKING", target(11498, Debit, salestax.QC), single("MEALS", "GST_QST"),
			[]string{"DEBIT MEALS 10000", "DEBIT SALES_TAXES_RECEIVABLE 500 GST", "DEBIT SALES_TAXES_RECEIVABLE 998 QST", "CREDIT CHECKING 11498"}, false},
		{"tax too small to post", "CHECKING", target(3, Debit, salestax.ON), single("MEALS", "HST_ON"),
			[]string{"DEBIT MEALS 3", "CREDIT CHECKING 3"}, false},
		{"personal expense", "CHECKING", target(4000, Debit, ""), exclusion(PersonalExpenses),
			[]string{"DEBIT DISTRIBUTIONS 4000", "CREDIT CHECKING 4000"}, true},
		{"personal expense refunded", "CHECKING", target(4000, Credit, ""), exclusion(PersonalExpenses),
			[]string{"CREDIT DISTRIBUTIONS 4000", "DEBIT CHECKING 4000"}, true},
		{"personal inflow", "CHECKING", target(4000, Credit, ""), exclusion(PersonalInflows),
			[]string{"CREDIT CONTRIBUTIONS 4000", "DEBIT CHECKING 4000"}, true},
		{"transfer out", "CHECKING", target(4000, Debit, ""), exclusion(TransferBetweenAccounts),
			[]string{"DEBIT TRANSFERS_IN_TRANSIT 4000", "CREDIT CHECKING 4000"}, true},
		{"transfer in", "CHECKING", target(4000, Credit, ""), exclusion(TransferBetweenAccounts),
			[]string{"CREDIT TRANSFERS_IN_TRANSIT 4000", "DEBIT CHECKING 4000"}, true},
		{"duplicate posts nothing", "CHECKING", target(4000, Debit, ""), exclusion(DuplicateTransaction), nil, true},
		{"split", "CHECKING", target(10000, Debit, ""),
			`{"type":"Split","entries":[{"category":{"type":"StableName","stable_name":"MEALS"},"amount":3000},
			{"category":{"type":"StableName","stable_name":"TRAVEL"},"amount":5000},
			{"category":{"type":"Exclusion","exclusion_type":"PERSONAL_EXPENSES"},"amount":2000}]}`,
			[]string{"DEBIT MEALS 3000", "DEBIT TRAVEL 5000", "DEBIT DISTRIBUTIONS 2000", "CREDIT CHECKING 10000"}, false},
		{"split of exclusions only", "CHECKING", target(10000, Debit, ""),
			`{"type":"Split","entries":[{"category":{"type":"Exclusion","exclusion_type":"TRANSFER_BETWEEN_ACCOUNTS"},"amount":3000},
			{"category":{"type":"Exclusion","exclusion_type":"PERSONAL_EXPENSES"},"amount":7000}]}`,
			[]string{"DEBIT TRANSFERS_IN_TRANSIT 3000", "DEBIT DISTRIBUTIONS 7000", "CREDIT CHECKING 10000"}, true},
		{"split with taxes merges tax lines", "CHECKING", target(22600+10500+5000, Debit, salestax.ON),
			`{"type":"Split","entries":[{"category":{"type":"StableName","stable_name":"MEALS"},"amount":11300,"tax_code":"HST_ON"},
			{"category":{"type":"StableName","stable_name":"TRAVEL"},"amount":11300,"tax_code":"HST_ON"},
			{"category":{"type":"StableName","stable_name":"OFFICE_EXPENSES"},"amount":10500,"tax_code":"GST"},
			{"category":{"type":"Exclusion","exclusion_type":"PERSONAL_EXPENSES"},"amount":5000}]}`,
			[]string{"DEBIT MEALS 10000", "DEBIT TRAVEL 10000", "DEBIT OFFICE_EXPENSES 10000", "DEBIT DISTRIBUTIONS 5000",
				"DEBIT SALES_TAXES_RECEIVABLE 2600 HST", "DEBIT SALES_TAXES_RECEIVABLE 500 GST", "CREDIT CHECKING 38100"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := post(t, newChart(), tt.bank, tt.target, tt.body)
			got := make([]string, len(p.Lines))
			for i, l := range p.Lines {
				got[i] = line(l)
			}
			if !slices.Equal(got, tt.lines) {
				t.Errorf("lines =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.lines, "\n  "))
			}
			if p.ExcludedFromPnL != tt.excluded {
				t.Errorf("ExcludedFromPnL = %v, want %v", p.ExcludedFromPnL, tt.excluded)
			}
			if p.Empty() != (len(tt.lines) == 0) {
				t.Errorf("Empty = %v", p.Empty())
			}
		})
	}
}

func TestBuildPostingKeepsRolesEntriesAndTags(t *testing.T) {
	body := `{"type":"Split","entries":[
		{"category":{"type":"StableName","stable_name":"MEALS"},"amount":11300,"tax_code":"HST_ON","tags":[{"key":"project","value":"alpha"}]},
		{"category":{"type":"Exclusion","exclusion_type":"PERSONAL_EXPENSES"},"amount":100}]}`
	p := post(t, newChart(), "CHECKING", target(11400, Debit, salestax.ON), body)
	type got struct {
		role  LineRole
		entry int
		tags  int
	}
	want := []got{{RoleCategory, 0, 1}, {RoleExclusion, 1, 0}, {RoleTax, -1, 0}, {RoleBank, -1, 0}}
	for i, l := range p.Lines {
		if g := (got{l.Role, l.Entry, len(l.Tags)}); i >= len(want) || g != want[i] {
			t.Errorf("line %d = %+v", i, g)
		}
	}
	if len(p.Lines) != len(want) {
		t.Errorf("%d lines, want %d", len(p.Lines), len(want))
	}
}

func TestResolveAndPostErrors(t *testing.T) {
	ctx := context.Background()
	c := newChart()
	unknown := uuid.MustParse(acctID)

	cat, err := ParseCategorization([]byte(`{"type":"Split","entries":[
		{"category":{"type":"StableName","stable_name":"MEALS"},"amount":100},
		{"category":{"type":"AccountId","id":"`+unknown.String()+`"},"amount":11200}]}`), american)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Resolve(ctx, c, cat)
	want400(t, err, EnumUnknownAccount, "entries[1].category")

	cat, _ = ParseCategorization([]byte(single("NOPE", "")), american)
	_, err = Resolve(ctx, c, cat)
	want400(t, err, EnumUnknownAccount, "category")

	// The chart lacking an exclusion's account is not the client's fault.
	delete(c.byName, StableTransfersInTransit)
	cat, _ = ParseCategorization([]byte(exclusion(TransferBetweenAccounts)), american)
	if _, err = Resolve(ctx, c, cat); err == nil || is4xx(err) || !errors.Is(err, ErrAccountNotFound) {
		t.Errorf("missing clearing account: %v, want a server-side error wrapping ErrAccountNotFound", err)
	}

	// Nor is a failing store.
	c.fail = errors.New("connection reset")
	cat, _ = ParseCategorization([]byte(single("MEALS", "")), american)
	if _, err = Resolve(ctx, c, cat); err == nil || is4xx(err) {
		t.Errorf("store failure: %v, want a server-side error", err)
	}
	c.fail = nil

	// A duplicate resolves nothing at all.
	c.calls = 0
	cat, _ = ParseCategorization([]byte(exclusion(DuplicateTransaction)), american)
	if _, err = Resolve(ctx, c, cat); err != nil || c.calls != 0 {
		t.Errorf("duplicate: %v after %d lookups, want none", err, c.calls)
	}

	// Categorizing into the transaction's own bank account.
	c = newChart()
	cat, _ = ParseCategorization([]byte(single("CHECKING", "")), american)
	rc, err := Resolve(ctx, c, cat)
	if err != nil {
		t.Fatal(err)
	}
	_, err = BuildPosting(c.byName["CHECKING"], rc)
	want400(t, err, EnumCategoryIsBankAccount, "category")

	// Accounts that do not match the entries are a programming error.
	rc.Accounts = nil
	if _, err := BuildPosting(c.byName["CHECKING"], rc); err == nil || is4xx(err) {
		t.Errorf("mismatched accounts: %v, want a server-side error", err)
	}
}

func TestProjectIncome(t *testing.T) {
	c := newChart()
	resolve := func(target CategorizationTarget, body string) *ResolvedCategorization {
		cat, err := ParseCategorization([]byte(body), target)
		if err != nil {
			t.Fatal(err)
		}
		rc, err := Resolve(context.Background(), c, cat)
		if err != nil {
			t.Fatal(err)
		}
		return &rc
	}
	tests := []struct {
		name string
		d    Direction
		rc   *ResolvedCategorization
		want ProjectedIncomeCategory
	}{
		{"uncategorized money in", Credit, nil, ProjectedRevenue},
		{"uncategorized money out", Debit, nil, ProjectedExpense},
		{"expense", Debit, resolve(american, single("MEALS", "")), ProjectedExpense},
		{"revenue", Credit, resolve(target(100, Credit, ""), single("SALES", "")), ProjectedRevenue},
		{"exclusion", Debit, resolve(american, exclusion(PersonalExpenses)), ProjectedExclude},
		{"duplicate", Debit, resolve(american, exclusion(DuplicateTransaction)), ProjectedExclude},
		{"balance sheet", Debit, resolve(american, single("LINE_OF_CREDIT", "")), ProjectedExclude},
		{"split follows its largest P&L entry", Debit, resolve(american, `{"type":"Split","entries":[
			{"category":{"type":"StableName","stable_name":"SALES"},"amount":300},
			{"category":{"type":"Exclusion","exclusion_type":"PERSONAL_EXPENSES"},"amount":10000},
			{"category":{"type":"StableName","stable_name":"MEALS"},"amount":1000}]}`), ProjectedExpense},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ProjectIncome(tt.d, tt.rc); got != tt.want {
				t.Errorf("ProjectIncome = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestPostingProperties is a property test over generated categorizations:
// random amounts (up to the int64 range), directions, splits into 1 to 12
// entries, categories, exclusions and tax codes valid in random
// provinces. Every posting balances, its bank line carries exactly the
// transaction amount on the side of the direction, the other lines add up
// to the amount, every line is positive, and tax lines appear only when an
// entry has a tax code.
func TestPostingProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(2025, 6))
	c := newChart()
	categories := []Classification{
		StableNameClassification("MEALS"), StableNameClassification("TRAVEL"), StableNameClassification("SALES"),
		AccountIDClassification(c.byName["OFFICE_EXPENSES"].ID), StableNameClassification("LINE_OF_CREDIT"),
		ExclusionClassification(PersonalExpenses), ExclusionClassification(PersonalInflows), ExclusionClassification(TransferBetweenAccounts),
	}
	for iter := range 3000 {
		var amount money.Cents
		switch iter % 3 {
		case 0:
			amount = money.Cents(1 + rng.Int64N(100))
		case 1:
			amount = money.Cents(1 + rng.Int64N(1_000_000_00))
		default:
			amount = money.Cents(1 + rng.Int64N(int64(money.MaxCents)-1))
		}
		d := Debit
		if rng.IntN(2) == 0 {
			d = Credit
		}
		province := salestax.Provinces[rng.IntN(len(salestax.Provinces))]
		tgt := target(amount, d, province)
		opts := salestax.Options(province, tgt.Date)

		n := 1 + rng.IntN(12)
		if money.Cents(n) > amount {
			n = int(amount)
		}
		weights := make([]int64, n)
		for i := range weights {
			weights[i] = 1 + rng.Int64N(1000)
		}
		parts, err := money.Allocate(amount, weights)
		if err != nil {
			t.Fatal(err)
		}
		req := CategorizationRequest{Type: TypeSplit}
		taxed := false
		for i := range n {
			if parts[i] <= 0 {
				// A tiny amount may leave a part empty; a zero entry is
				// refused, so it is left out (the sum is unchanged).
				continue
			}
			e := SplitEntryRequest{Category: categories[rng.IntN(len(categories))], Amount: parts[i]}
			if !e.Category.IsExclusion() && rng.IntN(2) == 0 {
				e.TaxCode = opts[rng.IntN(len(opts))].Code
				taxed = true
			}
			req.Entries = append(req.Entries, e)
		}
		if sum, _ := money.Sum(entryAmounts(req.Entries)...); sum != amount {
			t.Fatalf("generator: entries sum to %d, want %d", sum, amount)
		}
		if len(req.Entries) == 1 && rng.IntN(2) == 0 {
			req = CategorizationRequest{Type: TypeCategory, Category: req.Entries[0].Category, TaxCode: req.Entries[0].TaxCode}
		}
		cat, err := req.Validate(tgt)
		if err != nil {
			t.Fatalf("iteration %d: Validate: %v", iter, err)
		}
		rc, err := Resolve(context.Background(), c, cat)
		if err != nil {
			t.Fatalf("iteration %d: Resolve: %v", iter, err)
		}
		p, err := BuildPosting(c.byName["CHECKING"], rc)
		if err != nil {
			t.Fatalf("iteration %d: BuildPosting: %v", iter, err)
		}
		debits, credits, err := p.Totals()
		if err != nil || debits != credits {
			t.Fatalf("iteration %d: unbalanced: %d debits, %d credits (%v)", iter, debits, credits, err)
		}
		var banks, others []money.Cents
		hasTax := false
		for _, l := range p.Lines {
			if l.Amount <= 0 {
				t.Fatalf("iteration %d: line %s not positive", iter, line(l))
			}
			switch l.Role {
			case RoleBank:
				wantSide := SideCredit
				if d == Credit {
					wantSide = SideDebit
				}
				if l.Side != wantSide {
					t.Fatalf("iteration %d: bank line on %s for %s", iter, l.Side, d)
				}
				banks = append(banks, l.Amount)
			case RoleTax:
				hasTax = true
				others = append(others, l.Amount)
			default:
				others = append(others, l.Amount)
			}
		}
		if len(banks) != 1 || banks[0] != amount {
			t.Fatalf("iteration %d: bank lines %v, want one of %d", iter, banks, amount)
		}
		if sum, err := money.Sum(others...); err != nil || sum != amount {
			t.Fatalf("iteration %d: category and tax lines sum to %d (%v), want %d", iter, sum, err, amount)
		}
		if hasTax && !taxed {
			t.Fatalf("iteration %d: tax line without a tax code", iter)
		}
	}
}

func entryAmounts(es []SplitEntryRequest) []money.Cents {
	out := make([]money.Cents, len(es))
	for i, e := range es {
		out[i] = e.Amount
	}
	return out
}

// recorder is a chart that records the refs it is asked for.
type recorder struct {
	*chart
	asked []AccountRef
}

func (r *recorder) ResolveAccount(ctx context.Context, ref AccountRef) (LedgerAccount, error) {
	r.asked = append(r.asked, ref)
	return r.chart.ResolveAccount(ctx, ref)
}

// TestRefsListWhatResolveAsks: Refs(c) names exactly the accounts Resolve
// asks for (so a caller that fetched Refs first needs no other lookup),
// for single, split, exclusion, tax and duplicate categorizations.
func TestRefsListWhatResolveAsks(t *testing.T) {
	meals := newChart().byName["MEALS"].ID
	bodies := []struct {
		name   string
		body   string
		target CategorizationTarget
	}{
		{"single by stable name", single("MEALS", ""), american},
		{"single by id", `{"type":"Category","category":{"type":"AccountId","id":"` + meals.String() + `"}}`, american},
		{"split with a repeated category", `{"type":"Split","entries":[
			{"category":{"type":"StableName","stable_name":"MEALS"},"amount":100},
			{"category":{"type":"StableName","stable_name":"TRAVEL"},"amount":11100},
			{"category":{"type":"StableName","stable_name":"MEALS"},"amount":100}]}`, american},
		{"exclusion", exclusion(TransferBetweenAccounts), american},
		{"duplicate", exclusion(DuplicateTransaction), american},
		{"tax", single("MEALS", "HST_ON"), ontario},
	}
	for _, tt := range bodies {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCategorization([]byte(tt.body), tt.target)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			r := &recorder{chart: newChart()}
			if _, err := Resolve(context.Background(), r, c); err != nil {
				t.Fatal(err)
			}
			refs := Refs(c)
			for _, a := range r.asked {
				if !slices.Contains(refs, a) {
					t.Errorf("Resolve asked for %+v, which Refs %v lacks", a, refs)
				}
			}
			for _, ref := range refs {
				if !slices.Contains(r.asked, ref) {
					t.Errorf("Refs lists %+v, which Resolve never asked for", ref)
				}
			}
		})
	}
}
