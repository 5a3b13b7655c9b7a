package money

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    Cents
		wantErr error
	}{
		{"1234.50", 123450, nil},
		{"-0.01", -1, nil},
		{"12", 1200, nil},
		{"12.5", 1250, nil},
		{"0", 0, nil},
		{"-0", 0, nil},
		{"0.00", 0, nil},
		{"007.10", 710, nil},
		{"92233720368547758.07", MaxCents, nil},
		{"-92233720368547758.08", MinCents, nil},
		{"000000000000000000000000000001.00", 100, nil},

		{"", 0, ErrSyntax},
		{" ", 0, ErrSyntax},
		{" 1", 0, ErrSyntax},
		{"1 ", 0, ErrSyntax},
		{"1\n", 0, ErrSyntax},
		{"1 000", 0, ErrSyntax},
		{"+1", 0, ErrSyntax},
		{"+", 0, ErrSyntax},
		{"-", 0, ErrSyntax},
		{"--1", 0, ErrSyntax},
		{"-+1", 0, ErrSyntax},
		{"1e3", 0, ErrSyntax},
		{"1E3", 0, ErrSyntax},
		{"1.5e2", 0, ErrSyntax},
		{"1.2.3", 0, ErrSyntax},
		{"1..2", 0, ErrSyntax},
		{"1,000.00", 0, ErrSyntax},
		{"1.000,00", 0, ErrSyntax},
		{"1_000", 0, ErrSyntax},
		{"1'000", 0, ErrSyntax},
		{".5", 0, ErrSyntax},
		{"5.", 0, ErrSyntax},
		{"-.5", 0, ErrSyntax},
		{".", 0, ErrSyntax},
		{"0x10", 0, ErrSyntax},
		{"$1.00", 0, ErrSyntax},
		{"1.00$", 0, ErrSyntax},
		{"NaN", 0, ErrSyntax},
		{"Inf", 0, ErrSyntax},
		{"١٢", 0, ErrSyntax}, // Arabic-Indic digits
		{"１２", 0, ErrSyntax}, // full-width digits
		{"1.-5", 0, ErrSyntax},
		{"1.2345e", 0, ErrSyntax}, // malformed beats too precise

		{"1.234", 0, ErrTooPrecise},
		{"0.001", 0, ErrTooPrecise},
		{"-0.005", 0, ErrTooPrecise},
		{"1.000", 0, ErrTooPrecise}, // digits count, not value
		{"99999999999999999999.999", 0, ErrTooPrecise},

		{"92233720368547758.08", 0, ErrOverflow},
		{"-92233720368547758.09", 0, ErrOverflow},
		{"92233720368547759", 0, ErrOverflow},
		{"99999999999999999999999999", 0, ErrOverflow},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Parse(tc.in)
			if tc.wantErr != nil {
				var pe *ParseError
				if !errors.Is(err, tc.wantErr) || !errors.As(err, &pe) || pe.What != "amount" || pe.Reason == "" {
					t.Fatalf("Parse(%q) = %d, %v; want a *ParseError wrapping %v", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Parse(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		in   Cents
		want string
	}{
		{123450, "1234.50"},
		{-1, "-0.01"},
		{0, "0.00"},
		{5, "0.05"},
		{-99, "-0.99"},
		{100, "1.00"},
		{-100, "-1.00"},
		{1250, "12.50"},
		{MaxCents, "92233720368547758.07"},
		{MinCents, "-92233720368547758.08"},
	}
	for _, tc := range tests {
		if got := Format(tc.in); got != tc.want {
			t.Errorf("Format(%d) = %q, want %q", tc.in, got, tc.want)
		}
		if got := tc.in.String(); got != tc.want {
			t.Errorf("Cents(%d).String() = %q, want %q", tc.in, got, tc.want)
		}
		if back, err := Parse(tc.want); err != nil || back != tc.in {
			t.Errorf("Parse(Format(%d)) = %d, %v", tc.in, back, err)
		}
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := Parse("1.234")
	if got, want := err.Error(), `money: parse amount "1.234": must have at most 2 decimal places`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	_, err = Parse("1234567890123456789012345678901234567890123")
	if got, want := err.Error(), `money: parse amount "1234567890123456789012345678901234567890…": out of range`; got != want {
		t.Errorf("long input: Error() = %q, want %q", got, want)
	}
}

func TestParseCentsAndJSON(t *testing.T) {
	tests := []struct {
		raw     string
		want    Cents
		wantErr error
	}{
		{`123450`, 123450, nil},
		{`"123450"`, 123450, nil},
		{`-1`, -1, nil},
		{`"-1"`, -1, nil},
		{`0`, 0, nil},
		{` 42 `, 42, nil},
		{`"9223372036854775807"`, MaxCents, nil},
		{`-9223372036854775808`, MinCents, nil},

		{`1.5`, 0, ErrTooPrecise},
		{`100.0`, 0, ErrTooPrecise},
		{`"12.50"`, 0, ErrTooPrecise},
		{`1e3`, 0, ErrSyntax},
		{`"1e3"`, 0, ErrSyntax},
		{`null`, 0, ErrSyntax},
		{`true`, 0, ErrSyntax},
		{`{}`, 0, ErrSyntax},
		{`[1]`, 0, ErrSyntax},
		{``, 0, ErrSyntax},
		{`""`, 0, ErrSyntax},
		{`" 1"`, 0, ErrSyntax},
		{`"+1"`, 0, ErrSyntax},
		{`"abc`, 0, ErrSyntax},
		{`9223372036854775808`, 0, ErrOverflow},
		{`"-9223372036854775809"`, 0, ErrOverflow},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			got, err := ParseJSONCents(json.RawMessage(tc.raw))
			if tc.wantErr != nil {
				var pe *ParseError
				if !errors.Is(err, tc.wantErr) || !errors.As(err, &pe) || pe.What != "cents" {
					t.Fatalf("ParseJSONCents(%s) = %d, %v; want a *ParseError wrapping %v", tc.raw, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseJSONCents(%s) = %d, %v; want %d", tc.raw, got, err, tc.want)
			}
		})
	}
}

// TestParseJSONCentsInStruct shows the intended use: a field that may be a
// number or a string is decoded as json.RawMessage, then read here.
func TestParseJSONCentsInStruct(t *testing.T) {
	var body struct {
		Lines []struct {
			Amount json.RawMessage `json:"amount"`
		} `json:"line_items"`
	}
	if err := json.Unmarshal([]byte(`{"line_items":[{"amount":"1050"},{"amount":-1050}]}`), &body); err != nil {
		t.Fatal(err)
	}
	var got []Cents
	for _, l := range body.Lines {
		c, err := ParseJSONCents(l.Amount)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	if len(got) != 2 || got[0] != 1050 || got[1] != -1050 {
		t.Fatalf("got %v", got)
	}
}

func TestParseCentsReason(t *testing.T) {
	_, err := ParseCents("12.5x")
	if want := `money: parse cents "12.5x": must be digits with an optional leading '-' (no '+', '.', spaces, exponents or separators)`; err == nil || err.Error() != want {
		t.Fatalf("ParseCents error = %v, want %s", err, want)
	}
	_, err = ParseJSONCents([]byte(`true`))
	if want := `money: parse cents "true": must be a JSON number or string of whole cents`; err == nil || err.Error() != want {
		t.Fatalf("ParseJSONCents error = %v, want %s", err, want)
	}
}
