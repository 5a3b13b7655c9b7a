// Package qbofake is an in-test QuickBooks Online: an httptest server that
// speaks the provider's OAuth 2.0 authorization and token endpoints
// (authorization_code and refresh_token grants, HTTP Basic client
// authentication, JSON token answers with x_refresh_token_expires_in) and
// the Accounting API's paged Account query and the token revocation
// endpoint, strictly enough that a client
// sending the wrong credentials, redirect_uri, code or token fails as it
// would against Intuit.
package qbofake

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Paths of the endpoints on the fake's URL.
const (
	AuthPath   = "/connect/oauth2"
	TokenPath  = "/oauth2/v1/tokens/bearer"
	RevokePath = "/v2/oauth2/tokens/revoke"
)

// AccountingScope is the scope an authorization must ask for.
const AccountingScope = "com.intuit.quickbooks.accounting"

// Options configure the fake.
type Options struct {
	ClientID     string
	ClientSecret string
	RedirectURL  string
	// AccessTTL is expires_in of issued access tokens (default 1 h).
	AccessTTL time.Duration
	// RefreshTTL is x_refresh_token_expires_in (default 101 days).
	RefreshTTL time.Duration
	// Now is the fake's clock for access token expiry (default time.Now).
	Now func() time.Time
}

type codeGrant struct {
	realm, redirectURI string
	used               bool
}

type accessGrant struct {
	realm   string
	grant   string // the authorization the token belongs to
	expires time.Time
	revoked bool
}

// refreshGrant is what a live refresh token belongs to.
type refreshGrant struct {
	realm, grant string
}

// Server is the fake provider.
type Server struct {
	// URL is the base URL; AuthURL, TokenURL, APIBaseURL and RevokeURL
	// are the values of ACCTSYNC_AUTH_URL, ACCTSYNC_TOKEN_URL,
	// ACCTSYNC_API_BASE_URL and ACCTSYNC_REVOKE_URL that point at it.
	URL, AuthURL, TokenURL, APIBaseURL, RevokeURL string

	opts Options
	srv  *httptest.Server

	mu            sync.Mutex
	codes         map[string]*codeGrant
	access        map[string]*accessGrant
	refresh       map[string]refreshGrant
	accounts      map[string][]json.RawMessage
	consentRealm  string
	denyConsent   bool
	down          bool
	failQueryFrom int
	tokenCalls    map[string]int
	queries       int
	starts        []int
	revocations   int
	lastAccess    string
	lastRefresh   string
}

// New starts the fake; it stops at the end of the test.
func New(t testing.TB, o Options) *Server {
	t.Helper()
	if o.AccessTTL == 0 {
		o.AccessTTL = time.Hour
	}
	if o.RefreshTTL == 0 {
		o.RefreshTTL = 101 * 24 * time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Server{
		opts: o, codes: map[string]*codeGrant{}, access: map[string]*accessGrant{}, refresh: map[string]refreshGrant{},
		accounts: map[string][]json.RawMessage{}, tokenCalls: map[string]int{}, consentRealm: "9130350000000001",
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+AuthPath, s.authorize)
	mux.HandleFunc("POST "+TokenPath, s.token)
	mux.HandleFunc("GET /v3/company/{realm}/query", s.query)
	mux.HandleFunc("POST "+RevokePath, s.revoke)
	s.srv = httptest.NewServer(s.unlessDown(mux))
	t.Cleanup(s.srv.Close)
	s.URL = s.srv.URL
	s.AuthURL, s.TokenURL, s.APIBaseURL, s.RevokeURL = s.URL+AuthPath, s.URL+TokenPath, s.URL, s.URL+RevokePath
	return s
}

// SetAccounts replaces the chart of accounts of a company (each item one
// Account object, e.g. from Account).
func (s *Server) SetAccounts(realm string, accounts ...json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accounts[realm] = accounts
}

// SetConsentRealm is the company the next consents pick.
func (s *Server) SetConsentRealm(realm string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.consentRealm = realm
}

// SetDenyConsent makes the user decline (error=access_denied).
func (s *Server) SetDenyConsent(deny bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.denyConsent = deny
}

// SetDown makes every endpoint answer 503.
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

// FailQueriesFrom makes Account queries whose startposition is at least
// start answer 503 (0: never), to break an import halfway.
func (s *Server) FailQueriesFrom(start int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failQueryFrom = start
}

// TokenCalls is how many token requests of this grant_type succeeded.
func (s *Server) TokenCalls(grant string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokenCalls[grant]
}

// Queries is how many Account query pages were served.
func (s *Server) Queries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries
}

// QueryStarts lists the startposition of every Account query page served,
// in order.
func (s *Server) QueryStarts() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.starts...)
}

// Revocations is how many revocation requests revoked a grant.
func (s *Server) Revocations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.revocations
}

// RefreshTokenValid reports whether the fake would accept this refresh
// token now.
func (s *Server) RefreshTokenValid(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.refresh[token]
	return ok
}

// LastIssued is the most recently issued token pair.
func (s *Server) LastIssued() (access, refresh string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastAccess, s.lastRefresh
}

// RevokeAccessTokens makes every issued access token fail (as when a user
// disconnects and reconnects elsewhere), while refresh tokens still work.
func (s *Server) RevokeAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.access {
		g.revoked = true
	}
}

// RevokeTokens makes every issued access and refresh token fail (the user
// disconnected the app).
func (s *Server) RevokeTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.access {
		g.revoked = true
	}
	clear(s.refresh)
}

// AccessTokenValid reports whether the fake would accept this access
// token now.
func (s *Server) AccessTokenValid(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.access[token]
	return ok && !g.revoked && s.opts.Now().Before(g.expires)
}

// Consent plays the browser: it opens authURL (what POST .../authorize
// returned) at the fake's authorization endpoint and returns the redirect
// the provider sends the browser to, i.e. our callback URL with code,
// state and realmId.
func (s *Server) Consent(authURL string) (*url.URL, error) {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(authURL)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		return nil, fmt.Errorf("qbofake: authorization answered %d", resp.StatusCode)
	}
	return url.Parse(resp.Header.Get("Location"))
}

func (s *Server) unlessDown(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		down := s.down
		s.mu.Unlock()
		if down {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("<html><body>Service Unavailable</body></html>"))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// authorize is the consent page: it checks the request as Intuit does and
// "consents" at once.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	switch {
	case q.Get("client_id") != s.opts.ClientID:
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	case q.Get("redirect_uri") != s.opts.RedirectURL:
		http.Error(w, "redirect_uri does not match the app's", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code":
		http.Error(w, "response_type must be code", http.StatusBadRequest)
		return
	case !hasScope(q.Get("scope"), AccountingScope):
		http.Error(w, "scope must include "+AccountingScope, http.StatusBadRequest)
		return
	case q.Get("state") == "":
		http.Error(w, "state is required", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	deny, realm := s.denyConsent, s.consentRealm
	back := url.Values{"state": {q.Get("state")}}
	if deny {
		back.Set("error", "access_denied")
	} else {
		code := "AB" + randomHex(20)
		s.codes[code] = &codeGrant{realm: realm, redirectURI: q.Get("redirect_uri")}
		back.Set("code", code)
		back.Set("realmId", realm)
	}
	s.mu.Unlock()
	http.Redirect(w, r, q.Get("redirect_uri")+"?"+back.Encode(), http.StatusFound)
}

func hasScope(list, want string) bool {
	for _, s := range strings.Fields(list) {
		if s == want {
			return true
		}
	}
	return false
}

func tokenError(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code})
}

// token is the token endpoint.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	if !ok || id != s.opts.ClientID || secret != s.opts.ClientSecret {
		tokenError(w, http.StatusUnauthorized, "invalid_client")
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		tokenError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	if err := r.ParseForm(); err != nil {
		tokenError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	grant := r.PostForm.Get("grant_type")
	s.mu.Lock()
	defer s.mu.Unlock()
	var realm, grantID string
	switch grant {
	case "authorization_code":
		c, ok := s.codes[r.PostForm.Get("code")]
		if !ok || c.used || r.PostForm.Get("redirect_uri") != c.redirectURI {
			tokenError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
		c.used = true
		realm, grantID = c.realm, randomHex(8)
	case "refresh_token":
		old := r.PostForm.Get("refresh_token")
		rg, ok := s.refresh[old]
		if !ok {
			tokenError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
		rlm := rg.realm
		// The pair rotates: the old refresh token and every access token
		// of the company stop working, so a client that keeps using them
		// fails visibly.
		delete(s.refresh, old)
		for _, g := range s.access {
			if g.realm == rlm {
				g.revoked = true
			}
		}
		realm, grantID = rlm, rg.grant
	default:
		tokenError(w, http.StatusBadRequest, "unsupported_grant_type")
		return
	}
	access, refresh := "eyJ"+randomHex(32), "AB1"+randomHex(24)
	s.access[access] = &accessGrant{realm: realm, grant: grantID, expires: s.opts.Now().Add(s.opts.AccessTTL)}
	s.refresh[refresh] = refreshGrant{realm: realm, grant: grantID}
	s.lastAccess, s.lastRefresh = access, refresh
	s.tokenCalls[grant]++
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"token_type":                 "bearer",
		"access_token":               access,
		"refresh_token":              refresh,
		"expires_in":                 int64(s.opts.AccessTTL / time.Second),
		"x_refresh_token_expires_in": int64(s.opts.RefreshTTL / time.Second),
	})
}

// revoke is Intuit's revocation endpoint: HTTP Basic client credentials,
// a JSON body {"token": ...} naming an access or refresh token; the whole
// grant it belongs to ends. An unknown token is 400.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	if !ok || id != s.opts.ClientID || secret != s.opts.ClientSecret {
		tokenError(w, http.StatusUnauthorized, "invalid_client")
		return
	}
	var body struct {
		Token string `json:"token"`
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || json.NewDecoder(r.Body).Decode(&body) != nil || body.Token == "" {
		tokenError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	grant := ""
	if rg, ok := s.refresh[body.Token]; ok {
		grant = rg.grant
	} else if g, ok := s.access[body.Token]; ok && !g.revoked {
		grant = g.grant
	}
	if grant == "" {
		tokenError(w, http.StatusBadRequest, "invalid_token")
		return
	}
	for tok, rg := range s.refresh {
		if rg.grant == grant {
			delete(s.refresh, tok)
		}
	}
	for _, g := range s.access {
		if g.grant == grant {
			g.revoked = true
		}
	}
	s.revocations++
	w.WriteHeader(http.StatusOK)
}

var queryRE = regexp.MustCompile(`(?i)^select \* from Account startposition (\d+) maxresults (\d+)$`)

func apiFault(w http.ResponseWriter, status int, typ, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"Fault": map[string]any{"type": typ, "Error": []map[string]string{{"Message": msg, "code": code}}},
		"time":  time.Now().UTC().Format(time.RFC3339),
	})
}

// query is GET /v3/company/{realm}/query for Account queries.
func (s *Server) query(w http.ResponseWriter, r *http.Request) {
	realm := r.PathValue("realm")
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	g, known := s.access[tok]
	valid := ok && known && !g.revoked && g.realm == realm && s.opts.Now().Before(g.expires)
	failFrom := s.failQueryFrom
	accounts := s.accounts[realm]
	s.mu.Unlock()
	if !valid {
		apiFault(w, http.StatusUnauthorized, "AUTHENTICATION", "3200", "message=AuthenticationFailed; errorCode=003200; statusCode=401")
		return
	}
	if !strings.Contains(r.Header.Get("Accept"), "application/json") {
		apiFault(w, http.StatusNotAcceptable, "ValidationFault", "4000", "Accept must ask for application/json")
		return
	}
	m := queryRE.FindStringSubmatch(r.URL.Query().Get("query"))
	if m == nil {
		apiFault(w, http.StatusBadRequest, "ValidationFault", "4000", "QueryParserError: unsupported query")
		return
	}
	start, _ := strconv.Atoi(m[1])
	max, _ := strconv.Atoi(m[2])
	if start < 1 || max < 1 || max > 1000 {
		apiFault(w, http.StatusBadRequest, "ValidationFault", "4001", "startposition/maxresults out of range")
		return
	}
	if failFrom > 0 && start >= failFrom {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	s.mu.Lock()
	s.queries++
	s.starts = append(s.starts, start)
	s.mu.Unlock()
	var page []json.RawMessage
	if start-1 < len(accounts) {
		page = accounts[start-1 : min(len(accounts), start-1+max)]
	}
	qr := map[string]any{}
	if len(page) > 0 {
		qr = map[string]any{"Account": page, "startPosition": start, "maxResults": len(page)}
	}
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"QueryResponse": qr, "time": time.Now().UTC().Format(time.RFC3339)})
}

// AccountSpec describes one Account entity; Balance is the exact JSON
// number text of CurrentBalance ("1234.56", "0.1", "1.5E+7").
type AccountSpec struct {
	ID, Name, AccountType, AccountSubType, Classification string
	Balance                                               string
	ParentID                                              string
	AcctNum                                               string
	Inactive                                              bool
}

// Account renders spec the way QuickBooks Online does (an empty
// Classification is left out, as the API does for some accounts).
func Account(a AccountSpec) json.RawMessage {
	if a.Balance == "" {
		a.Balance = "0"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"Name":%q,"SubAccount":%t,"FullyQualifiedName":%q,"Active":%t,`, a.Name, a.ParentID != "", a.Name, !a.Inactive)
	if a.Classification != "" {
		fmt.Fprintf(&b, `"Classification":%q,`, a.Classification)
	}
	fmt.Fprintf(&b, `"AccountType":%q,"AccountSubType":%q,`, a.AccountType, a.AccountSubType)
	if a.AcctNum != "" {
		fmt.Fprintf(&b, `"AcctNum":%q,`, a.AcctNum)
	}
	if a.ParentID != "" {
		fmt.Fprintf(&b, `"ParentRef":{"value":%q},`, a.ParentID)
	}
	fmt.Fprintf(&b, `"CurrentBalance":%s,"CurrentBalanceWithSubAccounts":%s,"CurrencyRef":{"value":"USD","name":"United States Dollar"},`, a.Balance, a.Balance)
	fmt.Fprintf(&b, `"domain":"QBO","sparse":false,"Id":%q,"SyncToken":"0","MetaData":{"CreateTime":"2024-01-02T10:00:00-08:00","LastUpdatedTime":"2024-01-02T10:00:00-08:00"}}`, a.ID)
	return json.RawMessage(b.String())
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
