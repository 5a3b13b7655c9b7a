package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// apiClient calls the public API like an integrating platform would.
type apiClient struct {
	base string
	http *http.Client
}

func newAPIClient(base string) *apiClient {
	return &apiClient{base: base, http: &http.Client{Timeout: 15 * time.Second}}
}

// response is one HTTP exchange, kept whole for assertions and messages.
type response struct {
	Method, Path string
	Status       int
	Header       http.Header
	Body         []byte
}

func (r response) String() string {
	body := string(r.Body)
	if len(body) > 600 {
		body = body[:600] + "..."
	}
	return r.Method + " " + r.Path + " -> " + http.StatusText(r.Status) + " " + body
}

// JSON decodes the body into a generic map; a non-JSON body fails t.
func (r response) JSON(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("%s: body is not a JSON object: %v", r, err)
	}
	return v
}

// Data returns the "data" object of a success response.
func (r response) Data(t *testing.T) map[string]any {
	t.Helper()
	data, ok := r.JSON(t)["data"].(map[string]any)
	if !ok {
		t.Fatalf("%s: no data object", r)
	}
	return data
}

// request describes one call; Token is a bearer token, Basic user:password
// credentials, Form an urlencoded body and JSON a JSON body.
type request struct {
	Method string
	Path   string
	Token  string
	Basic  [2]string
	Form   url.Values
	JSON   any
	Header map[string]string // more request headers (Idempotency-Key, ...)
}

func (c *apiClient) do(t *testing.T, req request) response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := c.send(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// send makes one exchange; an error is one of the transport (or an
// unencodable body), never an HTTP status.
func (c *apiClient) send(ctx context.Context, req request) (response, error) {
	var body io.Reader
	contentType := ""
	switch {
	case req.Form != nil:
		body = strings.NewReader(req.Form.Encode())
		contentType = "application/x-www-form-urlencoded"
	case req.JSON != nil:
		b, err := json.Marshal(req.JSON)
		if err != nil {
			return response{}, fmt.Errorf("%s %s: encode body: %w", req.Method, req.Path, err)
		}
		body = bytes.NewReader(b)
		contentType = "application/json"
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, c.base+req.Path, body)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", req.Method, req.Path, err)
	}
	if contentType != "" {
		hr.Header.Set("Content-Type", contentType)
	}
	hr.Header.Set("Accept", "application/json")
	if req.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+req.Token)
	}
	if req.Basic[0] != "" {
		hr.SetBasicAuth(req.Basic[0], req.Basic[1])
	}
	for k, v := range req.Header {
		hr.Header.Set(k, v)
	}
	resp, err := c.http.Do(hr)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", req.Method, req.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: read body: %w", req.Method, req.Path, err)
	}
	return response{Method: req.Method, Path: req.Path, Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// expect calls req and fails t unless the status is want.
func (c *apiClient) expect(t *testing.T, want int, req request) response {
	t.Helper()
	r := c.do(t, req)
	if r.Status != want {
		t.Fatalf("%s: status %d, want %d", r, r.Status, want)
	}
	return r
}

// eventually repeats req until it answers want (services behind the gateway
// take a moment to be seen down or up again), failing t after timeout.
func (c *apiClient) eventually(t *testing.T, want int, timeout time.Duration, req request) response {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		r := c.do(t, req)
		if r.Status == want {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still status %d after %s, want %d", r, r.Status, timeout, want)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// token gets a platform token the way the spec's Authentication section
// shows: HTTP Basic client credentials plus the form fields.
func (c *apiClient) token(t *testing.T, clientID, secret string) string {
	t.Helper()
	r := c.expect(t, http.StatusOK, tokenRequest(clientID, secret))
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
		TokenType   string `json:"token_type"`
	}
	if err := json.Unmarshal(r.Body, &tok); err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	if tok.AccessToken == "" || tok.ExpiresIn != 3600 || tok.TokenType != "Bearer" {
		t.Fatalf("%s: want {access_token, expires_in: 3600, token_type: Bearer}", r)
	}
	return tok.AccessToken
}

func tokenRequest(clientID, secret string) request {
	return request{
		Method: http.MethodPost,
		Path:   "/oauth2/token",
		Basic:  [2]string{clientID, secret},
		Form:   url.Values{"grant_type": {"client_credentials"}, "scope": {"e2e/sandbox"}, "client_id": {clientID}},
	}
}

// assertErrorObject checks the spec's error object: type and description
// always, error_enum for 4xx only.
func assertErrorObject(t *testing.T, r response, wantStatus int, wantType string) {
	t.Helper()
	if r.Status != wantStatus {
		t.Fatalf("%s: status %d, want %d", r, r.Status, wantStatus)
	}
	obj := r.JSON(t)
	if got, _ := obj["type"].(string); got != wantType {
		t.Errorf("%s: type %q, want %q", r, got, wantType)
	}
	if d, _ := obj["description"].(string); d == "" {
		t.Errorf("%s: no description", r)
	}
	enum, hasEnum := obj["error_enum"]
	switch {
	case wantStatus < 500 && (!hasEnum || enum == nil || enum == ""):
		t.Errorf("%s: a 4xx error object needs error_enum", r)
	case wantStatus >= 500 && hasEnum && enum != nil:
		t.Errorf("%s: a 5xx error object must not carry error_enum", r)
	}
}
