package contractfuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// checker validates every answer against the merged document and groups
// what fails by operation and kind, keeping one reproducer per group.
type checker struct {
	errSchema *openapi3.Schema
	mu        sync.Mutex
	groups    map[string]*group
	statuses  map[int]int
	reached   map[string]int    // operation → 2xx answers (how deep the run got)
	refusal   map[string]string // operation → the last 4xx answer to a valid request
	total     int
}

type group struct {
	op, kind string
	count    int
	repro    string
}

func newChecker(doc *openapi3.T) (*checker, error) {
	ref := doc.Components.Schemas["Error"]
	if ref == nil || ref.Value == nil {
		return nil, fmt.Errorf("the merged document has no Error schema")
	}
	return &checker{errSchema: ref.Value, groups: map[string]*group{}, statuses: map[int]int{}, reached: map[string]int{}, refusal: map[string]string{}}, nil
}

func init() {
	// Spreadsheet exports are documented as binary strings: their bodies are
	// validated as such (kin-openapi has no decoder for the media type).
	openapi3filter.RegisterBodyDecoder("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", openapi3filter.FileBodyDecoder)
	openapi3filter.RegisterBodyDecoder("application/pdf", openapi3filter.FileBodyDecoder)
	// An invoice's page (GET /invoices/{id}/html) is documented as a string.
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.FileBodyDecoder)
}

// check returns the failures of one exchange as (kind, detail) pairs.
func (c *checker) check(fr *fuzzReq, req *http.Request, resp *http.Response, body []byte) [][2]string {
	var out [][2]string
	status := resp.StatusCode
	if status >= 500 {
		out = append(out, [2]string{fmt.Sprintf("5xx (%d)", status), ""})
	}
	in := &openapi3filter.RequestValidationInput{
		Request: req,
		Route:   fr.op.route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	}
	vin := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), vin); err != nil {
		msg := err.Error()
		kind := "response body does not match the schema"
		switch {
		case strings.Contains(msg, "status is not supported"):
			kind = fmt.Sprintf("undocumented status %d", status)
		case strings.Contains(msg, "Content-Type"):
			kind = "undocumented content type " + resp.Header.Get("Content-Type")
		case strings.Contains(msg, "response header"):
			kind = "response header does not match"
		}
		out = append(out, [2]string{kind, msg})
	}
	if status >= 400 && !isOAuthError(fr, body) {
		var obj any
		if err := json.Unmarshal(body, &obj); err != nil {
			out = append(out, [2]string{"error without the error object", "not JSON: " + err.Error()})
		} else if err := c.errSchema.VisitJSON(obj); err != nil {
			out = append(out, [2]string{"error without the error object", err.Error()})
		}
	}
	return out
}

// isOAuthError: the token endpoint answers RFC 6749 errors
// ({"error": ...}), which its document declares (OAuthError).
func isOAuthError(fr *fuzzReq, body []byte) bool {
	if !fr.op.basic {
		return false
	}
	var m map[string]any
	return json.Unmarshal(body, &m) == nil && m["error"] != nil
}

func (c *checker) record(fr *fuzzReq, status int, fails [][2]string, reqBody []byte, respBody []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total++
	c.statuses[status]++
	if status >= 200 && status < 300 {
		c.reached[fr.op.key()]++
	}
	if status >= 400 && status < 500 && (fr.label == "" || fr.label == "warm-up") {
		c.refusal[fr.op.key()] = fmt.Sprintf("%d %s (body %s)", status, clip(string(respBody), 300), clip(string(reqBody), 300))
	}
	for _, f := range fails {
		k := fr.op.key() + "\x00" + f[0]
		g := c.groups[k]
		if g == nil {
			g = &group{op: fr.op.key(), kind: f[0], repro: reproducer(fr, reqBody, status, respBody, f[1])}
			c.groups[k] = g
		}
		g.count++
	}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}

func reproducer(fr *fuzzReq, reqBody []byte, status int, respBody []byte, detail string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "    %s %s\n", fr.method, clip(fr.target, 300))
	fmt.Fprintf(&b, "    auth: %s", fr.auth)
	if ct := fr.header["Content-Type"]; ct != "" {
		fmt.Fprintf(&b, "; Content-Type: %s", clip(ct, 80))
	}
	if fr.label != "" {
		fmt.Fprintf(&b, "; generated: %s", fr.label)
	}
	b.WriteString("\n")
	if len(reqBody) > 0 {
		fmt.Fprintf(&b, "    body: %s\n", clip(string(reqBody), 600))
	}
	fmt.Fprintf(&b, "    → %d %s\n", status, clip(string(respBody), 400))
	if detail != "" {
		fmt.Fprintf(&b, "    why: %s\n", clip(strings.ReplaceAll(detail, "\n", " | "), 600))
	}
	return b.String()
}

// report renders the failures grouped by operation and kind.
func (c *checker) report() (string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, 0, len(c.groups))
	for k := range c.groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	n := 0
	for _, k := range keys {
		g := c.groups[k]
		n += g.count
		fmt.Fprintf(&b, "\n%s — %s (%d×)\n%s", g.op, g.kind, g.count, g.repro)
	}
	return b.String(), n
}
