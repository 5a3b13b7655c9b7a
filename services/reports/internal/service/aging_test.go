package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/services/reports/internal/app"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// agingHistory builds the events of one business: ledger entries of
// documents, payments and journal entries, and the snapshots of the
// invoicing and bills topics.
type agingHistory struct {
	t       testing.TB
	bid     uuid.UUID
	evs     []events.Event
	entries int // ledger entries among evs
}

func (h *agingHistory) ledger(p events.LedgerEntryPosted) events.LedgerEntryPosted {
	h.evs = append(h.evs, event(h.t, p))
	h.entries++
	return p
}

// doc posts an entry of source typ/id on day.
func (h *agingHistory) doc(typ string, id uuid.UUID, day string, lines ...events.LedgerLine) events.LedgerEntryPosted {
	p := entry(h.bid, day, lines...)
	p.SourceType, p.SourceID, p.EntryType = typ, id.String(), typ
	return h.ledger(p)
}

// reverse posts the reversal of p on its day (as the ledger reverses a
// replaced or deleted document's entry).
func (h *agingHistory) reverse(p events.LedgerEntryPosted) {
	r := reversal(p, p.Date)
	r.SourceType, r.SourceID = p.SourceType, p.SourceID
	h.ledger(r)
}

func (h *agingHistory) publish(topic, typ string, payload any) {
	evt, err := events.New(topic, typ, "test", h.bid, payload)
	if err != nil {
		h.t.Fatal(err)
	}
	h.evs = append(h.evs, evt)
}

func at(day string) time.Time {
	d, err := time.Parse(domain.DateLayout, day)
	if err != nil {
		panic(err)
	}
	return d.Add(15 * time.Hour)
}

func (h *agingHistory) invoice(id uuid.UUID, version int64, customer *uuid.UUID, sent string, due string) {
	s := events.InvoiceSnapshot{ID: id, BusinessID: h.bid, CustomerID: customer, Status: "SENT", SentAt: at(sent), Version: version}
	if due != "" {
		s.DueAt = ptr(at(due))
	}
	h.publish(events.TopicInvoicing, events.TypeInvoiceUpserted, events.InvoiceUpserted{BusinessID: h.bid, Invoice: s})
}

func (h *agingHistory) customer(id uuid.UUID, version int, name string) {
	h.publish(events.TopicInvoicing, events.TypeCustomerUpserted, events.CustomerUpserted{CustomerID: id, BusinessID: h.bid, Version: version,
		DisplayName: name, Status: "ACTIVE"})
}

func (h *agingHistory) vendor(id uuid.UUID, version int, name string) {
	h.publish(events.TopicBills, events.TypeVendorUpserted, events.VendorUpserted{VendorID: id, BusinessID: h.bid, Version: version,
		DisplayName: name, Status: "ACTIVE"})
}

// payment publishes an invoice payment's snapshot (allocs: invoice, amount).
func (h *agingHistory) payment(id uuid.UUID, version int64, paid string, allocs ...any) {
	s := events.InvoicePaymentSnapshot{ID: id, BusinessID: h.bid, PaidAt: at(paid), Method: "ACH", Version: version}
	for i := 0; i+1 < len(allocs); i += 2 {
		s.Allocations = append(s.Allocations, events.PaymentAllocation{InvoiceID: allocs[i].(uuid.UUID), Amount: int64(allocs[i+1].(int))})
		s.Amount += int64(allocs[i+1].(int))
	}
	h.publish(events.TopicInvoicing, events.TypeInvoicePaymentUpserted, events.InvoicePaymentUpserted{BusinessID: h.bid, Payment: s})
}

func (h *agingHistory) paymentDeleted(id uuid.UUID, version int64) {
	h.publish(events.TopicInvoicing, events.TypeInvoicePaymentDeleted, events.InvoicePaymentDeleted{BusinessID: h.bid, PaymentID: id,
		Posting: &events.LedgerPosting{SourceType: "INVOICE_PAYMENT", SourceID: id.String(), Version: version, EntryType: "INVOICE_PAYMENT", EntryAt: time.Now()}})
}

func (h *agingHistory) writeOff(id, invoice uuid.UUID, day string, amount int64) {
	h.publish(events.TopicInvoicing, events.TypeInvoiceWriteOffUpserted, events.InvoiceWriteOffUpserted{BusinessID: h.bid,
		WriteOff: events.InvoiceWriteOffSnapshot{ID: id, BusinessID: h.bid, InvoiceID: invoice, Amount: amount, Mode: "EXPENSE", WriteOffAt: at(day), Version: 1}})
}

func (h *agingHistory) bill(id uuid.UUID, version int64, vendor *uuid.UUID, received, due string) {
	s := events.BillSnapshot{ID: id, BusinessID: h.bid, VendorID: vendor, Status: "RECEIVED", ReceivedAt: at(received), Version: version}
	if due != "" {
		s.DueAt = ptr(at(due))
	}
	h.publish(events.TopicBills, events.TypeBillUpserted, events.BillUpserted{BusinessID: h.bid, Bill: s})
}

func (h *agingHistory) billPayment(id uuid.UUID, version int64, paid string, allocs ...any) {
	s := events.BillPaymentSnapshot{ID: id, BusinessID: h.bid, PaidAt: at(paid), Method: "ACH", Version: version}
	for i := 0; i+1 < len(allocs); i += 2 {
		s.Allocations = append(s.Allocations, events.BillAllocation{BillID: allocs[i].(uuid.UUID), Amount: int64(allocs[i+1].(int))})
		s.Amount += int64(allocs[i+1].(int))
	}
	h.publish(events.TopicBills, events.TypeBillPaymentUpserted, events.BillPaymentUpserted{BusinessID: h.bid, Payment: s})
}

func (h *agingHistory) billPaymentDeleted(id uuid.UUID, version int64) {
	h.publish(events.TopicBills, events.TypeBillPaymentDeleted, events.BillPaymentDeleted{BusinessID: h.bid, PaymentID: id,
		Posting: &events.LedgerPosting{SourceType: "BILL_PAYMENT", SourceID: id.String(), Version: version, EntryType: "BILL_PAYMENT", EntryAt: time.Now()}})
}

func (h *agingHistory) credit(id uuid.UUID, vendor *uuid.UUID, received string, total int64, allocs ...any) {
	s := events.VendorCreditSnapshot{ID: id, BusinessID: h.bid, VendorID: vendor, ReceivedAt: at(received), TotalAmount: total, Unapplied: total, Version: 1}
	for i := 0; i+1 < len(allocs); i += 2 {
		s.Allocations = append(s.Allocations, events.BillAllocation{BillID: allocs[i].(uuid.UUID), Amount: int64(allocs[i+1].(int))})
		s.Unapplied -= int64(allocs[i+1].(int))
	}
	h.publish(events.TopicBills, events.TypeVendorCreditUpserted, events.VendorCreditUpserted{BusinessID: h.bid, VendorCredit: s})
}

// agingRows is a report as row key → [name, current, 31–60, 61–90, 90+,
// total] (amounts as decimal strings), with the rows' order.
type agingRows struct {
	order []string
	rows  map[string][6]string
}

func agingPath(bid uuid.UUID, route string, q url.Values) string {
	return fmt.Sprintf("/v1/businesses/%s/reports/unified/%s?%s", bid, route, q.Encode())
}

// agingStatus asks for a unified report and validates the exchange.
func (e *env) agingStatus(token string, bid uuid.UUID, route string, q url.Values) (int, []byte) {
	e.T.Helper()
	resp, body := e.V.Do(e.T, e.HTTP, openapitest.Request(http.MethodGet, agingPath(bid, route, q), token, nil))
	return resp.StatusCode, body
}

// aging asks for side's report on day (empty: no effective_date) and
// checks its shape: the columns, Currency cells, each row's total the sum
// of its buckets, the bold total row last and the sum of the others.
func (e *env) aging(token string, bid uuid.UUID, side domain.AgingSide, day string) agingRows {
	e.T.Helper()
	q := url.Values{}
	if day != "" {
		q.Set("effective_date", day)
	}
	code, body := e.agingStatus(token, bid, side.Route, q)
	if code != http.StatusOK {
		e.T.Fatalf("GET %s %s: %d %s", side.Route, day, code, body)
	}
	var out struct{ Data domain.UnifiedReport }
	if err := json.Unmarshal(body, &out); err != nil {
		e.T.Fatal(err)
	}
	return agingTable(e.T, side, bid, out.Data)
}

func agingTable(t testing.TB, side domain.AgingSide, bid uuid.UUID, r domain.UnifiedReport) agingRows {
	t.Helper()
	var keys []string
	for _, c := range r.Columns {
		keys = append(keys, c.ColumnKey)
	}
	if r.BusinessID != bid || strings.Join(keys, " ") != side.PartyColumn+" current_0_30 days_31_60 days_61_90 days_90_plus total" {
		t.Fatalf("report %s columns %v", r.BusinessID, keys)
	}
	out := agingRows{rows: map[string][6]string{}}
	var sums, total [5]int64
	for i, row := range r.Rows {
		var cells [6]string
		name, _ := row.Cells[side.PartyColumn].Value.Value.(string)
		cells[0] = name
		var amounts [5]int64
		for j, k := range keys[1:] {
			c := row.Cells[k]
			cents, ok := c.Value.Cents()
			if !ok {
				t.Fatalf("row %s %s: %+v", row.RowKey, k, c.Value)
			}
			amounts[j] = cents
			cells[j+1] = fmt.Sprint(cents)
			if bold := c.Format != nil && c.Format.Bold; bold != (row.RowKey == side.TotalRow) {
				t.Fatalf("row %s %s: bold %v", row.RowKey, k, bold)
			}
		}
		if amounts[0]+amounts[1]+amounts[2]+amounts[3] != amounts[4] {
			t.Fatalf("row %s: buckets %v do not add up to the total", row.RowKey, amounts)
		}
		if row.RowKey == side.TotalRow {
			if i != len(r.Rows)-1 {
				t.Fatalf("total row %d of %d", i, len(r.Rows))
			}
			total = amounts
		} else {
			for j := range sums {
				sums[j] += amounts[j]
			}
		}
		out.order = append(out.order, row.RowKey)
		out.rows[row.RowKey] = cells
	}
	if len(r.Rows) == 0 || total != sums {
		t.Fatalf("total row %v, rows sum to %v", total, sums)
	}
	return out
}

// total is the report's total.
func (a agingRows) total(side domain.AgingSide) int64 {
	var v int64
	fmt.Sscan(a.rows[side.TotalRow][5], &v)
	return v
}

// controlBalance is the ledger's balance of side's control account (and
// the accounts below it) at the end of day, from the read model's
// account_days, in the side's sense (A/R debit positive, A/P credit
// positive).
func (e *env) controlBalance(bid uuid.UUID, side domain.AgingSide, day string) int64 {
	e.T.Helper()
	var sum int64
	if err := e.DB.NewRaw(`SELECT COALESCE(sum(d.amount), 0)::bigint FROM account_days d
		JOIN accounts a ON a.business_id = d.business_id AND a.id = d.account_id
		WHERE d.business_id = ? AND d.day <= ?::date
		  AND (a.stable_name = ? OR EXISTS (SELECT 1 FROM accounts p WHERE p.business_id = a.business_id AND p.id = ANY(a.path) AND p.stable_name = ?))`,
		bid, day, side.Control, side.Control).Scan(context.Background(), &sum); err != nil {
		e.T.Fatal(err)
	}
	return side.Sign * sum
}

func row(name string, amounts ...int64) [6]string {
	out := [6]string{name}
	var sum int64
	for i, a := range amounts {
		out[i+1] = fmt.Sprint(a)
		sum += a
	}
	for i := len(amounts); i < 4; i++ {
		out[i+1] = "0"
	}
	out[5] = fmt.Sprint(sum)
	return out
}

// goldenAging is the hand-checked history of TestAgingGolden.
type goldenAging struct {
	h                           *agingHistory
	acme, beta, landlord, power uuid.UUID
	i1, i2, i3, i4, i5, b1, b2  uuid.UUID
	i6, i7                      uuid.UUID
}

func newGoldenAging(t testing.TB, bid uuid.UUID) *goldenAging {
	g := &goldenAging{h: &agingHistory{t: t, bid: bid}}
	g.acme, g.beta, g.landlord, g.power = uuid.New(), uuid.New(), uuid.New(), uuid.New()
	g.i1, g.i2, g.i3, g.i4, g.i5, g.b1, g.b2 = uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New()
	g.i6, g.i7 = uuid.New(), uuid.New()
	h := g.h
	ar := func(amount int64) events.LedgerLine { return line(bid, "ACCOUNTS_RECEIVABLE", "DEBIT", amount) }
	sales := func(amount int64) events.LedgerLine { return line(bid, "SALES", "CREDIT", amount) }
	// A/R. I1 is edited: 900.00, reversed, 1,000.00 (due 2026-04-24,
	// Acme; its first snapshot said Beta and 2026-01-01).
	v1 := h.doc("INVOICE", g.i1, "2026-03-25", ar(90000), sales(90000))
	h.reverse(v1)
	h.doc("INVOICE", g.i1, "2026-03-25", ar(100000), sales(100000))
	h.doc("INVOICE", g.i2, "2026-02-01", ar(50000), sales(50000))
	h.doc("INVOICE", g.i3, "2025-12-01", ar(80000), sales(72000), line(bid, "SALES_TAXES_PAYABLE", "CREDIT", 8000))
	h.doc("INVOICE", g.i4, "2025-11-01", ar(25000), sales(25000))
	h.doc("INVOICE", g.i5, "2026-04-10", ar(30000), sales(30000))
	h.doc("INVOICE", g.i6, "2026-01-01", ar(1000), sales(1000))
	h.doc("INVOICE", g.i7, "2026-01-01", ar(2000), sales(2000))
	h.doc("MANUAL_JOURNAL_ENTRY", uuid.New(), "2026-03-05", ar(5000), sales(5000))
	p1, p2, p3, wo := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	h.doc("INVOICE_PAYMENT", p1, "2026-03-10", line(bid, "UNDEPOSITED_FUNDS", "DEBIT", 20000), line(bid, "ACCOUNTS_RECEIVABLE", "CREDIT", 20000))
	h.doc("INVOICE_WRITE_OFF", wo, "2026-03-15", line(bid, "BAD_DEBT", "DEBIT", 10000), line(bid, "ACCOUNTS_RECEIVABLE", "CREDIT", 10000))
	h.doc("INVOICE_PAYMENT", p2, "2026-04-20", line(bid, "UNDEPOSITED_FUNDS", "DEBIT", 40000), line(bid, "ACCOUNTS_RECEIVABLE", "CREDIT", 40000))
	h.doc("INVOICE_PAYMENT", p3, "2026-05-20", line(bid, "UNDEPOSITED_FUNDS", "DEBIT", 30000), line(bid, "ACCOUNTS_RECEIVABLE", "CREDIT", 30000))
	h.invoice(g.i1, 2, &g.acme, "2026-03-25", "2026-04-24")
	h.invoice(g.i1, 1, &g.beta, "2026-03-25", "2026-01-01") // older: changes nothing
	h.invoice(g.i2, 1, &g.acme, "2026-02-01", "2026-02-20")
	h.invoice(g.i3, 1, &g.beta, "2025-12-01", "2025-12-31")
	h.invoice(g.i4, 1, &g.beta, "2025-11-01", "") // due on its date
	h.invoice(g.i5, 1, &g.beta, "2026-04-10", "2026-05-10")
	h.invoice(g.i6, 1, &g.acme, "2026-01-01", "2026-03-01") // exactly 30 days past due on 2026-03-31
	h.invoice(g.i7, 1, &g.beta, "2026-01-01", "2026-01-30") // exactly 60 days
	h.payment(p1, 1, "2026-03-10", g.i2, 20000)
	h.payment(p2, 1, "2026-04-20", g.i1, 40000)
	h.payment(p3, 1, "2026-05-20", g.i5, 30000)
	h.writeOff(wo, g.i3, "2026-03-15", 10000)
	h.customer(g.acme, 2, "Acme Inc")
	h.customer(g.acme, 1, "Acme (old name)")
	h.customer(g.beta, 1, "Beta LLC")
	// A/P: B1 1,000.00 paid 450.00 and by a 100.00 credit; B2 240.00; an
	// unapplied 30.00 credit.
	ap := func(dir string, amount int64) events.LedgerLine { return line(bid, "ACCOUNTS_PAYABLE", dir, amount) }
	vc1, vc2, bp1 := uuid.New(), uuid.New(), uuid.New()
	h.doc("BILL", g.b1, "2026-03-01", line(bid, "RENT", "DEBIT", 100000), ap("CREDIT", 100000))
	h.doc("VENDOR_CREDIT", vc1, "2026-03-05", ap("DEBIT", 10000), line(bid, "RENT", "CREDIT", 10000))
	h.doc("BILL_PAYMENT", bp1, "2026-03-10", ap("DEBIT", 45000), line(bid, "CASH", "CREDIT", 45000))
	h.doc("BILL", g.b2, "2026-01-10", line(bid, "UTILITIES", "DEBIT", 24000), ap("CREDIT", 24000))
	h.doc("VENDOR_CREDIT", vc2, "2026-03-20", ap("DEBIT", 3000), line(bid, "UTILITIES", "CREDIT", 3000))
	h.bill(g.b1, 1, &g.landlord, "2026-03-01", "2026-03-31")
	h.bill(g.b2, 1, &g.power, "2026-01-10", "2026-02-09")
	h.billPayment(bp1, 1, "2026-03-10", g.b1, 45000)
	h.credit(vc1, &g.landlord, "2026-03-05", 10000, g.b1, 10000)
	h.credit(vc2, &g.power, "2026-03-20", 3000)
	h.vendor(g.landlord, 1, "Landlord")
	h.vendor(g.power, 1, "Power Co")
	return g
}

// check compares both reports on both dates (and before anything) with the
// hand-checked figures, each total with the ledger's balance, and the
// invoices' open amounts.
func (g *goldenAging) check(e *env, tok, when string) {
	t, bid := e.T, g.h.bid
	t.Helper()
	ar, ap := domain.AgingAR, domain.AgingAP
	want := map[string]agingRows{
		"AR 2026-03-31": {order: []string{g.acme.String(), g.beta.String(), domain.RowUnappliedAndOther, "total_ar_aging"}, rows: map[string][6]string{
			// I1 not due, I6 exactly 30 days past due; I2 39 days, 500 − 200 paid.
			g.acme.String(): row("Acme Inc", 100000+1000, 30000),
			// I7 exactly 60 days; I3 90 days, 800 − 100 written off; I4 150 days (no due date).
			g.beta.String():             row("Beta LLC", 0, 2000, 70000, 25000),
			domain.RowUnappliedAndOther: row("Unapplied and other", 5000), // the journal entry to A/R
			"total_ar_aging":            row("Total", 106000, 32000, 70000, 25000),
		}},
		"AR 2026-05-15": {order: []string{g.acme.String(), g.beta.String(), domain.RowUnappliedAndOther, "total_ar_aging"}, rows: map[string][6]string{
			// I1 21 days, 1,000 − 400; I2 84 days, I6 75 days.
			g.acme.String(): row("Acme Inc", 60000, 0, 30000+1000),
			// I5 5 days (paid on 05-20); I7 105 days, I3 135 days, I4.
			g.beta.String():             row("Beta LLC", 30000, 0, 0, 2000+70000+25000),
			domain.RowUnappliedAndOther: row("Unapplied and other", 5000),
			"total_ar_aging":            row("Total", 95000, 0, 31000, 97000),
		}},
		"AP 2026-03-31": {order: []string{g.landlord.String(), g.power.String(), domain.RowUnappliedAndOther, "total_ap_aging"}, rows: map[string][6]string{
			g.landlord.String():         row("Landlord", 45000),            // B1 due today: 1,000 − 450 − 100
			g.power.String():            row("Power Co", 0, 24000),         // B2 50 days
			domain.RowUnappliedAndOther: row("Unapplied and other", -3000), // the unapplied credit
			"total_ap_aging":            row("Total", 42000, 24000),
		}},
		"AP 2026-05-15": {order: []string{g.landlord.String(), g.power.String(), domain.RowUnappliedAndOther, "total_ap_aging"}, rows: map[string][6]string{
			g.landlord.String():         row("Landlord", 0, 45000),
			g.power.String():            row("Power Co", 0, 0, 0, 24000),
			domain.RowUnappliedAndOther: row("Unapplied and other", -3000),
			"total_ap_aging":            row("Total", -3000, 45000, 0, 24000),
		}},
		"AR 2025-10-31": {order: []string{"total_ar_aging"}, rows: map[string][6]string{"total_ar_aging": row("Total")}},
		"AP 2025-10-31": {order: []string{"total_ap_aging"}, rows: map[string][6]string{"total_ap_aging": row("Total")}},
	}
	for _, side := range []domain.AgingSide{ar, ap} {
		for _, day := range []string{"2025-10-31", "2026-03-31", "2026-05-15"} {
			got := e.aging(tok, bid, side, day)
			w := want[side.Side+" "+day]
			if !reflect.DeepEqual(got.order, w.order) || !reflect.DeepEqual(got.rows, w.rows) {
				t.Fatalf("%s: %s on %s:\n got %v %v\nwant %v %v", when, side.Key, day, got.order, got.rows, w.order, w.rows)
			}
			if b := e.controlBalance(bid, side, day); got.total(side) != b {
				t.Fatalf("%s: %s on %s: total %d, ledger balance %d", when, side.Key, day, got.total(side), b)
			}
		}
	}
	docs, err := e.S.Reports.AgingDocuments(t.Context(), bid, ar, time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	open := map[string]int64{}
	for _, d := range docs {
		open[d.ID] = d.Amount
	}
	if w := map[string]int64{g.i1.String(): 100000, g.i2.String(): 30000, g.i3.String(): 70000, g.i4.String(): 25000,
		g.i6.String(): 1000, g.i7.String(): 2000}; !reflect.DeepEqual(open, w) {
		t.Fatalf("%s: open invoices on 2026-03-31 %v, want %v", when, open, w)
	}
}

// TestAgingGolden: A/R and A/P aging of a hand-checked history (invoices
// in every bucket, one edited, one without a due date, a partial payment,
// a write-off, a journal entry to A/R, a bill paid partly and by a vendor
// credit, an unapplied credit, older snapshots delivered after newer
// ones) on two dates and before anything: rows, buckets, names, totals
// equal to the ledger's balances; the same after every event is delivered
// again in reverse order (payments, snapshots and write-offs before the
// entries), after a rebuild, and on a business fed in reverse order from
// the start.
func TestAgingGolden(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	g := newGoldenAging(t, bid)
	e.deliver(g.h.evs...)
	g.check(e, tok, "delivered once")

	again := slices.Clone(g.h.evs)
	slices.Reverse(again)
	e.deliver(again...)
	g.check(e, tok, "delivered twice")

	if n, err := e.S.Reports.Rebuild(t.Context(), bid); err != nil || n != g.h.entries {
		t.Fatalf("rebuild: %d %v (want %d entries)", n, err, g.h.entries)
	}
	g.check(e, tok, "after a rebuild")

	other := e.Svc.SeedBusiness(t, "client-a")
	g2 := newGoldenAging(t, other)
	rev := slices.Clone(g2.h.evs)
	slices.Reverse(rev)
	e.deliver(rev...)
	g2.check(e, tok, "reverse order")

	// Default date: today (everything above is in the past).
	if got, want := e.aging(tok, bid, domain.AgingAR, ""), e.aging(tok, bid, domain.AgingAR, time.Now().UTC().Format(domain.DateLayout)); !reflect.DeepEqual(got, want) {
		t.Fatalf("default date: %v, today: %v", got, want)
	}
}

// TestAgingErrorsAndTenancy: a bad effective_date is a 400 naming it;
// another client's business is 404 (report, config and export); an
// unknown report 404; 401 without a token.
func TestAgingErrorsAndTenancy(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	for _, q := range []url.Values{{"effective_date": {"2026-13-01"}}, {"effective_date": {""}}, {"effective_date": {"yesterday"}},
		{"effective_date": {"2026-01-01", "2026-01-02"}}, {"effective_date": {"2026-01-01T00:00:00Z"}}} {
		for _, route := range []string{"ar-aging", "ap-aging"} {
			code, body := e.agingStatus(tok, bid, route, q)
			var out struct {
				Type      string         `json:"type"`
				ErrorEnum string         `json:"error_enum"`
				Meta      map[string]any `json:"meta"`
			}
			_ = json.Unmarshal(body, &out)
			if code != http.StatusBadRequest || out.Type != "InvalidParameters" || out.ErrorEnum != domain.EnumInvalidDate || !strings.Contains(string(body), "effective_date") {
				t.Fatalf("%s %v: %d %s", route, q, code, body)
			}
		}
	}
	other := e.Svc.Tokens.Platform(t, "client-b")
	for _, path := range []string{agingPath(bid, "ar-aging", nil), agingPath(bid, "ap-aging", nil), configPath(bid),
		fmt.Sprintf("/v1/businesses/%s/reports/unified/ar-aging/exports/excel", bid)} {
		resp, body := e.V.Do(t, e.HTTP, openapitest.Request(http.MethodGet, path, other, nil))
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("another client's business %s: %d %s", path, resp.StatusCode, body)
		}
		resp, body = e.V.Do(t, e.HTTP, openapitest.Request(http.MethodGet, path, "", nil))
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("no token %s: %d %s", path, resp.StatusCode, body)
		}
	}
	// Unknown reports (not documented: asked without the validator).
	for _, path := range []string{"/reports/unified/no-such-report", "/reports/unified/no-such-report/exports/excel"} {
		code, body := e.raw(tok, fmt.Sprintf("/v1/businesses/%s%s", bid, path))
		if code != http.StatusNotFound || !strings.Contains(body, `"error_enum":"UnknownReport"`) {
			t.Fatalf("%s: %d %s", path, code, body)
		}
	}
	// Without storage the export is 503 (after the 400s).
	if code, body := e.raw(tok, fmt.Sprintf("/v1/businesses/%s/reports/unified/ap-aging/exports/excel?effective_date=x", bid)); code != http.StatusBadRequest {
		t.Fatalf("bad date without storage: %d %s", code, body)
	}
	if code, body := e.raw(tok, fmt.Sprintf("/v1/businesses/%s/reports/unified/ap-aging/exports/excel", bid)); code != http.StatusServiceUnavailable ||
		!strings.Contains(body, "export storage is not configured") {
		t.Fatalf("without storage: %d %s", code, body)
	}
}

// raw asks for path without the OpenAPI validator.
func (e *env) raw(token, path string) (int, string) {
	e.T.Helper()
	resp, err := e.HTTP.Test(openapitest.Request(http.MethodGet, path, token, nil), -1)
	if err != nil {
		e.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func configPath(bid uuid.UUID) string { return fmt.Sprintf("/v1/businesses/%s/reports/config", bid) }

// TestUnifiedReportConfig: the trial balance (default, on the business's
// basis) and both agings, in two groups.
func TestUnifiedReportConfig(t *testing.T) {
	e := newEnv(t)
	tok := e.Svc.Tokens.Platform(t, "client-a")
	for _, basis := range []string{"ACCRUAL", "CASH"} {
		bid := e.Svc.SeedBusiness(t, "client-a", func(b *events.Business) { b.DefaultReportingBasis = basis })
		resp, body := e.V.Do(t, e.HTTP, openapitest.Request(http.MethodGet, configPath(bid), tok, nil))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		var out struct{ Data []domain.ReportGroup }
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatal(err)
		}
		want := []domain.ReportGroup{
			{GroupType: "ACCOUNTING", DisplayName: "Accounting", Reports: []domain.ReportConfig{{Key: "TRIAL_BALANCE", ReportRoute: "trial-balance",
				DisplayName: "Trial balance", Controls: []string{"date", "reporting_basis"}, BaseQueryParameters: map[string]string{"reporting_basis": basis},
				IsDefaultReport: true}}},
			{GroupType: "RECEIVABLES_AND_PAYABLES", DisplayName: "Receivables and payables", Reports: []domain.ReportConfig{
				{Key: "AR_AGING", ReportRoute: "ar-aging", DisplayName: "Accounts receivable aging", Controls: []string{"date"}, BaseQueryParameters: map[string]string{}},
				{Key: "AP_AGING", ReportRoute: "ap-aging", DisplayName: "Accounts payable aging", Controls: []string{"date"}, BaseQueryParameters: map[string]string{}},
			}},
		}
		if !reflect.DeepEqual(out.Data, want) {
			t.Fatalf("%s: %s", basis, body)
		}
	}
}

// TestUnifiedExcelExport: the A/R aging's workbook read back (header,
// names, dollar amounts as shown and as stored, the bold total row) and
// the export of a report with nested rows (indented, grouped) as the
// trial balance will have.
func TestUnifiedExcelExport(t *testing.T) {
	e := newStorageEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	g := newGoldenAging(t, bid)
	e.deliver(g.h.evs...)

	code, body := e.xlsxUnified(tok, bid, "ar-aging", "2026-03-31")
	d := presignedData(t, code, body)
	if d.FileType != "xlsx" || d.FileName != "ar_aging_2026-03-31.xlsx" || d.DocumentType != "AR_AGING_EXCEL" {
		t.Fatalf("answer %+v", d)
	}
	f := openUnifiedXLSX(t, download(t, d, xlsxType))
	shown, raw := f.rows(t, false), f.rows(t, true)
	wantShown := [][]string{
		{"Customer", "Current (0-30 days)", "31-60 days", "61-90 days", "Over 90 days", "Total"},
		{"Acme Inc", "$1,010.00", "$300.00", "$0.00", "$0.00", "$1,310.00"},
		{"Beta LLC", "$0.00", "$20.00", "$700.00", "$250.00", "$970.00"},
		{"Unapplied and other", "$50.00", "$0.00", "$0.00", "$0.00", "$50.00"},
		{"Total", "$1,060.00", "$320.00", "$700.00", "$250.00", "$2,330.00"},
	}
	if !reflect.DeepEqual(shown, wantShown) {
		t.Fatalf("shown %q", shown)
	}
	if raw[1][1] != "1010" || raw[2][4] != "250" || raw[4][5] != "2330" {
		t.Fatalf("raw %q", raw)
	}
	for _, cell := range []string{"A1", "A5", "F5"} {
		if !f.bold(t, cell) {
			t.Fatalf("%s not bold", cell)
		}
	}
	if f.bold(t, "A2") || f.bold(t, "F4") {
		t.Fatal("a party row is bold")
	}
	// The default date and the A/P side: a file named for today.
	code, body = e.xlsxUnified(tok, bid, "ap-aging", "")
	if d := presignedData(t, code, body); d.FileName != "ap_aging_"+time.Now().UTC().Format(domain.DateLayout)+".xlsx" || d.DocumentType != "AP_AGING_EXCEL" {
		t.Fatalf("answer %+v", d)
	}
	// 400 before anything is stored.
	if code, body := e.xlsxUnified(tok, bid, "ar-aging", "2026-02-30"); code != http.StatusBadRequest {
		t.Fatalf("bad date: %d %s", code, body)
	}

	// Nested rows, Empty and null cells, a formula-looking name: generic
	// over any unified report.
	nested := domain.UnifiedReport{BusinessID: bid,
		Columns: []domain.UnifiedReportColumn{{ColumnKey: "account", DisplayName: "Account", IsRowHeader: true},
			{ColumnKey: "sides", DisplayName: "Sides", Columns: []domain.UnifiedReportColumn{
				{ColumnKey: "debit", DisplayName: "Debit"}, {ColumnKey: "credit", DisplayName: "Credit"}}}},
		Rows: []domain.UnifiedReportRow{
			{RowKey: "assets", Cells: map[string]*domain.UnifiedReportCell{"account": domain.TextCell("Assets"), "debit": domain.CurrencyCell(12345)},
				Rows: []domain.UnifiedReportRow{{RowKey: "cash", Cells: map[string]*domain.UnifiedReportCell{"account": domain.TextCell("=1+1"),
					"debit": domain.CurrencyCell(-5), "credit": domain.EmptyCell()},
					Rows: []domain.UnifiedReportRow{{RowKey: "petty", Cells: map[string]*domain.UnifiedReportCell{"account": domain.TextCell("Petty cash"), "credit": nil}}}}}},
			{RowKey: "total", Cells: map[string]*domain.UnifiedReportCell{"account": domain.TextCell("Total").Bold(), "credit": domain.CurrencyCell(0).Bold()}},
		}}
	nd, err := e.S.Exports.UnifiedXLSX(t.Context(), bid, app.UnifiedResult{
		Config: domain.ReportConfig{Key: "TRIAL_BALANCE", ReportRoute: "trial-balance/lines"}, Report: nested, Label: "2026-01-31"})
	if err != nil {
		t.Fatal(err)
	}
	if nd.FileName != "trial_balance_lines_2026-01-31.xlsx" {
		t.Fatalf("file name %q", nd.FileName)
	}
	nf := openUnifiedXLSX(t, download(t, presigned{PresignedURL: nd.URL, FileName: nd.FileName}, xlsxType))
	if got, want := nf.rows(t, false), [][]string{
		{"Account", "Debit", "Credit"},
		{"Assets", "$123.45"},
		{"  =1+1", "-$0.05"},
		{"    Petty cash"},
		{"Total", "", "$0.00"},
	}; !reflect.DeepEqual(got, want) {
		t.Fatalf("nested %q", got)
	}
	if lvl, err := nf.file.GetRowOutlineLevel(app.UnifiedSheet, 4); err != nil || lvl != 2 {
		t.Fatalf("outline level of the grandchild %d %v", lvl, err)
	}
	if f, _ := nf.file.GetCellFormula(app.UnifiedSheet, "A3"); f != "" {
		t.Fatalf("formula %q", f)
	}
}

func (e *env) xlsxUnified(token string, bid uuid.UUID, route, day string) (int, []byte) {
	e.T.Helper()
	q := url.Values{}
	if day != "" {
		q.Set("effective_date", day)
	}
	resp, body := e.V.Do(e.T, e.HTTP, openapitest.Request(http.MethodGet,
		fmt.Sprintf("/v1/businesses/%s/reports/unified/%s/exports/excel?%s", bid, route, q.Encode()), token, nil))
	return resp.StatusCode, body
}

// TestAgingProperty: random histories of invoices (some edited, some
// without a due date or a customer), payments (some deleted, one whose
// snapshot never comes), write-offs (one of an unknown invoice), journal
// entries to A/R and A/P, bills, bill payments (some deleted) and vendor
// credits (applied or not), every event delivered twice in a random
// order: on several dates, each document's open amount equals a naive
// recomputation from the history, every party's buckets are the sum of
// its documents', the report's total equals the ledger's balance (from
// the history and from the read model's account_days), before and after
// a rebuild.
func TestAgingProperty(t *testing.T) {
	e := newEnv(t)
	tok := e.Svc.Tokens.Platform(t, "client-a")
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 11))
	for round := range 3 {
		bid := e.Svc.SeedBusiness(t, "client-a")
		m := randomAgingHistory(t, r, bid)
		t.Logf("round %d: %d documents, %d events (%d ledger entries)", round, len(m.docs), len(m.h.evs), m.h.entries)
		twice := append(slices.Clone(m.h.evs), m.h.evs...)
		r.Shuffle(len(twice), func(i, j int) { twice[i], twice[j] = twice[j], twice[i] })
		e.deliver(twice...)
		days := []string{"2025-12-31", "2026-06-30", "2027-01-31"}
		for range 4 {
			days = append(days, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(240)).Format(domain.DateLayout))
		}
		check := func(when string) {
			for _, side := range domain.AgingSides {
				for _, day := range days {
					m.check(e, tok, side, day, fmt.Sprintf("round %d %s (seed %d)", round, when, seed))
				}
			}
		}
		check("delivered twice")
		if _, err := e.S.Reports.Rebuild(t.Context(), bid); err != nil {
			t.Fatal(err)
		}
		check("after a rebuild")
	}
}

// agingModel is a random history and what it should give.
type agingModel struct {
	h *agingHistory
	// control moves per document (A/R: invoices and their known
	// write-offs; A/P: bills), payments' applications, and every control
	// line of the ledger, all in the side's sense.
	docs    map[string]*agingDoc
	ledger  map[string][]dayAmount // side → moves
	parties map[uuid.UUID]string
}

type dayAmount struct {
	day    string
	amount int64
}

type agingDoc struct {
	side    string
	party   *uuid.UUID
	date    string
	due     string
	moves   []dayAmount
	version int64
}

func randomAgingHistory(t *testing.T, r *rand.Rand, bid uuid.UUID) *agingModel {
	m := &agingModel{h: &agingHistory{t: t, bid: bid}, docs: map[string]*agingDoc{}, ledger: map[string][]dayAmount{}, parties: map[uuid.UUID]string{}}
	h := m.h
	randDay := func(from time.Time, span int) string {
		return from.AddDate(0, 0, r.IntN(span)).Format(domain.DateLayout)
	}
	jan := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	day := func(s string) time.Time { d, _ := time.Parse(domain.DateLayout, s); return d }
	post := func(side domain.AgingSide, typ string, id uuid.UUID, d string, control int64, other string) events.LedgerEntryPosted {
		dir, odir := "DEBIT", "CREDIT"
		if control < 0 {
			dir, odir = "CREDIT", "DEBIT"
		}
		amt := max(control, -control)
		p := h.doc(typ, id, d, line(bid, side.Control, dir, amt), line(bid, other, odir, amt))
		m.ledger[side.Side] = append(m.ledger[side.Side], dayAmount{d, side.Sign * control})
		return p
	}
	var customers, vendors []uuid.UUID
	for i := range 3 {
		c, v := uuid.New(), uuid.New()
		customers, vendors = append(customers, c), append(vendors, v)
		m.parties[c], m.parties[v] = fmt.Sprintf("Customer %d", i), fmt.Sprintf("Vendor %d", i)
		h.customer(c, 1, "old "+m.parties[c])
		h.customer(c, 2, m.parties[c])
		h.vendor(v, 1, m.parties[v])
	}
	// Documents of both sides.
	type docRef struct {
		id   uuid.UUID
		side domain.AgingSide
		open int64 // what is left to apply (final)
		date string
	}
	var refs []*docRef
	for _, side := range domain.AgingSides {
		for range 4 + r.IntN(6) {
			id := uuid.New()
			d := &agingDoc{side: side.Side, date: randDay(jan, 150), version: 1}
			if r.IntN(5) > 0 {
				d.due = day(d.date).AddDate(0, 0, r.IntN(70)).Format(domain.DateLayout)
			}
			parties := customers
			if side.Side == "AP" {
				parties = vendors
			}
			if r.IntN(6) > 0 {
				d.party = &parties[r.IntN(len(parties))]
			}
			total := 1 + r.Int64N(100_000)
			typ, other := "INVOICE", "SALES"
			if side.Side == "AP" {
				typ, other = "BILL", "RENT"
			}
			first := post(side, typ, id, d.date, side.Sign*total, other)
			d.moves = append(d.moves, dayAmount{d.date, total})
			if r.IntN(4) == 0 { // edited: reversed, posted again with another amount, a new snapshot
				h.reverse(first)
				m.ledger[side.Side] = append(m.ledger[side.Side], dayAmount{d.date, -total})
				d.moves = append(d.moves, dayAmount{d.date, -total})
				total = 1 + r.Int64N(100_000)
				post(side, typ, id, d.date, side.Sign*total, other)
				d.moves = append(d.moves, dayAmount{d.date, total})
				d.version = 2
				if side.Side == "AR" {
					h.invoice(id, 1, &customers[0], d.date, "2020-01-01") // the older snapshot
				} else {
					h.bill(id, 1, &vendors[0], d.date, "2020-01-01")
				}
			}
			if side.Side == "AR" {
				h.invoice(id, d.version, d.party, d.date, d.due)
			} else {
				h.bill(id, d.version, d.party, d.date, d.due)
			}
			m.docs[id.String()] = d
			refs = append(refs, &docRef{id: id, side: side, open: total, date: d.date})
		}
	}
	pick := func(side string) []*docRef {
		var out []*docRef
		for _, d := range refs {
			if d.side.Side == side && d.open > 0 && r.IntN(2) == 0 {
				out = append(out, d)
			}
		}
		return out
	}
	apply := func(d *docRef) int64 {
		a := 1 + r.Int64N(d.open)
		if r.IntN(3) == 0 {
			a = d.open
		}
		return a
	}
	// Invoice and bill payments: entry and snapshot (some deleted later:
	// the entry reversed on its day, the deletion's snapshot).
	for _, side := range domain.AgingSides {
		for range 3 + r.IntN(6) {
			ds := pick(side.Side)
			if len(ds) == 0 {
				continue
			}
			pid := uuid.New()
			paid := randDay(day(ds[0].date), 60)
			var allocs []any
			var sum int64
			for _, d := range ds {
				a := apply(d)
				allocs = append(allocs, d.id, int(a))
				sum += a
			}
			typ, cash := "INVOICE_PAYMENT", "UNDEPOSITED_FUNDS"
			if side.Side == "AP" {
				typ, cash = "BILL_PAYMENT", "CASH"
			}
			p := post(side, typ, pid, paid, -side.Sign*sum, cash)
			deleted := r.IntN(4) == 0
			missing := !deleted && r.IntN(8) == 0 // its snapshot never comes: unapplied
			if side.Side == "AR" && !missing {
				h.payment(pid, 1, paid, allocs...)
			} else if !missing {
				h.billPayment(pid, 1, paid, allocs...)
			}
			if deleted {
				h.reverse(p)
				m.ledger[side.Side] = append(m.ledger[side.Side], dayAmount{paid, side.Sign * side.Sign * sum})
				if side.Side == "AR" {
					h.paymentDeleted(pid, 2)
				} else {
					h.billPaymentDeleted(pid, 2)
				}
				continue
			}
			if missing {
				continue
			}
			for i, d := range ds {
				a := int64(allocs[2*i+1].(int))
				d.open -= a
				m.docs[d.id.String()].moves = append(m.docs[d.id.String()].moves, dayAmount{paid, -a})
			}
		}
	}
	// Write-offs (one of them never known: its invoice stays open and the
	// write-off is "other").
	for _, d := range pick("AR") {
		if r.IntN(2) == 0 {
			continue
		}
		wid, a, wday := uuid.New(), apply(d), randDay(day(d.date), 90)
		post(domain.AgingAR, "INVOICE_WRITE_OFF", wid, wday, -a, "BAD_DEBT")
		if r.IntN(5) == 0 {
			continue
		}
		h.writeOff(wid, d.id, wday, a)
		d.open -= a
		m.docs[d.id.String()].moves = append(m.docs[d.id.String()].moves, dayAmount{wday, -a})
	}
	// Vendor credits: applied to bills on their day, or not at all.
	for range 1 + r.IntN(3) {
		cid, cday := uuid.New(), randDay(jan, 200)
		total := 1 + r.Int64N(50_000)
		var allocs []any
		applied := int64(0)
		for _, d := range pick("AP") {
			a := min(apply(d), total-applied)
			if a <= 0 {
				break
			}
			allocs = append(allocs, d.id, int(a))
			applied += a
			d.open -= a
			m.docs[d.id.String()].moves = append(m.docs[d.id.String()].moves, dayAmount{cday, -a})
		}
		post(domain.AgingAP, "VENDOR_CREDIT", cid, cday, total, "RENT")
		h.credit(cid, &vendors[r.IntN(len(vendors))], cday, total, allocs...)
	}
	// Journal entries to the control accounts.
	for _, side := range domain.AgingSides {
		for range r.IntN(3) {
			amt := r.Int64N(20_000) - 10_000
			if amt == 0 {
				amt = 1
			}
			post(side, "MANUAL_JOURNAL_ENTRY", uuid.New(), randDay(jan, 200), amt, "CASH")
		}
	}
	return m
}

// check compares side's report on day with the model.
func (m *agingModel) check(e *env, tok string, side domain.AgingSide, day, when string) {
	t, bid := e.T, m.h.bid
	t.Helper()
	on, _ := time.Parse(domain.DateLayout, day)
	var ledger int64
	for _, mv := range m.ledger[side.Side] {
		if mv.day <= day {
			ledger += mv.amount
		}
	}
	wantOpen := map[string]int64{}
	wantRows := map[string][4]int64{}
	var onDocs int64
	for id, d := range m.docs {
		if d.side != side.Side {
			continue
		}
		var open int64
		for _, mv := range d.moves {
			if mv.day <= day {
				open += mv.amount
			}
		}
		if open == 0 {
			continue
		}
		wantOpen[id] = open
		onDocs += open
		due := d.due
		if due == "" {
			due = d.date
		}
		dueDay, _ := time.Parse(domain.DateLayout, due)
		key := "unknown_" + strings.ToLower(side.PartyType)
		if d.party != nil {
			key = d.party.String()
		}
		b := wantRows[key]
		b[domain.AgingBucket(dueDay, on)] += open
		wantRows[key] = b
	}
	if other := ledger - onDocs; other != 0 {
		wantRows[domain.RowUnappliedAndOther] = [4]int64{other}
	}
	docs, err := e.S.Reports.AgingDocuments(t.Context(), bid, side, on)
	if err != nil {
		t.Fatal(err)
	}
	gotOpen := map[string]int64{}
	for _, d := range docs {
		gotOpen[d.ID] = d.Amount
	}
	if !reflect.DeepEqual(gotOpen, wantOpen) {
		t.Fatalf("%s: %s on %s: open documents\n got %v\nwant %v", when, side.Key, day, gotOpen, wantOpen)
	}
	got := e.aging(tok, bid, side, day)
	if got.total(side) != ledger {
		t.Fatalf("%s: %s on %s: total %d, the history's ledger balance %d", when, side.Key, day, got.total(side), ledger)
	}
	if b := e.controlBalance(bid, side, day); b != ledger {
		t.Fatalf("%s: %s on %s: read model's ledger balance %d, the history's %d", when, side.Key, day, b, ledger)
	}
	gotRows := map[string][4]int64{}
	for k, cells := range got.rows {
		if k == side.TotalRow {
			continue
		}
		var b [4]int64
		for i := range b {
			fmt.Sscan(cells[i+1], &b[i])
		}
		gotRows[k] = b
		if id, err := uuid.Parse(k); err == nil && cells[0] != m.parties[id] {
			t.Fatalf("%s: %s row %s named %q, want %q", when, side.Key, k, cells[0], m.parties[id])
		}
	}
	if !reflect.DeepEqual(gotRows, wantRows) {
		t.Fatalf("%s: %s on %s: rows\n got %v\nwant %v", when, side.Key, day, gotRows, wantRows)
	}
}

// unifiedSheet is a downloaded unified report workbook.
type unifiedSheet struct {
	file *excelize.File
}

func openUnifiedXLSX(t *testing.T, b []byte) unifiedSheet {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("open xlsx: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	if got := f.GetSheetList(); !reflect.DeepEqual(got, []string{app.UnifiedSheet}) {
		t.Fatalf("sheets %v", got)
	}
	return unifiedSheet{file: f}
}

// rows are the sheet's rows as shown (formats applied) or as stored.
func (s unifiedSheet) rows(t *testing.T, raw bool) [][]string {
	t.Helper()
	var opts []excelize.Options
	if raw {
		opts = append(opts, excelize.Options{RawCellValue: true})
	}
	rows, err := s.file.GetRows(app.UnifiedSheet, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func (s unifiedSheet) bold(t *testing.T, cell string) bool {
	t.Helper()
	id, err := s.file.GetCellStyle(app.UnifiedSheet, cell)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.file.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	return st.Font != nil && st.Font.Bold
}
