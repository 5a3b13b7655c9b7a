package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// verifyWebhook checks a delivery the way a platform would, from the
// Standard Webhooks specification rather than the suite's own package:
// HMAC-SHA256 keyed with the base64 part of secret after "whsec_", over
// "<webhook-id>.<webhook-timestamp>.<raw body>", base64, one of the
// space-separated "v1,<signature>" of webhook-signature; the timestamp
// within 5 minutes of now.
func verifyWebhook(secret string, h http.Header, body []byte, now time.Time) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return errors.New("missing webhook-id, webhook-timestamp or webhook-signature")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("webhook-timestamp %q: %w", ts, err)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return fmt.Errorf("webhook-timestamp %s is %s away", ts, d)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return fmt.Errorf("secret: %w", err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, s := range strings.Fields(sigs) {
		if v, sig, ok := strings.Cut(s, ","); ok && v == "v1" && hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return errors.New("no signature matches")
}

// The verifier itself, on the specification's test vector (the one
// docs/webhooks.md verifies in a shell).
func TestVerifyWebhookSignatureVector(t *testing.T) {
	h := http.Header{}
	h.Set("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek")
	h.Set("webhook-timestamp", "1614265330")
	h.Set("webhook-signature", "v1,bm9ldHUjKzFob2VudXRob2VodWUzMjRvdWVvdW9ldQo= v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	secret, body, at := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", []byte(`{"test": 2432232314}`), time.Unix(1614265330, 0)
	if err := verifyWebhook(secret, h, body, at); err != nil {
		t.Fatalf("the specification's vector: %v", err)
	}
	if verifyWebhook(secret, h, []byte(`{"test": 2432232315}`), at) == nil {
		t.Fatal("a tampered body verified")
	}
	if verifyWebhook("whsec_"+base64.StdEncoding.EncodeToString([]byte("another key, 32 bytes long......")), h, body, at) == nil {
		t.Fatal("another secret verified")
	}
	if verifyWebhook(secret, h, body, at.Add(6*time.Minute)) == nil {
		t.Fatal("a stale timestamp verified")
	}
}

// hookReceiver is a platform's webhook endpoint in the test process,
// listening on every interface so that the webhooks container reaches it
// through Docker's host gateway.
type hookReceiver struct {
	port     int
	mu       sync.Mutex
	secret   string
	events   chan hookEvent
	rejected []string
}

type hookEvent struct {
	header http.Header
	body   []byte
	event  struct {
		ID                 string `json:"id"`
		Type               string `json:"type"`
		BusinessID         string `json:"business_id"`
		BusinessExternalID string `json:"business_external_id"`
		CreatedAt          string `json:"created_at"`
		Data               struct {
			EntityID         string  `json:"entity_id"`
			EntityExternalID *string `json:"entity_external_id"`
		} `json:"data"`
	}
}

func startHookReceiver(t *testing.T) *hookReceiver {
	t.Helper()
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	rc := &hookReceiver{port: ln.Addr().(*net.TCPAddr).Port, events: make(chan hookEvent, 1024)}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		secret := rc.secret
		rc.mu.Unlock()
		if err := verifyWebhook(secret, r.Header, body, time.Now()); err != nil {
			rc.mu.Lock()
			rc.rejected = append(rc.rejected, fmt.Sprintf("%s: %v", r.Header.Get("webhook-id"), err))
			rc.mu.Unlock()
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		ev := hookEvent{header: r.Header.Clone(), body: body}
		if err := json.Unmarshal(body, &ev.event); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		select {
		case rc.events <- ev:
		default:
		}
		w.WriteHeader(http.StatusNoContent)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return rc
}

func (rc *hookReceiver) setSecret(s string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.secret = s
}

// webhooksScenario: a platform subscribes an endpoint (a receiver on this
// machine) to its new business's Customer.created, creates a customer,
// and the receiver gets the event, signed with the endpoint's secret,
// naming the customer and the business with its external id.
func webhooksScenario(t *testing.T, api *apiClient, stack *Stack, platform string) {
	if stack.ReceiverHost == "" {
		t.Skip("E2E_BASE_URL points at a deployed stack and E2E_RECEIVER_HOST does not say how it reaches a receiver on this machine")
	}
	rc := startHookReceiver(t)
	body := newBusiness(t, "E2E Hooks LLC")
	biz := createBusiness(t, api, platform, body)
	ext := body["external_id"].(string)

	// The webhooks service learns the business from business.created;
	// until then it is not the platform's to subscribe to (400).
	ep := api.eventually(t, http.StatusCreated, time.Minute, request{Method: http.MethodPost, Path: "/v1/webhooks/endpoints", Token: platform,
		JSON: map[string]any{"url": fmt.Sprintf("http://%s:%d/hooks", stack.ReceiverHost, rc.port), "event_types": []string{"Customer.created"},
			"business_ids": []string{biz}}}).Data(t)
	endpoint, _ := ep["id"].(string)
	secret, _ := ep["secret"].(string)
	if endpoint == "" || !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("created endpoint = %v", ep)
	}
	rc.setSecret(secret)
	t.Cleanup(func() {
		api.do(t, request{Method: http.MethodDelete, Path: "/v1/webhooks/endpoints/" + endpoint, Token: platform})
	})

	custExt := "e2e-hook-cust-" + randomHex(t, 4)
	cust := api.eventually(t, http.StatusCreated, time.Minute, request{Method: http.MethodPost, Path: "/v1/businesses/" + biz + "/customers",
		Token: platform, JSON: map[string]any{"external_id": custExt, "company_name": "Hook Corp"}}).Data(t)["id"].(string)

	deadline := time.After(90 * time.Second)
	for {
		select {
		case ev := <-rc.events:
			e := ev.event
			if e.Type != "Customer.created" || e.Data.EntityID != cust {
				t.Logf("webhook %s %s (waiting for Customer.created of %s)", e.Type, e.Data.EntityID, cust)
				continue
			}
			if e.ID != ev.header.Get("webhook-id") || e.BusinessID != biz || e.BusinessExternalID != ext ||
				e.Data.EntityExternalID == nil || *e.Data.EntityExternalID != custExt {
				t.Fatalf("Customer.created = %s (webhook-id %s), want business %s (%s), customer %s (%s)", ev.body, ev.header.Get("webhook-id"), biz, ext, cust, custExt)
			}
			if _, err := time.Parse(time.RFC3339Nano, e.CreatedAt); err != nil {
				t.Errorf("created_at %q: %v", e.CreatedAt, err)
			}
			rc.mu.Lock()
			rejected := rc.rejected
			rc.mu.Unlock()
			if len(rejected) > 0 {
				t.Fatalf("deliveries that did not verify: %v", rejected)
			}
			t.Logf("Customer.created %s reached the receiver, signature verified: %s", e.ID, ev.body)
			return
		case <-deadline:
			rc.mu.Lock()
			defer rc.mu.Unlock()
			r := api.do(t, request{Method: http.MethodGet, Path: "/v1/webhooks/endpoints/" + endpoint + "/deliveries", Token: platform})
			t.Fatalf("no Customer.created of %s after 90 s (refused: %v); the endpoint's deliveries: %s", cust, rc.rejected, r)
		}
	}
}
