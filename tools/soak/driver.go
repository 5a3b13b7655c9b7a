package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// bankTxn is what the driver expects of one bank transaction.
type bankTxn struct {
	amount      int64
	direction   string
	categorized string   // the categorization_status an acknowledged categorization left ("" when none)
	recorded    bool     // recorded through .../transactions/record (may carry receipts)
	docs        []string // live receipt ids
	updated     bool     // an acknowledged write changed it after its creation (categorize, split, PATCH)
}

// doc is an invoice, a bill or a vendor credit: its total and what is
// still open (outstanding, or unapplied for a credit).
type doc struct {
	total, open int64
	vendor      string // bills and credits: the vendor's external id
}

// business is one business of one platform client and the driver's model
// of everything acknowledged in it. One worker writes to it at a time.
type business struct {
	client    *api
	clientIdx int
	id        string
	name      string
	rng       *rand.Rand
	seq       int

	acctID, vehicleID string

	bankTxns     map[string]*bankTxn
	customers    map[string]bool
	invoices     map[string]*doc
	payments     map[string]int64
	writeOffs    map[string]string // write-off id → invoice id
	bills        map[string]*doc
	billPayments map[string]int64
	credits      map[string]*doc
	trips        map[string]bool

	pending []*writeOp // unknown-outcome writes, resolved at the end
}

func newBusiness(c *api, clientIdx int, id, name string, seed uint64) *business {
	return &business{client: c, clientIdx: clientIdx, id: id, name: name, rng: rand.New(rand.NewPCG(seed, 7)),
		bankTxns: map[string]*bankTxn{}, customers: map[string]bool{}, invoices: map[string]*doc{},
		payments: map[string]int64{}, writeOffs: map[string]string{}, bills: map[string]*doc{},
		billPayments: map[string]int64{}, credits: map[string]*doc{}, trips: map[string]bool{}}
}

func (b *business) base() string { return "/v1/businesses/" + b.id }

func (b *business) next() int { b.seq++; return b.seq }

func (b *business) key(kind string) string {
	// Keys are scoped to the client, which owns several businesses: the
	// whole business id (UUIDv7s of one client share their first digits).
	return fmt.Sprintf("soak-%s-%s-%d", b.id, kind, b.next())
}

func (b *business) date() string {
	return fmt.Sprintf("2026-%02d-%02d", 2+b.rng.IntN(10), 1+b.rng.IntN(28))
}

// writeOp is one write: its request (sent again, byte for byte, until it is
// acknowledged) and what an acknowledgement does to the model.
type writeOp struct {
	kind        string
	method      string
	path        string
	contentType string
	body        []byte
	key         string
	want        []int
	apply       func(r reply) (ids []string, effect map[string]any, err error)
	firstTried  time.Time
}

func jsonOp(kind, method, path string, body any, key string, want []int, apply func(reply) ([]string, map[string]any, error)) *writeOp {
	raw, err := json.Marshal(body)
	if err != nil {
		panic(err)
	}
	return &writeOp{kind: kind, method: method, path: path, contentType: "application/json", body: raw, key: key, want: want, apply: apply}
}

// multipartOp builds a record request: the transaction part and one receipt.
func multipartOp(kind, method, path string, txn any, fileName string, file []byte, key string, want []int,
	apply func(reply) ([]string, map[string]any, error)) *writeOp {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	raw, _ := json.Marshal(txn)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="transaction"`)
	h.Set("Content-Type", "application/json")
	p, _ := w.CreatePart(h)
	_, _ = p.Write(raw)
	h = textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="files"; filename=%q`, fileName))
	h.Set("Content-Type", "image/png")
	p, _ = w.CreatePart(h)
	_, _ = p.Write(file)
	_ = w.Close()
	return &writeOp{kind: kind, method: method, path: path, contentType: w.FormDataContentType(), body: body.Bytes(), key: key, want: want, apply: apply}
}

func stable(name string) map[string]any {
	return map[string]any{"type": "StableName", "stable_name": name}
}

func num(m map[string]any, k string) int64 {
	switch v := m[k].(type) {
	case float64:
		return int64(v)
	case json.Number:
		n, _ := v.Int64()
		return n
	}
	return 0
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

func strList(m map[string]any, k string) []string {
	var out []string
	for _, v := range asList(m[k]) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func asList(v any) []any { l, _ := v.([]any); return l }

var (
	created = []int{http.StatusCreated}
	okOnly  = []int{http.StatusOK}
)

// The mix: weights of each kind of operation.
var mix = []struct {
	kind   string
	weight int
}{
	{"import", 14}, {"categorize", 12}, {"split", 5}, {"record", 4}, {"record_patch", 4},
	{"customer", 4}, {"invoice", 12}, {"payment", 8}, {"write_off", 3},
	{"bill", 10}, {"bill_payment", 6}, {"vendor_credit", 3}, {"trip", 8},
	{"pnl_comparison", 4}, {"csv_export", 2},
}

func (b *business) pickKind() string {
	total := 0
	for _, m := range mix {
		total += m.weight
	}
	n := b.rng.IntN(total)
	for _, m := range mix {
		if n < m.weight {
			return m.kind
		}
		n -= m.weight
	}
	return mix[0].kind
}

// sortedKeys keeps the driver's choices reproducible from the seed.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (b *business) pick(ids []string) string { return ids[b.rng.IntN(len(ids))] }

// plan returns the write of kind (or a simpler one when its preconditions
// are missing: a payment needs an open invoice), or nil with a read to
// make instead.
func (b *business) plan(kind string) (*writeOp, string) {
	switch kind {
	case "import":
		n := 1 + b.rng.IntN(3)
		var txns []map[string]any
		for range n {
			dir := "DEBIT"
			if b.rng.IntN(5) == 0 {
				dir = "CREDIT"
			}
			txns = append(txns, map[string]any{"external_id": fmt.Sprintf("imp-%d", b.next()), "amount": 100 + b.rng.Int64N(50_000),
				"direction": dir, "date": b.date(), "description": "Soak purchase", "counterparty_name": "Vendor " + b.name})
		}
		return jsonOp("import", http.MethodPost, b.base()+"/custom-accounts/"+b.acctID+"/transactions",
			map[string]any{"transactions": txns}, b.key("import"), created, func(r reply) ([]string, map[string]any, error) {
				var ids []string
				for _, d := range asList(r.json["data"]) {
					m, _ := d.(map[string]any)
					id := str(m, "id")
					b.bankTxns[id] = &bankTxn{amount: num(m, "amount"), direction: str(m, "direction")}
					ids = append(ids, id)
				}
				if len(ids) != n {
					return ids, nil, fmt.Errorf("import of %d answered %d transactions", n, len(ids))
				}
				return ids, map[string]any{"transactions": n}, nil
			}), ""
	case "categorize", "split":
		var open []string
		for _, id := range sortedKeys(b.bankTxns) {
			t := b.bankTxns[id]
			if t.categorized == "" && (kind == "categorize" || t.direction == "DEBIT" && t.amount >= 2) {
				open = append(open, id)
			}
		}
		if len(open) == 0 {
			return b.plan("import")
		}
		id := b.pick(open)
		t := b.bankTxns[id]
		body := map[string]any{"type": "Category", "category": stable([]string{"MEALS", "RENT", "UTILITIES"}[b.rng.IntN(3)])}
		effect := map[string]any{"category": body["category"]}
		if t.direction == "CREDIT" {
			body["category"] = stable("SALES")
			effect["category"] = body["category"]
		}
		if kind == "split" {
			a := 1 + b.rng.Int64N(t.amount-1)
			body = map[string]any{"type": "Split", "entries": []map[string]any{
				{"category": stable("MEALS"), "amount": a}, {"category": stable("UTILITIES"), "amount": t.amount - a}}}
			effect = map[string]any{"split": []int64{a, t.amount - a}}
		}
		return jsonOp(kind, http.MethodPut, b.base()+"/bank-transactions/"+id+"/categorize", body, "", okOnly,
			func(r reply) ([]string, map[string]any, error) {
				want := map[string]string{"categorize": "CATEGORIZED", "split": "SPLIT"}[kind]
				if s := str(r.data(), "categorization_status"); s != want {
					return []string{id}, nil, fmt.Errorf("categorization_status %q, want %s", s, want)
				}
				t.categorized, t.updated = want, true
				return []string{id}, effect, nil
			}), ""
	case "record":
		amount := 100 + b.rng.Int64N(20_000)
		txn := map[string]any{"external_id": fmt.Sprintf("rec-%d", b.next()), "amount": amount, "direction": "DEBIT",
			"date": b.date(), "description": "Receipt purchase"}
		return multipartOp("record", http.MethodPost, b.base()+"/custom-accounts/"+b.acctID+"/transactions/record", txn,
			"receipt.png", receiptBytes(b.seq), b.key("record"), created, func(r reply) ([]string, map[string]any, error) {
				d := r.data()
				id := str(d, "id")
				docs := strList(d, "document_ids")
				b.bankTxns[id] = &bankTxn{amount: amount, direction: "DEBIT", recorded: true, docs: docs}
				if len(docs) != 1 {
					return []string{id}, nil, fmt.Errorf("recorded with one receipt, answered %d documents", len(docs))
				}
				return []string{id}, map[string]any{"amount": amount, "receipts": 1}, nil
			}), ""
	case "record_patch":
		var recorded []string
		for _, id := range sortedKeys(b.bankTxns) {
			if t := b.bankTxns[id]; t.recorded && len(t.docs) < 4 {
				recorded = append(recorded, id)
			}
		}
		if len(recorded) == 0 {
			return b.plan("record")
		}
		id := b.pick(recorded)
		t := b.bankTxns[id]
		// document_ids keeps the receipts known to be live and archives any
		// other: a retry of a PATCH whose answer was lost archives the
		// receipt the lost attempt added, so the receipts stay exactly the
		// known ones plus one.
		memo := fmt.Sprintf("memo %d", b.next())
		txn := map[string]any{"memo": memo, "document_ids": append([]string{}, t.docs...)}
		want := len(t.docs) + 1
		return multipartOp("record_patch", http.MethodPatch, b.base()+"/custom-accounts/"+b.acctID+"/transactions/"+id+"/record", txn,
			fmt.Sprintf("receipt-%d.png", b.seq), receiptBytes(b.seq), "", okOnly, func(r reply) ([]string, map[string]any, error) {
				docs := strList(r.data(), "document_ids")
				if len(docs) != want || !containsAll(docs, t.docs) {
					return []string{id}, nil, fmt.Errorf("PATCH with one more receipt: documents %v, had %v", docs, t.docs)
				}
				t.docs, t.updated = docs, true
				return []string{id}, map[string]any{"memo": memo, "receipts": want}, nil
			}), ""
	case "customer":
		ext := fmt.Sprintf("cust-%d", b.next())
		return jsonOp("customer", http.MethodPost, b.base()+"/customers", map[string]any{"external_id": ext, "company_name": "Customer " + ext},
			b.key("customer"), created, func(r reply) ([]string, map[string]any, error) {
				id := str(r.data(), "id")
				b.customers[id] = true
				return []string{id}, map[string]any{"external_id": ext}, nil
			}), ""
	case "invoice":
		if len(b.customers) == 0 {
			return b.plan("customer")
		}
		cust := b.pick(sortedKeys(b.customers))
		var lines []map[string]any
		var total int64
		for range 1 + b.rng.IntN(2) {
			price := 1000 + b.rng.Int64N(100_000)
			total += price
			lines = append(lines, map[string]any{"product": "Service", "unit_price": price, "quantity": "1"})
		}
		return jsonOp("invoice", http.MethodPost, b.base()+"/invoices", map[string]any{"external_id": fmt.Sprintf("inv-%d", b.next()),
			"sent_at": b.date() + "T10:00:00Z", "customer_id": cust, "line_items": lines}, b.key("invoice"), created,
			func(r reply) ([]string, map[string]any, error) {
				d := r.data()
				id, got := str(d, "id"), num(d, "total_amount")
				b.invoices[id] = &doc{total: got, open: got}
				if got != total {
					return []string{id}, nil, fmt.Errorf("invoice total %d, lines say %d", got, total)
				}
				return []string{id}, map[string]any{"total": total, "receivable": total}, nil
			}), ""
	case "payment", "write_off":
		var open []string
		for _, id := range sortedKeys(b.invoices) {
			if b.invoices[id].open > 0 {
				open = append(open, id)
			}
		}
		if len(open) == 0 {
			return b.plan("invoice")
		}
		id := b.pick(open)
		inv := b.invoices[id]
		amount := inv.open
		if b.rng.IntN(2) == 0 {
			amount = 1 + b.rng.Int64N(inv.open)
		}
		if kind == "write_off" {
			return jsonOp("write_off", http.MethodPost, b.base()+"/invoices/"+id+"/write-off",
				map[string]any{"amount": amount, "write_off_at": "2026-11-30T00:00:00Z"}, b.key("writeoff"), created,
				func(r reply) ([]string, map[string]any, error) {
					woID := str(r.data(), "id")
					b.writeOffs[woID] = id
					inv.open -= amount
					return []string{woID}, map[string]any{"invoice_id": id, "bad_debt": amount, "receivable": -amount}, nil
				}), ""
		}
		return jsonOp("payment", http.MethodPost, b.base()+"/invoices/payments", map[string]any{"paid_at": "2026-11-30T12:00:00Z",
			"method": "ACH", "amount": amount, "fee": 0, "invoice_payments": []map[string]any{{"invoice_id": id, "amount": amount}}},
			b.key("payment"), created, func(r reply) ([]string, map[string]any, error) {
				pid := str(r.data(), "id")
				b.payments[pid] = amount
				inv.open -= amount
				return []string{pid}, map[string]any{"invoice_id": id, "amount": amount, "receivable": -amount}, nil
			}), ""
	case "bill":
		vendor := fmt.Sprintf("vendor-%d", b.rng.IntN(3))
		var lines []map[string]any
		var total int64
		for range 1 + b.rng.IntN(2) {
			price := 1000 + b.rng.Int64N(80_000)
			total += price
			lines = append(lines, map[string]any{"product_name": "Supplies", "unit_price": price, "quantity": "1",
				"account_identifier": stable([]string{"RENT", "UTILITIES"}[b.rng.IntN(2)])})
		}
		n := b.next()
		return jsonOp("bill", http.MethodPost, b.base()+"/bills", map[string]any{"external_id": fmt.Sprintf("bill-%d", n),
			"bill_number": fmt.Sprintf("B-%d", n), "received_at": b.date() + "T00:00:00Z", "bill_terms": "NET_30",
			"vendor_external_id": vendor, "line_items": lines}, b.key("bill"), created,
			func(r reply) ([]string, map[string]any, error) {
				d := r.data()
				id, got := str(d, "id"), num(d, "total_amount")
				b.bills[id] = &doc{total: got, open: got, vendor: vendor}
				if got != total {
					return []string{id}, nil, fmt.Errorf("bill total %d, lines say %d", got, total)
				}
				return []string{id}, map[string]any{"total": total, "payable": total}, nil
			}), ""
	case "bill_payment", "vendor_credit":
		var open []string
		for _, id := range sortedKeys(b.bills) {
			if b.bills[id].open > 0 {
				open = append(open, id)
			}
		}
		if len(open) == 0 {
			return b.plan("bill")
		}
		id := b.pick(open)
		bill := b.bills[id]
		amount := bill.open
		if b.rng.IntN(2) == 0 {
			amount = 1 + b.rng.Int64N(bill.open)
		}
		n := b.next()
		if kind == "vendor_credit" {
			credit := amount + b.rng.Int64N(5_000) // part of it stays unapplied
			return jsonOp("vendor_credit", http.MethodPost, b.base()+"/bills/vendor-credits", map[string]any{
				"external_id": fmt.Sprintf("vc-%d", n), "received_at": "2026-11-30T00:00:00Z", "vendor_external_id": bill.vendor,
				"line_items":  []map[string]any{{"amount": credit, "expense_account_identifier": stable("RENT")}},
				"allocations": []map[string]any{{"bill_id": id, "amount": amount}}}, b.key("credit"), created,
				func(r reply) ([]string, map[string]any, error) {
					d := r.data()
					cid := str(d, "id")
					b.credits[cid] = &doc{total: credit, open: credit - amount, vendor: bill.vendor}
					bill.open -= amount
					if u := num(d, "unapplied_amount"); u != credit-amount {
						return []string{cid}, nil, fmt.Errorf("vendor credit unapplied %d, want %d", u, credit-amount)
					}
					return []string{cid}, map[string]any{"bill_id": id, "total": credit, "applied": amount, "payable": -credit}, nil
				}), ""
		}
		return jsonOp("bill_payment", http.MethodPost, b.base()+"/bills/bill-payments", map[string]any{"paid_at": "2026-11-30T12:00:00Z",
			"method": "ACH", "amount": amount, "external_id": fmt.Sprintf("bp-%d", n),
			"bill_payment_allocations": []map[string]any{{"bill_id": id, "amount": amount}}}, b.key("billpay"), created,
			func(r reply) ([]string, map[string]any, error) {
				pid := str(r.data(), "id")
				b.billPayments[pid] = amount
				bill.open -= amount
				return []string{pid}, map[string]any{"bill_id": id, "amount": amount, "payable": -amount}, nil
			}), ""
	case "trip":
		dist := fmt.Sprintf("%d.%d", 1+b.rng.IntN(200), b.rng.IntN(10))
		return jsonOp("trip", http.MethodPost, b.base()+"/mileage/trips", map[string]any{"vehicle_id": b.vehicleID, "trip_date": b.date(),
			"purpose": "BUSINESS", "distance": dist}, b.key("trip"), created, func(r reply) ([]string, map[string]any, error) {
			id := str(r.data(), "id")
			b.trips[id] = true
			return []string{id}, map[string]any{"distance": dist}, nil
		}), ""
	}
	return nil, kind // a read
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// receiptBytes is a small PNG-signed payload, distinct per call (the
// services store it as is; its content is not read).
func receiptBytes(n int) []byte {
	return append([]byte("\x89PNG\r\n\x1a\n"), []byte(fmt.Sprintf("soak receipt %d %s", n, strings.Repeat("x", n%64)))...)
}

// doRead runs one of the read kinds of the mix.
func (b *business) doRead(ctx context.Context, kind string, bound time.Duration) error {
	switch kind {
	case "pnl_comparison":
		m := 2 + b.rng.IntN(9)
		r, err := b.client.read(ctx, http.MethodPost, b.base()+"/reports/profit-and-loss-comparison", map[string]any{
			"periods":         map[string]any{"type": "Comparison_Months", "months": []map[string]any{{"year": 2026, "month": m}, {"year": 2026, "month": m + 1}}},
			"reporting_basis": []string{"ACCRUAL", "CASH"}[b.rng.IntN(2)],
		}, bound)
		if err != nil {
			return err
		}
		if r.status != http.StatusOK || len(asList(r.data()["pnls"])) != 2 {
			return fmt.Errorf("comparison: %d %s", r.status, truncate(r.body))
		}
		return nil
	case "csv_export":
		m := 2 + b.rng.IntN(10)
		r, err := b.client.read(ctx, http.MethodGet, fmt.Sprintf("%s/reports/transactions/exports/csv?start_date=2026-%02d-01&end_date=2026-%02d-28", b.base(), m, m), nil, bound)
		if err != nil {
			return err
		}
		u := str(r.data(), "presignedUrl")
		if r.status != http.StatusOK || u == "" {
			return fmt.Errorf("csv export: %d %s", r.status, truncate(r.body))
		}
		resp, err := b.client.hc.Get(u)
		if err != nil {
			return fmt.Errorf("csv download: %w", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
			return fmt.Errorf("csv download: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		return nil
	}
	return fmt.Errorf("unknown read %q", kind)
}

// driver runs every business's worker at a fixed overall rate and lets the
// checker stop the world (gate) between operations.
type driver struct {
	cfg        Config
	businesses []*business
	log        *writeLog
	stats      *Stats
	gate       sync.RWMutex
	mu         sync.Mutex // guards stats' maps
}

// run drives until ctx ends.
func (d *driver) run(ctx context.Context) {
	interval := time.Duration(float64(len(d.businesses)) / d.cfg.Rate * float64(time.Second))
	var wg sync.WaitGroup
	for i, b := range d.businesses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Spread the workers over the interval.
			select {
			case <-ctx.Done():
				return
			case <-time.After(interval * time.Duration(i) / time.Duration(len(d.businesses))):
			}
			t := time.NewTicker(interval)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				d.gate.RLock()
				d.step(ctx, b)
				d.gate.RUnlock()
			}
		}()
	}
	wg.Wait()
}

func (d *driver) step(ctx context.Context, b *business) {
	if len(b.pending) > 0 {
		return // an unknown outcome waits: the model of b is uncertain until it is resolved
	}
	kind := b.pickKind()
	op, read := b.plan(kind)
	if op == nil {
		err := b.doRead(ctx, read, d.cfg.UnknownBound)
		d.mu.Lock()
		d.stats.Reads[read]++
		if err != nil && ctx.Err() == nil {
			d.stats.ReadErrors = append(d.stats.ReadErrors, fmt.Sprintf("%s %s: %v", b.id, read, err))
		}
		d.mu.Unlock()
		return
	}
	d.exec(ctx, b, op, false)
}

// exec sends op until it is acknowledged, refused or its outcome stays
// unknown past the bound, and records what happened.
func (d *driver) exec(ctx context.Context, b *business, op *writeOp, resolving bool) bool {
	if op.firstTried.IsZero() {
		op.firstTried = time.Now()
	}
	r, attempts, err := b.client.write(ctx, op.method, op.path, op.contentType, op.body, op.key, d.cfg.UnknownBound)
	d.mu.Lock()
	defer d.mu.Unlock()
	if attempts > 1 {
		d.stats.Retried[op.kind]++
	}
	switch {
	case errors.Is(err, errUnknownOutcome):
		if !resolving {
			b.pending = append(b.pending, op)
			d.stats.Unknown[op.kind]++
		}
		return false
	case err != nil: // the load ended during the request
		if !resolving && ctx.Err() != nil {
			b.pending = append(b.pending, op)
			d.stats.CutAtEnd[op.kind]++
		}
		return false
	case !slices.Contains(op.want, r.status):
		d.stats.Rejected = append(d.stats.Rejected, fmt.Sprintf("%s %s %s: %d %s", b.id, op.method, op.path, r.status, truncate(r.body)))
		return true
	}
	ids, effect, aerr := op.apply(r)
	if aerr != nil {
		d.stats.Mismatches = append(d.stats.Mismatches, fmt.Sprintf("%s %s %v: %v", b.id, op.kind, ids, aerr))
	}
	d.stats.Acknowledged[op.kind]++
	if resolving {
		d.stats.ResolvedAcknowledged[op.kind]++
	}
	d.log.add(logRecord{At: time.Now().UTC(), Client: b.clientIdx, Business: b.id, Kind: op.kind, IDs: ids, Key: op.key,
		Attempts: attempts, Effect: effect, Replayed: r.status == http.StatusCreated && attempts > 1})
	return true
}

// resolve sends the unknown-outcome writes again with their keys, in
// order, until each is acknowledged (the Idempotency-Key makes the retry
// return the first attempt's answer when it was applied) or the bound
// passes again.
func (d *driver) resolve(ctx context.Context) {
	for _, b := range d.businesses {
		for len(b.pending) > 0 {
			op := b.pending[0]
			if !d.exec(ctx, b, op, true) {
				d.mu.Lock()
				d.stats.Unresolved = append(d.stats.Unresolved, fmt.Sprintf("%s %s %s key %s", b.id, op.method, op.path, op.key))
				d.mu.Unlock()
			}
			b.pending = b.pending[1:]
		}
	}
}
