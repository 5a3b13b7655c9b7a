// Package internalclient is how one service of the suite calls another
// service's public endpoint on behalf of its own caller: the request
// carries the caller's credentials as they came (the other service
// verifies them again and answers for that caller only), the caller's
// request id and the trace context, under a timeout. The answer is read up
// to a bound and interpreted in one place (DecodeAnswer): a 2xx is decoded
// as JSON, a 4xx refusal becomes this service's error object in the words
// of this service's own request (the other service's field names renamed),
// and no answer, a timeout, a 5xx, an oversized or undecodable answer is a
// 503 naming the other service.
package internalclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"

	"github.com/acctsuite/acct/pkg/apperr"
)

// DefaultMaxAnswer bounds the answer a Client reads when its MaxAnswer is
// zero (32 MiB: 500 tagged entities with 50 tags each fit).
const DefaultMaxAnswer = 32 << 20

// Caller is who asked this service, as its edge verified them.
type Caller struct {
	// Authorization is the caller's Authorization header, forwarded as is.
	Authorization string
	// RequestID is forwarded as X-Request-Id when set.
	RequestID string
}

// Client calls the service Service at BaseURL.
type Client struct {
	// Service names the other service in errors ("transactions").
	Service string
	BaseURL string
	HTTP    *http.Client
	// UnavailableEnum is the error_enum of the 503 when the other service
	// gives no usable answer ("TransactionsUnavailable").
	UnavailableEnum string
	// MaxAnswer bounds the bytes of an answer (0: DefaultMaxAnswer); a
	// longer one is unusable.
	MaxAnswer int64
}

// New is a client of service at baseURL whose calls give up after
// timeout, answering 503 unavailableEnum when it does not answer.
func New(service, baseURL string, timeout time.Duration, unavailableEnum string) *Client {
	return &Client{Service: service, BaseURL: strings.TrimRight(baseURL, "/"), HTTP: &http.Client{Timeout: timeout},
		UnavailableEnum: unavailableEnum}
}

// Call is one request to the other service.
type Call struct {
	// Method is the HTTP method (POST when empty).
	Method string
	// Path follows the base URL: "/v1/businesses/{id}/bank-transactions/tags".
	Path string
	// Body is sent as JSON; nil sends none.
	Body any
	// Action says what the call does, for the errors: "apply the tags"
	// gives "the transactions service did not apply the tags: try again".
	Action string
	// Rename turns the other service's words in a refusal into ours.
	Rename Rename
}

// Rename maps the names of the other service's request to the names of
// the request this service answers, in a refusal relayed to its caller.
type Rename struct {
	// Fields renames request fields: where meta.field or a key of
	// meta.fields starts with one ("transaction_ids[0]"), and where the
	// description names one ("transaction_ids" → "entity_ids").
	Fields map[string]string
	// MetaKeys renames keys of meta ("invoice_id" → "entity_id").
	MetaKeys map[string]string
}

// Do sends call for caller and interprets the answer (DecodeAnswer): nil
// with a 2xx answer decoded into answer (unless answer is nil), the
// refusal of a 4xx as an *apperr.Error of its status, and a 503
// (Unavailable) when no usable answer came.
func (c *Client) Do(ctx context.Context, caller Caller, call Call, answer any) error {
	method := call.Method
	if method == "" {
		method = http.MethodPost
	}
	var body io.Reader
	if call.Body != nil {
		raw, err := json.Marshal(call.Body)
		if err != nil {
			return fmt.Errorf("encode the request to the %s service: %w", c.Service, err)
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+call.Path, body)
	if err != nil {
		return fmt.Errorf("request to the %s service: %w", c.Service, err)
	}
	if call.Body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", caller.Authorization)
	if caller.RequestID != "" {
		req.Header.Set("X-Request-Id", caller.RequestID)
	}
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return c.Unavailable(call.Action, err)
	}
	defer resp.Body.Close()
	limit := c.maxAnswer()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return c.Unavailable(call.Action, err)
	}
	if int64(len(raw)) > limit {
		return c.Unavailable(call.Action, fmt.Errorf("answer over %d bytes", limit))
	}
	return c.DecodeAnswer(call, resp.StatusCode, raw, answer)
}

func (c *Client) maxAnswer() int64 {
	if c.MaxAnswer > 0 {
		return c.MaxAnswer
	}
	return DefaultMaxAnswer
}

// DecodeAnswer interprets the other service's answer to call, of status
// and body raw: a 2xx is decoded into answer (JSON; an empty body or a
// nil answer decodes nothing), a 4xx is its refusal (ParseRefusal),
// anything else, or a 2xx that does not decode, is 503 Unavailable.
func (c *Client) DecodeAnswer(call Call, status int, raw []byte, answer any) error {
	switch {
	case status >= 200 && status < 300:
		if answer == nil || len(bytes.TrimSpace(raw)) == 0 {
			return nil
		}
		if err := json.Unmarshal(raw, answer); err != nil {
			return c.Unavailable(call.Action, fmt.Errorf("decode answer: %w", err))
		}
		return nil
	case status >= 400 && status < 500:
		return c.ParseRefusal(call, status, raw)
	}
	return c.Unavailable(call.Action, fmt.Errorf("%s service answered %d", c.Service, status))
}

// Unavailable is the 503 of a call that got no usable answer (cause is
// kept for the logs): "the <service> service did not <action>: try
// again", with the client's UnavailableEnum.
func (c *Client) Unavailable(action string, cause error) *apperr.Error {
	return apperr.Wrap(apperr.Unavailable, cause, fmt.Sprintf("the %s service did not %s: try again", c.Service, action)).
		WithEnum(c.UnavailableEnum)
}

// ParseRefusal is the other service's 4xx answer (status, body raw: its
// error object, or anything) as this service's error: the category
// follows the status (a 400 to a call with a body is InvalidPayload: that
// body was built from our caller's), the enum, description and meta are
// kept with call.Rename applied, and a refusal without a description says
// which service refused.
func (c *Client) ParseRefusal(call Call, status int, raw []byte) *apperr.Error {
	var body apperr.Body
	_ = json.Unmarshal(raw, &body) // what does not decode stays empty
	e := &apperr.Error{Type: apperr.TypeForStatus(status), Enum: body.ErrorEnum, Message: call.Rename.text(body.Description)}
	if e.Type == apperr.InvalidParameters && call.Body != nil {
		e.Type = apperr.InvalidPayload
	}
	if e.Message == "" {
		e.Message = fmt.Sprintf("the %s service refused to %s (%d)", c.Service, call.Action, status)
	}
	for k, v := range body.Meta {
		if to, ok := call.Rename.MetaKeys[k]; ok {
			k = to
		}
		e = e.WithMeta(k, call.Rename.meta(k, v))
	}
	return e
}

// meta is the value v of meta key with the fields renamed.
func (r Rename) meta(key string, v any) any {
	switch key {
	case "field":
		if s, ok := v.(string); ok {
			return r.field(s)
		}
	case "fields":
		if m, ok := v.(map[string]any); ok {
			out := make(map[string]any, len(m))
			for f, reason := range m {
				out[r.field(f)] = reason
			}
			return out
		}
	}
	return v
}

// field is f with the field it starts with renamed.
func (r Rename) field(f string) string {
	for _, from := range r.fromLongest() {
		if rest, ok := strings.CutPrefix(f, from); ok {
			return r.Fields[from] + rest
		}
	}
	return f
}

// text is s with every field name renamed.
func (r Rename) text(s string) string {
	if len(r.Fields) == 0 {
		return s
	}
	var pairs []string
	for _, from := range r.fromLongest() {
		pairs = append(pairs, from, r.Fields[from])
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// fromLongest are the (non-empty) fields renamed, longest first, so that
// a name is renamed rather than another name it starts with.
func (r Rename) fromLongest() []string {
	out := make([]string, 0, len(r.Fields))
	for from := range r.Fields {
		if from != "" {
			out = append(out, from)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return out
}
