// Package qbo is the QuickBooks Online provider of acctsync: its OAuth 2.0
// authorization-code flow (golang.org/x/oauth2, client credentials in HTTP
// Basic as Intuit requires) and the Accounting API's Account query, paged
// until a short page. It implements acctsync.Provider.
package qbo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
)

// Defaults of Config.
const (
	DefaultPageSize     = acctsync.MaxQueryPageSize
	DefaultMinorVersion = "75"
	defaultHTTPTimeout  = 30 * time.Second
	// defaultAccessLifetime is QuickBooks Online's documented access token
	// lifetime, assumed when a token answer has no expires_in.
	defaultAccessLifetime = time.Hour
	// maxBody bounds one API answer (a 1,000-account page is ~1 MB).
	maxBody = 32 << 20
	// maxPages bounds one chart read, so a provider that never sends a
	// short page cannot keep us reading forever.
	maxPages = 200
)

// Config configures the client.
type Config struct {
	AuthURL    string
	TokenURL   string
	APIBaseURL string // e.g. https://quickbooks.api.intuit.com
	// RevokeURL is Intuit's token revocation endpoint.
	RevokeURL    string
	ClientID     string
	ClientSecret string
	RedirectURL  string
	Scopes       []string
	// HTTPClient makes every provider call (default: 30 s timeout).
	HTTPClient *http.Client
	// PageSize is maxresults of the Account query (1..1000, default 1000).
	PageSize int
	// MinorVersion is the API minor version sent with every query.
	MinorVersion string
}

// Client talks to QuickBooks Online.
type Client struct {
	oauth        *oauth2.Config
	apiBase      string
	revokeURL    string
	http         *http.Client
	pageSize     int
	minorVersion string
}

var _ acctsync.Provider = (*Client)(nil)

// New makes a client.
func New(c Config) (*Client, error) {
	if c.ClientID == "" || c.ClientSecret == "" {
		return nil, errors.New("qbo: client id and secret are required")
	}
	if c.PageSize == 0 {
		c.PageSize = DefaultPageSize
	}
	if c.PageSize < 1 || c.PageSize > acctsync.MaxQueryPageSize {
		return nil, fmt.Errorf("qbo: page size %d outside 1..%d", c.PageSize, acctsync.MaxQueryPageSize)
	}
	if c.MinorVersion == "" {
		c.MinorVersion = DefaultMinorVersion
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: defaultHTTPTimeout}
	}
	return &Client{
		oauth: &oauth2.Config{
			ClientID: c.ClientID, ClientSecret: c.ClientSecret, RedirectURL: c.RedirectURL, Scopes: c.Scopes,
			Endpoint: oauth2.Endpoint{AuthURL: c.AuthURL, TokenURL: c.TokenURL, AuthStyle: oauth2.AuthStyleInHeader},
		},
		apiBase: strings.TrimRight(c.APIBaseURL, "/"), revokeURL: c.RevokeURL, http: c.HTTPClient,
		pageSize: c.PageSize, minorVersion: c.MinorVersion,
	}, nil
}

// FromConfig makes the client of an enabled acctsync configuration.
func FromConfig(c acctsync.Config) (*Client, error) {
	if !c.Enabled() {
		return nil, errors.New("qbo: acctsync is not configured")
	}
	return New(Config{
		AuthURL: c.AuthURL, TokenURL: c.TokenURL, APIBaseURL: c.APIBaseURL, RevokeURL: c.RevokeURL,
		ClientID: c.ClientID, ClientSecret: c.ClientSecret, RedirectURL: c.RedirectURL, Scopes: c.Scopes(),
		HTTPClient: &http.Client{Timeout: c.HTTPTimeout}, PageSize: c.QueryPageSize,
	})
}

// AuthCodeURL implements acctsync.Provider.
func (c *Client) AuthCodeURL(state string) string { return c.oauth.AuthCodeURL(state) }

// Exchange implements acctsync.Provider.
func (c *Client) Exchange(ctx context.Context, code string) (acctsync.Tokens, error) {
	tok, err := c.oauth.Exchange(c.ctx(ctx), code)
	if err != nil {
		return acctsync.Tokens{}, fmt.Errorf("qbo: exchange code: %w", tokenError(err))
	}
	return tokens(tok), nil
}

// Refresh implements acctsync.Provider through oauth2's TokenSource: a
// token without an access token is never valid, so the source refreshes.
func (c *Client) Refresh(ctx context.Context, refreshToken string) (acctsync.Tokens, error) {
	tok, err := c.oauth.TokenSource(c.ctx(ctx), &oauth2.Token{RefreshToken: refreshToken}).Token()
	if err != nil {
		return acctsync.Tokens{}, fmt.Errorf("qbo: refresh token: %w", tokenError(err))
	}
	return tokens(tok), nil
}

// ctx makes oauth2 use our HTTP client.
func (c *Client) ctx(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, c.http)
}

func tokens(t *oauth2.Token) acctsync.Tokens {
	out := acctsync.Tokens{
		AccessToken: t.AccessToken, RefreshToken: t.RefreshToken, TokenType: t.TokenType,
		ExpiresIn: time.Duration(t.ExpiresIn) * time.Second,
	}
	if out.ExpiresIn <= 0 {
		out.ExpiresIn = defaultAccessLifetime
	}
	if s, ok := seconds(t.Extra("x_refresh_token_expires_in")); ok {
		out.RefreshExpiresIn = s
	}
	return out
}

// seconds reads a token answer's extra field holding seconds.
func seconds(v any) (time.Duration, bool) {
	switch n := v.(type) {
	case float64:
		if n > 0 && n < 1e10 {
			return time.Duration(n) * time.Second, true
		}
	case int64:
		if n > 0 {
			return time.Duration(n) * time.Second, true
		}
	case string:
		if i, err := strconv.ParseInt(n, 10, 64); err == nil && i > 0 {
			return time.Duration(i) * time.Second, true
		}
	}
	return 0, false
}

// tokenError classifies a token endpoint failure.
func tokenError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		switch {
		case re.ErrorCode == "invalid_grant":
			return fmt.Errorf("%w: %s", acctsync.ErrGrantRejected, describeRetrieve(re, status))
		case status >= 500 || status == http.StatusTooManyRequests:
			return fmt.Errorf("%w: %s", acctsync.ErrProviderUnavailable, describeRetrieve(re, status))
		default:
			return fmt.Errorf("%w: %s", acctsync.ErrClientRejected, describeRetrieve(re, status))
		}
	}
	if isNetwork(err) {
		return fmt.Errorf("%w: %v", acctsync.ErrProviderUnavailable, err)
	}
	return fmt.Errorf("%w: %v", acctsync.ErrProviderBadAnswer, err)
}

func describeRetrieve(re *oauth2.RetrieveError, status int) string {
	s := fmt.Sprintf("token endpoint answered %d", status)
	if re.ErrorCode != "" {
		s += " " + re.ErrorCode
	}
	if re.ErrorDescription != "" {
		s += ": " + re.ErrorDescription
	}
	return s
}

func isNetwork(err error) bool {
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF)
}

// Accounts implements acctsync.Provider: "select * from Account" in pages
// of PageSize until a page comes back short.
func (c *Client) Accounts(ctx context.Context, accessToken, realmID string) ([]acctsync.ExternalAccount, error) {
	var all []acctsync.ExternalAccount
	for page, start := 0, 1; ; page, start = page+1, start+c.pageSize {
		if page == maxPages {
			return nil, fmt.Errorf("%w: account query still returning full pages after %d", acctsync.ErrProviderBadAnswer, maxPages)
		}
		got, err := c.accountPage(ctx, accessToken, realmID, start)
		if err != nil {
			return nil, err
		}
		all = append(all, got...)
		if len(got) < c.pageSize {
			return all, nil
		}
	}
}

// AccountsPage implements acctsync.Provider: one page of "select * from
// Account" from start; a short page is the last.
func (c *Client) AccountsPage(ctx context.Context, accessToken, realmID string, start int) ([]acctsync.ExternalAccount, int, bool, error) {
	if start < 1 {
		return nil, 0, false, fmt.Errorf("qbo: account query from position %d", start)
	}
	got, err := c.accountPage(ctx, accessToken, realmID, start)
	if err != nil {
		return nil, 0, false, err
	}
	return got, start + c.pageSize, len(got) < c.pageSize, nil
}

// Revoke implements acctsync.Provider with Intuit's revocation endpoint:
// POST {"token": ...} with the client credentials in HTTP Basic. Revoking
// the refresh token ends the whole grant. A token the provider no longer
// knows is already revoked.
func (c *Client) Revoke(ctx context.Context, token string) error {
	if c.revokeURL == "" {
		return fmt.Errorf("%w: no revocation endpoint configured", acctsync.ErrRevokeUnsupported)
	}
	body, _ := json.Marshal(map[string]string{"token": token})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.revokeURL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("qbo: revoke: %w", err)
	}
	req.SetBasicAuth(url.QueryEscape(c.oauth.ClientID), url.QueryEscape(c.oauth.ClientSecret))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w: revoke: %v", acctsync.ErrProviderUnavailable, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch {
	case resp.StatusCode == http.StatusOK:
		return nil
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return fmt.Errorf("%w: revoke answered %d", acctsync.ErrProviderUnavailable, resp.StatusCode)
	case resp.StatusCode == http.StatusUnauthorized:
		return fmt.Errorf("%w: revoke answered %d", acctsync.ErrClientRejected, resp.StatusCode)
	case resp.StatusCode == http.StatusBadRequest:
		// An unknown, expired or already revoked token.
		return fmt.Errorf("%w: revoke answered %d: %s", acctsync.ErrGrantRejected, resp.StatusCode, truncate(string(answer)))
	default:
		return fmt.Errorf("%w: revoke answered %d: %s", acctsync.ErrProviderBadAnswer, resp.StatusCode, truncate(string(answer)))
	}
}

// AccountQuery is the query text of one page.
func AccountQuery(start, pageSize int) string {
	return fmt.Sprintf("select * from Account startposition %d maxresults %d", start, pageSize)
}

func (c *Client) accountPage(ctx context.Context, accessToken, realmID string, start int) ([]acctsync.ExternalAccount, error) {
	q := url.Values{"query": {AccountQuery(start, c.pageSize)}, "minorversion": {c.minorVersion}}
	u := c.apiBase + "/v3/company/" + url.PathEscape(realmID) + "/query?" + q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("qbo: account query: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+accessToken)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: account query: %v", acctsync.ErrProviderUnavailable, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("%w: account query: read: %v", acctsync.ErrProviderUnavailable, err)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("%w: account query answer over %d bytes", acctsync.ErrProviderBadAnswer, maxBody)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return ParseAccountsPage(body)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("%w: account query answered %d", acctsync.ErrAccessDenied, resp.StatusCode)
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return nil, fmt.Errorf("%w: account query answered %d", acctsync.ErrProviderUnavailable, resp.StatusCode)
	default:
		return nil, fmt.Errorf("%w: account query answered %d: %s", acctsync.ErrProviderBadAnswer, resp.StatusCode, truncate(string(body)))
	}
}
