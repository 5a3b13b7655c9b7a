package service

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// kv is a key_values item.
func kv(key, value string) map[string]any { return map[string]any{"key": key, "value": value} }

// anys is xs as a JSON array.
func anys[T any](xs ...T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// version is the stored version of the row id of table.
func (e *env) version(table, id string) int64 {
	e.T.Helper()
	var v int64
	if err := e.DB.NewRaw("SELECT version FROM "+table+" WHERE id = ?", id).Scan(context.Background(), &v); err != nil {
		e.T.Fatal(err)
	}
	return v
}

// tagsOf is the answer's tags, checking that data.tags (of type typ) and
// the top-level tags agree.
func tagsOf(t *testing.T, m map[string]any, typ string) []map[string]any {
	t.Helper()
	d := data(m)
	if d["type"] != typ || !equalJSON(d["tags"], m["tags"]) {
		t.Fatalf("answer = %v", m)
	}
	out := []map[string]any{}
	for _, x := range list(m["tags"]) {
		out = append(out, obj(x))
	}
	return out
}

// everyLineTagged reports whether the posting has lines and all carry
// key=value.
func everyLineTagged(p *events.LedgerPosting, key, value string) bool {
	for _, l := range p.Lines {
		if !slices.ContainsFunc(l.Tags, func(k tags.KeyValue) bool { return k.Key == key && k.Value == value }) {
			return false
		}
	}
	return len(p.Lines) > 0
}

// tagKeys is a transaction_tags list as sorted key=value strings.
func tagKeys(v any) []string {
	var out []string
	for _, x := range list(v) {
		out = append(out, obj(x)["key"].(string)+"="+obj(x)["value"].(string))
	}
	slices.Sort(out)
	return out
}

// tagID is pkg/tags' deterministic id of key=value on entity.
func tagID(bid uuid.UUID, entity, key, value string) string {
	return tags.NewTag(bid, uuid.MustParse(entity), tags.KeyValue{Key: key, Value: value}, time.Time{}).ID.String()
}

// TestTagInvoices: tags reach the invoices' GET and their events' posting
// lines with a new version; a repeat adds nothing; an unknown id is a 404
// that changes nothing; a voided invoice is tagged with a posting still
// without lines; a deleted one is unknown.
func TestTagInvoices(t *testing.T) {
	iv := newInvoicing(t)
	a := iv.create(with(simple("tg-cust", 10000), "tags", anys(kv("project", "alpha"))), 201)
	b := iv.create(simple("tg-cust", 5000), 201)
	iv.pay(payment(2000, alloc(b["id"], 2000)), 201) // paid in part: still taggable
	aid, bid := a["id"].(string), b["id"].(string)
	va, vb := iv.version("invoices", aid), iv.version("invoices", bid)

	seq := iv.lastSeq()
	m := iv.Do(req("POST", iv.path("/invoices/tags"), iv.tok, map[string]any{
		"key_values":  anys(map[string]any{"key": " Region ", "value": "west", "dimension_display_name": "Region"}),
		"invoice_ids": anys(aid, bid, aid)}), 200)
	got := tagsOf(t, m, "Invoice_Tags")
	if len(got) != 2 {
		t.Fatalf("tags added = %v", got)
	}
	ids := []string{got[0]["id"].(string), got[1]["id"].(string)}
	for _, want := range []string{tagID(iv.bid, aid, "Region", "west"), tagID(iv.bid, bid, "Region", "west")} {
		if !slices.Contains(ids, want) {
			t.Fatalf("tag ids %v lack %s (pkg/tags' id)", ids, want)
		}
	}
	for _, tg := range got {
		if tg["key"] != "Region" || tg["value"] != "west" || tg["dimension_display_name"] != "Region" {
			t.Fatalf("tag = %v", tg)
		}
	}
	if k := tagKeys(iv.get(aid)["transaction_tags"]); !slices.Equal(k, []string{"Region=west", "project=alpha"}) {
		t.Fatalf("invoice a's tags = %v", k)
	}
	if k := tagKeys(iv.get(bid)["transaction_tags"]); !slices.Equal(k, []string{"Region=west"}) {
		t.Fatalf("invoice b's tags = %v", k)
	}
	evs := ofType(iv.outbox(iv.bid, seq), events.TypeInvoiceUpserted)
	if len(evs) != 2 {
		t.Fatalf("%d invoice.upserted events, want 2", len(evs))
	}
	for _, ev := range evs {
		u := decode[events.InvoiceUpserted](t, ev)
		id := u.Invoice.ID.String()
		want := map[string]int64{aid: va + 1, bid: vb + 1}[id]
		if u.Invoice.Version != want {
			t.Fatalf("invoice %s version %d, want %d", id, u.Invoice.Version, want)
		}
		checkPosting(t, u.Posting, "INVOICE", id, want, true)
		if !everyLineTagged(u.Posting, "Region", "west") {
			t.Fatalf("posting lines %+v lack the new tag", u.Posting.Lines)
		}
		if id == aid && !everyLineTagged(u.Posting, "project", "alpha") {
			t.Fatalf("posting lines %+v lost the invoice's tag", u.Posting.Lines)
		}
	}
	if iv.version("invoices", aid) != va+1 {
		t.Fatal("stored version not bumped")
	}

	t.Run("a repeat adds nothing", func(t *testing.T) {
		iv := iv.with(t)
		seq, before := iv.lastSeq(), iv.rowCounts()
		m := iv.Do(req("POST", iv.path("/invoices/tags"), iv.tok, map[string]any{
			"key_values": anys(kv("Region", "west")), "invoice_ids": anys(aid)}), 200)
		if got := tagsOf(t, m, "Invoice_Tags"); len(got) != 0 {
			t.Fatalf("tags added = %v", got)
		}
		iv.sameCounts(before)
		if iv.lastSeq() != seq || iv.version("invoices", aid) != va+1 {
			t.Fatal("a repeat published or bumped the version")
		}
	})

	t.Run("an unknown id changes nothing", func(t *testing.T) {
		iv := iv.with(t)
		seq := iv.lastSeq()
		unknown := uuid.NewString()
		e := iv.DoInvalid(req("POST", iv.path("/invoices/tags"), iv.tok, map[string]any{
			"key_values": anys(kv("team", "red")), "invoice_ids": anys(aid, unknown)}), 404, app.EnumInvoiceNotFound)
		if meta := obj(e["meta"]); meta["field"] != "invoice_ids" || meta["invoice_id"] != unknown {
			t.Fatalf("error = %v", e)
		}
		if iv.lastSeq() != seq || slices.Contains(tagKeys(iv.get(aid)["transaction_tags"]), "team=red") {
			t.Fatal("a refused request changed invoice a")
		}
	})

	t.Run("voided and deleted invoices", func(t *testing.T) {
		iv := iv.with(t)
		c := iv.create(simple("tg-cust", 700), 201)
		cid := c["id"].(string)
		iv.Do(req("POST", iv.path("/invoices/%s/void", cid), iv.tok, nil), 200)
		vc := iv.version("invoices", cid)
		seq := iv.lastSeq()
		iv.Do(req("POST", iv.path("/invoices/tags"), iv.tok, map[string]any{"key_values": anys(kv("team", "red")), "invoice_ids": anys(cid)}), 200)
		evs := ofType(iv.outbox(iv.bid, seq), events.TypeInvoiceUpserted)
		if len(evs) != 1 {
			t.Fatalf("%d events", len(evs))
		}
		u := decode[events.InvoiceUpserted](t, evs[0])
		checkPosting(t, u.Posting, "INVOICE", cid, vc+1, false) // its entry stays reversed
		if !slices.ContainsFunc(u.Invoice.Tags, func(k tags.KeyValue) bool { return k.Key == "team" }) || u.Invoice.Status != "VOIDED" {
			t.Fatalf("snapshot = %+v", u.Invoice)
		}
		d := iv.create(simple("tg-cust", 300), 201)
		iv.V.Do(t, iv.HTTP, req("DELETE", iv.path("/invoices/%s", d["id"]), iv.tok, nil))
		iv.DoInvalid(req("POST", iv.path("/invoices/tags"), iv.tok, map[string]any{"key_values": anys(kv("team", "red")), "invoice_ids": anys(d["id"])}), 404, app.EnumInvoiceNotFound)
	})
}

// TestTagPayments: the payments' tags endpoint, like TestTagInvoices.
func TestTagPayments(t *testing.T) {
	iv := newInvoicing(t)
	a := iv.create(simple("tp-cust", 10000), 201)
	p := iv.pay(with(payment(3000, alloc(a["id"], 3000)), "fee", 100, "tags", anys(kv("channel", "mail"))), 201)
	q := iv.pay(payment(1000, alloc(a["id"], 1000)), 201)
	pid, qid := p["id"].(string), q["id"].(string)
	vp := iv.version("invoice_payments", pid)

	seq := iv.lastSeq()
	m := iv.Do(req("POST", iv.path("/invoices/payments/tags"), iv.tok, map[string]any{
		"key_values": anys(kv("region", "west"), kv("region", "west")), "payment_ids": anys(pid, qid)}), 200)
	if got := tagsOf(t, m, "Invoice_Payment_Tags"); len(got) != 2 {
		t.Fatalf("tags added = %v", got)
	}
	if k := tagKeys(iv.Do(req("GET", iv.path("/invoices/payments/%s/tags", pid), iv.tok, nil), 200)["data"]); !slices.Equal(k, []string{"channel=mail", "region=west"}) {
		t.Fatalf("payment tags = %v", k)
	}
	if k := tagKeys(data(iv.Do(req("GET", iv.path("/invoices/payments/%s", qid), iv.tok, nil), 200))["transaction_tags"]); !slices.Equal(k, []string{"region=west"}) {
		t.Fatalf("payment q's tags = %v", k)
	}
	evs := iv.outbox(iv.bid, seq)
	if len(evs) != 2 || len(ofType(evs, events.TypeInvoicePaymentUpserted)) != 2 {
		t.Fatalf("events %v, want two invoice_payment.upserted", evs)
	}
	for _, ev := range evs {
		u := decode[events.InvoicePaymentUpserted](t, ev)
		if u.Payment.ID.String() != pid {
			continue
		}
		if u.Payment.Version != vp+1 {
			t.Fatalf("payment version %d, want %d", u.Payment.Version, vp+1)
		}
		checkPosting(t, u.Posting, "INVOICE_PAYMENT", pid, vp+1, true)
		if !everyLineTagged(u.Posting, "region", "west") || !everyLineTagged(u.Posting, "channel", "mail") {
			t.Fatalf("posting lines %+v", u.Posting.Lines)
		}
	}

	t.Run("a repeat adds nothing", func(t *testing.T) {
		iv := iv.with(t)
		seq := iv.lastSeq()
		m := iv.Do(req("POST", iv.path("/invoices/payments/tags"), iv.tok, map[string]any{
			"key_values": anys(kv("region", "west")), "payment_ids": anys(pid)}), 200)
		if got := tagsOf(t, m, "Invoice_Payment_Tags"); len(got) != 0 || iv.lastSeq() != seq || iv.version("invoice_payments", pid) != vp+1 {
			t.Fatalf("repeat added %v", got)
		}
	})

	t.Run("unknown and deleted payments", func(t *testing.T) {
		iv := iv.with(t)
		before := iv.rowCounts()
		unknown := uuid.NewString()
		e := iv.DoInvalid(req("POST", iv.path("/invoices/payments/tags"), iv.tok, map[string]any{
			"key_values": anys(kv("team", "red")), "payment_ids": anys(pid, unknown)}), 404, app.EnumPaymentNotFound)
		if meta := obj(e["meta"]); meta["field"] != "payment_ids" || meta["payment_id"] != unknown {
			t.Fatalf("error = %v", e)
		}
		iv.sameCounts(before)
		iv.Do(req("POST", iv.path("/invoices/payments/bulk-delete"), iv.tok, map[string]any{"ids": anys(qid)}), 200)
		iv.DoInvalid(req("POST", iv.path("/invoices/payments/tags"), iv.tok, map[string]any{
			"key_values": anys(kv("team", "red")), "payment_ids": anys(qid)}), 404, app.EnumPaymentNotFound)
	})
}

// TestTagsInvalid: every 400 (and 415) rule of both endpoints, none
// writing anything.
func TestTagsInvalid(t *testing.T) {
	iv := newInvoicing(t)
	a := iv.create(simple("ti-cust", 1000), 201)
	aid := a["id"].(string)
	many := make([]any, invoice.MaxTagEntities+1)
	for i := range many {
		many[i] = uuid.NewString()
	}
	tooManyTags := make([]any, tags.MaxTags+1)
	for i := range tooManyTags {
		tooManyTags[i] = kv("k", strings.Repeat("v", i+1))
	}
	before := iv.rowCounts()
	for _, ep := range []struct{ path, ids string }{{"/invoices/tags", "invoice_ids"}, {"/invoices/payments/tags", "payment_ids"}} {
		for _, c := range []struct {
			name  string
			body  any
			field string // the meta.fields (or meta.field) entry; "" for none
		}{
			{"no ids", map[string]any{"key_values": anys(kv("k", "v")), ep.ids: []any{}}, ep.ids},
			{"too many ids", map[string]any{"key_values": anys(kv("k", "v")), ep.ids: many}, ep.ids},
			{"no tags", map[string]any{"key_values": []any{}, ep.ids: anys(aid)}, "key_values"},
			{"too many tags", map[string]any{"key_values": tooManyTags, ep.ids: anys(aid)}, "key_values"},
			{"blank key", map[string]any{"key_values": anys(kv(" ", "v")), ep.ids: anys(aid)}, "key_values[0].key"},
			{"blank value", map[string]any{"key_values": anys(kv("k", "")), ep.ids: anys(aid)}, "key_values[0].value"},
		} {
			t.Run(ep.path+" "+c.name, func(t *testing.T) {
				iv := iv.with(t)
				e := iv.Do(req("POST", iv.path("%s", ep.path), iv.tok, c.body), 400)
				fields := fieldsOf(e)
				if _, ok := fields[c.field]; !ok && obj(e["meta"])["field"] != c.field {
					t.Fatalf("error %v does not name %s", e, c.field)
				}
			})
		}
		for name, body := range map[string]any{
			"malformed id":  map[string]any{"key_values": anys(kv("k", "v")), ep.ids: anys("nope")},
			"unknown field": map[string]any{"key_values": anys(kv("k", "v")), ep.ids: anys(aid), "entity_type": "INVOICE"},
			"not JSON":      "{",
			"ids missing":   map[string]any{"key_values": anys(kv("k", "v"))},
		} {
			t.Run(ep.path+" "+name, func(t *testing.T) {
				iv.with(t).DoInvalid(req("POST", iv.path("%s", ep.path), iv.tok, body), 400, "")
			})
		}
		t.Run(ep.path+" not JSON content", func(t *testing.T) {
			r := req("POST", iv.path("%s", ep.path), iv.tok, "{}")
			r.Header.Set("Content-Type", "text/plain")
			iv.with(t).DoInvalid(r, 415, "")
		})
	}
	iv.sameCounts(before)
}
