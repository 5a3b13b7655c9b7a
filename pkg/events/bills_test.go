package events_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
)

// TestReceiptParsedJSONFieldNames pins the receipt.parsed payload: the
// webhooks service decodes these names, nullable ones present as null.
func TestReceiptParsedJSONFieldNames(t *testing.T) {
	if events.TypeReceiptParsed != "receipt.parsed" {
		t.Errorf("TypeReceiptParsed = %q", events.TypeReceiptParsed)
	}
	bid := uuid.Must(uuid.NewV7())
	e, err := events.New(events.TopicBills, events.TypeReceiptParsed, "acct/bills-tags", bid, events.ReceiptParsed{
		ReceiptID: uuid.Must(uuid.NewV7()), BusinessID: bid, Status: "FAILED", FileType: "png",
		CreatedAt: time.Date(2026, 3, 14, 9, 26, 53, 589000, time.UTC),
	})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(e.Data, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{ // key: nullable
		"receipt_id": false, "business_id": false, "status": false, "failure_reason": true, "file_name": true,
		"file_type": false, "proposed_amount_cents": true, "proposed_vendor_display": true, "matched_vendor_id": true,
		"created_at": false,
	}
	for k, null := range want {
		v, ok := m[k]
		if !ok {
			t.Errorf("payload lacks %q", k)
		} else if null != (v == nil) {
			t.Errorf("%s = %v", k, v)
		}
	}
	if len(m) != len(want) {
		t.Errorf("payload has %d fields, want %d: %v", len(m), len(want), m)
	}
	if _, ok := m["external_id"]; ok {
		t.Error("receipts have no external id")
	}
	var back events.ReceiptParsed
	if err := e.Decode(&back); err != nil || back.BusinessID != bid || !back.CreatedAt.Equal(time.Date(2026, 3, 14, 9, 26, 53, 589000, time.UTC)) {
		t.Fatalf("decoded %+v, %v", back, err)
	}
}
