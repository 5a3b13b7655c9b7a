package receipt

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

func TestNormalizeName(t *testing.T) {
	for in, want := range map[string]string{
		"JOE'S  DINER, Inc.": "joes diner",
		"Acme Co":            "acme",
		"  Café #12 ":        "café 12",
		"Co":                 "co",
		"Desk & Ink":         "desk and ink",
		"":                   "",
	} {
		if got := NormalizeName(in); got != want {
			t.Errorf("NormalizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatchVendor(t *testing.T) {
	a, b, c := uuid.New(), uuid.New(), uuid.New()
	vs := []VendorName{{ID: a, Name: "Sunrise Bakery"}, {ID: b, Name: "Office Depot Inc."}, {ID: c, Name: "Cafe"}}
	for proposed, want := range map[string]uuid.UUID{
		"SUNRISE BAKERY":        a,
		"Sunrlse Bakery":        a, // an OCR slip
		"Sunrise Bakery #1207":  a, // the store number after the name
		"office depot":          b,
		"CAFE":                  c, // short: exact
		"Cafe Nero":             uuid.Nil,
		"Moonset Grocery":       uuid.Nil,
		"Sunset Bakery and Bar": uuid.Nil,
		"":                      uuid.Nil,
	} {
		got, ok := MatchVendor(proposed, vs)
		if want == uuid.Nil {
			if ok {
				t.Errorf("%q matched %q", proposed, got.Name)
			}
			continue
		}
		if !ok || got.ID != want {
			t.Errorf("%q matched %v (%v), want %v", proposed, got.Name, ok, want)
		}
	}
	// The closest wins.
	got, _ := MatchVendor("Sunrise Bakery", []VendorName{{ID: b, Name: "Sunrise Bakery Co2"}, {ID: a, Name: "Sunrise Bakery"}})
	if got.ID != a {
		t.Fatalf("matched %v", got)
	}
}

func TestKeywordAccount(t *testing.T) {
	for text, want := range map[string]string{
		"Unleaded fuel":           "TRAVEL",
		"GAS PUMP 4":              "TRAVEL",
		"Copy paper 500 sheets":   "OFFICE_EXPENSES",
		"Paper roll":              "OFFICE_EXPENSES",
		"Cinnamon Roll":           "MEALS",
		"Lunch special":           "MEALS",
		"Joe's Restaurant":        "MEALS",
		"Annual software licence": "SOFTWARE",
		"Toner cartridges":        "OFFICE_EXPENSES",
		"Widget":                  "",
	} {
		got, ok := KeywordAccount(text)
		if got != want || ok != (want != "") {
			t.Errorf("KeywordAccount(%q) = %q, %v; want %q", text, got, ok, want)
		}
	}
}

func TestProposeAccount(t *testing.T) {
	id := uuid.New()
	hist := bill.AccountRef{ID: &id}
	if got := ProposeAccount(&hist, "Unleaded fuel", "Shell"); got == nil || got.ID == nil || *got.ID != id {
		t.Fatalf("history first: %+v", got)
	}
	if got := ProposeAccount(nil, "Unleaded fuel", ""); got == nil || got.StableName != "TRAVEL" {
		t.Fatalf("keywords: %+v", got)
	}
	if got := ProposeAccount(nil, "Item 4", "Blue Bottle Coffee"); got == nil || got.StableName != "MEALS" {
		t.Fatalf("vendor name: %+v", got)
	}
	if got := ProposeAccount(nil, "Item 4", "Acme"); got != nil {
		t.Fatalf("nothing: %+v", got)
	}
}

func TestChartAccountOf(t *testing.T) {
	bid := uuid.New()
	id := AccountID(bid, bill.StableName("MEALS"))
	a, ok := ChartAccountOf(bid, bill.AccountRef{ID: &id})
	if !ok || a.StableName != "MEALS" || a.Name != "Meals" {
		t.Fatalf("by id: %+v %v", a, ok)
	}
	if _, ok := ChartAccountOf(uuid.New(), bill.AccountRef{ID: &id}); ok {
		t.Fatal("another business's default id matched")
	}
}

func enumOf(err error) string {
	var e *apperr.Error
	if errors.As(err, &e) {
		return e.Enum
	}
	return ""
}

func TestMoves(t *testing.T) {
	now := time.Now().UTC()
	r := Receipt{Status: ReadyForBill}
	if err := r.CheckCreateBill(); err != nil {
		t.Fatal(err)
	}
	withBill := r.WithBill(uuid.New(), now)
	if withBill.Status != BillCreated || withBill.BillID == nil {
		t.Fatalf("%+v", withBill)
	}
	if err := withBill.CheckCreateBill(); enumOf(err) != EnumBillAlreadyCreated {
		t.Fatalf("create twice: %v", err)
	}
	if _, _, err := withBill.Reject(now); enumOf(err) != EnumBillAlreadyCreated || apperr.From(err).Status() != 409 {
		t.Fatalf("reject after bill: %v", err)
	}
	rej, changed, err := r.Reject(now)
	if err != nil || !changed || rej.Status != Rejected || rej.RejectedAt == nil {
		t.Fatalf("reject: %+v %v %v", rej, changed, err)
	}
	if _, changed, err := rej.Reject(now.Add(time.Hour)); err != nil || changed {
		t.Fatalf("reject again: %v %v", changed, err)
	}
	if err := rej.CheckCreateBill(); enumOf(err) != EnumReceiptRejected {
		t.Fatalf("bill after reject: %v", err)
	}
	if err := (Receipt{Status: Failed}).CheckCreateBill(); enumOf(err) != EnumReceiptNotReady {
		t.Fatalf("bill of a failed receipt: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

// billOf builds the bill body and reads it back as POST /bills would.
func billOf(t *testing.T, r Receipt, body string) (bill.Input, error) {
	t.Helper()
	o, err := ParseOverrides([]byte(body))
	if err != nil {
		return bill.Input{}, err
	}
	vid := uuid.New()
	raw, err := r.BillBody(o, &vid)
	if err != nil {
		return bill.Input{}, err
	}
	return bill.ParseInput(raw)
}

func totalOf(t *testing.T, in bill.Input) int64 {
	t.Helper()
	c, err := bill.Compute(in.Lines, in.Additional, uuid.New)
	if err != nil {
		t.Fatal(err)
	}
	return int64(c.Totals.Total)
}

func TestBillBody(t *testing.T) {
	paid := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	meals := bill.StableName("MEALS")
	r := Receipt{
		VendorDisplay: ptr("Joe's Diner"), PaidAt: &paid, AmountCents: ptr(int64(1500)), Context: ptr("team lunch"),
		LineItems: []LineItem{{Description: "Burger", AmountCents: 900, Account: &meals}, {Description: "Fries", AmountCents: 400}},
		CreatedAt: paid.Add(48 * time.Hour),
	}
	in, err := billOf(t, r, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Lines) != 3 || totalOf(t, in) != 1500 || !in.ReceivedAt.Equal(paid) || *in.Memo != "team lunch" || in.VendorID == nil {
		t.Fatalf("proposed bill: %+v", in)
	}
	if in.Lines[2].Account.StableName != "MEALS" || *in.Lines[2].Description != OtherChargesDescription {
		t.Fatalf("the rest line: %+v", in.Lines[2])
	}

	// More items than total: discounts from the last line.
	over := r
	over.AmountCents = ptr(int64(1000))
	in, err = billOf(t, over, "")
	if err != nil || len(in.Lines) != 2 || totalOf(t, in) != 1000 {
		t.Fatalf("excess: %+v %v", in, err)
	}

	// No items: one line of the total.
	none := r
	none.LineItems = nil
	in, err = billOf(t, none, "")
	if err != nil || len(in.Lines) != 1 || totalOf(t, in) != 1500 || in.Lines[0].Account.StableName != "MEALS" {
		t.Fatalf("total only: %+v %v", in, err)
	}

	// Overrides: accounts of the proposed lines, a new line, the date.
	in, err = billOf(t, r, `{"received_at": "2026-03-20T00:00:00Z", "bill_number": "R-1",
		"line_items": [{"account_identifier": {"type": "StableName", "stable_name": "TRAVEL"}}, {}, {"description": "Tip", "amount": 300}]}`)
	if err != nil || len(in.Lines) != 3 || in.Lines[0].Account.StableName != "TRAVEL" || totalOf(t, in) != 1600 ||
		in.ReceivedAt.Day() != 20 || *in.BillNumber != "R-1" {
		t.Fatalf("overrides: %+v %v", in, err)
	}

	for name, body := range map[string]string{
		"unknown property":   `{"total": 5}`,
		"not an object":      `[1]`,
		"bad line amount":    `{"line_items": [{"amount": -1}]}`,
		"new line no amount": `{"line_items": [{}, {}, {"description": "x"}]}`,
		"empty lines":        `{"line_items": []}`,
	} {
		if _, err := billOf(t, r, body); enumOf(err) != EnumInvalidCreateBill {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := billOf(t, r, `{"bill_terms": "NET_7"}`); enumOf(err) != bill.EnumInvalidBill {
		t.Errorf("bad terms: %v", err)
	}
	nothing := Receipt{CreatedAt: paid}
	if _, err := billOf(t, nothing, ""); enumOf(err) != EnumInvalidCreateBill {
		t.Errorf("no amount: %v", err)
	}
	var o Overrides
	if o, _ = ParseOverrides([]byte(`{"vendor_external_id": "v-1"}`)); !o.VendorSet {
		t.Error("vendor_external_id not seen")
	}
	raw, _ := r.BillBody(o, nil)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	if m["vendor_external_id"] != "v-1" || m["vendor_id"] != nil {
		t.Errorf("vendor override: %v", m)
	}
}

func TestParseFilter(t *testing.T) {
	f, err := ParseFilter(map[string][]string{"status": {"FAILED,READY_FOR_BILL", "FAILED"}})
	if err != nil || len(f.Statuses) != 2 || f.Fingerprint() != "status=FAILED,READY_FOR_BILL" {
		t.Fatalf("%+v %v", f, err)
	}
	if _, err := ParseFilter(map[string][]string{"status": {"DONE"}}); enumOf(err) != EnumInvalidFilter {
		t.Fatal(err)
	}
}
