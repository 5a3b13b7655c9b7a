package stacktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The tag universe of the property: two keys, a few values each.
var propertyTags = []string{"location=north", "location=south", "location=east", "project=alpha", "project=beta"}

// tagSet is a set of "key=value".
type tagSet map[string]bool

func (s tagSet) clone() tagSet {
	out := tagSet{}
	for k := range s {
		out[k] = true
	}
	return out
}

func (s tagSet) union(o tagSet) tagSet {
	out := s.clone()
	for k := range o {
		out[k] = true
	}
	return out
}

// replaceKeys is s less the tags whose key o has, plus o: an invoice
// line's own tag wins over the invoice's for its key.
func (s tagSet) replaceKeys(o tagSet) tagSet {
	keys := map[string]bool{}
	for k := range o {
		keys[strings.SplitN(k, "=", 2)[0]] = true
	}
	out := tagSet{}
	for k := range s {
		if !keys[strings.SplitN(k, "=", 2)[0]] {
			out[k] = true
		}
	}
	for k := range o {
		out[k] = true
	}
	return out
}

func (s tagSet) wire() []map[string]any {
	out := []map[string]any{}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range s {
			if !yield(k) {
				return
			}
		}
	}) {
		kv := strings.SplitN(k, "=", 2)
		out = append(out, map[string]any{"key": kv[0], "value": kv[1]})
	}
	return out
}

// pnlLine is one P&L line of the model: income or expense (positive when
// it raises them), with the tags it carries.
type pnlLine struct {
	income bool
	amount int64
	tags   tagSet
}

// The model's documents and transactions.
type (
	modelSplit struct {
		account string
		amount  int64
		tags    tagSet
	}
	modelBankTxn struct {
		id, account string // account: the custom account id ("" for a bulk import)
		amount      int64
		moneyOut    bool
		tags        tagSet
		splits      []modelSplit // nil while uncategorized
	}
	modelDocLine struct {
		amount  int64
		account string
		tags    tagSet
	}
	modelDoc struct {
		id    string
		tags  tagSet
		lines []modelDocLine
		total int64
		paid  bool
	}
	modelPayment struct {
		id   string
		fee  int64
		tags tagSet
	}
)

var revenueAccounts = map[string]bool{"SALES": true, "UNCATEGORIZED_REVENUE": true}

// tagsModel is what the books must say: every P&L line of every path.
type tagsModel struct {
	bank                []*modelBankTxn
	invoices, bills     []*modelDoc
	credits             []*modelDoc
	invoicePays, billPs []*modelPayment
}

func (m *tagsModel) lines(cash bool) []pnlLine {
	var out []pnlLine
	for _, t := range m.bank {
		if t.splits == nil {
			acct := "UNCATEGORIZED_EXPENSES"
			if !t.moneyOut {
				acct = "UNCATEGORIZED_REVENUE"
			}
			out = append(out, bankLine(acct, t.amount, t.moneyOut, t.tags))
			continue
		}
		for _, s := range t.splits {
			out = append(out, bankLine(s.account, s.amount, t.moneyOut, t.tags.union(s.tags)))
		}
	}
	for _, inv := range m.invoices {
		if cash && !inv.paid {
			continue
		}
		for _, l := range inv.lines {
			out = append(out, pnlLine{income: true, amount: l.amount, tags: inv.tags.replaceKeys(l.tags)})
		}
	}
	for _, p := range m.invoicePays {
		if p.fee > 0 {
			out = append(out, pnlLine{amount: p.fee, tags: p.tags})
		}
	}
	for _, b := range m.bills {
		if cash && !b.paid {
			continue
		}
		for _, l := range b.lines {
			out = append(out, pnlLine{amount: l.amount, tags: b.tags.union(l.tags)})
		}
	}
	if !cash { // an unapplied vendor credit is used on the cash basis only once applied
		for _, c := range m.credits {
			for _, l := range c.lines {
				out = append(out, pnlLine{amount: -l.amount, tags: c.tags.union(l.tags)})
			}
		}
	}
	return out
}

// bankLine is the P&L line of a bank transaction's amount on acct: money
// out debits it (an expense rises, income falls), money in credits it.
func bankLine(acct string, amount int64, moneyOut bool, tags tagSet) pnlLine {
	income := revenueAccounts[acct]
	if moneyOut == income {
		amount = -amount
	}
	return pnlLine{income: income, amount: amount, tags: tags}
}

// figures are a P&L's income and net profit, in cents.
type pnlFigures struct{ income, net int64 }

func (m *tagsModel) expected(cash bool, tag string) pnlFigures {
	var f pnlFigures
	for _, l := range m.lines(cash) {
		if tag != "" && !l.tags[tag] {
			continue
		}
		if l.income {
			f.income += l.amount
			f.net += l.amount
		} else {
			f.net -= l.amount
		}
	}
	return f
}

// TestTagsReachReportsProperty: random histories that tag bank
// transactions, split entries, invoices, invoice payments, bills, bill
// payments and vendor credits by every path the API has (at creation,
// POST /tags for each entity type, the owners' tag endpoints, DELETE
// /bank-transactions/tags, the record PATCH, categorization rules), then,
// on both bases, the P&L filtered by each tag value equals the sum of the
// P&L amounts that carry it, and the unfiltered P&L the sum of all.
// TAGS_PROPERTY_SEED replays a history, TAGS_PROPERTY_STEPS lengthens it.
func TestTagsReachReportsProperty(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("TAGS_PROPERTY_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("TAGS_PROPERTY_SEED: %v", err)
		}
		seed = v
	}
	steps := 40
	if s := os.Getenv("TAGS_PROPERTY_STEPS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("TAGS_PROPERTY_STEPS: %q", s)
		}
		steps = v
	}
	t.Logf("TAGS_PROPERTY_SEED=%d TAGS_PROPERTY_STEPS=%d", seed, steps)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))

	tok := platformToken(t)
	bid := createBusiness(t, tok, fmt.Sprintf("tagprop-%d", seed))
	base := "/v1/businesses/" + bid
	// do sends a JSON request, retrying while a service has not yet
	// learned of the business (503, or 404 for the business itself).
	do := func(method, path string, body any, want int) map[string]any {
		t.Helper()
		var r reply
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			r = jsonCall(t, method, base+path, tok, body)
			if r.status == want || r.status != http.StatusServiceUnavailable && r.status != http.StatusNotFound || time.Now().After(deadline) {
				break
			}
		}
		if r.status != want {
			t.Fatalf("%s %s: %d, want %d: %s", method, path, r.status, want, r.body)
		}
		return r.json
	}
	dataOf := func(m map[string]any) map[string]any { return m["data"].(map[string]any) }
	randTags := func(max int) tagSet {
		s := tagSet{}
		for range rng.IntN(max + 1) {
			s[propertyTags[rng.IntN(len(propertyTags))]] = true
		}
		return s
	}
	date := func() string { return fmt.Sprintf("2026-%02d-%02d", 1+rng.IntN(11), 1+rng.IntN(28)) }
	stable := func(name string) map[string]any { return map[string]any{"type": "StableName", "stable_name": name} }
	expenseAccounts := []string{"MEALS", "OFFICE_EXPENSES", "TRAVEL"}
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }

	m := &tagsModel{}
	acct := dataOf(do(http.MethodPost, "/custom-accounts", map[string]any{
		"account_name": "Operating", "institution_name": "Test Bank", "account_type": "DEPOSITORY", "account_subtype": "CHECKING"}, http.StatusCreated))["id"].(string)
	// Imports whose counterparty names "Rule Co" are categorized by the rule.
	do(http.MethodPost, "/categorization-rules", map[string]any{
		"counterparty": map[string]any{"match": "CONTAINS", "pattern": "rule co"}, "category": stable("TRAVEL")}, http.StatusCreated)
	customer := dataOf(do(http.MethodPost, "/customers", map[string]any{"external_id": "prop-cust", "company_name": "Hooli"}, http.StatusCreated))["id"].(string)

	newBankTxn := func(id, account string, amount int64, moneyOut bool, tags tagSet, byRule bool) {
		tx := &modelBankTxn{id: id, account: account, amount: amount, moneyOut: moneyOut, tags: tags}
		if byRule {
			tx.splits = []modelSplit{{account: "TRAVEL", amount: amount, tags: tagSet{}}}
		}
		m.bank = append(m.bank, tx)
	}
	direction := func(moneyOut bool) string {
		if moneyOut {
			return "DEBIT"
		}
		return "CREDIT"
	}
	n := 0
	next := func() int { n++; return n }

	actions := []struct {
		name   string
		weight int
		run    func() bool // false: nothing to act on
	}{
		{"import into the custom account", 4, func() bool {
			amount, out, tags := int64(100+rng.IntN(90000)), rng.IntN(3) > 0, randTags(2)
			byRule := out && rng.IntN(4) == 0
			party := "Supplier"
			if byRule {
				party = "Rule Co"
			}
			rows := do(http.MethodPost, "/custom-accounts/"+acct+"/transactions", map[string]any{"transactions": []map[string]any{{
				"external_id": fmt.Sprintf("c-%d", next()), "amount": amount, "direction": direction(out), "date": date(),
				"counterparty_name": party, "tags": tags.wire()}}}, http.StatusCreated)["data"].([]any)
			newBankTxn(rows[0].(map[string]any)["id"].(string), acct, amount, out, tags, byRule)
			return true
		}},
		{"bulk import", 2, func() bool {
			var items []map[string]any
			type it struct {
				amount int64
				out    bool
				tags   tagSet
			}
			var its []it
			for range 1 + rng.IntN(3) {
				x := it{int64(100 + rng.IntN(90000)), rng.IntN(2) == 0, randTags(2)}
				its = append(its, x)
				items = append(items, map[string]any{"source": "API", "source_transaction_id": fmt.Sprintf("b-%d", next()),
					"source_account_id": "bulk-acc", "amount": x.amount, "direction": direction(x.out), "date": date(), "tags": x.tags.wire()})
			}
			rows := do(http.MethodPost, "/bank-transactions/bulk", map[string]any{"transactions": items}, http.StatusCreated)["data"].([]any)
			for i, r := range rows {
				newBankTxn(r.(map[string]any)["id"].(string), "", its[i].amount, its[i].out, its[i].tags, false)
			}
			return true
		}},
		{"categorize", 4, func() bool {
			if len(m.bank) == 0 {
				return false
			}
			tx := m.bank[rng.IntN(len(m.bank))]
			acctName := "SALES"
			if tx.moneyOut {
				acctName = pick(expenseAccounts)
			}
			do(http.MethodPut, "/bank-transactions/"+tx.id+"/categorize", map[string]any{"type": "Category", "category": stable(acctName)}, http.StatusOK)
			tx.splits = []modelSplit{{account: acctName, amount: tx.amount, tags: tagSet{}}}
			return true
		}},
		{"split with entry tags", 3, func() bool {
			if len(m.bank) == 0 {
				return false
			}
			tx := m.bank[rng.IntN(len(m.bank))]
			if tx.amount < 2 {
				return false
			}
			first := 1 + rng.Int64N(tx.amount-1)
			parts := []int64{first, tx.amount - first}
			var entries []map[string]any
			var splits []modelSplit
			for _, p := range parts {
				a := pick(append([]string{"SALES"}, expenseAccounts...))
				tags := randTags(2)
				entries = append(entries, map[string]any{"category": stable(a), "amount": p, "tags": tags.wire()})
				splits = append(splits, modelSplit{account: a, amount: p, tags: tags})
			}
			do(http.MethodPost, "/bank-transactions/"+tx.id+"/categorize", map[string]any{"type": "Split", "entries": entries}, http.StatusOK)
			tx.splits = splits
			return true
		}},
		{"POST /bank-transactions/tags", 3, func() bool {
			if len(m.bank) == 0 {
				return false
			}
			tx := m.bank[rng.IntN(len(m.bank))]
			tags := randTags(2)
			if len(tags) == 0 {
				return false
			}
			do(http.MethodPost, "/bank-transactions/tags", map[string]any{"transaction_ids": []string{tx.id}, "key_values": tags.wire()}, http.StatusOK)
			tx.tags = tx.tags.union(tags)
			return true
		}},
		{"POST /tags BANK_TRANSACTION", 2, func() bool {
			if len(m.bank) == 0 {
				return false
			}
			tx := m.bank[rng.IntN(len(m.bank))]
			tags := tagSet{pick(propertyTags): true}
			do(http.MethodPost, "/tags", map[string]any{"entity_type": "BANK_TRANSACTION", "entity_ids": []string{tx.id}, "key_values": tags.wire()}, http.StatusOK)
			tx.tags = tx.tags.union(tags)
			return true
		}},
		{"DELETE /bank-transactions/tags", 3, func() bool {
			var tagged []*modelBankTxn
			for _, tx := range m.bank {
				if len(tx.tags) > 0 {
					tagged = append(tagged, tx)
				}
			}
			if len(tagged) == 0 {
				return false
			}
			tx := tagged[rng.IntN(len(tagged))]
			got := dataOf(do(http.MethodGet, "/bank-transactions/"+tx.id, nil, http.StatusOK))["transaction_tags"].([]any)
			tg := got[rng.IntN(len(got))].(map[string]any)
			do(http.MethodDelete, "/bank-transactions/tags", map[string]any{"tag_ids": []string{tg["id"].(string)}}, http.StatusOK)
			delete(tx.tags, tg["key"].(string)+"="+tg["value"].(string))
			return true
		}},
		{"record PATCH tags", 3, func() bool {
			var custom []*modelBankTxn
			for _, tx := range m.bank {
				if tx.account != "" {
					custom = append(custom, tx)
				}
			}
			if len(custom) == 0 {
				return false
			}
			tx := custom[rng.IntN(len(custom))]
			tags := randTags(2)
			recordPatch(t, base+"/custom-accounts/"+tx.account+"/transactions/"+tx.id+"/record", tok, map[string]any{"tags": tags.wire()})
			tx.tags = tags
			return true
		}},
		{"invoice", 3, func() bool {
			inv := &modelDoc{tags: randTags(2)}
			var lines []map[string]any
			for range 1 + rng.IntN(2) {
				l := modelDocLine{amount: int64(100 + rng.IntN(50000)), tags: randTags(1)}
				inv.lines = append(inv.lines, l)
				inv.total += l.amount
				lines = append(lines, map[string]any{"product": "Service", "unit_price": l.amount, "quantity": "1", "tags": l.tags.wire()})
			}
			inv.id = dataOf(do(http.MethodPost, "/invoices", map[string]any{"external_id": fmt.Sprintf("inv-%d", next()),
				"sent_at": date() + "T10:00:00Z", "customer_id": customer, "tags": inv.tags.wire(), "line_items": lines}, http.StatusCreated))["id"].(string)
			m.invoices = append(m.invoices, inv)
			return true
		}},
		{"invoice paid in full", 2, func() bool {
			var open []*modelDoc
			for _, inv := range m.invoices {
				if !inv.paid {
					open = append(open, inv)
				}
			}
			if len(open) == 0 {
				return false
			}
			inv := open[rng.IntN(len(open))]
			p := &modelPayment{fee: int64(rng.IntN(2) * (1 + rng.IntN(int(min(inv.total, 500))))), tags: randTags(2)}
			p.id = dataOf(do(http.MethodPost, "/invoices/payments", map[string]any{"paid_at": date() + "T12:00:00Z", "method": "ACH",
				"amount": inv.total, "fee": p.fee, "tags": p.tags.wire(),
				"invoice_payments": []map[string]any{{"invoice_id": inv.id, "amount": inv.total}}}, http.StatusCreated))["id"].(string)
			inv.paid = true
			m.invoicePays = append(m.invoicePays, p)
			return true
		}},
		{"tag an invoice", 2, func() bool {
			if len(m.invoices) == 0 {
				return false
			}
			inv := m.invoices[rng.IntN(len(m.invoices))]
			tags := tagSet{pick(propertyTags): true}
			if rng.IntN(2) == 0 {
				do(http.MethodPost, "/invoices/tags", map[string]any{"invoice_ids": []string{inv.id}, "key_values": tags.wire()}, http.StatusOK)
			} else {
				do(http.MethodPost, "/tags", map[string]any{"entity_type": "INVOICE", "entity_ids": []string{inv.id}, "key_values": tags.wire()}, http.StatusOK)
			}
			inv.tags = inv.tags.union(tags)
			return true
		}},
		{"tag an invoice payment", 2, func() bool {
			if len(m.invoicePays) == 0 {
				return false
			}
			p := m.invoicePays[rng.IntN(len(m.invoicePays))]
			tags := tagSet{pick(propertyTags): true}
			if rng.IntN(2) == 0 {
				do(http.MethodPost, "/invoices/payments/tags", map[string]any{"payment_ids": []string{p.id}, "key_values": tags.wire()}, http.StatusOK)
			} else {
				do(http.MethodPost, "/tags", map[string]any{"entity_type": "INVOICE_PAYMENT", "entity_ids": []string{p.id}, "key_values": tags.wire()}, http.StatusOK)
			}
			p.tags = p.tags.union(tags)
			return true
		}},
		{"bill", 3, func() bool {
			b := &modelDoc{tags: randTags(2)}
			var lines []map[string]any
			for range 1 + rng.IntN(2) {
				l := modelDocLine{amount: int64(100 + rng.IntN(50000)), account: pick([]string{"RENT", "UTILITIES", "OFFICE_EXPENSES"}), tags: randTags(1)}
				b.lines = append(b.lines, l)
				b.total += l.amount
				lines = append(lines, map[string]any{"product_name": "Item", "unit_price": l.amount, "quantity": "1",
					"account_identifier": stable(l.account), "tags": l.tags.wire()})
			}
			b.id = dataOf(do(http.MethodPost, "/bills", map[string]any{"external_id": fmt.Sprintf("bill-%d", next()),
				"received_at": date() + "T00:00:00Z", "vendor_external_id": "prop-vendor", "tags": b.tags.wire(), "line_items": lines}, http.StatusCreated))["id"].(string)
			m.bills = append(m.bills, b)
			return true
		}},
		{"bill paid in full", 2, func() bool {
			var open []*modelDoc
			for _, b := range m.bills {
				if !b.paid {
					open = append(open, b)
				}
			}
			if len(open) == 0 {
				return false
			}
			b := open[rng.IntN(len(open))]
			p := &modelPayment{tags: randTags(2)}
			p.id = dataOf(do(http.MethodPost, "/bills/bill-payments", map[string]any{"paid_at": date() + "T12:00:00Z", "method": "ACH",
				"amount": b.total, "external_id": fmt.Sprintf("bp-%d", next()), "tags": p.tags.wire(),
				"bill_payment_allocations": []map[string]any{{"bill_id": b.id, "amount": b.total}}}, http.StatusCreated))["id"].(string)
			b.paid = true
			m.billPs = append(m.billPs, p)
			return true
		}},
		{"tag a bill", 2, func() bool {
			if len(m.bills) == 0 {
				return false
			}
			b := m.bills[rng.IntN(len(m.bills))]
			tags := tagSet{pick(propertyTags): true}
			do(http.MethodPost, "/tags", map[string]any{"entity_type": "BILL", "entity_ids": []string{b.id}, "key_values": tags.wire()}, http.StatusOK)
			b.tags = b.tags.union(tags)
			return true
		}},
		{"tag a bill payment", 1, func() bool {
			if len(m.billPs) == 0 {
				return false
			}
			p := m.billPs[rng.IntN(len(m.billPs))]
			tags := tagSet{pick(propertyTags): true}
			if rng.IntN(2) == 0 {
				if r := call(t, http.MethodPost, base+"/bills/bill-payments/tags", tok, "application/json",
					mustJSON(map[string]any{"transaction_ids": []string{p.id}, "key_values": tags.wire()}), true); r.status != http.StatusOK {
					t.Fatalf("POST /bills/bill-payments/tags: %d %s", r.status, r.body)
				}
			} else {
				do(http.MethodPost, "/tags", map[string]any{"entity_type": "BILL_PAYMENT", "entity_ids": []string{p.id}, "key_values": tags.wire()}, http.StatusOK)
			}
			p.tags = p.tags.union(tags)
			return true
		}},
		{"vendor credit", 2, func() bool {
			c := &modelDoc{tags: randTags(2)}
			var lines []map[string]any
			for range 1 + rng.IntN(2) {
				l := modelDocLine{amount: int64(100 + rng.IntN(20000)), account: pick([]string{"RENT", "OFFICE_EXPENSES"}), tags: randTags(1)}
				c.lines = append(c.lines, l)
				lines = append(lines, map[string]any{"amount": l.amount, "expense_account_identifier": stable(l.account), "tags": l.tags.wire()})
			}
			c.id = dataOf(do(http.MethodPost, "/bills/vendor-credits", map[string]any{"external_id": fmt.Sprintf("vc-%d", next()),
				"received_at": date() + "T00:00:00Z", "vendor_external_id": "prop-vendor", "tags": c.tags.wire(), "line_items": lines}, http.StatusCreated))["id"].(string)
			m.credits = append(m.credits, c)
			return true
		}},
	}
	total := 0
	for _, a := range actions {
		total += a.weight
	}
	counts := map[string]int{}
	for done := 0; done < steps; {
		r := rng.IntN(total)
		for _, a := range actions {
			if r -= a.weight; r < 0 {
				if a.run() {
					counts[a.name]++
					done++
				}
				break
			}
		}
	}
	t.Logf("steps: %v", counts)

	// Every figure, on both bases, for the year and each tag.
	type key struct {
		basis, tag string
	}
	var got, want map[key]pnlFigures
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		got, want = map[key]pnlFigures{}, map[key]pnlFigures{}
		for _, basis := range []string{"ACCRUAL", "CASH"} {
			for _, tag := range append([]string{""}, propertyTags...) {
				q := fmt.Sprintf("%s/reports/profit-and-loss?start_date=2026-01-01&end_date=2026-12-31&reporting_basis=%s", base, basis)
				if tag != "" {
					kv := strings.SplitN(tag, "=", 2)
					q += "&tag_key=" + kv[0] + "&tag_values=" + kv[1]
				}
				r := jsonCall(t, http.MethodGet, q, tok, nil)
				if r.status != http.StatusOK {
					t.Fatalf("%s: %d %s", q, r.status, r.body)
				}
				d := r.json["data"].(map[string]any)
				got[key{basis, tag}] = pnlFigures{int64(d["income"].(map[string]any)["value"].(float64)), int64(d["net_profit"].(float64))}
				want[key{basis, tag}] = m.expected(basis == "CASH", tag)
			}
		}
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		if time.Now().After(deadline) {
			break
		}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s P&L tagged %q: income %d, net %d; want income %d, net %d", k.basis, k.tag, got[k].income, got[k].net, w.income, w.net)
		}
	}
	t.Fatalf("the reports disagree with the model (replay with TAGS_PROPERTY_SEED=%d TAGS_PROPERTY_STEPS=%d)", seed, steps)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// recordPatch sends PATCH .../record with a transaction part only.
func recordPatch(t *testing.T, path, tok string, txn map[string]any) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="transaction"`)
	h.Set("Content-Type", "application/json")
	p, _ := w.CreatePart(h)
	_, _ = p.Write(mustJSON(txn))
	_ = w.Close()
	if r := call(t, http.MethodPatch, path, tok, w.FormDataContentType(), body.Bytes(), true); r.status != http.StatusOK {
		t.Fatalf("PATCH %s: %d %s", path, r.status, r.body)
	}
}
