package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// billsScenario: a vendor, a bill with two lines, a partial
// payment tagged through the spec's endpoint, a vendor credit applied to
// the bill, a receipt (a fixture image, read by OCR in the container)
// imported and turned into a bill; then the ledger's A/P equals the open
// balances of the bills.
func billsScenario(t *testing.T, api *apiClient, platform string) {
	biz := createBusiness(t, api, platform, newBusiness(t, "E2E Bills LLC"))
	base := "/v1/businesses/" + biz
	api.eventually(t, http.StatusOK, time.Minute, request{Method: http.MethodGet, Path: base + "/ledger/chart", Token: platform})
	api.eventually(t, http.StatusOK, time.Minute, request{Method: http.MethodGet, Path: base + "/vendors", Token: platform})
	office := map[string]any{"type": "StableName", "stable_name": "OFFICE_EXPENSES"}

	vendor := api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/vendors", Token: platform, JSON: map[string]any{
		"external_id": "e2e-vendor-1", "company_name": "Acme Supply",
	}}).Data(t)["id"].(string)
	bill := api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/bills", Token: platform, JSON: map[string]any{
		"external_id": "e2e-bill-1", "vendor_id": vendor, "received_at": "2026-05-01T00:00:00Z", "bill_terms": "NET_30",
		"line_items": []map[string]any{
			{"product_name": "Paper", "unit_price": 30000, "quantity": "1", "account_identifier": office},
			{"product_name": "Toner", "unit_price": 20000, "quantity": "2", "account_identifier": office},
		},
	}}).Data(t)
	billID := bill["id"].(string)
	if bill["total_amount"] != 70000.0 || bill["status"] != "RECEIVED" {
		t.Fatalf("bill = %v", bill)
	}

	pay := api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/bills/bill-payments", Token: platform, JSON: map[string]any{
		"paid_at": "2026-05-10T12:00:00Z", "method": "ACH", "amount": 30000,
		"bill_payment_allocations": []map[string]any{{"bill_id": billID, "amount": 30000}},
	}}).Data(t)
	tagged := api.expect(t, http.StatusOK, request{Method: http.MethodPost, Path: base + "/bills/bill-payments/tags", Token: platform, JSON: map[string]any{
		"key_values": []map[string]any{{"key": "project", "value": "apollo"}}, "transaction_ids": []string{pay["id"].(string)},
	}}).JSON(t)
	if ts, _ := tagged["tags"].([]any); len(ts) != 1 || tagged["data"] != nil {
		t.Fatalf("payment tags answer (no data wrapper) = %v", tagged)
	}

	api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/bills/vendor-credits", Token: platform, JSON: map[string]any{
		"vendor_id": vendor, "received_at": "2026-05-12T00:00:00Z",
		"line_items":  []map[string]any{{"amount": 5000, "expense_account_identifier": office}},
		"allocations": []map[string]any{{"bill_id": billID, "amount": 5000}},
	}})
	got := api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base + "/bills/" + billID, Token: platform}).Data(t)
	if got["outstanding_balance"] != 35000.0 || got["status"] != "PARTIALLY_PAID" {
		t.Fatalf("after the payment and the credit: %v", got)
	}

	// A receipt image, read by Tesseract in the service's container.
	dir := filepath.Join("..", "pkg", "receipts", "testdata", "corpus")
	img, err := os.ReadFile(filepath.Join(dir, "r02.png"))
	if err != nil {
		t.Fatal(err)
	}
	var truth struct {
		TotalCents int64 `json:"total_cents"`
	}
	if raw, err := os.ReadFile(filepath.Join(dir, "r02.json")); err != nil || json.Unmarshal(raw, &truth) != nil {
		t.Fatalf("ground truth: %v", err)
	}
	receipt := importReceipt(t, api, platform, base, "r02.png", img)
	if receipt["status"] != "READY_FOR_BILL" || receipt["proposed_amount_cents"] != float64(truth.TotalCents) {
		t.Fatalf("receipt = %v, want READY_FOR_BILL for %d cents", receipt, truth.TotalCents)
	}
	fromReceipt := api.expect(t, http.StatusOK, request{Method: http.MethodPost, Token: platform,
		Path: base + "/receipts/" + receipt["business_document_id"].(string) + "/create-bill", JSON: map[string]any{}}).Data(t)
	if fromReceipt["status"] != "BILL_CREATED" || fromReceipt["bill_id"] == nil {
		t.Fatalf("create-bill = %v", fromReceipt)
	}
	receiptBill := api.expect(t, http.StatusOK, request{Method: http.MethodGet, Token: platform,
		Path: base + "/bills/" + fromReceipt["bill_id"].(string)}).Data(t)
	if receiptBill["total_amount"] != float64(truth.TotalCents) {
		t.Fatalf("the receipt's bill = %v", receiptBill)
	}

	// A/P in the ledger equals what the open bills owe.
	var open float64
	for _, b := range api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base + "/bills?limit=100", Token: platform}).JSON(t)["data"].([]any) {
		open += b.(map[string]any)["outstanding_balance"].(float64)
	}
	if open != 35000+float64(truth.TotalCents) {
		t.Fatalf("open balances %v", open)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		nodes := api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base + "/ledger/balances", Token: platform}).Data(t)["accounts"].([]any)
		if hasBalance(nodes, "ACCOUNTS_PAYABLE", open) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ledger's A/P never equalled the open balances %v: %v", open, nodes)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// importReceipt posts one file to POST .../receipts/import as multipart
// and returns the one receipt of the answer.
func importReceipt(t *testing.T, api *apiClient, token, base, name string, data []byte) map[string]any {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, err := w.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteField("context", "e2e receipt"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, api.base+base+"/receipts/import", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := (&http.Client{Timeout: 90 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("receipt import: %v", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("receipt import: %d %s", resp.StatusCode, raw)
	}
	var out struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Data) != 1 {
		t.Fatalf("receipt import answer %s: %v", raw, err)
	}
	return out.Data[0]
}
