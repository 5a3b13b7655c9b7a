package qbo

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync/qbo/qbofake"
)

func TestAccountsPage(t *testing.T) {
	f := newFake(t)
	c := newClient(t, f, func(c *Config) { c.PageSize = 2 })
	tok, err := c.Exchange(context.Background(), consentCode(t, f, c))
	if err != nil {
		t.Fatal(err)
	}
	f.SetAccounts(testRealm,
		qbofake.Account(qbofake.AccountSpec{ID: "1", Name: "A", AccountType: "Bank", Classification: "Asset"}),
		qbofake.Account(qbofake.AccountSpec{ID: "2", Name: "B", AccountType: "Bank", Classification: "Asset"}),
		qbofake.Account(qbofake.AccountSpec{ID: "3", Name: "C", AccountType: "Bank", Classification: "Asset"}))
	var ids []string
	pos := acctsync.FirstCursor
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatal("no last page")
		}
		got, next, done, err := c.AccountsPage(context.Background(), tok.AccessToken, testRealm, pos)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range got {
			ids = append(ids, a.ExternalID)
		}
		if done {
			break
		}
		if next != pos+2 {
			t.Fatalf("next = %d after %d", next, pos)
		}
		pos = next
	}
	if !slices.Equal(ids, []string{"1", "2", "3"}) || !slices.Equal(f.QueryStarts(), []int{1, 3}) {
		t.Fatalf("ids %v, pages %v", ids, f.QueryStarts())
	}
	if _, _, _, err := c.AccountsPage(context.Background(), tok.AccessToken, testRealm, 0); err == nil {
		t.Fatal("position 0 accepted")
	}
}

func TestRevoke(t *testing.T) {
	f := newFake(t)
	c := newClient(t, f, nil)
	tok, err := c.Exchange(context.Background(), consentCode(t, f, c))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Revoke(context.Background(), tok.RefreshToken); err != nil {
		t.Fatal(err)
	}
	// The whole grant ends: both tokens.
	if f.RefreshTokenValid(tok.RefreshToken) || f.AccessTokenValid(tok.AccessToken) || f.Revocations() != 1 {
		t.Fatal("the grant survived its revocation")
	}
	if _, err := c.Refresh(context.Background(), tok.RefreshToken); !errors.Is(err, acctsync.ErrGrantRejected) {
		t.Fatalf("refresh after revocation: %v", err)
	}
	// Revoking again: the provider no longer knows the token.
	if err := c.Revoke(context.Background(), tok.RefreshToken); !errors.Is(err, acctsync.ErrGrantRejected) {
		t.Fatalf("second revocation: %v", err)
	}

	wrong := newClient(t, f, func(c *Config) { c.ClientSecret = "wrong" })
	if err := wrong.Revoke(context.Background(), "x"); !errors.Is(err, acctsync.ErrClientRejected) {
		t.Fatalf("wrong credentials: %v", err)
	}
	f.SetDown(true)
	if err := c.Revoke(context.Background(), "x"); !errors.Is(err, acctsync.ErrProviderUnavailable) {
		t.Fatalf("provider down: %v", err)
	}
	noURL := newClient(t, f, func(c *Config) { c.RevokeURL = "" })
	if err := noURL.Revoke(context.Background(), "x"); !errors.Is(err, acctsync.ErrRevokeUnsupported) {
		t.Fatalf("no revocation endpoint: %v", err)
	}
}
