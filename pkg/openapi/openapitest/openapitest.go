// Package openapitest checks real HTTP exchanges against a service's OpenAPI
// document in tests: the route must be documented, the request must match
// its parameters and body schema, and the response status, headers and body
// must match a documented response.
package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/openapi"
)

// Pages (text/html answers, such as an invoice's) are documented as
// strings: read them as such (kin-openapi has no decoder for the type).
func init() { openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.FileBodyDecoder) }

// Validator validates exchanges against one document.
type Validator struct {
	doc    *openapi3.T
	router routers.Router
}

// New loads doc (YAML or JSON), failing t when it is invalid. Servers are
// ignored so that test requests to any host match the documented paths.
func New(t testing.TB, doc []byte) *Validator {
	t.Helper()
	v, err := NewValidator(doc)
	if err != nil {
		t.Fatalf("openapitest: %v", err)
	}
	return v
}

// NewValidator is New returning an error instead of failing a test.
func NewValidator(doc []byte) (*Validator, error) {
	d, err := openapi.Load(doc)
	if err != nil {
		return nil, err
	}
	d.Servers = nil
	r, err := gorillamux.NewRouter(d)
	if err != nil {
		return nil, fmt.Errorf("openapitest: router: %w", err)
	}
	return &Validator{doc: d, router: r}, nil
}

// Do sends req through app.Test, validates the exchange (failing t on any
// mismatch) and returns the response with its body read.
func (v *Validator) Do(t testing.TB, app *fiber.App, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	var reqBody []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			t.Fatalf("openapitest: read request body: %v", err)
		}
		reqBody = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatalf("openapitest: %s %s: %v", req.Method, req.URL, err)
	}
	respBody, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatalf("openapitest: read response body: %v", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	v.Check(t, req, reqBody, resp, respBody)
	return resp, respBody
}

// Check validates an exchange that already happened, failing t on mismatch.
func (v *Validator) Check(t testing.TB, req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) {
	t.Helper()
	if err := v.Validate(req, reqBody, resp, respBody); err != nil {
		t.Errorf("openapitest: %s %s -> %d: %v", req.Method, req.URL.Path, resp.StatusCode, err)
	}
}

// Validate returns why the exchange does not match the document, or nil.
func (v *Validator) Validate(req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) error {
	ctx := context.Background()
	// Route lookup only reads the method and URL; a clone keeps the
	// caller's request untouched when the body is replayed.
	r := req.Clone(ctx)
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, pathParams, err := v.router.FindRoute(r)
	if err != nil {
		return fmt.Errorf("undocumented route: %w", err)
	}
	in := &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: pathParams,
		Route:      route,
		Options: &openapi3filter.Options{
			// Authentication is tested by the services; here only shapes.
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			MultiError:         true,
		},
	}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		return fmt.Errorf("request does not match the document: %w", err)
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(respBody)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			MultiError:            true,
		},
	}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		return fmt.Errorf("response does not match the document: %w", err)
	}
	return nil
}

// Request builds a test request for app.Test: body nil sends none, a string
// is sent as is and any other value is encoded as JSON (both with a JSON
// content type); token, when set, is sent as a bearer token.
func Request(method, path, token string, body any) *http.Request {
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			panic(fmt.Sprintf("openapitest: encode body: %v", err)) // a test's own value
		}
		r = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, r)
	if body != nil {
		req.Header.Set("Content-Type", fiber.MIMEApplicationJSON)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}

// Expect sends a request the document describes, validates the exchange,
// fails t unless the status is want, and returns the decoded JSON body.
func (v *Validator) Expect(t testing.TB, app *fiber.App, req *http.Request, want int) map[string]any {
	t.Helper()
	resp, body := v.Do(t, app, req)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d: %s", req.Method, req.URL, resp.StatusCode, want, body)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%s %s: body %q: %v", req.Method, req.URL, body, err)
	}
	return m
}

// ExpectError sends a request the document deliberately does not allow (a
// bad UUID, an unknown enum value, a malformed body): the request half
// cannot validate, so only the answer is checked, against the document's
// Error schema. It fails t unless the status is want and returns the error
// object.
func (v *Validator) ExpectError(t testing.TB, app *fiber.App, req *http.Request, want int) map[string]any {
	t.Helper()
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d: %s", req.Method, req.URL, resp.StatusCode, want, body)
	}
	ref := v.doc.Components.Schemas["Error"]
	if ref == nil || ref.Value == nil {
		t.Fatal("openapitest: the document has no Error schema")
	}
	var obj any
	if err := json.Unmarshal(body, &obj); err != nil {
		t.Fatalf("%s %s: body %q: %v", req.Method, req.URL, body, err)
	}
	if err := ref.Value.VisitJSON(obj); err != nil {
		t.Fatalf("%s %s: error body %s does not match the Error schema: %v", req.Method, req.URL, body, err)
	}
	m, _ := obj.(map[string]any)
	return m
}
