package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// api is one platform client talking to the gateway: it holds the client's
// bearer token and fetches a new one when the old one is refused.
type api struct {
	base           string
	hc             *http.Client
	clientID       string
	secret         string
	mu             sync.Mutex
	token          string
	tokenFetchedAt time.Time
}

func newAPI(base, id, secret string) *api {
	return &api{base: base, clientID: id, secret: secret, hc: &http.Client{Timeout: 60 * time.Second}}
}

// reply is one answer.
type reply struct {
	status int
	body   []byte
	json   map[string]any
}

func (r reply) data() map[string]any {
	d, _ := r.json["data"].(map[string]any)
	return d
}

func (r reply) errorEnum() string {
	s, _ := r.json["error_enum"].(string)
	return s
}

func (a *api) bearer(ctx context.Context, renew bool) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token != "" && !renew && time.Since(a.tokenFetchedAt) < 30*time.Minute {
		return a.token, nil
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {a.clientID}, "scope": {"x"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/oauth2/token", strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(a.clientID, a.secret)
	resp, err := a.hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("token: %d %s", resp.StatusCode, b)
	}
	var t struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(b, &t); err != nil || t.AccessToken == "" {
		return "", fmt.Errorf("token answer %s", b)
	}
	a.token, a.tokenFetchedAt = t.AccessToken, time.Now()
	return a.token, nil
}

// do sends one request (no retry but one token renewal on 401).
func (a *api) do(ctx context.Context, method, path, contentType string, body []byte, idemKey string) (reply, error) {
	for attempt := 0; ; attempt++ {
		tok, err := a.bearer(ctx, attempt > 0)
		if err != nil {
			return reply{}, err
		}
		req, err := http.NewRequestWithContext(ctx, method, a.base+path, bytes.NewReader(body))
		if err != nil {
			return reply{}, err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if idemKey != "" {
			req.Header.Set("Idempotency-Key", idemKey)
		}
		resp, err := a.hc.Do(req)
		if err != nil {
			return reply{}, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return reply{}, err
		}
		r := reply{status: resp.StatusCode, body: b}
		_ = json.Unmarshal(b, &r.json)
		if r.status == http.StatusUnauthorized && attempt == 0 {
			continue
		}
		return r, nil
	}
}

// errUnknownOutcome: the write was neither acknowledged nor refused
// within the bound (the service kept failing or timing out).
var errUnknownOutcome = errors.New("unknown outcome")

// retryable is an answer worth sending again with the same
// Idempotency-Key: the suite is (partly) down or the first attempt is
// still reserved by a crashed process.
func retryable(r reply) bool {
	switch {
	case r.status >= 500, r.status == http.StatusTooManyRequests, r.status == http.StatusRequestTimeout:
		return true
	case r.status == http.StatusConflict && r.errorEnum() == "IdempotencyKeyInProgress":
		return true
	// Anything else (a 4xx) is the suite's final answer: the driver only
	// writes to businesses every service has seen, so it is recorded as a
	// refused write, a violation.
	default:
		return false
	}
}

// write sends a creating or updating request until the suite answers
// something other than a failure, for at most bound; every attempt carries
// the same Idempotency-Key (when key is not empty) and the same body. It
// returns errUnknownOutcome when the bound passed, with the number of
// attempts.
func (a *api) write(ctx context.Context, method, path, contentType string, body []byte, key string, bound time.Duration) (reply, int, error) {
	deadline := time.Now().Add(bound)
	backoff := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		r, err := a.do(ctx, method, path, contentType, body, key)
		if err == nil && !retryable(r) {
			return r, attempt, nil
		}
		if ctx.Err() != nil {
			return r, attempt, ctx.Err()
		}
		if time.Now().After(deadline) {
			if err != nil {
				return r, attempt, fmt.Errorf("%w: %v", errUnknownOutcome, err)
			}
			return r, attempt, fmt.Errorf("%w: last answer %d %s", errUnknownOutcome, r.status, truncate(r.body))
		}
		select {
		case <-ctx.Done():
			return r, attempt, ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 2*time.Second)
	}
}

// read is a GET (or a reading POST) retried like write: reads during a
// fault fail like writes do.
func (a *api) read(ctx context.Context, method, path string, body any, bound time.Duration) (reply, error) {
	var b []byte
	ct := ""
	if body != nil {
		b, _ = json.Marshal(body)
		ct = "application/json"
	}
	r, _, err := a.write(ctx, method, path, ct, b, "", bound)
	return r, err
}

func truncate(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}
