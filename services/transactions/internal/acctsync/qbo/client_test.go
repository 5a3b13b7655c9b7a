package qbo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync/qbo/qbofake"
)

const (
	testClientID     = "ABclient"
	testClientSecret = "shh-secret"
	testRedirect     = "https://api.example.test/v1/acctsync/callback"
	testRealm        = "9130350000000001"
)

func newFake(t *testing.T) *qbofake.Server {
	return qbofake.New(t, qbofake.Options{ClientID: testClientID, ClientSecret: testClientSecret, RedirectURL: testRedirect})
}

func newClient(t *testing.T, f *qbofake.Server, edit func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		AuthURL: f.AuthURL, TokenURL: f.TokenURL, APIBaseURL: f.APIBaseURL, RevokeURL: f.RevokeURL,
		ClientID: testClientID, ClientSecret: testClientSecret, RedirectURL: testRedirect,
		Scopes: []string{qbofake.AccountingScope},
	}
	if edit != nil {
		edit(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// consentCode runs the consent step and returns the code the fake issued.
func consentCode(t *testing.T, f *qbofake.Server, c *Client) string {
	t.Helper()
	back, err := f.Consent(c.AuthCodeURL("state-123"))
	if err != nil {
		t.Fatal(err)
	}
	q := back.Query()
	if q.Get("state") != "state-123" || q.Get("realmId") != testRealm || q.Get("code") == "" {
		t.Fatalf("consent redirect = %s", back)
	}
	return q.Get("code")
}

func TestAuthCodeURL(t *testing.T) {
	f := newFake(t)
	c := newClient(t, f, nil)
	u, err := url.Parse(c.AuthCodeURL("st"))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	want := map[string]string{
		"client_id": testClientID, "redirect_uri": testRedirect, "response_type": "code",
		"scope": qbofake.AccountingScope, "state": "st",
	}
	for k, v := range want {
		if q.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, q.Get(k), v)
		}
	}
	if got := u.Scheme + "://" + u.Host + u.Path; got != f.AuthURL {
		t.Errorf("endpoint = %s, want %s", got, f.AuthURL)
	}
}

func TestExchangeAndRefresh(t *testing.T) {
	f := newFake(t)
	c := newClient(t, f, nil)
	ctx := context.Background()
	code := consentCode(t, f, c)
	tok, err := c.Exchange(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken == "" || tok.RefreshToken == "" || tok.ExpiresIn != time.Hour || tok.RefreshExpiresIn != 101*24*time.Hour {
		t.Fatalf("tokens = %+v", tok)
	}
	if f.TokenCalls("authorization_code") != 1 {
		t.Fatalf("authorization_code calls = %d", f.TokenCalls("authorization_code"))
	}
	if _, err := c.Exchange(ctx, code); !errors.Is(err, acctsync.ErrGrantRejected) {
		t.Fatalf("second exchange of one code: %v, want ErrGrantRejected", err)
	}

	next, err := c.Refresh(ctx, tok.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if next.AccessToken == tok.AccessToken || next.RefreshToken == tok.RefreshToken || next.ExpiresIn != time.Hour {
		t.Fatalf("refreshed = %+v (old %+v)", next, tok)
	}
	if f.TokenCalls("refresh_token") != 1 {
		t.Fatalf("refresh_token calls = %d", f.TokenCalls("refresh_token"))
	}
	if f.AccessTokenValid(tok.AccessToken) || !f.AccessTokenValid(next.AccessToken) {
		t.Fatal("the fake should accept only the refreshed access token")
	}
	if _, err := c.Refresh(ctx, tok.RefreshToken); !errors.Is(err, acctsync.ErrGrantRejected) {
		t.Fatalf("refresh with the rotated-out token: %v, want ErrGrantRejected", err)
	}
}

func TestExchangeFailures(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Config)
		down  bool
		want  error
		wrong bool // exchange a code the fake never issued
	}{
		{name: "wrong client secret", edit: func(c *Config) { c.ClientSecret = "nope" }, want: acctsync.ErrClientRejected},
		{name: "wrong redirect uri", edit: func(c *Config) { c.RedirectURL = "https://evil.example/cb" }, want: acctsync.ErrGrantRejected},
		{name: "unknown code", wrong: true, want: acctsync.ErrGrantRejected},
		{name: "provider down", down: true, want: acctsync.ErrProviderUnavailable},
		{name: "unreachable", edit: func(c *Config) { c.TokenURL = "http://127.0.0.1:1/token" }, want: acctsync.ErrProviderUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			code := "never-issued"
			if !tt.wrong {
				code = consentCode(t, f, newClient(t, f, nil))
			}
			c := newClient(t, f, tt.edit)
			f.SetDown(tt.down)
			_, err := c.Exchange(context.Background(), code)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Exchange = %v, want %v", err, tt.want)
			}
		})
	}
}

func accounts(n int) []json.RawMessage {
	out := make([]json.RawMessage, n)
	for i := range out {
		out[i] = qbofake.Account(qbofake.AccountSpec{
			ID: fmt.Sprint(i + 1), Name: fmt.Sprintf("Account %d", i+1), AccountType: "Expense",
			AccountSubType: "Travel", Classification: "Expense", Balance: fmt.Sprintf("%d.%02d", i, i%100),
		})
	}
	return out
}

func TestAccountsPaging(t *testing.T) {
	tests := []struct {
		name        string
		accounts    int
		pageSize    int
		wantQueries int
	}{
		{"empty chart", 0, 2, 1},
		{"short last page", 5, 2, 3},
		{"exact multiple needs an empty page", 4, 2, 3},
		{"one page", 3, 1000, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.SetAccounts(testRealm, accounts(tt.accounts)...)
			c := newClient(t, f, func(c *Config) { c.PageSize = tt.pageSize })
			tok, err := c.Exchange(context.Background(), consentCode(t, f, c))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Accounts(context.Background(), tok.AccessToken, testRealm)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.accounts || f.Queries() != tt.wantQueries {
				t.Fatalf("got %d accounts in %d queries, want %d in %d", len(got), f.Queries(), tt.accounts, tt.wantQueries)
			}
			for i, a := range got {
				if a.ExternalID != fmt.Sprint(i+1) {
					t.Fatalf("account %d has id %s (order lost)", i, a.ExternalID)
				}
			}
		})
	}
}

func TestAccountsFailures(t *testing.T) {
	f := newFake(t)
	f.SetAccounts(testRealm, accounts(5)...)
	c := newClient(t, f, func(c *Config) { c.PageSize = 2 })
	ctx := context.Background()
	tok, err := c.Exchange(ctx, consentCode(t, f, c))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Accounts(ctx, "not-a-token", testRealm); !errors.Is(err, acctsync.ErrAccessDenied) {
		t.Errorf("bad token: %v, want ErrAccessDenied", err)
	}
	if _, err := c.Accounts(ctx, tok.AccessToken, "1234"); !errors.Is(err, acctsync.ErrAccessDenied) {
		t.Errorf("token of another company: %v, want ErrAccessDenied", err)
	}
	f.FailQueriesFrom(3)
	if _, err := c.Accounts(ctx, tok.AccessToken, testRealm); !errors.Is(err, acctsync.ErrProviderUnavailable) {
		t.Errorf("failing second page: %v, want ErrProviderUnavailable", err)
	}
	f.FailQueriesFrom(0)
	f.SetDown(true)
	if _, err := c.Accounts(ctx, tok.AccessToken, testRealm); !errors.Is(err, acctsync.ErrProviderUnavailable) {
		t.Errorf("down: %v, want ErrProviderUnavailable", err)
	}
}

func TestAccountQueryText(t *testing.T) {
	if got := AccountQuery(1001, 1000); got != "select * from Account startposition 1001 maxresults 1000" {
		t.Fatalf("AccountQuery = %q", got)
	}
}
