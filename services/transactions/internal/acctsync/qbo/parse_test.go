package qbo

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync/qbo/qbofake"
)

func TestParseBalance(t *testing.T) {
	tests := []struct {
		raw     string
		want    money.Cents
		wantErr error
	}{
		{"1234.56", 123456, nil},
		{"1234.5", 123450, nil},
		{"0.1", 10, nil},
		{"-0.1", -10, nil},
		{"0.01", 1, nil},
		{"0", 0, nil},
		{"-0", 0, nil},
		{"0.0", 0, nil},
		{"12", 1200, nil},
		{"1234.500000", 123450, nil},
		{"92233720368547758.07", money.MaxCents, nil},
		{"-92233720368547758.08", money.MinCents, nil},
		{"92233720368547758.08", 0, money.ErrOverflow},
		{"1e400", 0, money.ErrOverflow},
		{"1.5E+7", 1500000000, nil},
		{"1.5e7", 1500000000, nil},
		{"125E-2", 125, nil},
		{"5e-3", 0, money.ErrTooPrecise},
		{"1e-999999999999", 0, money.ErrTooPrecise},
		{"0e999999999", 0, nil},
		{"0.001", 0, money.ErrTooPrecise},
		{"1234.567", 0, money.ErrTooPrecise},
		{"null", 0, nil},
		{"", 0, nil},
		{`"1234.56"`, 123456, nil},
		{`"abc"`, 0, money.ErrSyntax},
		{"01", 0, money.ErrSyntax},
		{"+1", 0, money.ErrSyntax},
		{".5", 0, money.ErrSyntax},
		{"1.", 0, money.ErrSyntax},
		{"1e", 0, money.ErrSyntax},
		{"1e+", 0, money.ErrSyntax},
		{"true", 0, money.ErrSyntax},
		{"0x10", 0, money.ErrSyntax},
		{"1,000.00", 0, money.ErrSyntax},
		{"NaN", 0, money.ErrSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := ParseBalance(json.RawMessage(tt.raw))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ParseBalance(%s) = %d, %v; want error %v", tt.raw, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseBalance(%s) = %d, %v; want %d", tt.raw, got, err, tt.want)
			}
		})
	}
}

func TestParseAccountsPage(t *testing.T) {
	page := `{"QueryResponse":{"Account":[` +
		string(qbofake.Account(qbofake.AccountSpec{ID: "35", Name: "Checking", AccountType: "Bank", AccountSubType: "Checking", Classification: "Asset", Balance: "1234.56", AcctNum: "1010"})) + `,` +
		string(qbofake.Account(qbofake.AccountSpec{ID: "36", Name: "Savings sub", AccountType: "Bank", AccountSubType: "Savings", Balance: "0.1", ParentID: "35", Inactive: true})) +
		`],"startPosition":1,"maxResults":2},"time":"2026-01-01T00:00:00.000-08:00"}`
	got, err := ParseAccountsPage([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	want := []acctsync.ExternalAccount{
		{ExternalID: "35", Name: "Checking", FullyQualifiedName: "Checking", AccountNumber: "1010", AccountType: "Bank",
			AccountSubType: "Checking", Classification: acctsync.ClassAsset, CurrentBalance: 123456, Currency: "USD", Active: true},
		{ExternalID: "36", ParentExternalID: "35", Name: "Savings sub", FullyQualifiedName: "Savings sub", AccountType: "Bank",
			AccountSubType: "Savings", Classification: acctsync.ClassAsset, CurrentBalance: 10, Currency: "USD", Active: false},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d accounts, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("account %d = %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func TestParseAccountsPageRejects(t *testing.T) {
	tests := map[string]string{
		"not json":             `<html>`,
		"fault":                `{"Fault":{"Error":[{"Message":"boom","code":"500"}],"type":"SystemFault"}}`,
		"no query response":    `{"time":"x"}`,
		"no id":                `{"QueryResponse":{"Account":[{"Name":"A","Classification":"Asset","AccountType":"Bank"}]}}`,
		"no name":              `{"QueryResponse":{"Account":[{"Id":"1","Classification":"Asset","AccountType":"Bank"}]}}`,
		"unknown class":        `{"QueryResponse":{"Account":[{"Id":"1","Name":"A","Classification":"Income","AccountType":"Bank"}]}}`,
		"no class, bad type":   `{"QueryResponse":{"Account":[{"Id":"1","Name":"A","AccountType":"Weird"}]}}`,
		"fractional cent":      `{"QueryResponse":{"Account":[{"Id":"1","Name":"A","Classification":"Asset","CurrentBalance":0.001}]}}`,
		"balance out of range": `{"QueryResponse":{"Account":[{"Id":"1","Name":"A","Classification":"Asset","CurrentBalance":1e30}]}}`,
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseAccountsPage([]byte(body)); !errors.Is(err, acctsync.ErrProviderBadAnswer) {
				t.Fatalf("err = %v, want ErrProviderBadAnswer", err)
			}
		})
	}
	// An empty result is an empty QueryResponse, not an error.
	got, err := ParseAccountsPage([]byte(`{"QueryResponse":{},"time":"x"}`))
	if err != nil || len(got) != 0 {
		t.Fatalf("empty page = %v, %v", got, err)
	}
}
