package contractfuzz

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acctsuite/acct/tools/internal/stack"
)

func envInt(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n
		}
	}
	return def
}

// runner sends requests through the gateway on keep-alive connections.
type runner struct {
	base   string
	client *http.Client
	creds  *creds
}

func newRunner(base string, workers int) *runner {
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        workers * 2,
		MaxIdleConnsPerHost: workers * 2,
		IdleConnTimeout:     90 * time.Second,
	}
	return &runner{base: base, client: &http.Client{Transport: tr, Timeout: 60 * time.Second}}
}

func (r *runner) newRequest(fr *fuzzReq) (*http.Request, error) {
	req, err := http.NewRequest(fr.method, r.base+fr.target, bytes.NewReader(fr.body))
	if err != nil {
		return nil, err
	}
	for k, v := range fr.header {
		if v != "" || k != "Content-Type" {
			req.Header.Set(k, v)
		}
	}
	switch fr.auth {
	case "platform":
		req.Header.Set("Authorization", "Bearer "+r.creds.platform)
	case "business":
		req.Header.Set("Authorization", "Bearer "+r.creds.business)
	case "other-business":
		req.Header.Set("Authorization", "Bearer "+r.creds.otherBusiness)
	case "garbage":
		req.Header.Set("Authorization", "Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln")
	case "basic", "basic-wrong":
		req.SetBasicAuth(fr.basicID, fr.basicSec)
	}
	return req, nil
}

// send performs one request and checks its answer.
func (r *runner) send(fr *fuzzReq, c *checker, p *pools) (int, []byte) {
	req, err := r.newRequest(fr)
	if err != nil {
		c.record(fr, 0, [][2]string{{"request not sendable", err.Error()}}, fr.body, nil)
		return 0, nil
	}
	resp, err := r.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the reproducer already
		}
		c.record(fr, 0, [][2]string{{"transport error (connection dropped or timed out)", err.Error()}}, fr.body, nil)
		return 0, nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		c.record(fr, resp.StatusCode, [][2]string{{"transport error (body cut)", err.Error()}}, fr.body, nil)
		return resp.StatusCode, nil
	}
	vreq, _ := r.newRequest(fr)
	fails := c.check(fr, vreq, resp, body)
	c.record(fr, resp.StatusCode, fails, fr.body, body)
	if resp.StatusCode >= 200 && resp.StatusCode < 300 && fr.mainBiz && p != nil {
		m := fr.method
		last := fr.op.path[strings.LastIndex(fr.op.path, "/")+1:]
		if (m == http.MethodPost || m == http.MethodPut || m == http.MethodGet) && !strings.HasPrefix(last, "{") {
			p.harvest(fr.op.path, body)
		}
	}
	return resp.StatusCode, body
}

// fixture sends one hand-written valid request (checked like any other)
// and returns the answer's data.
func (r *runner) fixture(t *testing.T, c *checker, ops map[string]*operation, p *pools, method, tmpl, path, auth string, body any) (int, map[string]any) {
	t.Helper()
	op := ops[method+" "+tmpl]
	if op == nil {
		t.Fatalf("fixture: %s %s is not in the document", method, tmpl)
	}
	fr := &fuzzReq{op: op, method: method, target: path, header: map[string]string{}, auth: auth, mainBiz: strings.Contains(path, p.main), label: "fixture"}
	if body != nil {
		fr.body, _ = json.Marshal(body)
		fr.header["Content-Type"] = "application/json"
	}
	status, raw := r.send(fr, c, p)
	var env map[string]any
	_ = json.Unmarshal(raw, &env)
	data, _ := env["data"].(map[string]any)
	if data == nil {
		data = env
	}
	return status, data
}

func TestContractFuzz(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("CONTRACT_FUZZ_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CONTRACT_FUZZ_SEED=%q: %v", v, err)
		}
		seed = s
	}
	total := envInt("CONTRACT_FUZZ_REQUESTS", 100000)
	workers := envInt("CONTRACT_FUZZ_WORKERS", 24)
	t.Logf("contract fuzz: seed %d (replay with CONTRACT_FUZZ_SEED=%d), %d requests, %d workers", seed, seed, total, workers)

	raw, err := fetchDocument(st.GatewayURL)
	if err != nil {
		t.Fatal(err)
	}
	doc, ops, err := loadOperations(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newChecker(doc)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]*operation{}
	for _, o := range ops {
		byKey[o.key()] = o
	}
	selfCheck(t, c, byKey)

	// Every process's identity before: none may restart or exit.
	names := append(append([]string{"broker"}, stack.ServiceNames()...), "gateway")
	pids := map[string]int{}
	for _, n := range names {
		p := st.Proc(n)
		if p == nil {
			t.Fatalf("no process %s in the stack", n)
		}
		pids[n] = p.Pid()
	}

	loadReceipts(t)
	r := newRunner(st.GatewayURL, workers)
	cr, p := setupFixtures(t, r, c, byKey, ops)
	r.creds = cr

	// Warm-up: valid creates fill the pools with objects of every kind
	// before the run (not counted in the total).
	for round := 0; round < 6; round++ {
		for k, o := range ops {
			last := o.path[strings.LastIndex(o.path, "/")+1:]
			if o.method != http.MethodPost || strings.HasPrefix(last, "{") || o.public || o.basic {
				continue
			}
			fr := build(seed^0x5eed, -(round*len(ops) + k + 1), o, p, cr)
			fr.label, fr.auth = "warm-up", "platform"
			r.send(fr, c, p)
		}
	}

	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= total {
					return
				}
				op := ops[i%len(ops)]
				r.send(build(seed, i, op, p, cr), c, p)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	for _, n := range names {
		proc := st.Proc(n)
		if proc.Exited() {
			t.Errorf("process %s exited during the run", n)
		} else if proc.Pid() != pids[n] {
			t.Errorf("process %s restarted during the run (pid %d → %d)", n, pids[n], proc.Pid())
		}
	}

	var hist []string
	c.mu.Lock()
	codes := make([]int, 0, len(c.statuses))
	for s := range c.statuses {
		codes = append(codes, s)
	}
	sort.Ints(codes)
	for _, s := range codes {
		hist = append(hist, fmt.Sprintf("%d×%d", s, c.statuses[s]))
	}
	var shallow []string
	for _, o := range ops {
		if c.reached[o.key()] == 0 {
			shallow = append(shallow, o.key())
			if why := c.refusal[o.key()]; why != "" && testing.Verbose() {
				t.Logf("  %s: a valid request was answered %s", o.key(), why)
			}
		}
	}
	c.mu.Unlock()
	t.Logf("contract fuzz: %d requests over %d operations in %s = %.0f requests/s (seed %d)", total, len(ops), elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds(), seed)
	t.Logf("statuses: %s", strings.Join(hist, " "))
	if len(shallow) > 0 {
		t.Logf("operations without any 2xx answer (%d): %s", len(shallow), strings.Join(shallow, ", "))
	}
	if rep, n := c.report(); n > 0 {
		t.Errorf("contract violations: %d answers in %d groups (seed %d; replay with CONTRACT_FUZZ_SEED=%d)%s", n, len(c.groups), seed, seed, rep)
	}
}

// setupFixtures creates the businesses, tokens and a first set of real
// objects of every kind (bodies as in tools/stacktest) through the gateway.
func setupFixtures(t *testing.T, r *runner, c *checker, ops map[string]*operation, all []*operation) (*creds, *pools) {
	t.Helper()
	cr := &creds{clientID: clientID, clientSecret: clientSecret}
	cr.platform = oauthToken(t, r.base)
	r.creds = cr
	tmp := &pools{byColl: map[string][]string{}, next: map[string]int{}, bySingular: map[string][]string{}}
	mk := func(ext string) string {
		status, d := r.fixture(t, c, ops, tmp, http.MethodPost, "/v1/businesses", "/v1/businesses", "platform", map[string]any{
			"legal_name": "Fuzz " + ext, "external_id": ext, "country": "US", "us_state": "CA",
			"entity_type": "LLC", "default_reporting_basis": "ACCRUAL", "activation_at": "2026-01-01",
		})
		id, _ := d["id"].(string)
		if status != http.StatusCreated || id == "" {
			t.Fatalf("create business: %d %v", status, d)
		}
		return id
	}
	stamp := time.Now().Format("150405.000000")
	main, other := mk("fuzz-main-"+stamp), mk("fuzz-other-"+stamp)
	p := newPools(all, main)
	p.add("/v1/businesses", other)
	tok := func(bid string) string {
		status, d := r.fixture(t, c, ops, p, http.MethodPost, "/v1/businesses/{businessId}/auth-token", "/v1/businesses/"+bid+"/auth-token", "platform", map[string]any{"session_duration": 3600})
		s, _ := d["access_token"].(string)
		if s == "" || status >= 300 {
			t.Fatalf("business token: %d %v", status, d)
		}
		return s
	}
	cr.business, cr.otherBusiness = tok(main), tok(other)

	b := "/v1/businesses/" + main
	T := "/v1/businesses/{businessId}"
	post := func(tmpl, path string, body any, want int) map[string]any {
		t.Helper()
		status, d := r.fixture(t, c, ops, p, http.MethodPost, T+tmpl, b+path, "platform", body)
		if status != want {
			t.Fatalf("fixture POST %s: %d %v", path, status, d)
		}
		return d
	}
	// The business reaches every service through the broker: wait for the
	// slowest ones (transactions, mileage, bills-tags, customers-invoices).
	var acct map[string]any
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		s1, d := r.fixture(t, c, ops, p, http.MethodPost, T+"/custom-accounts", b+"/custom-accounts", "platform", map[string]any{
			"account_name": "Operating", "institution_name": "Test Bank", "mask": "1234",
			"account_type": "DEPOSITORY", "account_subtype": "CHECKING", "external_id": "op-1"})
		s2, _ := r.fixture(t, c, ops, p, http.MethodGet, T+"/tags/dimensions", b+"/tags/dimensions", "platform", nil)
		s3, _ := r.fixture(t, c, ops, p, http.MethodGet, T+"/mileage/vehicles", b+"/mileage/vehicles", "platform", nil)
		s4, _ := r.fixture(t, c, ops, p, http.MethodGet, T+"/customers", b+"/customers", "platform", nil)
		s5, _ := r.fixture(t, c, ops, p, http.MethodGet, T+"/reports/profit-and-loss", b+"/reports/profit-and-loss?start_date=2026-01-01&end_date=2026-12-31", "platform", nil)
		if s1 == http.StatusCreated && s2 == 200 && s3 == 200 && s4 == 200 && s5 == 200 {
			acct = d
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the business never reached every service: %d %d %d %d %d", s1, s2, s3, s4, s5)
		}
	}
	acctID, _ := acct["id"].(string)
	txns := []map[string]any{}
	for i := 0; i < 6; i++ {
		txns = append(txns, map[string]any{"external_id": fmt.Sprintf("t-%d", i), "amount": 1000 + i*250, "direction": []string{"DEBIT", "CREDIT"}[i%2],
			"date": fmt.Sprintf("2026-02-%02d", 3+i), "description": "Fixture " + strconv.Itoa(i), "counterparty_name": "Cafe Nero"})
	}
	post("/custom-accounts/{customAccountId}/transactions", "/custom-accounts/"+acctID+"/transactions", map[string]any{"transactions": txns}, http.StatusCreated)
	stable := func(name string) map[string]any { return map[string]any{"type": "StableName", "stable_name": name} }
	post("/ledger/journal-entries", "/ledger/journal-entries", map[string]any{
		"entry_at": "2026-03-01T00:00:00Z", "tags": []map[string]any{{"key": "dept", "value": "east"}},
		"line_items": []map[string]any{
			{"account_identifier": stable("CASH"), "amount": 125000, "direction": "DEBIT"},
			{"account_identifier": stable("OPENING_BALANCE_EQUITY"), "amount": 125000, "direction": "CREDIT"},
		}}, http.StatusCreated)
	var customers []string
	for i := 0; i < 3; i++ {
		d := post("/customers", "/customers", map[string]any{"external_id": fmt.Sprintf("c-%d", i), "company_name": fmt.Sprintf("Hooli %d", i),
			"email": "ann@acme.example", "tags": []map[string]any{{"key": "region", "value": "west"}}}, http.StatusCreated)
		id, _ := d["id"].(string)
		customers = append(customers, id)
	}
	var invoices []string
	for i := 0; i < 4; i++ {
		d := post("/invoices", "/invoices", map[string]any{"external_id": fmt.Sprintf("inv-%d", i), "sent_at": "2026-03-01T10:00:00Z",
			"customer_id": customers[i%len(customers)], "tags": []map[string]any{{"key": "dept", "value": "east"}},
			"line_items": []map[string]any{{"product": "Service", "unit_price": 10000 + i*100, "quantity": "1",
				"sales_taxes": []map[string]any{{"tax_account": map[string]any{"type": "Tax_Name", "name": "STATE"}, "amount": 100}}}}}, http.StatusCreated)
		id, _ := d["id"].(string)
		invoices = append(invoices, id)
	}
	post("/invoices/payments", "/invoices/payments", map[string]any{"paid_at": "2026-03-10T00:00:00Z", "method": "ACH", "amount": 5000,
		"invoice_payments": []map[string]any{{"invoice_id": invoices[0], "amount": 5000}}}, http.StatusCreated)
	post("/invoices/{invoiceId}/write-off", "/invoices/"+invoices[1]+"/write-off", map[string]any{"amount": 1000, "write_off_at": "2026-03-12T00:00:00Z"}, http.StatusCreated)
	var bills []string
	for i := 0; i < 3; i++ {
		d := post("/bills", "/bills", map[string]any{
			"external_id": fmt.Sprintf("bill-%d", i), "bill_number": fmt.Sprintf("A-%d", 100+i), "received_at": "2026-03-03T00:00:00Z", "bill_terms": "NET_30",
			"vendor_external_id": fmt.Sprintf("vendor-%d", i),
			"line_items": []map[string]any{
				{"product_name": "Rent", "unit_price": 150000, "quantity": "1", "account_identifier": stable("RENT")},
				{"product_name": "Power", "unit_price": 12000, "quantity": "2", "account_identifier": stable("UTILITIES"),
					"tags": []map[string]any{{"key": "site", "value": "north"}}},
			}}, http.StatusCreated)
		id, _ := d["id"].(string)
		bills = append(bills, id)
		if v, ok := d["vendor"].(map[string]any); ok {
			vid, _ := v["id"].(string)
			p.add(T+"/vendors", vid)
		}
		if vid, ok := d["vendor_id"].(string); ok {
			p.add(T+"/vendors", vid)
		}
	}
	post("/bills/bill-payments", "/bills/bill-payments", map[string]any{
		"paid_at": "2026-03-20T12:00:00Z", "method": "ACH", "amount": 8700, "external_id": "pay-1",
		"bill_payment_allocations": []map[string]any{{"bill_id": bills[0], "amount": 8700}}}, http.StatusCreated)
	var vehicles []string
	for _, name := range []string{"Van", "Sedan"} {
		d := post("/mileage/vehicles", "/mileage/vehicles", map[string]any{"make_and_model": name, "year": 2021, "external_id": "fz-" + name}, http.StatusCreated)
		id, _ := d["id"].(string)
		vehicles = append(vehicles, id)
	}
	post("/mileage/trips/bulk", "/mileage/trips/bulk", map[string]any{"trips": []map[string]any{
		{"vehicle_id": vehicles[0], "trip_date": "2026-02-10", "purpose": "BUSINESS", "distance": "100.25"},
		{"vehicle_id": vehicles[1], "trip_date": "2026-02-11", "purpose": "PERSONAL", "distance": "8.2"},
		{"vehicle_id": vehicles[0], "trip_date": "2026-02-12", "distance": "0.2"},
	}}, http.StatusCreated)
	post("/ledger/accounts", "/ledger/accounts", map[string]any{"name": "Fuzz supplies", "account_type": "EXPENSE", "stable_name": "FUZZ_SUPPLIES"}, http.StatusCreated)
	post("/ledger/accounts", "/ledger/accounts", map[string]any{"name": "Fuzz deposits", "account_type": "ASSET", "account_number": "1999"}, http.StatusCreated)
	post("/tags", "/tags", map[string]any{"key_values": []map[string]any{{"key": "trip", "value": "berlin"}},
		"entity_ids": p.get(T + "/bank-transactions")[:1], "entity_type": "BANK_TRANSACTION"}, http.StatusOK)
	// Lists fill the pools with what the fixtures created on the side
	// (vendors, tag dimensions, ledger accounts).
	for _, l := range []string{"/vendors", "/tags/dimensions", "/ledger/accounts", "/customers", "/invoices", "/bills", "/invoices/payments", "/bills/bill-payments", "/mileage/trips"} {
		if ops[http.MethodGet+" "+T+l] != nil {
			r.fixture(t, c, ops, p, http.MethodGet, T+l, b+l, "platform", nil)
		}
	}
	return cr, p
}

func oauthToken(t *testing.T, base string) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "scope": {"x"}}
	req, _ := http.NewRequest(http.MethodPost, base+"/oauth2/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(clientID, clientSecret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	tok, _ := m["access_token"].(string)
	if tok == "" {
		t.Fatalf("token: %d %v", resp.StatusCode, m)
	}
	return tok
}

// selfCheck proves the checker catches what it must before trusting its
// silence: an undocumented status, a body off its schema, an error
// without the error object.
func selfCheck(t *testing.T, c *checker, ops map[string]*operation) {
	t.Helper()
	op := ops["GET /whoami"]
	if op == nil {
		t.Fatal("GET /whoami is not in the document")
	}
	fr := &fuzzReq{op: op, method: http.MethodGet, target: "/whoami", header: map[string]string{}}
	req, _ := http.NewRequest(http.MethodGet, "http://x/whoami", nil)
	for _, tc := range []struct {
		status int
		body   string
		want   string
	}{
		{http.StatusTeapot, `{"type":"Teapot","description":"short and stout"}`, "undocumented status 418"},
		{http.StatusOK, `{"type":"whoami","unexpected":true}`, "response body does not match the schema"},
		{http.StatusUnauthorized, `{"message":"no"}`, "error without the error object"},
		{http.StatusBadGateway, `{"type":"BadGateway","description":"upstream"}`, "5xx (502)"},
	} {
		resp := &http.Response{StatusCode: tc.status, Header: http.Header{"Content-Type": {"application/json"}}}
		found := false
		for _, f := range c.check(fr, req, resp, []byte(tc.body)) {
			found = found || f[0] == tc.want
		}
		if !found {
			t.Fatalf("checker self-check: %d %s not reported as %q", tc.status, tc.body, tc.want)
		}
	}
}

// loadReceipts reads the small text PDFs of pkg/receipts' corpus.
func loadReceipts(t *testing.T) {
	t.Helper()
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "pkg", "receipts", "testdata", "corpus", "*.pdf"))
	receiptPDFs = nil
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && len(b) < 8<<10 {
			receiptPDFs = append(receiptPDFs, b)
		}
	}
	if len(receiptPDFs) == 0 {
		t.Fatal("no text PDF receipt in pkg/receipts/testdata/corpus")
	}
}
