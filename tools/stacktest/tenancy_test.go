package stacktest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/receipts/receiptpdf"
)

// The tenancy matrix: every route of the gateway's routing table (read
// from `gateway routes`, so a route added to the table joins the matrix)
// × every method × seven principals × the ids of tenant A, of tenant B and
// ids that do not exist, through the whole running suite. Each cell's
// expected answer is computed from the route's auth and tenancy rules and
// from whose business and ids the path names; every refused cell must
// carry the error object, and nothing a refused cell addressed may change.

// matrixRoute is one row of `gateway routes` (routes.Row in the gateway).
type matrixRoute struct {
	Methods  []string `json:"methods"`
	Path     string   `json:"path"`
	Upstream string   `json:"upstream"`
	Auth     string   `json:"auth"`
	Tenancy  []string `json:"tenancy"`
	Limit    string   `json:"limit"`
}

func (r matrixRoute) has(rule string) bool { return slices.Contains(r.Tenancy, rule) }

// params lists the path parameters of the route other than businessId.
func (r matrixRoute) params() []string {
	var out []string
	for _, seg := range strings.Split(r.Path, "/") {
		if p, ok := strings.CutPrefix(seg, ":"); ok && p != "businessId" {
			out = append(out, p)
		}
	}
	return out
}

// fixtureKind names the kind of row a path parameter holds: the name of
// the parameter, except where one name serves two kinds.
func fixtureKind(path, param string) string {
	switch {
	case param == "paymentId" && strings.Contains(path, "/bill-payments/"):
		return "billPaymentId"
	case param == "accountId" && strings.Contains(path, "/acctsync/"):
		return "acctsyncAccountId"
	}
	return param
}

// Without an accounting provider (the stack configures none) acctsync
// answers 503 Unavailable to authorize, callback and sync-from, and has
// imported no account: acctsyncAccountId is a fresh id in every set, so
// even the owner gets 404 for it. These are the only allowed cells not
// expected to succeed; the refused ones are checked like every other.
var (
	providerRoutes = map[string]bool{"/v1/businesses/:businessId/acctsync/authorize": true, "/v1/acctsync/callback": true,
		"/v1/businesses/:businessId/acctsync/sync-from": true}
	noFixture = map[string]bool{"acctsyncAccountId": true, "suggestionId": true}
)

// gatewayRoutes runs `gateway routes` with the running gateway's binary
// and environment (once: the table does not change while the suite runs).
func gatewayRoutes(t *testing.T) []matrixRoute {
	t.Helper()
	routes, err := routeTable()
	if err != nil {
		t.Fatal(err)
	}
	return routes
}

var (
	routesOnce sync.Once
	routesList []matrixRoute
	routesErr  error
)

func routeTable() ([]matrixRoute, error) {
	routesOnce.Do(func() { routesList, routesErr = readRoutes() })
	return routesList, routesErr
}

func readRoutes() ([]matrixRoute, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := st.Exec(ctx, "gateway", "routes")
	if err != nil {
		return nil, fmt.Errorf("gateway routes: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, `{"routes":`) {
			continue // a log line
		}
		var l struct {
			Routes []matrixRoute `json:"routes"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			return nil, fmt.Errorf("gateway routes: %v: %s", err, line)
		}
		if len(l.Routes) == 0 {
			return nil, fmt.Errorf("gateway routes printed no routes")
		}
		return l.Routes, nil
	}
	return nil, fmt.Errorf("gateway routes printed no listing:\n%s", out)
}

// principal is who calls: the token and the tenant whose business it sees
// ("A", "B", "X" for the unknown business; "" for none).
type principal struct {
	name     string
	token    string
	tenant   string
	business bool // a business-scoped token
	anon     bool // no token or an expired one: 401 everywhere
}

// fixtures is one set of rows of every kind in one business.
type fixtures struct {
	name     string // A1, A2, B1, B2, missing
	tenant   string // A, B, X
	business string
	ids      map[string]string // fixture kind → id
}

// refusedToken runs `auth-tokens admin refused-token`.
func refusedToken(t *testing.T, client, kind string) (token, businessID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := st.Exec(ctx, "auth-tokens", "admin", "refused-token", "--client", client, "--kind", kind)
	if err != nil {
		t.Fatalf("admin refused-token %s: %v\n%s", kind, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			switch k {
			case "access_token":
				token = v
			case "business_id":
				businessID = v
			}
		}
	}
	if token == "" || (kind == "unknown-business" && businessID == "") {
		t.Fatalf("admin refused-token %s printed:\n%s", kind, out)
	}
	return token, businessID
}

// mreq is one request of the matrix.
type mreq struct {
	method, path, token, contentType string
	body                             []byte
}

type mreply struct {
	status int
	body   []byte
	json   map[string]any
	err    error
}

var matrixClient = &http.Client{Timeout: 60 * time.Second}

func send(r mreq) mreply {
	req, err := http.NewRequest(r.method, st.GatewayURL+r.path, bytes.NewReader(r.body))
	if err != nil {
		return mreply{err: err}
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	resp, err := matrixClient.Do(req)
	if err != nil {
		return mreply{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	out := mreply{status: resp.StatusCode, body: b, err: err}
	_ = json.Unmarshal(b, &out.json)
	observeShape(r.method, r.path, resp.StatusCode, resp.Header, b)
	return out
}

func jsonReq(method, path, token string, body any) mreq {
	r := mreq{method: method, path: path, token: token}
	if body != nil {
		r.body, _ = json.Marshal(body)
		r.contentType = "application/json"
	}
	return r
}

// multipartReq is a multipart request with one file part and fields.
func multipartReq(path, token, fileName string, data []byte, fields map[string]string) mreq {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	fw, _ := w.CreateFormFile("file", fileName)
	_, _ = fw.Write(data)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	_ = w.Close()
	return mreq{method: http.MethodPost, path: path, token: token, contentType: w.FormDataContentType(), body: b.Bytes()}
}

func stableName(name string) map[string]any {
	return map[string]any{"type": "StableName", "stable_name": name}
}

// dig follows keys (strings for objects, ints for arrays) through v.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// makeFixtures creates one row of every kind in business bid with the
// platform token tok; name makes external ids and keys unique. The
// platform's own rows (a webhook endpoint and one of its deliveries) are
// made too, the endpoint posting to hookURL.
func makeFixtures(t *testing.T, name, tenant, bid, tok, hookURL string) fixtures {
	t.Helper()
	f := fixtures{name: name, tenant: tenant, business: bid, ids: map[string]string{}}
	base := "/v1/businesses/" + bid
	must := func(what string, r mreq, path ...any) string {
		t.Helper()
		var rep mreply
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			rep = send(r)
			// The business reaches each service through acct.business.v1.
			if rep.err == nil && rep.status != http.StatusNotFound && rep.status < 500 || time.Now().After(deadline) {
				break
			}
		}
		if rep.err != nil || rep.status >= 300 {
			t.Errorf("fixture %s %s: %d %v %s", name, what, rep.status, rep.err, rep.body)
			return uuid.NewString()
		}
		id, _ := dig(rep.json, path...).(string)
		if id == "" {
			t.Errorf("fixture %s %s: no id at %v in %s", name, what, path, rep.body)
			return uuid.NewString()
		}
		return id
	}
	ext := func(s string) string { return "matrix-" + name + "-" + s }

	f.ids["accountId"] = must("ledger account", jsonReq("POST", base+"/ledger/accounts", tok,
		map[string]any{"name": "Matrix " + name, "account_type": "EXPENSE"}), "data", "id")
	f.ids["entryId"] = must("journal entry", jsonReq("POST", base+"/ledger/journal-entries", tok, map[string]any{
		"external_id": ext("je"), "entry_at": "2026-01-02T00:00:00Z", "created_by": "matrix", "memo": "matrix " + name,
		"line_items": []map[string]any{
			{"account_identifier": stableName("CASH"), "amount": 1000, "direction": "DEBIT"},
			{"account_identifier": stableName("SALES"), "amount": 1000, "direction": "CREDIT"},
		}}), "data", "entry_id")
	f.ids["customAccountId"] = must("custom account", jsonReq("POST", base+"/custom-accounts", tok, map[string]any{
		"account_name": "Matrix " + name, "institution_name": "Test Bank", "account_type": "DEPOSITORY", "account_subtype": "CHECKING",
		"external_id": ext("acct")}), "data", "id")
	txn := must("bank transaction", jsonReq("POST", base+"/custom-accounts/"+f.ids["customAccountId"]+"/transactions", tok, map[string]any{
		"transactions": []map[string]any{{"external_id": ext("txn"), "amount": 4250, "direction": "DEBIT", "date": "2026-02-03",
			"description": "Matrix lunch", "counterparty_name": "Cafe"}}}), "data", 0, "id")
	f.ids["transactionId"], f.ids["bankTransactionId"] = txn, txn
	f.ids["documentId"] = must("document", multipartReq(base+"/bank-transactions/"+txn+"/documents", tok, "receipt.pdf",
		receiptpdf.Text("Cafe", "Lunch 42.50"), map[string]string{}), "data", "id")
	f.ids["ruleId"] = must("categorization rule", jsonReq("POST", base+"/categorization-rules", tok,
		map[string]any{"name": "matrix " + name, "counterparty": map[string]any{"match": "CONTAINS", "pattern": "matrix"}, "category": stableName("MEALS")}), "data", "id")
	f.ids["customerId"] = must("customer", jsonReq("POST", base+"/customers", tok,
		map[string]any{"external_id": ext("cust"), "company_name": "Matrix " + name}), "data", "id")
	f.ids["invoiceId"] = must("invoice", jsonReq("POST", base+"/invoices", tok, map[string]any{
		"external_id": ext("inv"), "sent_at": "2026-03-01T10:00:00Z", "customer_id": f.ids["customerId"],
		"line_items": []map[string]any{{"product": "Service", "unit_price": 10000, "quantity": "1"}}}), "data", "id")
	f.ids["paymentId"] = must("invoice payment", jsonReq("POST", base+"/invoices/"+f.ids["invoiceId"]+"/payment", tok,
		map[string]any{"amount": 2000, "method": "ACH", "paid_at": "2026-03-02T00:00:00Z"}), "data", "id")
	f.ids["writeOffId"] = must("write-off", jsonReq("POST", base+"/invoices/"+f.ids["invoiceId"]+"/write-off", tok,
		map[string]any{"amount": 1000, "write_off_at": "2026-03-10T00:00:00Z"}), "data", "id")
	f.ids["dimensionId"] = must("tag dimension", jsonReq("POST", base+"/tags/dimensions", tok,
		map[string]any{"key": "matrix-" + name, "defined_values": []any{"v1", "v2"}}), "data", "id")
	f.ids["dimensionKey"] = "matrix-" + name
	dims := send(jsonReq("GET", base+"/tags/dimensions/key/matrix-"+name, tok, nil))
	f.ids["valueId"], _ = dig(dims.json, "data", "defined_values", 0, "id").(string)
	if f.ids["valueId"] == "" {
		t.Errorf("fixture %s tag value: %d %s", name, dims.status, dims.body)
	}
	f.ids["vendorId"] = must("vendor", jsonReq("POST", base+"/vendors", tok,
		map[string]any{"company_name": "Matrix vendor " + name, "external_id": ext("vendor")}), "data", "id")
	f.ids["billId"] = must("bill", jsonReq("POST", base+"/bills", tok, map[string]any{
		"external_id": ext("bill"), "bill_number": "M-1", "received_at": "2026-07-03T00:00:00Z", "vendor_id": f.ids["vendorId"],
		"line_items": []map[string]any{{"product_name": "Rent", "unit_price": 150000, "quantity": "1", "account_identifier": stableName("RENT")}}}),
		"data", "id")
	f.ids["billPaymentId"] = must("bill payment", jsonReq("POST", base+"/bills/bill-payments", tok, map[string]any{
		"paid_at": "2026-07-20T12:00:00Z", "method": "ACH", "amount": 1000, "external_id": ext("billpay"),
		"bill_payment_allocations": []map[string]any{{"bill_id": f.ids["billId"], "amount": 1000}}}), "data", "id")
	f.ids["vendorCreditId"] = must("vendor credit", jsonReq("POST", base+"/bills/vendor-credits", tok, map[string]any{
		"received_at": "2026-07-05T09:00:00Z", "vendor_id": f.ids["vendorId"], "external_id": ext("credit"),
		"line_items": []any{map[string]any{"amount": 500, "expense_account_identifier": stableName("RENT")}}}), "data", "id")
	f.ids["businessDocumentId"] = must("receipt", multipartReq(base+"/receipts/import", tok, "receipt.pdf",
		receiptpdf.Text("Corner Cafe", "2026-05-04", "Coffee 4.50", "Total 4.50"), map[string]string{"context": "matrix"}), "data", 0, "business_document_id")
	f.ids["vehicleId"] = must("vehicle", jsonReq("POST", base+"/mileage/vehicles", tok,
		map[string]any{"make_and_model": "Matrix van", "year": 2021, "external_id": ext("van")}), "data", "id")
	f.ids["acctsyncAccountId"] = uuid.NewString() // see noFixture
	f.ids["suggestionId"] = uuid.NewString()      // see noFixture: a rule suggestion needs a categorization's history
	f.ids["tripId"] = must("trip", jsonReq("POST", base+"/mileage/trips", tok,
		map[string]any{"vehicle_id": f.ids["vehicleId"], "trip_date": "2026-02-01", "purpose": "BUSINESS", "distance": "12.5"}), "data", "id")
	// Rows of the platform, not of a business: a webhook endpoint (hearing
	// only this business's new customers, so that its deliveries settle
	// before the snapshots) and its test delivery.
	f.ids["endpointId"] = must("webhook endpoint", jsonReq("POST", "/v1/webhooks/endpoints", tok, map[string]any{
		"url": hookURL + "/" + name, "business_ids": []string{bid}, "event_types": []string{"Customer.created"}}), "data", "id")
	f.ids["deliveryId"] = must("webhook delivery", jsonReq("POST", "/v1/webhooks/endpoints/"+f.ids["endpointId"]+"/test", tok, nil), "data", "id")
	t.Cleanup(func() { send(jsonReq("DELETE", "/v1/webhooks/endpoints/"+f.ids["endpointId"], tok, nil)) })
	return f
}

// missingFixtures are ids no row has, under the unknown business.
func missingFixtures(business string, kinds []string) fixtures {
	f := fixtures{name: "missing", tenant: "X", business: business, ids: map[string]string{}}
	for _, k := range kinds {
		f.ids[k] = uuid.NewString()
	}
	f.ids["dimensionKey"] = "no-such-key"
	return f
}

// cell is one request of the matrix and its expectation.
type cell struct {
	route  matrixRoute
	method string
	who    principal
	ids    string // "A1 under A": whose ids under whose business
	req    mreq
	want   int // 0: allowed (not 401/403/404, not 5xx); otherwise this refusal
	got    mreply
}

// expected computes a cell's answer from the route's rules, the principal,
// the business in the path and whose ids the path names.
func expected(r matrixRoute, who principal, pathTenant, idsTenant string) int {
	if r.Auth == "public" {
		if providerRoutes[r.Path] {
			return http.StatusServiceUnavailable
		}
		return 0
	}
	if who.anon {
		return http.StatusUnauthorized
	}
	if !r.has("business") {
		if r.has("platform-only") && who.business {
			return http.StatusForbidden
		}
		if len(r.params()) > 0 && idsTenant != who.tenant {
			return http.StatusNotFound // another platform's rows (webhook endpoints), or none's
		}
		return 0
	}
	if who.tenant != pathTenant {
		return http.StatusNotFound // another tenant's business: nothing to see
	}
	if pathTenant == "X" {
		return http.StatusNotFound // the token's business does not exist
	}
	if r.has("platform-only") && who.business {
		return http.StatusForbidden
	}
	if len(r.params()) > 0 && idsTenant != pathTenant {
		return http.StatusNotFound // the other tenant's ids, or none's
	}
	for _, p := range r.params() {
		if noFixture[fixtureKind(r.Path, p)] {
			return http.StatusNotFound
		}
	}
	if providerRoutes[r.Path] {
		return http.StatusServiceUnavailable
	}
	return 0
}

// byIDs reports whether a cell's expected 404 is the service's to give
// for the rows the path names (the principal may see the business, or
// the route names rows of the platform).
func (c *cell) byIDs() bool {
	if c.want != http.StatusNotFound || c.who.anon || c.who.tenant == "X" || strings.HasPrefix(c.ids, own[c.who.name]+" ") {
		return false
	}
	if !c.route.has("business") {
		return len(c.route.params()) > 0
	}
	return strings.HasSuffix(c.ids, " under "+c.who.tenant)
}

// own is the fixture set each allowed principal writes to: the two
// principals of a tenant never use up each other's rows.
var own = map[string]string{"platform A": "A1", "business token A": "A2", "platform B": "B1", "business token B": "B2"}

// body is what a cell sends: the same minimal request for every cell of a
// route and method, so a refusal can only come from who asks and what the
// path names. Writes send {} (a small PDF on the upload routes, a form on
// the public token route): validation 4xx are fine for allowed cells, and
// a service that refuses the body before reading the path's rows must
// answer the other tenant's ids exactly as the owner's (see sameAnswer).
func body(r matrixRoute, method string) (contentType string, b []byte) {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodDelete:
		if strings.HasSuffix(r.Path, "/tags") {
			b, _ = json.Marshal(map[string]any{"tag_ids": []string{uuid.NewString()}})
			return "application/json", b
		}
		return "", nil
	}
	if r.Auth == "public" {
		return "application/x-www-form-urlencoded", []byte("grant_type=client_credentials")
	}
	switch {
	case strings.HasSuffix(r.Path, "/documents"), strings.HasSuffix(r.Path, "/receipts/import"):
		m := multipartReq("", "", "r.pdf", receiptpdf.Text("Matrix"), nil)
		return m.contentType, m.body
	}
	return "application/json", []byte("{}")
}

func TestTenancyMatrix(t *testing.T) {
	start := time.Now()
	table := gatewayRoutes(t)

	// Two platform clients: the bootstrap one (A) and one made with the
	// admin command (B); a business of each and their business tokens;
	// an expired token and a token for a business that does not exist.
	tokA := platformToken(t)
	idB, secretB := secondClient(t)
	tokB := tokenFor(t, idB, secretB)
	suffix := uuid.NewString()[:8]
	bizA := createBusiness(t, tokA, "matrix-a-"+suffix)
	bizB := createBusiness(t, tokB, "matrix-b-"+suffix)
	expired, _ := refusedToken(t, clientID, "expired")
	unknownTok, unknownBiz := refusedToken(t, clientID, "unknown-business")

	// The fixtures' webhook endpoints post here.
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(hooks.Close)

	var (
		sets = map[string]fixtures{}
		mu   sync.Mutex
		wg   sync.WaitGroup
	)
	for _, s := range []struct{ name, tenant, biz, tok string }{
		{"A1", "A", bizA, tokA}, {"A2", "A", bizA, tokA}, {"B1", "B", bizB, tokB}, {"B2", "B", bizB, tokB},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := makeFixtures(t, s.name, s.tenant, s.biz, s.tok, hooks.URL)
			mu.Lock()
			sets[s.name] = f
			mu.Unlock()
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow() // a missing fixture would only blur the matrix
	}
	var kinds []string
	for k := range sets["A1"].ids {
		kinds = append(kinds, k)
	}
	sets["missing"] = missingFixtures(unknownBiz, kinds)
	fixturesDone := time.Since(start)

	// Every path parameter of every route needs a fixture.
	for _, r := range table {
		for _, p := range r.params() {
			if _, ok := sets["A1"].ids[fixtureKind(r.Path, p)]; !ok {
				t.Errorf("route %s: no fixture for the path parameter :%s (add one to makeFixtures)", r.Path, p)
			}
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	btA, btB := businessToken(t, tokA, bizA), businessToken(t, tokB, bizB)
	principals := []principal{
		{name: "platform A", token: tokA, tenant: "A"},
		{name: "platform B", token: tokB, tenant: "B"},
		{name: "business token A", token: btA, tenant: "A", business: true},
		{name: "business token B", token: btB, tenant: "B", business: true},
		{name: "expired token", token: expired, anon: true},
		{name: "no token", anon: true},
		{name: "unknown business token", token: unknownTok, tenant: "X", business: true},
	}
	tenantSet := map[string]string{"A": "A1", "B": "B1", "X": "missing"}

	path := func(r matrixRoute, business string, f fixtures) string {
		segs := strings.Split(r.Path, "/")
		for i, s := range segs {
			if p, ok := strings.CutPrefix(s, ":"); ok {
				if p == "businessId" {
					segs[i] = business
				} else {
					segs[i] = url.PathEscape(f.ids[fixtureKind(r.Path, p)])
				}
			}
		}
		return strings.Join(segs, "/")
	}
	businessOf := map[string]string{"A": bizA, "B": bizB, "X": unknownBiz}

	var cells []*cell
	for _, r := range table {
		for _, m := range r.Methods {
			ct, b := body(r, m)
			for _, who := range principals {
				add := func(ids string, pathTenant string, f fixtures) {
					p := r.Path
					if r.has("business") || strings.Contains(r.Path, ":") {
						p = path(r, businessOf[pathTenant], f)
					}
					cells = append(cells, &cell{route: r, method: m, who: who, ids: ids,
						req:  mreq{method: m, path: p, token: who.token, contentType: ct, body: b},
						want: expected(r, who, pathTenant, f.tenant)})
				}
				if !r.has("business") && len(r.params()) == 0 {
					add("-", "", fixtures{})
					continue
				}
				if !r.has("business") {
					// Rows of a platform (webhook endpoints and their
					// deliveries): its own, the other's, none's; and, for a
					// nested row, the other's (or none's) under its own.
					for _, tenant := range []string{"A", "B", "X"} {
						f := sets[tenantSet[tenant]]
						if s, ok := own[who.name]; ok && who.tenant == tenant {
							f = sets[s]
						}
						add(f.name+" rows", "", f)
						if s, ok := own[who.name]; ok && who.tenant != tenant && len(r.params()) > 1 {
							mixed := fixtures{name: f.name, tenant: f.tenant, ids: maps.Clone(f.ids)}
							first := fixtureKind(r.Path, r.params()[0])
							mixed.ids[first] = sets[s].ids[first]
							add(f.name+" in "+s, "", mixed)
						}
					}
					continue
				}
				for _, tenant := range []string{"A", "B", "X"} {
					f := sets[tenantSet[tenant]]
					if s, ok := own[who.name]; ok && who.tenant == tenant {
						f = sets[s]
					}
					add(f.name+" under "+tenant, tenant, f)
					// The principal's own business addressing the others' rows.
					if who.tenant != "" && who.tenant != tenant && len(r.params()) > 0 {
						add(f.name+" under "+who.tenant, who.tenant, f)
					}
				}
			}
		}
	}

	// Refused cells first, around two snapshots of both tenants; then the
	// allowed ones: reads, writes, deletions last.
	var refused, allowed []*cell
	for _, c := range cells {
		if c.want != 0 {
			refused = append(refused, c)
		} else {
			allowed = append(allowed, c)
		}
	}
	before := stableSnapshot(t, table, sets, tokA, tokB, nil)
	runCells(refused, 8)
	stableSnapshot(t, table, sets, tokA, tokB, before)
	rank := map[string]int{http.MethodGet: 0, http.MethodPost: 1, http.MethodPut: 1, http.MethodPatch: 1, http.MethodDelete: 2}
	sort.SliceStable(allowed, func(i, j int) bool { return rank[allowed[i].method] < rank[allowed[j].method] })
	// One worker per principal: a principal's own writes keep their order.
	byWho := map[string][]*cell{}
	for _, c := range allowed {
		byWho[c.who.name] = append(byWho[c.who.name], c)
	}
	for _, list := range byWho {
		wg.Add(1)
		go func() { defer wg.Done(); runCells(list, 1) }()
	}
	wg.Wait()

	// A write whose body a service refuses before it reads the path's rows
	// answers the other tenant's ids (and missing ones) exactly as it
	// answers the owner's: that reveals nothing and changes nothing (the
	// snapshots agree), so it stands for the 404.
	ownCell := map[string]*cell{}
	for _, c := range cells {
		if c.want == 0 && strings.HasPrefix(c.ids, own[c.who.name]+" ") {
			ownCell[c.method+" "+c.route.Path+" "+c.who.name] = c
		}
	}
	sameAnswer := 0 // cells whose 404 stood in for by the owner's own validation answer
	for _, c := range cells {
		o := ownCell[c.method+" "+c.route.Path+" "+c.who.name]
		if c.byIDs() && o != nil && c.got.err == nil && c.got.status != c.want && c.got.status >= 400 && c.got.status < 500 &&
			c.got.status == o.got.status && c.got.json["error_enum"] != nil && c.got.json["error_enum"] == o.got.json["error_enum"] &&
			c.got.json["description"] == o.got.json["description"] {
			c.want, sameAnswer = c.got.status, sameAnswer+1
		}
	}

	var bad []string
	methods := 0
	for _, r := range table {
		methods += len(r.Methods)
	}
	for _, c := range cells {
		if msg := check(c); msg != "" {
			bad = append(bad, fmt.Sprintf("%-7s %-95s %-24s %-12s got %-4s want %-8s %s", c.method, c.route.Path, c.who.name, c.ids,
				fmt.Sprint(c.got.status), wantString(c.want), msg))
		}
	}
	t.Logf("tenancy matrix: %d routes, %d route-methods, %d cells (%d refused, %d allowed; %d refused the body before the ids, as for the owner) in %s (fixtures %s)",
		len(table), methods, len(cells), len(refused), len(allowed), sameAnswer, time.Since(start).Round(time.Millisecond), fixturesDone.Round(time.Millisecond))
	if len(bad) > 0 {
		sort.Strings(bad)
		t.Fatalf("%d unexpected cells:\n%-7s %-95s %-24s %-12s %-8s %-13s\n%s", len(bad), "METHOD", "ROUTE", "PRINCIPAL", "IDS", "GOT", "WANT", strings.Join(bad, "\n"))
	}
}

func wantString(want int) string {
	if want == 0 {
		return "allowed"
	}
	return fmt.Sprint(want)
}

// check returns why a cell's answer is unexpected ("" when it is not).
func check(c *cell) string {
	g := c.got
	if g.err != nil {
		return g.err.Error()
	}
	snippet := string(g.body)
	if len(snippet) > 160 {
		snippet = snippet[:160] + "…"
	}
	if c.want == 0 {
		switch {
		case g.status >= 500:
			return "server error: " + snippet
		case c.route.Auth == "public":
			return "" // e.g. /oauth2/token: 401 invalid_client without credentials, in OAuth's own format
		case g.status == 401, g.status == 403, g.status == 404:
			return "refused: " + snippet
		}
		return ""
	}
	if g.status != c.want {
		return snippet
	}
	typ, _ := g.json["type"].(string)
	desc, _ := g.json["description"].(string)
	enum, _ := g.json["error_enum"].(string)
	if typ == "" || desc == "" || (enum == "") != (g.status >= 500) {
		return "no error object (type, description, error_enum on a 4xx only): " + snippet
	}
	return ""
}

// runCells sends the cells with workers concurrent requests.
func runCells(cells []*cell, workers int) {
	ch := make(chan *cell)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range ch {
				c.got = send(c.req)
			}
		}()
	}
	for _, c := range cells {
		ch <- c
	}
	close(ch)
	wg.Wait()
}

// snapshot reads every GET route of the routing table for each fixture
// set with its tenant's platform token: each fixture and every listing of
// both tenants, the platform's own rows (webhook endpoints, their
// deliveries) included (not the export routes: each GET of those writes a
// new export document).
func snapshot(table []matrixRoute, sets map[string]fixtures, tokA, tokB string) map[string]string {
	type get struct{ key, path, token string }
	var gets []get
	for _, name := range []string{"A1", "A2", "B1", "B2"} {
		f := sets[name]
		tok := tokA
		if f.tenant == "B" {
			tok = tokB
		}
		for _, r := range table {
			platformRows := !r.has("business") && r.has("platform-only")
			if !slices.Contains(r.Methods, http.MethodGet) || !r.has("business") && !platformRows {
				continue
			}
			if strings.Contains(r.Path, "/exports/") {
				continue // each read makes a new export document
			}
			if len(r.params()) == 0 && name[1] == '2' {
				continue // the listings once per tenant
			}
			segs := strings.Split(r.Path, "/")
			for i, s := range segs {
				if p, ok := strings.CutPrefix(s, ":"); ok {
					if p == "businessId" {
						segs[i] = f.business
					} else {
						segs[i] = url.PathEscape(f.ids[fixtureKind(r.Path, p)])
					}
				}
			}
			gets = append(gets, get{name + " " + r.Path, strings.Join(segs, "/"), tok})
		}
	}
	out := make(map[string]string, len(gets))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for _, g := range gets {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := send(jsonReq(http.MethodGet, g.path, g.token, nil))
			mu.Lock()
			out[g.key] = fmt.Sprintf("%d %s", r.status, normalize(r.body))
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// normalize drops what changes between two reads of unchanged data: the
// signatures and expiries of pre-signed download URLs.
func normalize(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return string(body)
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		case string:
			if strings.HasPrefix(x, "http") && strings.Contains(x, "?") {
				return x[:strings.IndexByte(x, '?')]
			}
		}
		return v
	}
	b, _ := json.Marshal(walk(v))
	return string(b)
}

// stableSnapshot waits until two snapshots in a row agree (read models
// catch up with the fixtures' events) and, with want, until they agree
// with want; it fails the test with the differences otherwise.
func stableSnapshot(t *testing.T, table []matrixRoute, sets map[string]fixtures, tokA, tokB string, want map[string]string) map[string]string {
	t.Helper()
	waitQuiet(t)
	prev := snapshot(table, sets, tokA, tokB)
	deadline := time.Now().Add(45 * time.Second)
	for {
		time.Sleep(300 * time.Millisecond)
		cur := snapshot(table, sets, tokA, tokB)
		stable := equalSnapshots(prev, cur)
		if stable && (want == nil || equalSnapshots(cur, want)) {
			return cur
		}
		if time.Now().After(deadline) {
			ref := prev
			what := "the state never settled"
			if want != nil && stable {
				ref, what = want, "refused requests changed the state"
			}
			var diffs []string
			for k, v := range cur {
				if ref[k] != v {
					diffs = append(diffs, fmt.Sprintf("%s:\n  before %s\n  after  %s", k, ref[k], v))
				}
			}
			sort.Strings(diffs)
			t.Fatalf("%s:\n%s", what, strings.Join(diffs, "\n"))
		}
		prev = cur
	}
}

func equalSnapshots(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// waitQuiet waits until the suite's events have all been applied: no
// consumer has a lag and none applied anything for 1.5 s (documents reach
// the reports through several hops: a snapshot taken before could agree
// with the next one and still miss them).
func waitQuiet(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var last float64 = -1
	quietSince := time.Now()
	for time.Now().Before(deadline) {
		applied, lag, err := consumerTotals()
		switch {
		case err != nil || lag > 0 || applied != last:
			last, quietSince = applied, time.Now()
		case time.Since(quietSince) >= 1500*time.Millisecond:
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatal("the suite's consumers never went quiet within 90 s")
}

// consumerTotals sums consumer_events_applied_total and
// consumer_lag_messages over every service process.
func consumerTotals() (applied, lag float64, err error) {
	for name, base := range st.ProcURLs {
		if st.IsReceiver(name) {
			continue
		}
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			return 0, 0, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return 0, 0, err
		}
		for _, line := range strings.Split(string(body), "\n") {
			var target *float64
			switch {
			case strings.HasPrefix(line, "consumer_events_applied_total{"):
				target = &applied
			case strings.HasPrefix(line, "consumer_lag_messages{"):
				target = &lag
			default:
				continue
			}
			if i := strings.LastIndexByte(line, ' '); i > 0 {
				var v float64
				if _, err := fmt.Sscan(line[i+1:], &v); err == nil {
					*target += v
				}
			}
		}
	}
	return applied, lag, nil
}
