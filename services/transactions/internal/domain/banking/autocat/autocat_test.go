package autocat

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"

	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

func ptr[T any](v T) *T { return &v }

func want400(t *testing.T, err error, field string) {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Status() != 400 || ae.Enum != EnumInvalidRule {
		t.Fatalf("error = %v, want a 400 %s", err, EnumInvalidRule)
	}
	if fields, _ := ae.Meta["fields"].(map[string]string); fields[field] == "" {
		t.Errorf("meta.fields = %v, want %q named", fields, field)
	}
}

var meals = banking.StableNameClassification("MEALS")

func TestTextCondition(t *testing.T) {
	tests := []struct {
		mode    MatchMode
		pattern string
		text    string
		want    bool
	}{
		{Contains, "tim hortons", "TIM HORTONS #2345 TORONTO", true},
		{Contains, "  Tim ", "tim", true},
		{Contains, "hortons", "Tim Horton's", false},
		{Contains, "café", "CAFÉ CENTRAL", true},
		{Regex, `^uber\s+\*?trip`, "UBER *TRIP HELP.UBER.COM", true},
		{Regex, `^uber`, "PAYPAL *UBER", false},
		{Regex, `amzn|amazon`, "AMZN Mktp CA", true},
		{Regex, `\d{4}$`, "STORE 1234", true},
		{Regex, `(a+)+$`, strings.Repeat("a", 10000) + "b", false}, // linear time under RE2
	}
	for _, tt := range tests {
		c, err := NewTextCondition("counterparty", tt.mode, tt.pattern)
		if err != nil {
			t.Fatalf("NewTextCondition(%s, %q): %v", tt.mode, tt.pattern, err)
		}
		if got := c.Match(tt.text); got != tt.want {
			t.Errorf("%s %q on %q = %v, want %v", tt.mode, tt.pattern, tt.text, got, tt.want)
		}
	}
}

func TestTextConditionRejects(t *testing.T) {
	tests := []struct {
		mode    MatchMode
		pattern string
		field   string
	}{
		{Contains, "", "counterparty.pattern"},
		{Contains, "   ", "counterparty.pattern"},
		{Contains, strings.Repeat("x", MaxPatternLength+1), "counterparty.pattern"},
		{Regex, `(unclosed`, "counterparty.pattern"},
		{Regex, `a{1001}`, "counterparty.pattern"},
		{Regex, `(?P<x>a)\1`, "counterparty.pattern"}, // back-references are not RE2
		{Regex, `((a{1,30}){1,30}){1,30}`, "counterparty.pattern"},
		{"EXACT", "x", "counterparty.match"},
		{"", "x", "counterparty.match"},
	}
	for _, tt := range tests {
		_, err := NewTextCondition("counterparty", tt.mode, tt.pattern)
		want400(t, err, tt.field)
	}
}

func TestNewRuleRejects(t *testing.T) {
	tests := []struct {
		name  string
		draft RuleDraft
		field string
	}{
		{"no condition", RuleDraft{Category: meals}, "conditions"},
		{"no category", RuleDraft{Direction: ptr(banking.Debit)}, "category"},
		{"bad category", RuleDraft{Direction: ptr(banking.Debit), Category: banking.StableNameClassification("a b")}, "category.stable_name"},
		{"duplicate as category", RuleDraft{Direction: ptr(banking.Debit), Category: banking.ExclusionClassification(banking.DuplicateTransaction)}, "category"},
		{"bad direction", RuleDraft{Direction: ptr(banking.Direction("UP")), Category: meals}, "direction"},
		{"negative min", RuleDraft{AmountMin: ptr(money.Cents(-1)), Category: meals}, "amount_min"},
		{"negative max", RuleDraft{AmountMax: ptr(money.Cents(-1)), Category: meals}, "amount_max"},
		{"min above max", RuleDraft{AmountMin: ptr(money.Cents(10)), AmountMax: ptr(money.Cents(9)), Category: meals}, "amount_max"},
		{"nil bank account", RuleDraft{BankAccountID: ptr(uuid.Nil), Category: meals}, "bank_account_id"},
		{"bad regex", RuleDraft{Description: &TextDraft{Match: Regex, Pattern: "["}, Category: meals}, "description.pattern"},
		{"long name", RuleDraft{Name: ptr(strings.Repeat("n", 256)), Direction: ptr(banking.Debit), Category: meals}, "name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRule(uuid.New(), time.Now(), tt.draft)
			want400(t, err, tt.field)
		})
	}
}

func rule(t *testing.T, created string, d RuleDraft) Rule {
	t.Helper()
	at, err := time.Parse(time.DateOnly, created)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRule(uuid.NewSHA1(uuid.NameSpaceURL, []byte(created+d.Category.Key())), at, d)
	if err != nil {
		t.Fatalf("NewRule: %v", err)
	}
	return r
}

func TestMatchPrecedence(t *testing.T) {
	bank := uuid.MustParse("0190a6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b")
	other := uuid.MustParse("0190a6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5c")
	cat := banking.StableNameClassification
	rules := []Rule{
		rule(t, "2024-01-01", RuleDraft{Direction: ptr(banking.Debit), Category: cat("UNCATEGORIZED_EXPENSES")}),
		rule(t, "2024-02-01", RuleDraft{Counterparty: &TextDraft{Contains, "tim hortons"}, Direction: ptr(banking.Debit), Category: cat("MEALS")}),
		rule(t, "2024-01-15", RuleDraft{Counterparty: &TextDraft{Contains, "tim"}, Category: cat("TRAVEL")}),
		rule(t, "2024-03-15", RuleDraft{Counterparty: &TextDraft{Contains, "hortons"}, Category: cat("SOFTWARE")}),
		rule(t, "2024-03-01", RuleDraft{Counterparty: &TextDraft{Contains, "tim hortons"}, AmountMin: ptr(money.Cents(10000)), Category: cat("OFFICE_EXPENSES")}),
		rule(t, "2024-04-01", RuleDraft{Description: &TextDraft{Regex, `^payroll`}, Direction: ptr(banking.Debit), BankAccountID: &bank, Category: cat("PAYROLL")}),
		rule(t, "2024-05-01", RuleDraft{BankAccountID: &other, Category: banking.ExclusionClassification(banking.PersonalExpenses)}),
		rule(t, "2024-06-01", RuleDraft{Direction: ptr(banking.Credit), AmountMax: ptr(money.Cents(100)), Category: cat("OTHER_INCOME")}),
	}
	tests := []struct {
		name string
		c    Candidate
		want string // the category's stable name or exclusion, "" for no match
	}{
		{"only the direction rule", Candidate{Direction: banking.Debit, Amount: 500, Counterparty: "Shell"}, "UNCATEGORIZED_EXPENSES"},
		{"a two-condition rule wins over one-condition rules", Candidate{Direction: banking.Debit, Amount: 500, Counterparty: "TIM HORTONS #12"}, "MEALS"},
		{"equally specific: the oldest wins", Candidate{Direction: banking.Credit, Amount: 500, Counterparty: "Tim Hortons"}, "TRAVEL"},
		{"the amount condition makes it more specific", Candidate{Direction: banking.Credit, Amount: 20000, Counterparty: "tim hortons"}, "OFFICE_EXPENSES"},
		{"two two-condition rules: the oldest wins", Candidate{Direction: banking.Debit, Amount: 20000, Counterparty: "tim hortons"}, "MEALS"},
		{"three conditions", Candidate{Direction: banking.Debit, Amount: 900000, Description: "PAYROLL RUN 12", BankAccountID: bank}, "PAYROLL"},
		{"the bank account condition fails", Candidate{Direction: banking.Debit, Amount: 900000, Description: "PAYROLL RUN 12", BankAccountID: other}, "UNCATEGORIZED_EXPENSES"},
		{"the bank account rule", Candidate{Direction: banking.Credit, Amount: 5000, BankAccountID: other}, "PERSONAL_EXPENSES"},
		{"amount max inclusive", Candidate{Direction: banking.Credit, Amount: 100}, "OTHER_INCOME"},
		{"nothing matches", Candidate{Direction: banking.Credit, Amount: 101, Counterparty: "ACME"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, order := range [][]Rule{rules, reversed(rules)} {
				r, ok := Match(order, tt.c)
				got := ""
				if ok {
					got = r.Category.StableName + string(r.Category.Exclusion)
				}
				if got != tt.want {
					t.Errorf("Match = %q, want %q", got, tt.want)
				}
			}
		})
	}
	sorted := slices.Clone(rules)
	SortByPrecedence(sorted)
	if sorted[0].Category.StableName != "PAYROLL" || sorted[len(sorted)-1].Category.Exclusion != banking.PersonalExpenses {
		t.Errorf("SortByPrecedence starts with %s and ends with %s", sorted[0].Category.Key(), sorted[len(sorted)-1].Category.Key())
	}
}

func reversed(rs []Rule) []Rule {
	out := slices.Clone(rs)
	slices.Reverse(out)
	return out
}

func TestRuleRequestIsACategory(t *testing.T) {
	r := rule(t, "2024-01-01", RuleDraft{Direction: ptr(banking.Debit), Category: meals})
	c, err := r.Request().Validate(banking.CategorizationTarget{Amount: 500, Direction: banking.Debit, Date: time.Now(), Country: "US"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Status() != banking.StatusCategorized || c.Entries()[0].Category != meals {
		t.Errorf("categorization = %+v", c.Entries())
	}
	if f := AutoFlow(r); f.Type != FlowAuto || *f.Category != meals || f.Suggestions == nil {
		t.Errorf("AutoFlow = %+v", f)
	}
}

func TestDecodeRuleDraft(t *testing.T) {
	d, err := DecodeRuleDraft([]byte(`{"name":"coffee","direction":"OUTFLOW","counterparty":{"match":"CONTAINS","pattern":"tim"},
		"description":{"match":"REGEX","pattern":"^pos"},"amount_min":0,"amount_max":"500",
		"bank_account_id":"0190a6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b","category":{"type":"StableName","stable_name":"MEALS"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if *d.Name != "coffee" || *d.Direction != banking.Debit || d.Counterparty.Pattern != "tim" || d.Description.Match != Regex ||
		*d.AmountMin != 0 || *d.AmountMax != 500 || d.BankAccountID.String() != "0190a6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b" || d.Category != meals {
		t.Errorf("draft = %+v", d)
	}
	if _, err := NewRule(uuid.New(), time.Now(), d); err != nil {
		t.Errorf("NewRule: %v", err)
	}
	tests := []struct {
		body  string
		field string
	}{
		{`[]`, "body"},
		{`{"direction":`, "body"},
		{`{"direction":5,"category":{"type":"StableName","stable_name":"MEALS"}}`, "direction"},
		{`{"direction":"UP","category":{"type":"StableName","stable_name":"MEALS"}}`, "direction"},
		{`{"amount_min":1.5,"category":{"type":"StableName","stable_name":"MEALS"}}`, "amount_min"},
		{`{"amount_max":"x","category":{"type":"StableName","stable_name":"MEALS"}}`, "amount_max"},
		{`{"bank_account_id":"x","category":{"type":"StableName","stable_name":"MEALS"}}`, "bank_account_id"},
		{`{"direction":"DEBIT","category":{"type":"AccountId","id":"x"}}`, "category.id"},
	}
	for _, tt := range tests {
		_, err := DecodeRuleDraft([]byte(tt.body))
		want400(t, err, tt.field)
	}
}

func TestNormalizeCounterparty(t *testing.T) {
	tests := map[string]string{
		"TIM HORTONS #2345":      "tim hortons",
		"Tim Hortons 0917":       "tim hortons",
		"tim-hortons":            "tim hortons",
		"  UBER   *TRIP  ":       "uber trip",
		"7-Eleven 123":           "7 eleven",
		"Café Olé":               "café olé",
		"12345":                  "",
		"":                       "",
		"AMZN Mktp CA*2K4TR7HL2": "amzn mktp ca 2k4tr7hl2",
	}
	for in, want := range tests {
		if got := NormalizeCounterparty(in); got != want {
			t.Errorf("NormalizeCounterparty(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRankSuggestions(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2025, 1, d, 0, 0, 0, 0, time.UTC) }
	cat := banking.StableNameClassification
	history := []HistoryCount{
		{Category: cat("TRAVEL"), Count: 3, LastUsed: day(2)},
		{Category: cat("MEALS"), Count: 5, LastUsed: day(1)},
		{Category: cat("OFFICE_EXPENSES"), Count: 3, LastUsed: day(9)},
		{Category: cat("SOFTWARE"), Count: 3, LastUsed: day(9)},
		{Category: cat("TRAVEL"), Count: 1, LastUsed: day(3)}, // merged: TRAVEL 4
		{Category: banking.ExclusionClassification(banking.DuplicateTransaction), Count: 50, LastUsed: day(9)},
		{Category: cat("RENT"), Count: 0, LastUsed: day(9)},
		{Category: banking.Classification{}, Count: 9, LastUsed: day(9)},
	}
	tests := []struct {
		limit int
		want  []string
	}{
		{0, []string{"MEALS", "TRAVEL", "OFFICE_EXPENSES"}},
		{10, []string{"MEALS", "TRAVEL", "OFFICE_EXPENSES", "SOFTWARE"}},
		{1, []string{"MEALS"}},
	}
	for _, tt := range tests {
		got := RankSuggestions(history, tt.limit)
		names := make([]string, len(got))
		for i, c := range got {
			names[i] = c.StableName
		}
		if !slices.Equal(names, tt.want) {
			t.Errorf("RankSuggestions(limit %d) = %v, want %v", tt.limit, names, tt.want)
		}
	}
	if got := RankSuggestions(nil, 3); got == nil || len(got) != 0 {
		t.Errorf("RankSuggestions(nil) = %#v, want an empty list", got)
	}
	if f := SuggestionFlow(nil); f.Type != FlowAskFromSuggestions || f.Suggestions == nil {
		t.Errorf("SuggestionFlow(nil) = %+v", f)
	}
}

// FuzzTextCondition: any pattern either compiles within the bounds or is
// refused with a 400, and a compiled regex matches any text without
// panicking.
func FuzzTextCondition(f *testing.F) {
	f.Add("tim hortons", "TIM HORTONS #1", false)
	f.Add(`^(a+)+$`, strings.Repeat("a", 64)+"!", true)
	f.Add(`[`, "", true)
	f.Add(`\p{Greek}+`, "αβγ", true)
	f.Fuzz(func(t *testing.T, pattern, text string, regex bool) {
		mode := Contains
		if regex {
			mode = Regex
		}
		c, err := NewTextCondition("description", mode, pattern)
		if err != nil {
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Status() != 400 {
				t.Fatalf("refusal is not a 400: %v", err)
			}
			return
		}
		c.Match(text)
	})
}
