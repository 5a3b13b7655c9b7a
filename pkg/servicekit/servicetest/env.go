package servicetest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/servicekit"
)

// Env is one service started for a test, with what every service test
// uses: its use cases (S, what the service's New returned), tokens,
// businesses seeded as acct.business.v1 would, and requests validated
// against the service's OpenAPI document. A service's tests embed it in
// their own env type to add their helpers.
type Env[S any] struct {
	T    *testing.T
	Svc  *Service
	S    *S
	HTTP *fiber.App
	V    *openapitest.Validator
	DB   *bun.DB
}

// Start starts the service whose configuration load reads and whose
// newService builds it (the service package's LoadFrom and New), with its
// OpenAPI document doc.
func Start[C, S any](t *testing.T, load func(env map[string]string) (C, error), newService func(C) (*S, servicekit.Definition),
	doc []byte, opts ServiceOptions) *Env[S] {
	t.Helper()
	var s *S
	svc := StartService(t, Build(load, newService, &s), opts)
	return &Env[S]{T: t, Svc: svc, S: s, HTTP: svc.Kit.App(), V: openapitest.New(t, doc), DB: svc.Kit.DB()}
}

// Build is the build function of StartService for a service's load and
// newService, keeping the service newService made in *s.
func Build[C, S any](load func(env map[string]string) (C, error), newService func(C) (*S, servicekit.Definition),
	s **S) func(env map[string]string) (servicekit.Definition, error) {
	return func(env map[string]string) (servicekit.Definition, error) {
		cfg, err := load(env)
		if err != nil {
			return servicekit.Definition{}, err
		}
		var def servicekit.Definition
		*s, def = newService(cfg)
		return def, nil
	}
}

// With is e reporting to t (a subtest).
func (e *Env[S]) With(t *testing.T) *Env[S] {
	c := *e
	c.T = t
	return &c
}

// Business records a business of clientID as acct.business.v1 would and
// returns its id.
func (e *Env[S]) Business(clientID string) uuid.UUID {
	e.T.Helper()
	return e.Svc.SeedBusiness(e.T, clientID)
}

// Token is a platform token of clientID.
func (e *Env[S]) Token(clientID string) string { return e.Svc.Tokens.Platform(e.T, clientID) }

// Do sends a request the document describes, validates the exchange
// against it, checks the status and returns the decoded body.
func (e *Env[S]) Do(rq *http.Request, wantStatus int) map[string]any {
	e.T.Helper()
	return e.V.Expect(e.T, e.HTTP, rq, wantStatus)
}

// DoInvalid sends a request the document deliberately does not allow (bad
// UUID, bad enum, malformed body...): only the answer is validated,
// against the Error schema, with its status and (when not "") its
// error_enum. It returns the error object.
func (e *Env[S]) DoInvalid(rq *http.Request, wantStatus int, wantEnum string) map[string]any {
	e.T.Helper()
	m := e.V.ExpectError(e.T, e.HTTP, rq, wantStatus)
	if wantEnum != "" && m["error_enum"] != wantEnum {
		e.T.Fatalf("%s %s: error_enum = %v, want %s (%v)", rq.Method, rq.URL, m["error_enum"], wantEnum, m)
	}
	return m
}

// NoContent sends a request answered 204 (validated against the document).
func (e *Env[S]) NoContent(rq *http.Request) {
	e.T.Helper()
	resp, body := e.V.Do(e.T, e.HTTP, rq)
	if resp.StatusCode != http.StatusNoContent {
		e.T.Fatalf("%s %s: status %d, want 204: %s", rq.Method, rq.URL, resp.StatusCode, body)
	}
}

// Rows counts the rows of each table, in order (what a refused request
// must leave unchanged).
func (e *Env[S]) Rows(tables ...string) []int {
	e.T.Helper()
	out := make([]int, len(tables))
	for i, table := range tables {
		if err := e.DB.NewRaw("SELECT count(*) FROM ?", bun.Ident(table)).Scan(context.Background(), &out[i]); err != nil {
			e.T.Fatalf("count %s: %v", table, err)
		}
	}
	return out
}

// Req builds a request; body may be a string (sent as is) or a value
// (JSON).
func Req(method, path, token string, body any) *http.Request {
	return openapitest.Request(method, path, token, body)
}

// Data is the `data` object of an answer.
func Data(m map[string]any) map[string]any { return m["data"].(map[string]any) }

// Base is the path of business bid.
func Base(bid uuid.UUID) string { return "/v1/businesses/" + bid.String() }

// FieldsOf is an error object's meta.fields.
func FieldsOf(m map[string]any) map[string]any {
	meta, _ := m["meta"].(map[string]any)
	fields, _ := meta["fields"].(map[string]any)
	return fields
}

// Route is one request of a tenancy test.
type Route struct {
	Method, Path string
	Body         any
}

// Strangers are the tokens that must not reach a business of client:
// another client's platform token (other), a business token of another
// business of client (mine), the other client's business token (theirs,
// a business of other), and a token of a business nobody has.
func (e *Env[S]) Strangers(client, other string, mine, theirs uuid.UUID) map[string]string {
	e.T.Helper()
	return map[string]string{
		"another client's platform token":   e.Token(other),
		"a business token of another one":   e.Svc.Tokens.Business(e.T, client, mine),
		"the other client's business token": e.Svc.Tokens.Business(e.T, other, theirs),
		"a token of an unknown business":    e.Svc.Tokens.Business(e.T, client, uuid.New()),
	}
}

// RefuseStrangers sends every route with each token of strangers, each in
// a subtest named after the token and the route (its path less prefix):
// every answer must be the 404 BusinessNotFound error object, which tells
// nothing of what the business has.
func (e *Env[S]) RefuseStrangers(strangers map[string]string, prefix string, routes []Route) {
	e.T.Helper()
	for who, tok := range strangers {
		for _, r := range routes {
			e.T.Run(who+" "+r.Method+" "+strings.TrimPrefix(r.Path, prefix), func(t *testing.T) {
				m := e.With(t).DoInvalid(Req(r.Method, r.Path, tok, r.Body), http.StatusNotFound, "BusinessNotFound")
				if m["type"] != "NotFound" {
					t.Fatalf("error = %v", m)
				}
			})
		}
	}
}
