package httpapi_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"github.com/acctsuite/acct/pkg/httpauth"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/tenancy"
	"github.com/acctsuite/acct/pkg/testkit"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync/httpapi"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync/postgres"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync/qbo"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync/qbo/qbofake"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

const (
	clientA      = "client-a"
	clientB      = "client-b"
	qboClientID  = "ABqboClient"
	qboSecret    = "qbo-client-secret"
	qboRedirect  = "https://api.example.test/v1/acctsync/callback"
	realm        = "9130350000000001"
	testPageSize = 2
)

// clock is the injectable time of the service and the fake provider.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fakeLedger is an in-memory local ledger: the two lookup interfaces
// acctsync needs from the transactions service's chart of accounts.
type fakeLedger struct {
	mu       sync.Mutex
	accounts map[uuid.UUID][]acctsync.LedgerAccount // by business
	lookups  int
}

func (l *fakeLedger) add(bid uuid.UUID, stable string, typ acctsync.AccountType, subtype string) acctsync.LedgerAccount {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := acctsync.Debit
	if typ == acctsync.TypeLiability || typ == acctsync.TypeEquity || typ == acctsync.TypeRevenue {
		n = acctsync.Credit
	}
	s := stable
	a := acctsync.LedgerAccount{
		ID: uuid.New(), Name: "Local " + stable, StableName: &s, Normality: n, AccountType: typ,
		Subtype: acctsync.Subtype{Value: subtype, DisplayName: subtype},
	}
	l.accounts[bid] = append(l.accounts[bid], a)
	return a
}

func (l *fakeLedger) FindAccount(_ context.Context, bid, id uuid.UUID) (acctsync.LedgerAccount, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lookups++
	for _, a := range l.accounts[bid] {
		if a.ID == id {
			return a, true, nil
		}
	}
	return acctsync.LedgerAccount{}, false, nil
}

func (l *fakeLedger) FindAccountByStableName(_ context.Context, bid uuid.UUID, stable string) (acctsync.LedgerAccount, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range l.accounts[bid] {
		if a.StableName != nil && *a.StableName == stable {
			return a, true, nil
		}
	}
	return acctsync.LedgerAccount{}, false, nil
}

func (l *fakeLedger) remove(bid, id uuid.UUID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := l.accounts[bid][:0]
	for _, a := range l.accounts[bid] {
		if a.ID != id {
			kept = append(kept, a)
		}
	}
	l.accounts[bid] = kept
}

// testLogger is silent unless TESTKIT_LOG is set.
func testLogger() *slog.Logger {
	if os.Getenv("TESTKIT_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.DiscardHandler)
}

type envOptions struct {
	successURL   string
	noProvider   bool
	clientSecret string // what our side sends (default: the right one)
	// wrap, when set, stands between the service and the QuickBooks
	// client (to pause or observe a sync).
	wrap func(acctsync.Provider) acctsync.Provider
	// noWorker leaves the sync worker off: the test runs ResumeSyncs.
	noWorker bool
}

// env is the acctsync HTTP routes on a fresh database, talking to a fake
// QuickBooks Online, with tokens the routes accept.
type env struct {
	t      *testing.T
	db     *bun.DB
	fake   *qbofake.Server
	svc    *acctsync.Service
	cipher *acctsync.TokenCipher
	url    string
	v      *openapitest.Validator
	tokens *servicetest.Tokens
	clock  *clock
	ledger *fakeLedger
	bizA   uuid.UUID // owned by client-a
	bizB   uuid.UUID // owned by client-b
	local  map[string]acctsync.LedgerAccount
	// opts are the service's options, to start a second process on the
	// same database; client is the unwrapped QuickBooks client.
	opts   acctsync.Options
	client *qbo.Client
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	e := &env{
		t: t, clock: &clock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)},
		ledger: &fakeLedger{accounts: map[uuid.UUID][]acctsync.LedgerAccount{}},
		bizA:   uuid.New(), bizB: uuid.New(), tokens: servicetest.NewTokens(t),
		local: map[string]acctsync.LedgerAccount{},
	}
	for _, a := range []struct {
		stable, subtype string
		typ             acctsync.AccountType
	}{
		{"BANK_ACCOUNTS", "BANK_ACCOUNTS", acctsync.TypeAsset},
		{"CASH", "CASH", acctsync.TypeAsset},
		{"CREDIT_CARDS", "CREDIT_CARDS", acctsync.TypeLiability},
		{"SALES", "SALES", acctsync.TypeRevenue},
		{"OPERATING_EXPENSES", "OPERATING_EXPENSES", acctsync.TypeExpense},
	} {
		e.local[a.stable] = e.ledger.add(e.bizA, a.stable, a.typ, a.subtype)
	}
	e.ledger.add(e.bizB, "BANK_ACCOUNTS", acctsync.TypeAsset, "BANK_ACCOUNTS")

	e.db = testkit.DB(t, "transactions", postgres.Migrations)
	e.fake = qbofake.New(t, qbofake.Options{ClientID: qboClientID, ClientSecret: qboSecret, RedirectURL: qboRedirect, Now: e.clock.Now})
	key := make([]byte, acctsync.EncryptionKeySize)
	_, _ = rand.Read(key)
	cipher, err := acctsync.NewTokenCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	e.cipher = cipher
	opts := acctsync.Options{
		Store: postgres.New(e.db), Local: e.ledger, LocalByStableName: e.ledger, Now: e.clock.Now,
		Logger: testLogger(),
	}
	if !o.noProvider {
		secret := o.clientSecret
		if secret == "" {
			secret = qboSecret
		}
		client, err := qbo.New(qbo.Config{
			AuthURL: e.fake.AuthURL, TokenURL: e.fake.TokenURL, APIBaseURL: e.fake.APIBaseURL, RevokeURL: e.fake.RevokeURL,
			ClientID: qboClientID, ClientSecret: secret, RedirectURL: qboRedirect,
			Scopes: []string{qbofake.AccountingScope}, PageSize: testPageSize,
		})
		if err != nil {
			t.Fatal(err)
		}
		e.client = client
		opts.Provider, opts.Cipher = client, cipher
		if o.wrap != nil {
			opts.Provider = o.wrap(client)
		}
	}
	opts.SyncPoll = 20 * time.Millisecond
	e.opts = opts
	e.svc, err = acctsync.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if !o.noWorker {
		ctx, cancel := context.WithCancel(context.Background())
		stopped := make(chan struct{})
		go func() { e.svc.RunSyncWorker(ctx); close(stopped) }()
		t.Cleanup(func() { cancel(); <-stopped })
	}

	owners := tenancy.OwnerLookupFunc(func(_ context.Context, bid uuid.UUID) (string, bool, error) {
		switch bid {
		case e.bizA:
			return clientA, true, nil
		case e.bizB:
			return clientB, true, nil
		}
		return "", false, nil
	})
	app := httpx.New(httpx.Options{Service: "transactions", Logger: testLogger()})
	httpapi.Register(app, httpapi.Options{
		Service:    e.svc,
		Auth:       httpauth.Middleware(authn.NewJWKSVerifier(e.tokens.JWKSURL, authn.VerifierOptions{})),
		Business:   httpauth.RequireBusiness("businessId", owners),
		SuccessURL: o.successURL,
		Cursors:    page.NewCodec([]byte("acctsync-test-cursors")),
	})
	httpx.Finish(app)
	e.url = testkit.Serve(t, app)
	e.v = openapitest.New(t, httpapi.OpenAPI)
	return e
}

// do sends a real HTTP request (redirects not followed), validates the
// exchange against the OpenAPI fragment and returns status and body.
func (e *env) do(method, path, token string) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		e.t.Fatal(err)
	}
	e.v.Check(e.t, req, nil, resp, body)
	return resp, body
}

func (e *env) platform(client string) string { return e.tokens.Platform(e.t, client) }

// authorize calls POST .../acctsync/authorize as client for bid and
// returns the redirect URL.
func (e *env) authorize(bid uuid.UUID, client string) string {
	e.t.Helper()
	resp, body := e.do(http.MethodPost, "/v1/businesses/"+bid.String()+"/acctsync/authorize", e.platform(client))
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("authorize = %d %s", resp.StatusCode, body)
	}
	var out struct {
		Data struct {
			RedirectURL string `json:"redirect_url"`
			Type        string `json:"type"`
		} `json:"data"`
	}
	decode(e.t, body, &out)
	if out.Data.Type != "Acctsync_Authorization_Params" {
		e.t.Fatalf("type = %q", out.Data.Type)
	}
	return out.Data.RedirectURL
}

// consent plays the browser at the fake provider and returns the query our
// callback receives.
func (e *env) consent(redirectURL string) url.Values {
	e.t.Helper()
	back, err := e.fake.Consent(redirectURL)
	if err != nil {
		e.t.Fatal(err)
	}
	if got := back.Scheme + "://" + back.Host + back.Path; got != qboRedirect {
		e.t.Fatalf("provider redirected to %s, want %s", got, qboRedirect)
	}
	return back.Query()
}

// callback calls our callback with q, as the browser would.
func (e *env) callback(q url.Values) (*http.Response, []byte) {
	e.t.Helper()
	return e.do(http.MethodGet, "/v1/acctsync/callback?"+q.Encode(), "")
}

// connect runs the whole flow for bizA and fails the test unless it
// succeeds.
func (e *env) connect(bid uuid.UUID, client string) {
	e.t.Helper()
	resp, body := e.callback(e.consent(e.authorize(bid, client)))
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("callback = %d %s", resp.StatusCode, body)
	}
}

// errorBody decodes an error object.
type errorBody struct {
	Type        string         `json:"type"`
	Description string         `json:"description"`
	ErrorEnum   string         `json:"error_enum"`
	Meta        map[string]any `json:"meta"`
}

func (e *env) expectError(resp *http.Response, body []byte, status int, enum string) errorBody {
	e.t.Helper()
	if resp.StatusCode != status {
		e.t.Fatalf("status = %d, want %d: %s", resp.StatusCode, status, body)
	}
	var eb errorBody
	decode(e.t, body, &eb)
	if eb.ErrorEnum != enum {
		e.t.Fatalf("error_enum = %q, want %q: %s", eb.ErrorEnum, enum, body)
	}
	return eb
}

// isAppErr reports whether err is an *apperr.Error with this status and
// error_enum ("" for 5xx, which carry none on the wire).
func isAppErr(err error, status int, enum string) bool {
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Status() != status {
		return false
	}
	return enum == "" || ae.Enum == enum
}

func decode(t *testing.T, body []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
}

// count is SELECT count(*) of a table, optionally filtered.
func (e *env) count(table, where string, args ...any) int {
	e.t.Helper()
	q := "SELECT count(*) FROM " + table
	if where != "" {
		q += " WHERE " + where
	}
	var n int
	if err := e.db.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// accountID is our id of an imported account.
func (e *env) accountID(bid uuid.UUID, externalID string) uuid.UUID {
	e.t.Helper()
	var id uuid.UUID
	if err := e.db.QueryRowContext(context.Background(),
		"SELECT id FROM acctsync_accounts WHERE business_id = ? AND external_id = ?", bid, externalID).Scan(&id); err != nil {
		e.t.Fatalf("account %s: %v", externalID, err)
	}
	return id
}

// accountJSON is ApiAcctsyncLedgerAccount as the tests read it (numbers
// kept as text, so a float anywhere on the way would show).
type accountJSON struct {
	Type       string `json:"type"`
	ID         string `json:"id"`
	ExternalID string `json:"external_id"`
	Name       string `json:"name"`
	StableName struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	} `json:"stable_name"`
	Normality   string `json:"normality"`
	AccountType struct {
		Value       string `json:"value"`
		DisplayName string `json:"display_name"`
	} `json:"account_type"`
	AccountSubtype struct {
		Value       string `json:"value"`
		DisplayName string `json:"display_name"`
	} `json:"account_subtype"`
	Balance json.Number     `json:"balance"`
	Local   json.RawMessage `json:"local_ledger_account"`
	Kids    []accountJSON   `json:"child_accounts"`
}

func (e *env) getAccount(bid uuid.UUID, id string, token string) (*http.Response, []byte) {
	e.t.Helper()
	return e.do(http.MethodGet, "/v1/businesses/"+bid.String()+"/acctsync/ledger/accounts/"+id, token)
}

func (e *env) readAccount(bid uuid.UUID, id uuid.UUID) accountJSON {
	e.t.Helper()
	resp, body := e.getAccount(bid, id.String(), e.platform(clientA))
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("GET account = %d %s", resp.StatusCode, body)
	}
	var out struct {
		Data accountJSON `json:"data"`
	}
	decode(e.t, body, &out)
	return out.Data
}
