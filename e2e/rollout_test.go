package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
)

// The rolling-restart scenario needs a Kubernetes deployment of the chart
// (make k8s-e2e sets these): the namespace, the label selector of the
// release's Deployments, and kubectl.
const (
	envK8sNamespace = "E2E_K8S_NAMESPACE"
	envK8sSelector  = "E2E_K8S_SELECTOR"
	envKubectl      = "E2E_KUBECTL"
	envK8sContext   = "E2E_K8S_CONTEXT"
	// writeDeadline bounds how long one write is retried (same
	// Idempotency-Key) before it counts as abandoned.
	writeDeadline = 90 * time.Second
	// catchUpBound is how long the read models, the reports and the
	// webhooks get after the load stops to show every acknowledged write.
	catchUpBound = 3 * time.Minute
)

// ackedWrite is a write the API acknowledged: where to read it back, what it
// adds to January 2026's accrual P&L, and for a customer the id its
// Customer.created webhook names.
type ackedWrite struct {
	kind     string
	readPath string
	income   int64
	expense  int64
	customer string
}

// rolloutLoad is the load of the scenario and what it saw.
type rolloutLoad struct {
	api      *apiClient
	token    string
	base     string // /v1/businesses/<id>
	customer string // for invoices
	vendor   string // for bills
	account  string // custom account for bank transactions

	mu        sync.Mutex
	acked     []ackedWrite
	attempts  int
	transient map[string]int // "kind: outcome" of attempts retried (transport errors, 429, 502-504)
	defects   []string       // answers no restart may cause (500, an unexpected 4xx, a wrong body)
	abandoned []string       // writes never acknowledged within writeDeadline
}

// transientStatus: answers a client retries with the same Idempotency-Key.
func transientStatus(s int) bool {
	switch s {
	case http.StatusConflict, http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// write sends req with a fresh Idempotency-Key until it answers want, retrying
// transport errors and transient statuses with the same key, and returns the
// answer's data (an object, or a list for an import); ok is false when it
// never succeeded.
func (l *rolloutLoad) write(kind string, req request, want int) (any, bool) {
	req.Token = l.token
	req.Header = map[string]string{"Idempotency-Key": uuid.NewString()}
	deadline := time.Now().Add(writeDeadline)
	start := time.Now()
	var history []string // each answer that was retried, when, the first and the last kept
	for {
		l.mu.Lock()
		l.attempts++
		l.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		r, err := l.api.send(ctx, req)
		cancel()
		var outcome string
		switch {
		case err != nil:
			outcome = "transport error"
			if s := err.Error(); strings.Contains(s, "EOF") || strings.Contains(s, "reset") || strings.Contains(s, "refused") {
				outcome = "connection closed/refused"
			}
		case r.Status == want:
			var doc struct {
				Data any `json:"data"`
			}
			if json.Unmarshal(r.Body, &doc) != nil || doc.Data == nil {
				l.defect("%s: %s: no data object", kind, r)
				return nil, false
			}
			return doc.Data, true
		case transientStatus(r.Status):
			outcome = fmt.Sprintf("%d", r.Status)
		default:
			l.defect("%s: %s", kind, r)
			return nil, false
		}
		l.mu.Lock()
		l.transient[kind+": "+outcome]++
		l.mu.Unlock()
		seen := fmt.Sprintf("+%s %s", time.Since(start).Round(time.Millisecond), outcome)
		if err != nil {
			seen += fmt.Sprintf(" (%v)", err)
		} else {
			seen += " " + r.String()
		}
		if len(history) < 2 {
			history = append(history, seen)
		} else {
			history[1] = seen
		}
		if time.Now().After(deadline) {
			l.mu.Lock()
			l.abandoned = append(l.abandoned, fmt.Sprintf("%s %s, Idempotency-Key %s: first retried answer %s; last %s",
				req.Method, req.Path, req.Header["Idempotency-Key"], history[0], history[len(history)-1]))
			l.mu.Unlock()
			return nil, false
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func (l *rolloutLoad) defect(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.defects = append(l.defects, fmt.Sprintf(format, args...))
}

func (l *rolloutLoad) ack(w ackedWrite) {
	if strings.HasSuffix(w.readPath, "/") {
		l.defect("%s acknowledged without an id", w.kind)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.acked = append(l.acked, w)
}

// step makes the n-th write of writer w: each kind reaches another service
// (auth-tokens, customers-invoices, bills-tags, mileage, transactions) and
// those that post to the ledger add a known amount to January's P&L.
func (l *rolloutLoad) step(rng *rand.Rand, w, n int) {
	ext := fmt.Sprintf("rr-%d-%d-%s", w, n, uuid.NewString()[:8])
	amount := int64(100 + rng.IntN(9900))
	b := l.base
	switch n % 7 {
	case 0:
		if d, ok := l.write("customer", request{Method: http.MethodPost, Path: b + "/customers",
			JSON: map[string]any{"external_id": ext, "company_name": "Rollout " + ext}}, http.StatusCreated); ok {
			id := idOf(d)
			l.ack(ackedWrite{kind: "customer", readPath: b + "/customers/" + id, customer: id})
		}
	case 1:
		if d, ok := l.write("invoice", request{Method: http.MethodPost, Path: b + "/invoices", JSON: map[string]any{
			"external_id": ext, "sent_at": "2026-01-15T10:00:00Z", "customer_id": l.customer,
			"line_items": []map[string]any{{"product": "Consulting", "unit_price": amount, "quantity": "1"}},
		}}, http.StatusCreated); ok {
			l.ack(ackedWrite{kind: "invoice", readPath: b + "/invoices/" + idOf(d), income: amount})
		}
	case 2:
		if d, ok := l.write("vendor", request{Method: http.MethodPost, Path: b + "/vendors",
			JSON: map[string]any{"external_id": ext, "company_name": "Supplier " + ext}}, http.StatusCreated); ok {
			l.ack(ackedWrite{kind: "vendor", readPath: b + "/vendors/" + idOf(d)})
		}
	case 3:
		if d, ok := l.write("bill", request{Method: http.MethodPost, Path: b + "/bills", JSON: map[string]any{
			"external_id": ext, "vendor_id": l.vendor, "received_at": "2026-01-12T00:00:00Z", "bill_terms": "NET_30",
			"line_items": []map[string]any{{"product_name": "Paper", "unit_price": amount, "quantity": "1",
				"account_identifier": map[string]any{"type": "StableName", "stable_name": "OFFICE_EXPENSES"}}},
		}}, http.StatusCreated); ok {
			l.ack(ackedWrite{kind: "bill", readPath: b + "/bills/" + idOf(d), expense: amount})
		}
	case 4:
		if d, ok := l.write("vehicle", request{Method: http.MethodPost, Path: b + "/mileage/vehicles",
			JSON: map[string]any{"make_and_model": "Van " + ext, "year": 2022, "external_id": ext}}, http.StatusCreated); ok {
			l.ack(ackedWrite{kind: "vehicle", readPath: b + "/mileage/vehicles/" + idOf(d)})
		}
	case 5:
		// A bank transaction, then its categorization: two writes, the
		// second one on an existing resource (repeating it is harmless).
		d, ok := l.write("bank import", request{Method: http.MethodPost, Path: b + "/custom-accounts/" + l.account + "/transactions", JSON: map[string]any{
			"transactions": []map[string]any{{"external_id": ext, "amount": amount, "direction": "DEBIT", "date": "2026-01-10", "description": "Rent " + ext}},
		}}, http.StatusCreated)
		if !ok {
			return
		}
		rows, _ := d.([]any)
		if len(rows) != 1 {
			l.defect("bank import %s: answered %v, want the one created transaction", ext, d)
			return
		}
		id := idOf(rows[0])
		if _, ok := l.write("categorize", request{Method: http.MethodPost, Path: b + "/bank-transactions/" + id + "/categorize", JSON: map[string]any{
			"type": "Split", "entries": []any{map[string]any{"category": map[string]any{"type": "StableName", "stable_name": "RENT"}, "amount": amount}},
		}}, http.StatusOK); ok {
			l.ack(ackedWrite{kind: "bank transaction", readPath: b + "/bank-transactions/" + id, expense: amount})
		}
	case 6:
		if d, ok := l.write("business", request{Method: http.MethodPost, Path: "/v1/businesses", JSON: businessBody(ext, "Rollout "+ext)}, http.StatusCreated); ok {
			l.ack(ackedWrite{kind: "business", readPath: "/v1/businesses/" + idOf(d)})
		}
	}
}

// idOf is the id of an answered object.
func idOf(v any) string {
	m, _ := v.(map[string]any)
	id, _ := m["id"].(string)
	return id
}

// kubectl runs kubectl in the scenario's namespace and returns its output.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	bin := os.Getenv(envKubectl)
	if bin == "" {
		bin = "kubectl"
	}
	pre := []string{"-n", os.Getenv(envK8sNamespace)}
	if c := os.Getenv(envK8sContext); c != "" {
		pre = append(pre, "--context", c)
	}
	out, err := exec.Command(bin, append(pre, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestRollingRestartUnderLoad restarts every Deployment of the release in
// turn (kubectl rollout restart) while writers keep calling every service
// through the gateway, as a platform would: a write is retried with its
// Idempotency-Key on a transport error or a 429/502/503/504, and nothing else
// is tolerated. Afterwards every acknowledged write reads back, January's
// P&L equals the sum of the acknowledged invoices, bills and categorized
// bank transactions to the cent (nothing lost, nothing counted twice), every
// acknowledged customer's Customer.created webhook reached the receiver,
// and no container restarted.
func TestRollingRestartUnderLoad(t *testing.T) {
	if os.Getenv(envK8sNamespace) == "" {
		t.Skip(envK8sNamespace + " is not set: rolling restarts need the chart in a Kubernetes cluster (make k8s-e2e); against containers the outage scenario stops each service instead")
	}
	selector := os.Getenv(envK8sSelector)
	if selector == "" {
		selector = "app.kubernetes.io/instance=acct"
	}
	stack := StartStack(t)
	api := newAPIClient(stack.BaseURL)
	platform := api.token(t, stack.ClientID, stack.ClientSecret)
	biz := createBusiness(t, api, platform, newBusiness(t, "E2E Rollout LLC"))
	base := "/v1/businesses/" + biz
	for _, p := range []string{"/ledger/chart", "/customers", "/vendors", "/mileage/vehicles", "/reports/profit-and-loss?start_date=2026-01-01&end_date=2026-01-31"} {
		api.eventually(t, http.StatusOK, time.Minute, request{Method: http.MethodGet, Path: base + p, Token: platform})
	}
	l := &rolloutLoad{api: newAPIClient(stack.BaseURL), token: platform, base: base, transient: map[string]int{}}
	l.api.http.Timeout = 0 // each attempt has its own context deadline
	l.customer = api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/customers", Token: platform,
		JSON: map[string]any{"external_id": "rr-invoiced", "company_name": "Invoiced Co"}}).Data(t)["id"].(string)
	l.vendor = api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/vendors", Token: platform,
		JSON: map[string]any{"external_id": "rr-billing", "company_name": "Billing Co"}}).Data(t)["id"].(string)
	l.account = api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/custom-accounts", Token: platform, JSON: map[string]any{
		"account_name": "Operating", "institution_name": "E2E Bank", "account_type": "DEPOSITORY", "account_subtype": "CHECKING",
	}}).Data(t)["id"].(string)

	// The webhooks service delivers every customer's creation to a receiver
	// on this machine, when the cluster can reach one.
	var hooks *hookReceiver
	delivered := map[string]bool{}
	var hooksMu sync.Mutex
	if stack.ReceiverHost != "" {
		hooks = startHookReceiver(t)
		ep := api.eventually(t, http.StatusCreated, time.Minute, request{Method: http.MethodPost, Path: "/v1/webhooks/endpoints", Token: platform,
			JSON: map[string]any{"url": fmt.Sprintf("http://%s:%d/hooks", stack.ReceiverHost, hooks.port), "event_types": []string{"Customer.created"},
				"business_ids": []string{biz}, "ordering": "none"}}).Data(t)
		hooks.setSecret(ep["secret"].(string))
		endpoint := ep["id"].(string)
		t.Cleanup(func() {
			api.do(t, request{Method: http.MethodDelete, Path: "/v1/webhooks/endpoints/" + endpoint, Token: platform})
		})
		go func() {
			for ev := range hooks.events {
				hooksMu.Lock()
				delivered[ev.event.Data.EntityID] = true
				hooksMu.Unlock()
			}
		}()
	} else {
		t.Log("no receiver host (E2E_RECEIVER_HOST): webhook deliveries are not checked")
	}

	// The load: writers until the restarts are over (and a little after).
	// A writer stops between two steps, never in the middle of one: a
	// write it gave up on client-side could still be applied, and would be
	// neither acknowledged nor abandoned.
	var stopping atomic.Bool
	const writers = 4
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			for n := 0; !stopping.Load(); n++ {
				l.step(rng, w, n)
			}
		}()
	}
	time.Sleep(5 * time.Second)

	deploys := strings.Fields(kubectl(t, "get", "deploy", "-l", selector, "-o", "jsonpath={.items[*].metadata.name}"))
	if len(deploys) < 8 {
		t.Fatalf("Deployments of %s: %v, want the gateway and the seven services", selector, deploys)
	}
	sort.Strings(deploys)
	for _, d := range deploys {
		t0 := time.Now()
		l.mu.Lock()
		before := len(l.acked)
		l.mu.Unlock()
		kubectl(t, "rollout", "restart", "deploy/"+d)
		kubectl(t, "rollout", "status", "deploy/"+d, "--timeout=5m")
		l.mu.Lock()
		t.Logf("restarted %s in %s; %d writes acknowledged meanwhile", d, time.Since(t0).Round(100*time.Millisecond), len(l.acked)-before)
		l.mu.Unlock()
	}
	time.Sleep(5 * time.Second)
	stopping.Store(true)
	wg.Wait()

	l.mu.Lock()
	defer l.mu.Unlock()
	kinds := map[string]int{}
	var income, expense int64
	for _, w := range l.acked {
		kinds[w.kind]++
		income += w.income
		expense += w.expense
	}
	t.Logf("load: %d attempts, %d writes acknowledged %v; retried: %v", l.attempts, len(l.acked), kinds, l.transient)
	if len(l.defects) > 0 {
		t.Errorf("answers no rolling restart may cause (%d): %s", len(l.defects), strings.Join(first(l.defects, 20), "\n  "))
	}
	if len(l.abandoned) > 0 {
		t.Errorf("writes never acknowledged within %s (%d): %s", writeDeadline, len(l.abandoned), strings.Join(first(l.abandoned, 20), "\n  "))
	}
	if len(kinds) < 7 {
		t.Errorf("acknowledged kinds %v: every kind of write must have gone through", kinds)
	}

	// Every acknowledged write reads back.
	for _, w := range l.acked {
		api.eventually(t, http.StatusOK, catchUpBound, request{Method: http.MethodGet, Path: w.readPath, Token: platform})
	}
	// January's accrual P&L is exactly the acknowledged amounts.
	deadline := time.Now().Add(catchUpBound)
	for {
		pnl := api.expect(t, http.StatusOK, request{Method: http.MethodGet, Token: platform,
			Path: base + "/reports/profit-and-loss?start_date=2026-01-01&end_date=2026-01-31&reporting_basis=ACCRUAL"}).Data(t)
		gotIncome := int64(pnl["income"].(map[string]any)["value"].(float64))
		gotExpense := int64(pnl["expenses"].(map[string]any)["value"].(float64))
		if gotIncome == income && gotExpense == expense {
			t.Logf("P&L January: income %d, expenses %d cents: the acknowledged writes exactly", income, expense)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("P&L January after %s: income %d, expenses %d; the acknowledged writes add up to %d and %d", catchUpBound, gotIncome, gotExpense, income, expense)
		}
		time.Sleep(time.Second)
	}
	// Every acknowledged customer's creation was delivered.
	if hooks != nil {
		deadline := time.Now().Add(catchUpBound)
		for {
			var missing []string
			hooksMu.Lock()
			for _, w := range l.acked {
				if w.customer != "" && !delivered[w.customer] {
					missing = append(missing, w.customer)
				}
			}
			hooksMu.Unlock()
			if len(missing) == 0 {
				t.Logf("Customer.created delivered for all %d customers", kinds["customer"])
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after %s, %d of %d customers' Customer.created never reached the receiver: %v", catchUpBound, len(missing), kinds["customer"], first(missing, 10))
			}
			time.Sleep(time.Second)
		}
		hooks.mu.Lock()
		if len(hooks.rejected) > 0 {
			t.Errorf("deliveries that did not verify: %v", first(hooks.rejected, 10))
		}
		hooks.mu.Unlock()
	}
	// The restarted pods are Ready and none of their containers restarted.
	restarts := kubectl(t, "get", "pods", "-l", selector, "-o",
		`go-template={{range .items}}{{range .status.containerStatuses}}{{if gt .restartCount 0}}{{.name}}={{.restartCount}} {{end}}{{end}}{{end}}`)
	if strings.TrimSpace(restarts) != "" {
		t.Errorf("containers restarted: %s", restarts)
	}
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
