package invoice

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// draftInvoice is a new invoice of one line of total cents, sent at sent.
func draftInvoice(t *testing.T, total money.Cents, sent time.Time) Invoice {
	t.Helper()
	in := Input{SentAt: &sent, Draft: Draft{Lines: []LineInput{{Description: str("work"), UnitPrice: total, Quantity: qty(t, "1")}}}}
	inv, err := New(uuid.New(), uuid.New(), in, sent, uuid.New)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// TestInvoiceLifecycle: the status moves that payments, write-offs and a
// void cause, with paid_at and the versions they give.
func TestInvoiceLifecycle(t *testing.T) {
	sent := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	inv := draftInvoice(t, 1000, sent)
	if inv.Status != Sent || inv.PaidAt != nil || inv.Version != 1 || len(inv.Lines) != 1 || inv.Lines[0].Number != 1 {
		t.Fatalf("new invoice: %+v", inv)
	}
	if zero := draftInvoice(t, 0, sent); zero.Status != Paid || zero.PaidAt == nil || !zero.PaidAt.Equal(sent) {
		t.Fatalf("zero invoice: status %s, paid_at %v", zero.Status, zero.PaidAt)
	}

	p1 := Payment{ID: uuid.New(), PaidAt: sent.Add(48 * time.Hour), Method: Cash}
	inv.AddPayment(p1, 400)
	inv.Revise(sent.Add(time.Hour))
	if inv.Status != PartiallyPaid || inv.Outstanding() != 600 || inv.Version != 2 || inv.PaidAt != nil {
		t.Fatalf("after a partial payment: %s, outstanding %d, version %d", inv.Status, inv.Outstanding(), inv.Version)
	}
	if _, _, err := inv.Void(sent); apperr.Status(apperr.From(err).Type) != 409 {
		t.Fatalf("void with a payment: %v, want a 409", err)
	}
	p2 := Payment{ID: uuid.New(), PaidAt: sent.Add(24 * time.Hour), Method: Check}
	inv.AddPayment(p2, 600)
	inv.Revise(sent.Add(2 * time.Hour))
	if inv.Status != Paid || inv.PaidAt == nil || !inv.PaidAt.Equal(p1.PaidAt) {
		t.Fatalf("paid in full: %s, paid_at %v, want the latest payment's date %v", inv.Status, inv.PaidAt, p1.PaidAt)
	}
	inv.RemovePayment(p1.ID, 400)
	inv.RemovePayment(p2.ID, 600)
	inv.Revise(sent.Add(3 * time.Hour))
	if inv.Status != Sent || len(inv.Allocations) != 0 || inv.Version != 4 {
		t.Fatalf("payments removed: %s, %d allocations, version %d", inv.Status, len(inv.Allocations), inv.Version)
	}

	in := WriteOffInput{Amount: 300, Mode: ModeExpense}
	if err := inv.CanWriteOff(in); err != nil {
		t.Fatal(err)
	}
	inv.AddWriteOff(NewWriteOff(inv.BusinessID, inv.ID, uuid.New(), in, sent))
	inv.Revise(sent.Add(4 * time.Hour))
	if inv.Status != PartiallyWrittenOff || inv.Outstanding() != 700 {
		t.Fatalf("written off in part: %s, outstanding %d", inv.Status, inv.Outstanding())
	}

	at := sent.Add(5 * time.Hour)
	voided, changed, err := inv.Void(at)
	if err != nil || !changed || len(voided) != 1 || voided[0].VoidedAt == nil || voided[0].Version != 2 {
		t.Fatalf("void: %v %v %+v", changed, err, voided)
	}
	if inv.Status != Voided || inv.Outstanding() != 0 || inv.WrittenOff != 0 || inv.Version != 6 || !inv.VoidedAt.Equal(at) {
		t.Fatalf("voided: %s, outstanding %d, written off %d, version %d", inv.Status, inv.Outstanding(), inv.WrittenOff, inv.Version)
	}
	if again, changed, err := inv.Void(at.Add(time.Hour)); err != nil || changed || again != nil || inv.Version != 6 {
		t.Fatalf("a second void changed the invoice: %v %v %v", again, changed, err)
	}
}

// TestInvoiceRemove: a deletion voids the live write-offs and is the
// invoice's next version; not while payments are allocated.
func TestInvoiceRemove(t *testing.T) {
	sent := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	inv := draftInvoice(t, 1000, sent)
	inv.AddWriteOff(NewWriteOff(inv.BusinessID, inv.ID, uuid.New(), WriteOffInput{Amount: 100, Mode: ModeExpense}, sent))
	voided, err := inv.Remove(sent)
	if err != nil || len(voided) != 1 || voided[0].VoidedAt == nil || inv.Version != 2 {
		t.Fatalf("remove: %v %+v, version %d", err, voided, inv.Version)
	}
	paid := draftInvoice(t, 1000, sent)
	paid.AddPayment(Payment{ID: uuid.New(), PaidAt: sent}, 10)
	if _, err := paid.Remove(sent); apperr.Status(apperr.From(err).Type) != 409 {
		t.Fatalf("remove with a payment: %v, want a 409", err)
	}
}

// TestInvoiceApply: a patch changes what it names; amounts are computed
// again only when it names one; the customer it names follows
// Patch.Customer's rule.
func TestInvoiceApply(t *testing.T) {
	sent := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	inv := draftInvoice(t, 1000, sent)
	memo := str("new memo")
	next, err := inv.Apply(Patch{Memo: Optional[*string]{Set: true, Value: memo}}, sent, uuid.New)
	if err != nil || next.Memo != memo || next.Lines[0].ID != inv.Lines[0].ID || next.Totals != inv.Totals {
		t.Fatalf("memo patch: %v, %+v", err, next)
	}
	if _, ok := (Patch{Memo: Optional[*string]{Set: true}}).Amounts(inv.Draft()); ok {
		t.Fatal("a memo patch names amounts")
	}
	next, err = inv.Apply(Patch{Tips: Optional[money.Cents]{Set: true, Value: 50}}, sent, uuid.New)
	if err != nil || next.Totals.Total != 1050 || next.Lines[0].ID == inv.Lines[0].ID {
		t.Fatalf("tips patch: %v, total %d", err, next.Totals.Total)
	}
	if _, err := inv.Apply(Patch{Lines: Optional[[]LineInput]{Set: true}}, sent, uuid.New); err == nil {
		t.Fatal("a patch removing every line accepted")
	}

	cur, other := uuid.New(), uuid.New()
	ext := str("c-2")
	for name, c := range map[string]struct {
		p     Patch
		id    *uuid.UUID
		ext   *string
		named bool
	}{
		"none":             {Patch{}, nil, nil, false},
		"by id":            {Patch{CustomerID: Optional[*uuid.UUID]{Set: true, Value: &other}}, &other, nil, true},
		"by external id":   {Patch{CustomerExternalID: Optional[*string]{Set: true, Value: ext}}, nil, ext, true},
		"cleared id":       {Patch{CustomerID: Optional[*uuid.UUID]{Set: true}}, nil, nil, true},
		"both":             {Patch{CustomerID: Optional[*uuid.UUID]{Set: true, Value: &other}, CustomerExternalID: Optional[*string]{Set: true, Value: ext}}, &other, ext, true},
		"external id null": {Patch{CustomerExternalID: Optional[*string]{Set: true}}, nil, nil, true},
	} {
		id, x, named := c.p.Customer(&cur)
		if named != c.named || (id == nil) != (c.id == nil) || id != nil && *id != *c.id || x != c.ext {
			t.Errorf("%s: %v %v %v", name, id, x, named)
		}
	}
}

// TestTag: tags an entity lacks are added as its next version; a repeat
// adds nothing and changes nothing.
func TestTag(t *testing.T) {
	sent := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	inv := draftInvoice(t, 1000, sent)
	kvs := []tags.KeyValue{{Key: "team", Value: "red"}, {Key: "team", Value: "red"}}
	next, added := inv.Tag(kvs, sent)
	if len(added) != 1 || len(next.Tags) != 1 || next.Version != 2 || len(inv.Tags) != 0 {
		t.Fatalf("tag: added %v, tags %v, version %d", added, next.Tags, next.Version)
	}
	again, added := next.Tag(kvs, sent.Add(time.Hour))
	if len(added) != 0 || again.Version != 2 || !again.UpdatedAt.Equal(next.UpdatedAt) {
		t.Fatalf("repeat: added %v, version %d", added, again.Version)
	}
	p := Payment{ID: uuid.New(), BusinessID: inv.BusinessID, Version: 1}
	if np, added := p.Tag(kvs, sent); len(added) != 1 || np.Version != 2 {
		t.Fatalf("payment tag: added %v, version %d", added, np.Version)
	}
}

// TestNewPayment: a payment's allocations are checked against the
// invoices' balances and kept in invoice id order.
func TestNewPayment(t *testing.T) {
	sent := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	a, b := draftInvoice(t, 1000, sent), draftInvoice(t, 500, sent)
	in := PaymentInput{PaidAt: &sent, Method: Cash, Amount: 1200,
		Allocations: []AllocationInput{{InvoiceID: &b.ID, Amount: 500}, {InvoiceID: &a.ID, Amount: 700}}}
	p, err := NewPayment(a.BusinessID, uuid.New(), in, []*Invoice{&b, &a}, sent)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Allocations) != 2 || string(p.Allocations[0].InvoiceID[:]) > string(p.Allocations[1].InvoiceID[:]) {
		t.Fatalf("allocations %+v not in invoice id order", p.Allocations)
	}
	in.Amount, in.Allocations[1].Amount = 1501, 1001
	if _, err := NewPayment(a.BusinessID, uuid.New(), in, []*Invoice{&b, &a}, sent); apperr.From(err).Enum != EnumOverpaid {
		t.Fatalf("overpayment: %v", err)
	}
	if err := p.CheckRetry([]AllocationInput{{InvoiceID: &a.ID}}); err != nil {
		t.Fatalf("retry of the same payment: %v", err)
	}
	other := uuid.New()
	if err := p.CheckRetry([]AllocationInput{{InvoiceID: &other}}); apperr.From(err).Enum != EnumDuplicateExternalID {
		t.Fatalf("retry naming another invoice: %v", err)
	}
}
