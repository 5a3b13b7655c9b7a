package qbo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
)

// queryResponse is the body of GET /v3/company/{realmId}/query. QuickBooks
// Online leaves QueryResponse empty ({}) when nothing matched, and may
// answer 200 with a Fault instead of results.
type queryResponse struct {
	QueryResponse *struct {
		Account       []accountJSON `json:"Account"`
		StartPosition int           `json:"startPosition"`
		MaxResults    int           `json:"maxResults"`
	} `json:"QueryResponse"`
	Fault *fault `json:"Fault"`
}

// fault is QuickBooks Online's error body ("Fault" in 200 answers,
// "fault" in 4xx ones; encoding/json matches either).
type fault struct {
	Type  string `json:"type"`
	Error []struct {
		Message string `json:"Message"`
		Detail  string `json:"Detail"`
		Code    string `json:"code"`
	} `json:"Error"`
}

func (f *fault) String() string {
	if f == nil {
		return ""
	}
	parts := []string{f.Type}
	for _, e := range f.Error {
		parts = append(parts, strings.TrimSpace(e.Code+" "+e.Message+" "+e.Detail))
	}
	return strings.Join(parts, "; ")
}

// accountJSON is the part of QuickBooks Online's Account entity acctsync
// keeps.
type accountJSON struct {
	ID                 string          `json:"Id"`
	Name               string          `json:"Name"`
	FullyQualifiedName string          `json:"FullyQualifiedName"`
	AcctNum            string          `json:"AcctNum"`
	SubAccount         bool            `json:"SubAccount"`
	ParentRef          *ref            `json:"ParentRef"`
	Active             *bool           `json:"Active"`
	Classification     string          `json:"Classification"`
	AccountType        string          `json:"AccountType"`
	AccountSubType     string          `json:"AccountSubType"`
	CurrentBalance     json.RawMessage `json:"CurrentBalance"`
	CurrencyRef        *ref            `json:"CurrencyRef"`
}

type ref struct {
	Value string `json:"value"`
	Name  string `json:"name"`
}

// ParseAccountsPage reads one page of an Account query: the accounts and
// how many the page held. Errors wrap acctsync.ErrProviderBadAnswer.
func ParseAccountsPage(body []byte) ([]acctsync.ExternalAccount, error) {
	var page queryResponse
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&page); err != nil {
		return nil, fmt.Errorf("%w: account query: %v", acctsync.ErrProviderBadAnswer, err)
	}
	if page.Fault != nil {
		return nil, fmt.Errorf("%w: account query fault: %s", acctsync.ErrProviderBadAnswer, page.Fault)
	}
	if page.QueryResponse == nil {
		return nil, fmt.Errorf("%w: account query: no QueryResponse", acctsync.ErrProviderBadAnswer)
	}
	out := make([]acctsync.ExternalAccount, 0, len(page.QueryResponse.Account))
	for i, a := range page.QueryResponse.Account {
		acct, err := a.external()
		if err != nil {
			return nil, fmt.Errorf("%w: account #%d (Id %q): %v", acctsync.ErrProviderBadAnswer, i, a.ID, err)
		}
		out = append(out, acct)
	}
	return out, nil
}

func (a accountJSON) external() (acctsync.ExternalAccount, error) {
	if strings.TrimSpace(a.ID) == "" {
		return acctsync.ExternalAccount{}, errors.New("no Id")
	}
	if strings.TrimSpace(a.Name) == "" {
		return acctsync.ExternalAccount{}, errors.New("no Name")
	}
	class := acctsync.Classification(a.Classification)
	if a.Classification == "" {
		c, ok := acctsync.ClassifyAccountType(a.AccountType)
		if !ok {
			return acctsync.ExternalAccount{}, fmt.Errorf("no Classification and unknown AccountType %q", a.AccountType)
		}
		class = c
	}
	if !class.Valid() {
		return acctsync.ExternalAccount{}, fmt.Errorf("unknown Classification %q", a.Classification)
	}
	balance, err := ParseBalance(a.CurrentBalance)
	if err != nil {
		return acctsync.ExternalAccount{}, fmt.Errorf("CurrentBalance: %w", err)
	}
	out := acctsync.ExternalAccount{
		ExternalID: a.ID, Name: a.Name, FullyQualifiedName: a.FullyQualifiedName, AccountNumber: a.AcctNum,
		AccountType: a.AccountType, AccountSubType: a.AccountSubType, Classification: class,
		CurrentBalance: balance, Active: a.Active == nil || *a.Active,
	}
	if a.ParentRef != nil && a.ParentRef.Value != a.ID {
		out.ParentExternalID = a.ParentRef.Value
	}
	if a.CurrencyRef != nil {
		out.Currency = a.CurrencyRef.Value
	}
	return out, nil
}

// maxExponentShift bounds the decimal exponent of a balance: beyond it the
// amount is certainly out of the int64 cents range (or below a cent), and
// the bound keeps "1e999999999" from allocating a billion zeros.
const maxExponentShift = 40

// ParseBalance reads a balance as QuickBooks Online sends it, a JSON number
// such as 1234.5, -0.1 or 1.5E+7, into exact cents from its text: the
// decimal point is moved by the exponent on the digits themselves and the
// result goes through money.Parse, so no value ever passes through a
// float64. Null or absent is zero; a JSON string holding such a number is
// accepted too. More than two significant decimals is an error, not a
// rounding: an amount is in cents or it is not an amount.
func ParseBalance(raw json.RawMessage) (money.Cents, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	text := string(raw)
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &text); err != nil {
			return 0, fmt.Errorf("%w: balance %s is not a JSON string", money.ErrSyntax, raw)
		}
	}
	plain, err := plainDecimal(text)
	if err != nil {
		return 0, err
	}
	return money.Parse(plain)
}

// plainDecimal rewrites a JSON number (RFC 8259 grammar) without its
// exponent and without fractional trailing zeros: "1.50E+2" → "150",
// "-12.30" → "-12.3", "5e-3" → "0.005".
func plainDecimal(num string) (string, error) {
	bad := func() (string, error) {
		return "", fmt.Errorf("%w: %q is not a JSON number", money.ErrSyntax, truncate(num))
	}
	neg := strings.HasPrefix(num, "-")
	body := strings.TrimPrefix(num, "-")
	mant, expText, hasExp := strings.Cut(body, "e")
	if !hasExp {
		mant, expText, hasExp = strings.Cut(body, "E")
	}
	intPart, frac, hasDot := strings.Cut(mant, ".")
	if !allDigits(intPart) || (len(intPart) > 1 && intPart[0] == '0') || (hasDot && !allDigits(frac)) {
		return bad()
	}
	exp := 0
	if hasExp {
		sign := 1
		switch {
		case strings.HasPrefix(expText, "+"):
			expText = expText[1:]
		case strings.HasPrefix(expText, "-"):
			sign, expText = -1, expText[1:]
		}
		if !allDigits(expText) {
			return bad()
		}
		expText = strings.TrimLeft(expText, "0")
		if len(expText) > 6 {
			expText = "999999" // far beyond any amount; handled below
		}
		if expText != "" {
			e, _ := strconv.Atoi(expText)
			exp = sign * e
		}
	}
	digits := intPart + frac
	point := len(intPart) + exp // the decimal point sits before digits[point]
	trimmed := strings.TrimLeft(digits, "0")
	point -= len(digits) - len(trimmed)
	digits = strings.TrimRight(trimmed, "0")
	if digits == "" {
		return "0", nil
	}
	switch {
	case point > maxExponentShift:
		return "", fmt.Errorf("%w: %q", money.ErrOverflow, truncate(num))
	case point < -maxExponentShift:
		return "", fmt.Errorf("%w: %q has more than 2 decimal places", money.ErrTooPrecise, truncate(num))
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch {
	case point <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -point))
		b.WriteString(digits)
	case point >= len(digits):
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", point-len(digits)))
	default:
		b.WriteString(digits[:point])
		b.WriteByte('.')
		b.WriteString(digits[point:])
	}
	return b.String(), nil
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
