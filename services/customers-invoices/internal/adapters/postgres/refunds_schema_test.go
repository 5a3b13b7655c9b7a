package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/testkit"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// TestSchemaGuardsRefundsAndDrafts: the database refuses a refund above
// what was paid, a draft that owes something, and an unknown status; a
// refund written and read back is the same.
func TestSchemaGuardsRefundsAndDrafts(t *testing.T) {
	db := testkit.DB(t, "invoicing", Migrations)
	ctx := context.Background()
	s := New(db)
	now := time.Now().UTC().Truncate(time.Microsecond)
	bid := uuid.New()
	inv, err := invoice.New(bid, uuid.Must(uuid.NewV7()), invoice.Input{SentAt: &now, Draft: invoice.Draft{Lines: []invoice.LineInput{
		{Product: ptr("x"), UnitPrice: 5000, Quantity: money.QuantityFromScaled(1_000_000)}}}}, now, func() uuid.UUID { return uuid.Must(uuid.NewV7()) })
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.InsertInvoice(ctx, inv); err != nil || !ok {
		t.Fatalf("insert: %v %v", ok, err)
	}
	for name, set := range map[string]string{
		"refunded above paid":  "paid_amount = 1000, outstanding_balance = 4000, refunded_amount = 1001",
		"a draft owing":        "status = 'DRAFT', outstanding_balance = 5000",
		"unknown status":       "status = 'ISSUED'",
		"negative refunded":    "refunded_amount = -1",
		"outstanding refunded": "paid_amount = 1000, outstanding_balance = 5000, refunded_amount = 1000",
	} {
		if _, err := db.ExecContext(ctx, "UPDATE invoices SET "+set+" WHERE business_id = ? AND id = ?", bid, inv.ID); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := db.ExecContext(ctx, "UPDATE invoices SET status = 'DRAFT', outstanding_balance = 0 WHERE business_id = ? AND id = ?", bid, inv.ID); err != nil {
		t.Fatalf("a draft owing nothing: %v", err)
	}
	r := invoice.Refund{ID: uuid.Must(uuid.NewV7()), BusinessID: bid, InvoiceID: inv.ID, ExternalID: ptr("rf"), Amount: 700,
		Method: invoice.Check, CompletedAt: now, Memo: ptr("m"), Payouts: []invoice.Payout{{Account: invoice.UndepositedFunds, Amount: 700}},
		Version: 1, CreatedAt: now}
	if ok, err := s.InsertRefund(ctx, r); err != nil || !ok {
		t.Fatalf("insert refund: %v %v", ok, err)
	}
	if ok, err := s.InsertRefund(ctx, invoice.Refund{ID: uuid.Must(uuid.NewV7()), BusinessID: bid, InvoiceID: inv.ID, ExternalID: ptr("rf"),
		Amount: 1, Method: invoice.Cash, CompletedAt: now, Version: 1, CreatedAt: now}); err != nil || ok {
		t.Fatalf("insert of the same external id: inserted %v, %v", ok, err)
	}
	got, ok, err := s.FindRefundByExternalID(ctx, bid, "rf")
	if err != nil || !ok || got.ID != r.ID || got.Amount != 700 || len(got.Payouts) != 1 || got.Payouts[0] != r.Payouts[0] ||
		!got.CompletedAt.Equal(now) || got.VoidedAt != nil {
		t.Fatalf("read back %+v (%v %v)", got, ok, err)
	}
	got.VoidedAt, got.Version = &now, 2
	if err := s.UpdateRefund(ctx, got); err != nil {
		t.Fatal(err)
	}
	read, ok, err := s.FindInvoice(ctx, bid, inv.ID, false)
	if err != nil || !ok || len(read.Refunds) != 1 || read.Refunds[0].VoidedAt == nil || read.Refunds[0].Version != 2 || !read.IsDraft {
		t.Fatalf("invoice read back: %+v %v %v", read.Refunds, ok, err)
	}
}
