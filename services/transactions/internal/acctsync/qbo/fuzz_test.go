package qbo

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync/qbo/qbofake"
)

// FuzzParseBalance checks ParseBalance against an exact oracle (math/big):
// whatever it accepts is exactly 100 × the number, and every JSON number
// that is a whole number of cents within int64 is accepted.
func FuzzParseBalance(f *testing.F) {
	for _, s := range []string{
		"1234.56", "1234.5", "0.1", "-0.1", "0", "-0", "92233720368547758.07", "-92233720368547758.08",
		"92233720368547758.08", "1.5E+7", "125E-2", "5e-3", "1e400", "0e99999999", "1.000", `"12.30"`,
		"null", "01", ".5", "1.", "+1", "1e", "-", "1_000", "9.99999999999999999999e16",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseBalance(json.RawMessage(s))
		text := strings.TrimSpace(s)
		if strings.HasPrefix(text, `"`) {
			if json.Unmarshal([]byte(text), &text) != nil {
				if err == nil {
					t.Fatalf("accepted an invalid JSON string %q", s)
				}
				return
			}
		}
		isNumber := text != "" && json.Valid([]byte(text)) && (text[0] == '-' || (text[0] >= '0' && text[0] <= '9'))
		if err != nil {
			if !isNumber {
				return
			}
			r, ok := new(big.Rat).SetString(text)
			if !ok {
				return // an exponent beyond big.Rat: far outside any amount
			}
			cents := new(big.Rat).Mul(r, big.NewRat(100, 1))
			if cents.IsInt() && cents.Num().IsInt64() {
				t.Fatalf("rejected %q (%d cents): %v", s, cents.Num().Int64(), err)
			}
			return
		}
		if text == "" || text == "null" {
			if got != 0 {
				t.Fatalf("%q = %d, want 0", s, got)
			}
			return
		}
		if !isNumber {
			t.Fatalf("accepted %q, which is not a JSON number", s)
		}
		r, ok := new(big.Rat).SetString(text)
		if !ok {
			// Only a zero may carry an exponent beyond big.Rat.
			if got != 0 || strings.Trim(strings.Split(strings.ToLower(strings.TrimPrefix(text, "-")), "e")[0], "0.") != "" {
				t.Fatalf("accepted %q = %d, which the oracle cannot read", s, got)
			}
			return
		}
		want := new(big.Rat).Mul(r, big.NewRat(100, 1))
		if want.Cmp(new(big.Rat).SetInt64(int64(got))) != 0 {
			t.Fatalf("%q = %d cents, want %s", s, got, want.RatString())
		}
		_ = money.Format(got)
	})
}

// FuzzParseAccountsPage feeds arbitrary bodies to the page parser: it must
// never panic, and every account it returns must be storable.
func FuzzParseAccountsPage(f *testing.F) {
	f.Add([]byte(`{"QueryResponse":{"Account":[` + string(qbofake.Account(qbofake.AccountSpec{
		ID: "1", Name: "Checking", AccountType: "Bank", AccountSubType: "Checking", Classification: "Asset", Balance: "1234.56",
	})) + `]}}`))
	f.Add([]byte(`{"QueryResponse":{}}`))
	f.Add([]byte(`{"QueryResponse":{"Account":[{"Id":"2","Name":"x","AccountType":"Income","CurrentBalance":1.5E+2}]}}`))
	f.Add([]byte(`{"Fault":{"Error":[{"Message":"m"}]}}`))
	f.Add([]byte(`{"QueryResponse":{"Account":[{"Id":"3","Name":"y","Classification":"Asset","CurrentBalance":"0.1","ParentRef":{"value":"3"}}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		accounts, err := ParseAccountsPage(body)
		if err != nil {
			return
		}
		for _, a := range accounts {
			if strings.TrimSpace(a.ExternalID) == "" || strings.TrimSpace(a.Name) == "" {
				t.Fatalf("account without id or name: %+v", a)
			}
			if !a.Classification.Valid() {
				t.Fatalf("account with classification %q", a.Classification)
			}
			if a.ParentExternalID == a.ExternalID {
				t.Fatalf("account %q is its own parent", a.ExternalID)
			}
		}
	})
}
