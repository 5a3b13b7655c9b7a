// Package servicetest builds a service under test from its own kit
// Definition: a fresh database and the in-process broker from pkg/testkit,
// a loopback port, a JWKS endpoint with a signing key to mint the tokens it
// accepts, and a graceful stop at the end of the test. It is servicekit's
// counterpart of net/http/httptest (pkg/testkit cannot hold it: the kit
// imports the packages whose own tests use testkit).
package servicetest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/businessdir"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/telemetry"
	"github.com/acctsuite/acct/pkg/testkit"
)

// Service is a service under test: built from its own Definition by the
// kit, on a fresh database, the in-process broker and a loopback port, and
// running (relay, consumers, background work) until the test ends.
type Service struct {
	// URL is the base URL the service listens on ("http://127.0.0.1:port").
	URL string
	// Kit is the running service (its DB, App, Relay...).
	Kit *servicekit.Kit
	// Env is the environment the definition was built from.
	Env map[string]string
	// Broker is the broker the service talks to.
	Broker *testkit.BrokerHandle
	// Tokens mints bearer tokens the service accepts (its JWKS_URL points at
	// them).
	Tokens *Tokens
}

// ServiceOptions adjust StartService.
type ServiceOptions struct {
	// Env adds or overrides environment variables.
	Env map[string]string
	// Broker is shared with other services of the test (default: a new one).
	Broker *testkit.BrokerHandle
	// Tokens is shared with other services of the test (default: new ones).
	Tokens *Tokens
	// Logger receives the service's log (default: discarded, or stderr
	// with TESTKIT_LOG set).
	Logger *slog.Logger
	// Unflushed accepts a stop that leaves events in the outbox
	// (servicekit.ErrUnflushed): the broker refused them on purpose.
	Unflushed bool
}

// StartService builds a service from the environment testkit prepares
// (DATABASE_URL of a fresh database, KAFKA_BROKERS, HTTP_ADDR on loopback,
// PAGE_CURSOR_SECRET, JWKS_URL of Tokens, LOG_LEVEL) plus opts.Env, serves it
// and stops it gracefully at cleanup, failing the test if the stop fails.
// build is usually the service's own config loader followed by its
// definition, e.g.
//
//	func(env map[string]string) (servicekit.Definition, error) {
//		cfg, err := config.LoadFrom(env)
//		return service.Definition(cfg), err
//	}
//
// Set TESTKIT_LOG=1 to see the service's logs.
func StartService(t testing.TB, build func(env map[string]string) (servicekit.Definition, error), opts ServiceOptions) *Service {
	t.Helper()
	s := &Service{Broker: opts.Broker, Tokens: opts.Tokens}
	if s.Broker == nil {
		s.Broker = testkit.Broker(t)
	}
	if s.Tokens == nil {
		s.Tokens = NewTokens(t)
	}
	s.Env = map[string]string{
		"DATABASE_URL":       testkit.NewDatabase(t),
		"KAFKA_BROKERS":      s.Broker.Addrs()[0],
		"HTTP_ADDR":          "127.0.0.1:0",
		"PAGE_CURSOR_SECRET": "testkit-cursor-secret",
		"JWKS_URL":           s.Tokens.JWKSURL,
		"LOG_LEVEL":          "warn",
		"SHUTDOWN_TIMEOUT":   "5s",
	}
	for k, v := range opts.Env {
		s.Env[k] = v
	}
	def, err := build(s.Env)
	if err != nil {
		t.Fatalf("servicetest: build service: %v", err)
	}
	s.Kit, s.URL = runKit(t, def, opts.Logger, opts.Unflushed)
	return s
}

// RunKit builds def with the kit, serves it on a loopback port until the
// test ends (then stops it gracefully, failing the test if the stop fails)
// and returns it with its base URL once /healthz answers. StartService
// uses it; a test that builds its configuration by hand calls it directly.
func RunKit(t testing.TB, def servicekit.Definition) (*servicekit.Kit, string) {
	t.Helper()
	return runKit(t, def, nil, false)
}

func runKit(t testing.TB, def servicekit.Definition, logger *slog.Logger, unflushed bool) (*servicekit.Kit, string) {
	t.Helper()
	switch {
	case logger != nil:
	case os.Getenv("TESTKIT_LOG") != "":
		logger = telemetry.NewLogger(os.Stderr, def.Name, "debug")
	default:
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	k, err := servicekit.New(ctx, def, logger)
	if err != nil {
		cancel()
		t.Fatalf("servicetest: start %s: %v", def.Name, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		k.Close()
		t.Fatalf("servicetest: listen: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- k.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !(unflushed && errors.Is(err, servicekit.ErrUnflushed)) {
				t.Errorf("servicetest: %s stopped with: %v", def.Name, err)
			}
		case <-time.After(60 * time.Second):
			t.Errorf("servicetest: %s did not stop within 60s", def.Name)
		}
		k.Close()
	})
	url := "http://" + ln.Addr().String()
	waitServing(t, url+"/healthz")
	return k, url
}

func waitServing(t testing.TB, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("servicetest: %s did not answer: %v", url, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SeedBusiness records a business owned by clientID in the service's
// business directory exactly as the acct.business.v1 consumer would (same
// handler, one transaction) and returns its id. edit may adjust the event
// payload (country, state...).
func (s *Service) SeedBusiness(t testing.TB, clientID string, edit ...func(*events.Business)) uuid.UUID {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	b := events.Business{
		ID: uuid.Must(uuid.NewV7()), ClientID: clientID, LegalName: "Test Business " + clientID,
		Country: "US", DefaultReportingBasis: "ACCRUAL", CreatedAt: now, UpdatedAt: now,
	}
	for _, f := range edit {
		f(&b)
	}
	e, err := events.New(events.TopicBusiness, events.TypeBusinessCreated, "testkit", b.ID, b)
	if err != nil {
		t.Fatalf("servicetest: business event: %v", err)
	}
	err = s.Kit.DB().RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		return businessdir.Handle(ctx, tx, e)
	})
	if err != nil {
		t.Fatalf("servicetest: seed business: %v", err)
	}
	return b.ID
}

// Tokens mints access tokens signed by a key published on a test JWKS
// endpoint, like auth-tokens' tokens.
type Tokens struct {
	JWKSURL string
	signer  *authn.Signer
}

// NewTokens starts a JWKS endpoint for a fresh signing key (stopped at
// cleanup).
func NewTokens(t testing.TB) *Tokens {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatalf("servicetest: key: %v", err)
	}
	kid := "testkit-" + uuid.NewString()[:8]
	signer, err := authn.NewSigner(authn.DefaultIssuer, kid, priv)
	if err != nil {
		t.Fatalf("servicetest: signer: %v", err)
	}
	doc, err := json.Marshal(authn.JWKS{Keys: []authn.JWK{authn.PublicJWK(kid, pub)}})
	if err != nil {
		t.Fatalf("servicetest: jwks: %v", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(doc)
	}))
	t.Cleanup(srv.Close)
	return &Tokens{JWKSURL: srv.URL + "/.well-known/jwks.json", signer: signer}
}

// Platform is a platform token of clientID.
func (tk *Tokens) Platform(t testing.TB, clientID string) string {
	t.Helper()
	return tk.issue(t, authn.Identity{ClientID: clientID, ClientName: clientID, Scope: authn.ScopePlatform})
}

// Business is a business token of clientID for business bid.
func (tk *Tokens) Business(t testing.TB, clientID string, bid uuid.UUID) string {
	t.Helper()
	return tk.issue(t, authn.Identity{ClientID: clientID, ClientName: clientID, Scope: authn.ScopeBusiness, BusinessID: bid})
}

func (tk *Tokens) issue(t testing.TB, id authn.Identity) string {
	t.Helper()
	tok, _, err := tk.signer.Issue(id, time.Hour)
	if err != nil {
		t.Fatalf("servicetest: issue token: %v", err)
	}
	return tok
}
