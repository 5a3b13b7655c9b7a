package banking

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking/salestax"
)

const acctID = "0190a6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b"

// ontario is a money-out transaction of $113.00 of an Ontario business.
var ontario = CategorizationTarget{Amount: 11300, Direction: Debit, Date: day("2025-06-01"), Country: "CA", Province: salestax.ON}

// american is the same transaction of a US business.
var american = CategorizationTarget{Amount: 11300, Direction: Debit, Date: day("2025-06-01"), Country: "US"}

func TestParseCategorizationValid(t *testing.T) {
	tests := []struct {
		name    string
		target  CategorizationTarget
		body    string
		split   bool
		amounts []money.Cents
		keys    []string
		taxCode string
	}{
		{
			name: "account id", target: american,
			body:    `{"type":"Category","category":{"type":"AccountId","id":"` + acctID + `"}}`,
			amounts: []money.Cents{11300}, keys: []string{"AccountId:" + acctID},
		},
		{
			name: "stable name", target: american,
			body:    `{"type":"Category","category":{"type":"StableName","stable_name":"OFFICE_EXPENSES"}}`,
			amounts: []money.Cents{11300}, keys: []string{"StableName:OFFICE_EXPENSES"},
		},
		{
			name: "exclusion", target: american,
			body:    `{"type":"Category","category":{"type":"Exclusion","exclusion_type":"PERSONAL_EXPENSES"}}`,
			amounts: []money.Cents{11300}, keys: []string{"Exclusion:PERSONAL_EXPENSES"},
		},
		{
			name: "null and empty tax codes are none", target: american,
			body:    `{"type":"Category","category":{"type":"StableName","stable_name":"MEALS"},"tax_code":null}`,
			amounts: []money.Cents{11300}, keys: []string{"StableName:MEALS"},
		},
		{
			name: "empty tax code", target: american,
			body:    `{"type":"Category","category":{"type":"StableName","stable_name":"MEALS"},"tax_code":""}`,
			amounts: []money.Cents{11300}, keys: []string{"StableName:MEALS"},
		},
		{
			name: "canadian tax code", target: ontario,
			body:    `{"type":"Category","category":{"type":"StableName","stable_name":"MEALS"},"tax_code":"HST_ON"}`,
			amounts: []money.Cents{11300}, keys: []string{"StableName:MEALS"}, taxCode: "HST_ON",
		},
		{
			name: "GST in an HST province", target: ontario,
			body:    `{"type":"Category","category":{"type":"StableName","stable_name":"TRAVEL"},"tax_code":"GST"}`,
			amounts: []money.Cents{11300}, keys: []string{"StableName:TRAVEL"}, taxCode: "GST",
		},
		{
			name: "unknown members are ignored", target: american,
			body:    `{"type":"Category","category":{"type":"StableName","stable_name":"MEALS","display_name":"Meals"},"memo":"x"}`,
			amounts: []money.Cents{11300}, keys: []string{"StableName:MEALS"},
		},
		{
			name: "split with number and string amounts and tags", target: american, split: true,
			body: `{"type":"Split","entries":[
				{"category":{"type":"StableName","stable_name":"MEALS"},"amount":3300,"tags":[{"key":"project","value":"alpha"}]},
				{"category":{"type":"AccountId","id":"` + acctID + `"},"amount":"8000"}]}`,
			amounts: []money.Cents{3300, 8000}, keys: []string{"StableName:MEALS", "AccountId:" + acctID},
		},
		{
			name: "one-entry split stays a split", target: american, split: true,
			body:    `{"type":"Split","entries":[{"category":{"type":"StableName","stable_name":"MEALS"},"amount":11300}]}`,
			amounts: []money.Cents{11300}, keys: []string{"StableName:MEALS"},
		},
		{
			name: "split with an exclusion and per-entry tax codes", target: ontario, split: true,
			body: `{"type":"Split","entries":[
				{"category":{"type":"StableName","stable_name":"MEALS"},"amount":5650,"tax_code":"HST_ON"},
				{"category":{"type":"Exclusion","exclusion_type":"PERSONAL_EXPENSES"},"amount":5650,"tax_code":null}]}`,
			amounts: []money.Cents{5650, 5650}, keys: []string{"StableName:MEALS", "Exclusion:PERSONAL_EXPENSES"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCategorization([]byte(tt.body), tt.target)
			if err != nil {
				t.Fatalf("ParseCategorization: %v", err)
			}
			if c.IsSplit() != tt.split {
				t.Errorf("IsSplit = %v, want %v", c.IsSplit(), tt.split)
			}
			wantStatus := StatusCategorized
			if tt.split {
				wantStatus = StatusSplit
			}
			if c.Status() != wantStatus {
				t.Errorf("Status = %s, want %s", c.Status(), wantStatus)
			}
			entries := c.Entries()
			if len(entries) != len(tt.amounts) {
				t.Fatalf("%d entries, want %d", len(entries), len(tt.amounts))
			}
			for i, e := range entries {
				if e.Amount != tt.amounts[i] || e.Category.Key() != tt.keys[i] {
					t.Errorf("entry %d = %s %d, want %s %d", i, e.Category.Key(), e.Amount, tt.keys[i], tt.amounts[i])
				}
			}
			if c.TaxCode() != tt.taxCode {
				t.Errorf("TaxCode = %q, want %q", c.TaxCode(), tt.taxCode)
			}
			if c.Amount() != tt.target.Amount || c.Direction() != tt.target.Direction {
				t.Errorf("categorization of %d %s, want %d %s", c.Amount(), c.Direction(), tt.target.Amount, tt.target.Direction)
			}
		})
	}
}

func TestParseCategorizationSplitKeepsEntryTags(t *testing.T) {
	body := `{"type":"Split","entries":[
		{"category":{"type":"StableName","stable_name":"MEALS"},"amount":100,"tags":[{"key":" project ","value":"alpha"},{"key":"project","value":"alpha"}]},
		{"category":{"type":"StableName","stable_name":"TRAVEL"},"amount":11200}]}`
	c, err := ParseCategorization([]byte(body), american)
	if err != nil {
		t.Fatal(err)
	}
	e := c.Entries()
	if len(e[0].Tags) != 1 || e[0].Tags[0].Key != "project" || e[0].Tags[0].Value != "alpha" {
		t.Errorf("entry 0 tags = %+v, want one normalised project=alpha", e[0].Tags)
	}
	if len(e[1].Tags) != 0 {
		t.Errorf("entry 1 tags = %+v, want none", e[1].Tags)
	}
}

func entries(n int, amount int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"category":{"type":"StableName","stable_name":"MEALS"},"amount":%d}`, amount)
	}
	return `{"type":"Split","entries":[` + strings.Join(parts, ",") + `]}`
}

func TestParseCategorizationRejects(t *testing.T) {
	meals := `{"type":"StableName","stable_name":"MEALS"}`
	tests := []struct {
		name   string
		target CategorizationTarget
		body   string
		enum   string
		field  string
	}{
		{"not JSON", american, `{"type":`, EnumInvalidCategorization, "body"},
		{"an array", american, `[]`, EnumInvalidCategorization, "body"},
		{"null", american, `null`, EnumInvalidCategorization, "body"},
		{"empty", american, ``, EnumInvalidCategorization, "body"},
		{"missing type", american, `{"category":` + meals + `}`, EnumInvalidCategorization, "type"},
		{"unknown type", american, `{"type":"Categorie","category":` + meals + `}`, EnumInvalidCategorization, "type"},
		{"type not a string", american, `{"type":1,"category":` + meals + `}`, EnumInvalidCategorization, "type"},
		{"type wrong case", american, `{"type":"category","category":` + meals + `}`, EnumInvalidCategorization, "type"},
		{"missing category", american, `{"type":"Category"}`, EnumInvalidCategorization, "category"},
		{"null category", american, `{"type":"Category","category":null}`, EnumInvalidCategorization, "category"},
		{"category a string", american, `{"type":"Category","category":"MEALS"}`, EnumInvalidCategorization, "category"},
		{"classification without type", american, `{"type":"Category","category":{"stable_name":"MEALS"}}`, EnumInvalidCategorization, "category.type"},
		{"unknown classification", american, `{"type":"Category","category":{"type":"Name","name":"MEALS"}}`, EnumInvalidCategorization, "category.type"},
		{"bad account id", american, `{"type":"Category","category":{"type":"AccountId","id":"nope"}}`, EnumInvalidCategorization, "category.id"},
		{"nil account id", american, `{"type":"Category","category":{"type":"AccountId","id":"00000000-0000-0000-0000-000000000000"}}`, EnumInvalidCategorization, "category.id"},
		{"braced account id", american, `{"type":"Category","category":{"type":"AccountId","id":"{` + acctID + `}"}}`, EnumInvalidCategorization, "category.id"},
		{"missing account id", american, `{"type":"Category","category":{"type":"AccountId"}}`, EnumInvalidCategorization, "category.id"},
		{"empty stable name", american, `{"type":"Category","category":{"type":"StableName","stable_name":""}}`, EnumInvalidCategorization, "category.stable_name"},
		{"stable name with a space", american, `{"type":"Category","category":{"type":"StableName","stable_name":"OFFICE EXPENSES"}}`, EnumInvalidCategorization, "category.stable_name"},
		{"stable name too long", american, `{"type":"Category","category":{"type":"StableName","stable_name":"` + strings.Repeat("A", 101) + `"}}`, EnumInvalidCategorization, "category.stable_name"},
		{"unknown exclusion", american, `{"type":"Category","category":{"type":"Exclusion","exclusion_type":"GIFT"}}`, EnumInvalidCategorization, "category.exclusion_type"},
		{"missing exclusion", american, `{"type":"Category","category":{"type":"Exclusion"}}`, EnumInvalidCategorization, "category.exclusion_type"},
		{"tax code not a string", ontario, `{"type":"Category","category":` + meals + `,"tax_code":13}`, EnumInvalidCategorization, "tax_code"},
		{"tax code outside Canada", american, `{"type":"Category","category":` + meals + `,"tax_code":"HST_ON"}`, EnumTaxCodeNotAllowed, "tax_code"},
		{"tax code with an exclusion", ontario, `{"type":"Category","category":{"type":"Exclusion","exclusion_type":"PERSONAL_EXPENSES"},"tax_code":"HST_ON"}`, EnumTaxCodeNotAllowed, "tax_code"},
		{"unknown tax code", ontario, `{"type":"Category","category":` + meals + `,"tax_code":"VAT"}`, EnumUnknownTaxCode, "tax_code"},
		{"another province's tax code", ontario, `{"type":"Category","category":` + meals + `,"tax_code":"GST_QST"}`, EnumUnknownTaxCode, "tax_code"},
		{"tax code not valid on the date", CategorizationTarget{Amount: 100, Direction: Debit, Date: day("2014-01-01"), Country: "CA", Province: salestax.BC}, `{"type":"Category","category":` + meals + `,"tax_code":"HST_BC"}`, EnumUnknownTaxCode, "tax_code"},
		{"split without entries", american, `{"type":"Split"}`, EnumInvalidCategorization, "entries"},
		{"split entries an object", american, `{"type":"Split","entries":{}}`, EnumInvalidCategorization, "entries"},
		{"split with no entry", american, `{"type":"Split","entries":[]}`, EnumInvalidCategorization, "entries"},
		{"split with too many entries", CategorizationTarget{Amount: 101, Direction: Debit, Date: day("2025-01-01"), Country: "US"}, entries(101, 1), EnumTooManySplitEntries, "entries"},
		{"split entry not an object", american, `{"type":"Split","entries":[1]}`, EnumInvalidCategorization, "entries[0]"},
		{"split entry without category", american, `{"type":"Split","entries":[{"amount":11300}]}`, EnumInvalidCategorization, "entries[0].category"},
		{"split entry bad category", american, `{"type":"Split","entries":[{"category":{"type":"AccountId","id":"x"},"amount":11300}]}`, EnumInvalidCategorization, "entries[0].category.id"},
		{"split entry zero", american, `{"type":"Split","entries":[{"category":` + meals + `,"amount":11300},{"category":` + meals + `,"amount":0}]}`, EnumInvalidSplitAmount, "entries[1].amount"},
		{"split entry negative", american, `{"type":"Split","entries":[{"category":` + meals + `,"amount":11400},{"category":` + meals + `,"amount":-100}]}`, EnumInvalidSplitAmount, "entries[1].amount"},
		{"split entry fraction", american, `{"type":"Split","entries":[{"category":` + meals + `,"amount":113.5}]}`, EnumInvalidSplitAmount, "entries[0].amount"},
		{"split entry exponent", american, `{"type":"Split","entries":[{"category":` + meals + `,"amount":1.13e4}]}`, EnumInvalidSplitAmount, "entries[0].amount"},
		{"split entry missing amount", american, `{"type":"Split","entries":[{"category":` + meals + `}]}`, EnumInvalidSplitAmount, "entries[0].amount"},
		{"split entry amount a bool", american, `{"type":"Split","entries":[{"category":` + meals + `,"amount":true}]}`, EnumInvalidSplitAmount, "entries[0].amount"},
		{"split entry huge amount", american, `{"type":"Split","entries":[{"category":` + meals + `,"amount":100000000000000000000000}]}`, EnumAmountOutOfRange, "entries[0].amount"},
		{"split sums short", american, `{"type":"Split","entries":[{"category":` + meals + `,"amount":3300},{"category":` + meals + `,"amount":7999}]}`, EnumSplitAmountMismatch, "entries"},
		{"split sums over", american, `{"type":"Split","entries":[{"category":` + meals + `,"amount":3300},{"category":` + meals + `,"amount":8001}]}`, EnumSplitAmountMismatch, "entries"},
		{"split sum overflows", american, `{"type":"Split","entries":[{"category":` + meals + `,"amount":9223372036854775807},{"category":` + meals + `,"amount":9223372036854775807}]}`, EnumAmountOutOfRange, "entries"},
		{"duplicate in a split", american, `{"type":"Split","entries":[{"category":{"type":"Exclusion","exclusion_type":"DUPLICATE_TRANSACTION"},"amount":11300}]}`, EnumDuplicateNotSplittable, "entries[0].category"},
		{"tax code on an exclusion entry", ontario, `{"type":"Split","entries":[{"category":{"type":"Exclusion","exclusion_type":"PERSONAL_EXPENSES"},"amount":11300,"tax_code":"HST_ON"}]}`, EnumTaxCodeNotAllowed, "entries[0].tax_code"},
		{"tax code on a US split entry", american, `{"type":"Split","entries":[{"category":` + meals + `,"amount":11300,"tax_code":"GST"}]}`, EnumTaxCodeNotAllowed, "entries[0].tax_code"},
		{"unknown tax code on a split entry", ontario, `{"type":"Split","entries":[{"category":` + meals + `,"amount":11300,"tax_code":"HST_NS"}]}`, EnumUnknownTaxCode, "entries[0].tax_code"},
		{"tax code on the split itself", ontario, `{"type":"Split","tax_code":"HST_ON","entries":[{"category":` + meals + `,"amount":11300}]}`, EnumTaxCodeNotAllowed, "tax_code"},
		{"split entry tags not an array", american, `{"type":"Split","entries":[{"category":` + meals + `,"amount":11300,"tags":"a"}]}`, "InvalidTags", "entries[0].tags"},
		{"split entry tag without key", american, `{"type":"Split","entries":[{"category":` + meals + `,"amount":11300,"tags":[{"key":" ","value":"a"}]}]}`, "InvalidTags", "entries[0].tags[0].key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCategorization([]byte(tt.body), tt.target)
			want400(t, err, tt.enum, tt.field)
		})
	}
}

func TestParseCategorizationReportsEveryViolation(t *testing.T) {
	body := `{"type":"Split","entries":[
		{"category":{"type":"AccountId","id":"x"},"amount":100},
		{"category":{"type":"StableName","stable_name":"MEALS"},"amount":-5},
		{"category":{"type":"Exclusion","exclusion_type":"NOPE"},"amount":"abc"}]}`
	ae := want400(t, ParseCategorizationErr(body), EnumInvalidCategorization, "entries[0].category.id")
	fields := ae.Meta["fields"].(map[string]string)
	for _, f := range []string{"entries[1].amount", "entries[2].category.exclusion_type", "entries[2].amount"} {
		if _, ok := fields[f]; !ok {
			t.Errorf("meta.fields %v does not name %s", fieldNames(fields), f)
		}
	}
}

func ParseCategorizationErr(body string) error {
	_, err := ParseCategorization([]byte(body), american)
	return err
}

func TestSplitMismatchCarriesTotals(t *testing.T) {
	body := `{"type":"Split","entries":[{"category":{"type":"StableName","stable_name":"MEALS"},"amount":100}]}`
	ae := want400(t, ParseCategorizationErr(body), EnumSplitAmountMismatch, "entries")
	if ae.Meta["expected"] != int64(11300) || ae.Meta["actual"] != int64(100) {
		t.Errorf("meta = %v, want expected 11300 and actual 100", ae.Meta)
	}
}

func TestValidateProgrammaticRequest(t *testing.T) {
	tests := []struct {
		name  string
		req   CategorizationRequest
		enum  string
		field string
	}{
		{"no type", CategorizationRequest{Category: StableNameClassification("MEALS")}, EnumInvalidCategorization, "type"},
		{"zero classification", CategorizationRequest{Type: TypeCategory}, EnumInvalidCategorization, "category.type"},
		{"no entries", CategorizationRequest{Type: TypeSplit}, EnumInvalidCategorization, "entries"},
		{"bad entry classification", CategorizationRequest{Type: TypeSplit, Entries: []SplitEntryRequest{{Category: AccountIDClassification(uuid.Nil), Amount: 11300}}}, EnumInvalidCategorization, "entries[0].category.id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.req.Validate(american)
			want400(t, err, tt.enum, tt.field)
		})
	}
	if _, err := (CategorizationRequest{Type: TypeCategory, Category: StableNameClassification("MEALS")}).Validate(CategorizationTarget{Amount: 0, Direction: Debit}); err == nil || is4xx(err) {
		t.Errorf("a zero-amount target must be a server-side error, got %v", err)
	}
}

func TestTaxOptionsOnlyForCanada(t *testing.T) {
	if opts := american.TaxOptions(); opts != nil {
		t.Errorf("US tax options = %v, want nil", opts)
	}
	opts := ontario.TaxOptions()
	if len(opts) != 2 || opts[0].Code != "HST_ON" || opts[1].Code != "GST" {
		t.Errorf("Ontario tax options = %v, want HST_ON, GST", opts)
	}
}

// FuzzParseCategorization: whatever the body, parsing never panics, a
// refusal is a 400 error object, and an accepted categorization is
// consistent: positive entries summing exactly to the transaction amount,
// no tax code outside Canada or on an exclusion, no duplicate in a split.
func FuzzParseCategorization(f *testing.F) {
	seeds := []string{
		`{"type":"Category","category":{"type":"AccountId","id":"` + acctID + `"}}`,
		`{"type":"Category","category":{"type":"StableName","stable_name":"MEALS"},"tax_code":"HST_ON"}`,
		`{"type":"Category","category":{"type":"Exclusion","exclusion_type":"TRANSFER_BETWEEN_ACCOUNTS"}}`,
		`{"type":"Split","entries":[{"category":{"type":"StableName","stable_name":"MEALS"},"amount":3300,"tax_code":"HST_ON","tags":[{"key":"k","value":"v"}]},{"category":{"type":"Exclusion","exclusion_type":"PERSONAL_EXPENSES"},"amount":"8000"}]}`,
		`{"type":"Split","entries":[{"category":{"type":"StableName","stable_name":"MEALS"},"amount":9223372036854775807},{"category":{"type":"StableName","stable_name":"MEALS"},"amount":9223372036854775807}]}`,
		`{"type":"Split","entries":[{"category":{"type":"StableName","stable_name":"MEALS"},"amount":1e400}]}`,
		`{"type":"Split","entries":[{"category":{"type":"StableName","stable_name":"MEALS"},"amount":-0}]}`,
		`{"type":"Category","category":{"type":"AccountId","id":"` + acctID + `"`,
		`{"type":"Category","type":"Split"}`,
		`[{"type":"Category"}]`,
		"\x00\xff",
		``,
	}
	for _, s := range seeds {
		f.Add([]byte(s), int64(11300), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, amount int64, canadian bool) {
		target := american
		if canadian {
			target = ontario
		}
		if amount <= 0 {
			amount = 1 - (amount % 1_000_000)
		}
		target.Amount = money.Cents(amount)
		c, err := ParseCategorization(body, target)
		if err != nil {
			if !is4xx(err) {
				t.Fatalf("refusal is not a 4xx error object: %v", err)
			}
			return
		}
		var parts []money.Cents
		for _, e := range c.Entries() {
			if e.Amount <= 0 {
				t.Fatalf("entry amount %d", e.Amount)
			}
			if e.Tax != nil && (!canadian || e.Category.IsExclusion()) {
				t.Fatalf("tax code %s accepted for canadian=%v exclusion=%v", e.Tax.Code, canadian, e.Category.IsExclusion())
			}
			if c.IsSplit() && e.Category.Exclusion == DuplicateTransaction {
				t.Fatal("duplicate accepted in a split")
			}
			if err := e.Category.Validate("category"); err != nil {
				t.Fatalf("accepted an invalid classification: %v", err)
			}
			parts = append(parts, e.Amount)
		}
		sum, err := money.Sum(parts...)
		if err != nil || sum != target.Amount {
			t.Fatalf("entries sum to %d (%v), want %d", sum, err, target.Amount)
		}
	})
}
