package service

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/tags"
	billstags "github.com/acctsuite/acct/services/bills-tags"
	kafkaadapter "github.com/acctsuite/acct/services/bills-tags/internal/adapters/kafka"
	"github.com/acctsuite/acct/services/bills-tags/internal/config"
)

// newEnvWith is newEnv with extra environment (TRANSACTIONS_URL...).
func newEnvWith(t *testing.T, extra map[string]string) *env {
	t.Helper()
	return &env{servicetest.Start(t, config.LoadFrom, New, billstags.OpenAPI, servicetest.ServiceOptions{Env: extra})}
}

// deliver applies events as the kit's consumer does, each in its own
// transaction, through the registry's handler.
func (e *env) deliver(evts ...events.Event) {
	e.T.Helper()
	h := kafkaadapter.RegistryEventHandler(e.S.Tags, nil)
	for _, evt := range evts {
		if err := e.DB.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
			return h(ctx, tx, evt)
		}); err != nil {
			e.T.Fatalf("deliver %s: %v", evt.Type, err)
		}
	}
}

func event(t *testing.T, topic, typ string, bid uuid.UUID, payload any) events.Event {
	t.Helper()
	e, err := events.New(topic, typ, "test", bid, payload)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func sp(s string) *string { return &s }

// dimensions is GET /tags/dimensions's list, by key.
func (e *env) dimensions(bid uuid.UUID, tok, query string) map[string]map[string]any {
	e.T.Helper()
	path := base(bid) + "/tags/dimensions"
	if query != "" {
		path += "?" + query
	}
	list := data(e.Do(req("GET", path, tok, nil), 200))["dimensions"].([]any)
	out := map[string]map[string]any{}
	for _, d := range list {
		m := d.(map[string]any)
		out[m["key"].(string)] = m
	}
	return out
}

// values is a dimension's defined values by value.
func values(d map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, v := range d["defined_values"].([]any) {
		m := v.(map[string]any)
		out[m["value"].(string)] = m
	}
	return out
}

func TestTagDimensions(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	b := base(bid)

	if got := e.dimensions(bid, tok, ""); len(got) != 0 {
		t.Fatalf("a new business has dimensions: %v", got)
	}
	// The SDK's body: values as strings.
	d := data(e.Do(req("POST", b+"/tags/dimensions", tok, map[string]any{
		"key": " Cost Center ", "strictness": "BALANCING", "display_name": "Cost center",
		"defined_values": []any{"North", map[string]any{"value": "South", "display_name": "South region"}, "North"},
	}), 201))
	dimID := tags.DimensionID(bid, "Cost Center")
	if d["id"] != dimID.String() || d["key"] != "Cost Center" || d["strictness"] != "BALANCING" || d["display_name"] != "Cost center" ||
		d["user_visible"] != true || d["deleted_at"] != nil {
		t.Fatalf("dimension = %v", d)
	}
	vals := values(d)
	if len(vals) != 2 || vals["North"]["id"] != tags.DefinitionID(bid, "Cost Center", "North").String() ||
		vals["North"]["display_name"] != "North" || vals["South"]["display_name"] != "South region" || vals["South"]["key"] != "Cost Center" {
		t.Fatalf("values = %v", vals)
	}
	// A dimension without strictness or display name.
	p := data(e.Do(req("POST", b+"/tags/dimensions", tok, map[string]any{"key": "project"}), 201))
	if p["strictness"] != "NON_BALANCING" || p["display_name"] != "project" || len(p["defined_values"].([]any)) != 0 {
		t.Fatalf("defaults = %v", p)
	}

	// The list: data {dimensions}, by key.
	list := data(e.Do(req("GET", b+"/tags/dimensions", tok, nil), 200))["dimensions"].([]any)
	if len(list) != 2 || list[0].(map[string]any)["key"] != "Cost Center" || list[1].(map[string]any)["key"] != "project" {
		t.Fatalf("list = %v", list)
	}
	e.Do(req("GET", b+"/tags/dimensions?include_deleted=true", tok, nil), 200)

	// By key, percent-encoded.
	byKey := data(e.Do(req("GET", b+"/tags/dimensions/key/"+url.PathEscape("Cost Center"), tok, nil), 200))
	if byKey["id"] != dimID.String() || len(byKey["defined_values"].([]any)) != 2 {
		t.Fatalf("by key = %v", byKey)
	}

	// PATCH: display name, strictness, visibility; null resets the name.
	pd := data(e.Do(req("PATCH", b+"/tags/dimensions/"+dimID.String(), tok, map[string]any{
		"display_name": "Centre", "strictness": "NON_BALANCING", "user_visible": false}), 200))
	if pd["display_name"] != "Centre" || pd["strictness"] != "NON_BALANCING" || pd["user_visible"] != false || pd["updated_at"] == d["updated_at"] {
		t.Fatalf("patched = %v", pd)
	}
	if pd := data(e.Do(req("PATCH", b+"/tags/dimensions/"+dimID.String(), tok, map[string]any{"display_name": nil}), 200)); pd["display_name"] != "Cost Center" || pd["user_visible"] != false {
		t.Fatalf("reset = %v", pd)
	}

	// Values: 201 new, 200 existing (the SDK's displayName renames it).
	v := data(e.Do(req("POST", b+"/tags/dimensions/"+dimID.String()+"/values", tok, map[string]any{"value": "East"}), 201))
	eastID := tags.DefinitionID(bid, "Cost Center", "East").String()
	if v["id"] != eastID || v["key"] != "Cost Center" || v["display_name"] != "East" || v["archived_at"] != nil {
		t.Fatalf("value = %v", v)
	}
	if v := data(e.Do(req("POST", b+"/tags/dimensions/"+dimID.String()+"/values", tok, map[string]any{"value": "East", "displayName": "Eastern"}), 200)); v["id"] != eastID || v["display_name"] != "Eastern" {
		t.Fatalf("existing value = %v", v)
	}
	// Archive (twice: the same answer), then a re-definition restores it.
	a := data(e.Do(req("POST", b+"/tags/dimensions/"+dimID.String()+"/values/"+eastID+"/archive", tok, nil), 200))
	if a["archived_at"] == nil {
		t.Fatalf("archived = %v", a)
	}
	if again := data(e.Do(req("POST", b+"/tags/dimensions/"+dimID.String()+"/values/"+eastID+"/archive", tok, nil), 200)); again["archived_at"] != a["archived_at"] {
		t.Fatalf("archived again = %v, first %v", again, a)
	}
	if got := values(e.dimensions(bid, tok, "")["Cost Center"])["East"]; got["archived_at"] != a["archived_at"] {
		t.Fatalf("listed = %v", got)
	}
	if v := data(e.Do(req("POST", b+"/tags/dimensions/"+dimID.String()+"/values", tok, map[string]any{"value": "East"}), 200)); v["archived_at"] != nil || v["display_name"] != "Eastern" {
		t.Fatalf("restored = %v", v)
	}
}

func TestCreateTagDimensionExistingKey(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	path := base(bid) + "/tags/dimensions"
	e.Do(req("POST", path, tok, map[string]any{"key": "dept", "strictness": "BALANCING", "defined_values": []any{"ops"}}), 201)
	// A repeat (same strictness, no display name) adds the values it lacks.
	d := data(e.Do(req("POST", path, tok, map[string]any{"key": "dept", "strictness": "BALANCING", "defined_values": []any{"ops", "sales"}}), 200))
	if vals := values(d); len(vals) != 2 || vals["sales"] == nil {
		t.Fatalf("repeat = %v", d)
	}
	// Another strictness or display name: 409 naming the dimension.
	for _, body := range []map[string]any{
		{"key": "dept", "strictness": "NON_BALANCING"},
		{"key": "dept", "strictness": "BALANCING", "display_name": "Department"},
	} {
		m := e.DoInvalid(req("POST", path, tok, body), 409, "TagDimensionExists")
		if meta := m["meta"].(map[string]any); meta["dimension_id"] != tags.DimensionID(bid, "dept").String() {
			t.Fatalf("409 = %v", m)
		}
	}
	if vals := values(e.dimensions(bid, tok, "")["dept"]); len(vals) != 2 {
		t.Fatalf("a refused create changed the values: %v", vals)
	}
}

// TestTagRegistryRejects: one case per 4xx rule, each naming its field.
func TestTagRegistryRejects(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	b := base(bid)
	dim := data(e.Do(req("POST", b+"/tags/dimensions", tok, map[string]any{"key": "dept", "defined_values": []any{"ops"}}), 201))["id"].(string)
	long := strings.Repeat("x", 201)
	tests := []struct {
		name, method, path string
		body               any
		status             int
		enum, field        string
	}{
		{"create: not an object", "POST", "/tags/dimensions", []any{1}, 400, "InvalidTagDimension", "body"},
		{"create: unknown property", "POST", "/tags/dimensions", map[string]any{"key": "k", "color": "red"}, 400, "InvalidTagDimension", "color"},
		{"create: no key", "POST", "/tags/dimensions", map[string]any{"strictness": "BALANCING"}, 400, "InvalidTagDimension", "key"},
		{"create: blank key", "POST", "/tags/dimensions", map[string]any{"key": "  "}, 400, "InvalidTagDimension", "key"},
		{"create: key too long", "POST", "/tags/dimensions", map[string]any{"key": long}, 400, "InvalidTagDimension", "key"},
		{"create: key not a string", "POST", "/tags/dimensions", map[string]any{"key": 5}, 400, "InvalidTagDimension", "key"},
		{"create: control character", "POST", "/tags/dimensions", map[string]any{"key": "a\u202eb"}, 400, "InvalidTagDimension", "key"},
		{"create: bad strictness", "POST", "/tags/dimensions", map[string]any{"key": "k", "strictness": "STRICT"}, 400, "InvalidTagDimension", "strictness"},
		{"create: display name too long", "POST", "/tags/dimensions", map[string]any{"key": "k", "display_name": long}, 400, "InvalidTagDimension", "display_name"},
		{"create: values not an array", "POST", "/tags/dimensions", map[string]any{"key": "k", "defined_values": "a"}, 400, "InvalidTagDimension", "defined_values"},
		{"create: blank value", "POST", "/tags/dimensions", map[string]any{"key": "k", "defined_values": []any{"a", " "}}, 400, "InvalidTagDimension", "defined_values[1]"},
		{"create: value object without value", "POST", "/tags/dimensions", map[string]any{"key": "k", "defined_values": []any{map[string]any{"display_name": "A"}}}, 400, "InvalidTagDimension", "defined_values[0].value"},
		{"create: value neither string nor object", "POST", "/tags/dimensions", map[string]any{"key": "k", "defined_values": []any{7}}, 400, "InvalidTagDimension", "defined_values[0]"},
		{"create: too many values", "POST", "/tags/dimensions", map[string]any{"key": "k", "defined_values": make([]string, 501)}, 400, "InvalidTagDimension", "defined_values"},
		{"list: bad include_deleted", "GET", "/tags/dimensions?include_deleted=maybe", nil, 400, "", "include_deleted"},
		{"by key: unknown", "GET", "/tags/dimensions/key/nope", nil, 404, "TagDimensionNotFound", ""},
		{"by key: too long", "GET", "/tags/dimensions/key/" + long, nil, 400, "InvalidTagDimension", "dimensionKey"},
		{"by key: control character", "GET", "/tags/dimensions/key/a%07b", nil, 400, "InvalidTagDimension", "dimensionKey"},
		{"patch: bad id", "PATCH", "/tags/dimensions/nope", map[string]any{"user_visible": true}, 400, "", "dimensionId"},
		{"patch: unknown", "PATCH", "/tags/dimensions/" + uuid.NewString(), map[string]any{"user_visible": true}, 404, "TagDimensionNotFound", ""},
		{"patch: unknown property", "PATCH", "/tags/dimensions/" + dim, map[string]any{"key": "other"}, 400, "InvalidTagDimension", "key"},
		{"patch: bad strictness", "PATCH", "/tags/dimensions/" + dim, map[string]any{"strictness": 1}, 400, "InvalidTagDimension", "strictness"},
		{"patch: bad user_visible", "PATCH", "/tags/dimensions/" + dim, map[string]any{"user_visible": "yes"}, 400, "InvalidTagDimension", "user_visible"},
		{"patch: null user_visible", "PATCH", "/tags/dimensions/" + dim, map[string]any{"user_visible": nil}, 400, "InvalidTagDimension", "user_visible"},
		{"value: unknown dimension", "POST", "/tags/dimensions/" + uuid.NewString() + "/values", map[string]any{"value": "v"}, 404, "TagDimensionNotFound", ""},
		{"value: no value", "POST", "/tags/dimensions/" + dim + "/values", map[string]any{"display_name": "V"}, 400, "InvalidTagValue", "value"},
		{"value: both spellings", "POST", "/tags/dimensions/" + dim + "/values", map[string]any{"value": "v", "display_name": "a", "displayName": "b"}, 400, "InvalidTagValue", "displayName"},
		{"value: value not a string", "POST", "/tags/dimensions/" + dim + "/values", map[string]any{"value": 3}, 400, "InvalidTagValue", "value"},
		{"value: unknown property", "POST", "/tags/dimensions/" + dim + "/values", map[string]any{"value": "v", "x": 1}, 400, "InvalidTagValue", "x"},
		{"archive: unknown value", "POST", "/tags/dimensions/" + dim + "/values/" + uuid.NewString() + "/archive", nil, 404, "TagValueNotFound", ""},
		{"archive: bad value id", "POST", "/tags/dimensions/" + dim + "/values/x/archive", nil, 400, "", "valueId"},
		{"archive: unknown dimension", "POST", "/tags/dimensions/" + uuid.NewString() + "/values/" + uuid.NewString() + "/archive", nil, 404, "TagDimensionNotFound", ""},
		{"tag: no key_values", "POST", "/tags", map[string]any{"entity_ids": []any{uuid.NewString()}, "entity_type": "BILL"}, 400, "InvalidTagging", "key_values"},
		{"tag: empty key_values", "POST", "/tags", map[string]any{"key_values": []any{}, "entity_ids": []any{uuid.NewString()}, "entity_type": "BILL"}, 400, "InvalidTagging", "key_values"},
		{"tag: bad tag", "POST", "/tags", map[string]any{"key_values": []any{map[string]any{"key": "", "value": "v"}}, "entity_ids": []any{uuid.NewString()}, "entity_type": "BILL"}, 400, "InvalidTagging", "key_values[0].key"},
		{"tag: no entity_ids", "POST", "/tags", map[string]any{"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "entity_type": "BILL"}, 400, "InvalidTagging", "entity_ids"},
		{"tag: empty entity_ids", "POST", "/tags", map[string]any{"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "entity_ids": []any{}, "entity_type": "BILL"}, 400, "InvalidTagging", "entity_ids"},
		{"tag: bad entity id", "POST", "/tags", map[string]any{"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "entity_ids": []any{"x"}, "entity_type": "BILL"}, 400, "InvalidTagging", "entity_ids[0]"},
		{"tag: no entity_type", "POST", "/tags", map[string]any{"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "entity_ids": []any{uuid.NewString()}}, 400, "InvalidTagging", "entity_type"},
		{"tag: bad entity_type", "POST", "/tags", map[string]any{"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "entity_ids": []any{uuid.NewString()}, "entity_type": "VENDOR"}, 400, "InvalidTagging", "entity_type"},
		{"tag: unknown property", "POST", "/tags", map[string]any{"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "entity_ids": []any{uuid.NewString()}, "entity_type": "BILL", "transaction_ids": []any{}}, 400, "InvalidTagging", "transaction_ids"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := e.with(t)
			m := e.DoInvalid(req(tc.method, b+tc.path, tok, tc.body), tc.status, tc.enum)
			if tc.field != "" {
				if _, ok := fieldsOf(m)[tc.field]; !ok {
					t.Fatalf("error %v does not name %s", m, tc.field)
				}
			}
		})
	}
	// Media type and size.
	rq := req("POST", b+"/tags/dimensions", tok, `{"key":"k"}`)
	rq.Header.Set("Content-Type", "text/plain")
	e.DoInvalid(rq, 415, "")
	e.DoInvalid(req("POST", b+"/tags", tok, `{"key_values":"`+strings.Repeat("x", 300<<10)+`"}`), 413, "")
	e.DoInvalid(req("POST", b+"/tags/dimensions/"+dim+"/values", tok, `{"value":"`+strings.Repeat("x", 9<<10)+`"}`), 413, "")
	// Nothing was written by the refusals.
	if got := e.dimensions(bid, tok, ""); len(got) != 1 || len(got["dept"]["defined_values"].([]any)) != 1 {
		t.Fatalf("dimensions after refusals: %v", got)
	}
}

func TestRegistryLearnsFromEvents(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	other := e.business("client-b")
	ltag := func(k, v string, dn, vn *string) events.LedgerTag {
		return events.LedgerTag{ID: uuid.New(), Key: k, Value: v, DimensionID: tags.DimensionID(bid, k),
			DefinitionID: tags.DefinitionID(bid, k, v), DimensionDisplayName: dn, ValueDisplayName: vn}
	}
	entry := events.LedgerEntryPosted{EntryID: uuid.New(), BusinessID: bid, EntryType: "BANK", Date: "2026-03-01",
		Tags: []events.LedgerTag{ltag("project", "apollo", sp("Project"), sp("Apollo mission"))},
		Lines: []events.LedgerLine{
			{LineID: uuid.New(), Direction: "DEBIT", Amount: 10, SignedAmount: 10, Tags: []events.LedgerTag{
				ltag("project", "apollo", sp("Project"), sp("Apollo mission")), ltag("dept", "ops", nil, nil)}},
			{LineID: uuid.New(), Direction: "CREDIT", Amount: 10, SignedAmount: -10, Tags: []events.LedgerTag{
				ltag("project", "apollo", nil, nil), ltag("bad\u0007key", "x", nil, nil)}},
		}}
	txn := events.BankTransactionUpserted{TransactionID: uuid.New(), BusinessID: bid, Version: 1,
		Tags:   []events.LedgerTag{ltag("project", "gemini", nil, sp("Gemini"))},
		Splits: []events.BankSplit{{Amount: 5, Tags: []events.LedgerTag{ltag("region", "north", nil, nil)}}}}
	cust := events.CustomerUpserted{CustomerID: uuid.New(), BusinessID: bid, Version: 1, Tags: []events.LedgerTag{ltag("segment", "smb", nil, nil)}}
	inv := events.InvoiceUpserted{BusinessID: bid, Invoice: events.InvoiceSnapshot{ID: uuid.New(), BusinessID: bid,
		Tags: []tags.KeyValue{{Key: "channel", Value: "web", DimensionDisplayName: sp("Sales channel")}}},
		Posting: &events.LedgerPosting{Lines: []events.PostingLine{{Tags: []tags.KeyValue{{Key: "channel", Value: "store"}}}}}}
	bill := events.BillUpserted{BusinessID: bid, Bill: events.BillSnapshot{ID: uuid.New(), BusinessID: bid,
		Tags: []tags.KeyValue{{Key: "dept", Value: "sales"}}}}
	vendor := events.VendorUpserted{VendorID: uuid.New(), BusinessID: bid, Tags: []events.LedgerTag{ltag("tier", "gold", nil, nil)}}
	foreign := events.LedgerEntryPosted{EntryID: uuid.New(), BusinessID: other, Tags: []events.LedgerTag{{Key: "secret", Value: "s"}}}
	evts := []events.Event{
		event(t, events.TopicLedger, events.TypeLedgerEntryPosted, bid, entry),
		event(t, events.TopicTransactions, events.TypeBankTransactionUpserted, bid, txn),
		event(t, events.TopicInvoicing, events.TypeCustomerUpserted, bid, cust),
		event(t, events.TopicInvoicing, events.TypeInvoiceUpserted, bid, inv),
		event(t, events.TopicBills, events.TypeBillUpserted, bid, bill),
		event(t, events.TopicBills, events.TypeVendorUpserted, bid, vendor),
		event(t, events.TopicLedger, events.TypeLedgerEntryPosted, other, foreign),
		event(t, events.TopicBusiness, events.TypeBusinessUpdated, bid, map[string]any{"id": bid}),
	}
	e.deliver(evts...)
	e.deliver(evts...) // a redelivery changes nothing

	got := e.dimensions(bid, tok, "")
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "channel,dept,project,region,segment,tier" {
		t.Fatalf("learned keys = %v", keys)
	}
	p := got["project"]
	if p["id"] != tags.DimensionID(bid, "project").String() || p["display_name"] != "Project" || p["strictness"] != "NON_BALANCING" || p["user_visible"] != true {
		t.Fatalf("project = %v", p)
	}
	pv := values(p)
	if pv["apollo"]["display_name"] != "Apollo mission" || pv["apollo"]["id"] != tags.DefinitionID(bid, "project", "apollo").String() ||
		pv["gemini"]["display_name"] != "Gemini" {
		t.Fatalf("project values = %v", pv)
	}
	if got["dept"]["display_name"] != "dept" || len(values(got["dept"])) != 2 || values(got["channel"])["store"] == nil || got["channel"]["display_name"] != "Sales channel" {
		t.Fatalf("dept/channel = %v / %v", got["dept"], got["channel"])
	}
	// First use wins: a later event's display names do not rename.
	later := events.LedgerEntryPosted{EntryID: uuid.New(), BusinessID: bid, Tags: []events.LedgerTag{ltag("project", "apollo", sp("Renamed"), sp("Renamed"))}}
	e.deliver(event(t, events.TopicLedger, events.TypeLedgerEntryPosted, bid, later))
	if p := e.dimensions(bid, tok, "")["project"]; p["display_name"] != "Project" || values(p)["apollo"]["display_name"] != "Apollo mission" {
		t.Fatalf("renamed by a later event: %v", p)
	}
	// A defined dimension keeps its strictness when its tags are used.
	e.Do(req("POST", base(bid)+"/tags/dimensions", tok, map[string]any{"key": "cost", "strictness": "BALANCING"}), 201)
	e.deliver(event(t, events.TopicLedger, events.TypeLedgerEntryPosted, bid, events.LedgerEntryPosted{BusinessID: bid, Tags: []events.LedgerTag{ltag("cost", "a", sp("X"), nil)}}))
	if c := e.dimensions(bid, tok, "")["cost"]; c["strictness"] != "BALANCING" || c["display_name"] != "cost" || len(values(c)) != 1 {
		t.Fatalf("cost = %v", c)
	}
	// The other business learned only its own.
	if o := e.dimensions(other, e.Token("client-b"), ""); len(o) != 1 || o["secret"] == nil {
		t.Fatalf("other business = %v", o)
	}
	// A payload with tags that does not decode is an error (dead letters),
	// not a skip. (An entry without any tag is not decoded at all.)
	bad := events.Event{ID: uuid.New(), Type: events.TypeLedgerEntryPosted, Topic: events.TopicLedger,
		Data: json.RawMessage(`{"lines": 5, "tags": [{"key": "a", "value": "b"}]}`)}
	if err := e.DB.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		return kafkaadapter.RegistryEventHandler(e.S.Tags, nil)(ctx, tx, bad)
	}); err == nil {
		t.Fatal("a malformed event was accepted")
	}
}

// TestRegistryLearnsThroughTheBroker: the kit consumes the registry's
// topics; an event published on acct.ledger.v1 reaches the registry.
func TestRegistryLearnsThroughTheBroker(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	entry := events.LedgerEntryPosted{EntryID: uuid.New(), BusinessID: bid, Tags: []events.LedgerTag{{Key: "via", Value: "broker"}}}
	ev := event(t, events.TopicLedger, events.TypeLedgerEntryPosted, bid, entry)
	w := &kafka.Writer{Addr: kafka.TCP(e.Svc.Broker.Addrs()...), Balancer: &kafka.Hash{}, BatchTimeout: 5 * time.Millisecond}
	defer w.Close()
	if err := w.WriteMessages(context.Background(), events.ToMessage(ev)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(e.dimensions(bid, tok, "")) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the registry did not learn the broker's event")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// billTagsOf is the bill's transaction_tags as key=value.
func billTagsOf(m map[string]any) []string {
	var out []string
	for _, t := range m["transaction_tags"].([]any) {
		tm := t.(map[string]any)
		out = append(out, tm["key"].(string)+"="+tm["value"].(string))
	}
	return out
}

func TestTagBills(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	b := base(bid)
	vendor := e.create(bid, tok, map[string]any{"company_name": "Paper Co"}, 201)["id"].(string)
	b1 := data(e.Do(req("POST", b+"/bills", tok, twoLineBill(vendor)), 201))["id"].(string)
	b2 := data(e.Do(req("POST", b+"/bills", tok, twoLineBill(vendor)), 201))["id"].(string)
	body := map[string]any{
		"key_values": []any{map[string]any{"key": "project", "value": "apollo", "dimension_display_name": "Project"},
			map[string]any{"key": "dept", "value": "ops"}},
		"entity_ids": []any{b1, b2, b1}, "entity_type": "BILL",
	}
	ans := e.Do(req("POST", b+"/tags", tok, body), 200)
	added := ans["data"].(map[string]any)["tags"].([]any)
	if len(added) != 2 || len(ans["tags"].([]any)) != 2 || ans["data"].(map[string]any)["type"] != "Tags" {
		t.Fatalf("added = %v (dept=ops was there already)", ans)
	}
	id1 := uuid.MustParse(b1)
	for _, a := range added {
		m := a.(map[string]any)
		if m["key"] != "project" || m["dimension_display_name"] != "Project" {
			t.Fatalf("added tag = %v", m)
		}
		if m["id"] == tags.TagID(tags.DefinitionID(bid, "project", "apollo"), id1).String() {
			id1 = uuid.Nil
		}
	}
	if id1 != uuid.Nil {
		t.Fatalf("no deterministic tag id for bill 1 in %v", added)
	}
	for _, id := range []string{b1, b2} {
		got := data(e.Do(req("GET", b+"/bills/"+id, tok, nil), 200))
		if strings.Join(billTagsOf(got), ",") != "dept=ops,project=apollo" {
			t.Fatalf("bill tags = %v", billTagsOf(got))
		}
	}
	// The change went out: bill.upserted version 2 whose posting carries the tag.
	var rows []struct {
		Data json.RawMessage `bun:"data"`
	}
	if err := e.DB.NewRaw("SELECT data FROM outbox WHERE type = ? AND data->'bill'->>'id' = ? ORDER BY seq", events.TypeBillUpserted, b1).
		Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d bill.upserted, want 2", len(rows))
	}
	var up events.BillUpserted
	if err := json.Unmarshal(rows[1].Data, &up); err != nil {
		t.Fatal(err)
	}
	if up.Bill.Version != 2 || up.Posting == nil || up.Posting.Version != 2 || len(up.Posting.Lines) == 0 ||
		len(up.Posting.Lines[0].Tags) != 2 {
		t.Fatalf("bill.upserted = %+v", up)
	}
	// The registry knows the tags at once.
	if p := e.dimensions(bid, tok, "")["project"]; p == nil || p["display_name"] != "Project" || values(p)["apollo"] == nil {
		t.Fatalf("registry = %v", p)
	}
	// A repeat adds nothing and publishes nothing.
	if again := e.Do(req("POST", b+"/tags", tok, body), 200); len(again["tags"].([]any)) != 0 {
		t.Fatalf("repeat = %v", again)
	}
	var n int
	if err := e.DB.NewRaw("SELECT count(*) FROM outbox WHERE type = ?", events.TypeBillUpserted).Scan(context.Background(), &n); err != nil || n != 4 {
		t.Fatalf("bill.upserted rows = %d (%v), want 4", n, err)
	}
	// A voided bill can be tagged too (its posting stays without lines).
	e.Do(req("POST", b+"/bills/"+b2+"/void", tok, nil), 200)
	e.Do(req("POST", b+"/tags", tok, map[string]any{"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "entity_ids": []any{b2}, "entity_type": "BILL"}), 200)

	// An unknown bill: 404, and nothing changes on the others.
	m := e.DoInvalid(req("POST", b+"/tags", tok, map[string]any{
		"key_values": []any{map[string]any{"key": "new", "value": "x"}}, "entity_ids": []any{b1, uuid.NewString()}, "entity_type": "BILL",
	}), 404, "BillNotFound")
	if m["meta"].(map[string]any)["field"] != "entity_ids" {
		t.Fatalf("404 = %v", m)
	}
	if got := billTagsOf(data(e.Do(req("GET", b+"/bills/"+b1, tok, nil), 200))); len(got) != 2 {
		t.Fatalf("a refused tagging changed bill 1: %v", got)
	}
	if e.dimensions(bid, tok, "")["new"] != nil {
		t.Fatal("a refused tagging taught the registry")
	}
}

// fakeTransactions stands in for the transactions service's
// POST /bank-transactions/tags, recording what it was sent.
type fakeTransactions struct {
	mu      sync.Mutex
	auth    []string
	paths   []string
	headers []http.Header
	bodies  []map[string]any
	status  int
	answer  string
	delay   time.Duration
}

func (f *fakeTransactions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.paths = append(f.paths, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
	f.headers = append(f.headers, r.Header.Clone())
	f.bodies = append(f.bodies, body)
	status, answer, delay := f.status, f.answer, f.delay
	f.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, answer)
}

func (f *fakeTransactions) set(status int, answer string, delay time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status, f.answer, f.delay = status, answer, delay
}

func TestTagBankTransactions(t *testing.T) {
	fake := &fakeTransactions{}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	e := newEnvWith(t, map[string]string{"TRANSACTIONS_URL": srv.URL, "TRANSACTIONS_TIMEOUT": "1s"})
	tok := e.Token("client-a")
	bid := e.business("client-a")
	txn := uuid.New()
	tag := tags.NewTag(bid, txn, tags.KeyValue{Key: "project", Value: "apollo"}, time.Now().UTC().Truncate(time.Microsecond))
	tagJSON, _ := json.Marshal([]tags.Tag{tag})
	fake.set(200, `{"data":{"type":"Bank_Transaction_Tags","tags":`+string(tagJSON)+`},"tags":`+string(tagJSON)+`}`, 0)
	body := map[string]any{
		"key_values": []any{map[string]any{"key": " project ", "value": "apollo", "value_display_name": "Apollo"}},
		"entity_ids": []any{txn.String()}, "entity_type": "BANK_TRANSACTION",
	}
	ans := e.Do(req("POST", base(bid)+"/tags", tok, body), 200)
	got := ans["tags"].([]any)
	if len(got) != 1 || got[0].(map[string]any)["id"] != tag.ID.String() {
		t.Fatalf("answer = %v", ans)
	}
	// What the transactions service got: the caller's token, its route, the
	// normalised tags and the ids.
	if len(fake.auth) != 1 || fake.auth[0] != "Bearer "+tok {
		t.Fatalf("forwarded Authorization = %v", fake.auth)
	}
	if want := "POST /v1/businesses/" + bid.String() + "/bank-transactions/tags application/json"; fake.paths[0] != want {
		t.Fatalf("call = %q, want %q", fake.paths[0], want)
	}
	sent := fake.bodies[0]
	kv := sent["key_values"].([]any)[0].(map[string]any)
	if ids := sent["transaction_ids"].([]any); len(ids) != 1 || ids[0] != txn.String() || kv["key"] != "project" || kv["value_display_name"] != "Apollo" {
		t.Fatalf("sent = %v", sent)
	}
	if v := values(e.dimensions(bid, tok, "")["project"])["apollo"]; v == nil || v["display_name"] != "Apollo" {
		t.Fatalf("registry = %v", e.dimensions(bid, tok, ""))
	}

	// The owner's refusals become ours, its field names ours too.
	fake.set(404, `{"type":"NotFound","description":"bank transaction not found","error_enum":"BankTransactionNotFound","meta":{"field":"transaction_ids"}}`, 0)
	m := e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 404, "BankTransactionNotFound")
	if m["meta"].(map[string]any)["field"] != "entity_ids" || m["description"] != "bank transaction not found" {
		t.Fatalf("404 = %v", m)
	}
	fake.set(400, `{"type":"InvalidPayload","description":"transaction_ids: must hold 1 to 500 ids","error_enum":"InvalidPayload","meta":{"fields":{"transaction_ids":"must hold 1 to 500 ids"}}}`, 0)
	m = e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 400, "InvalidPayload")
	if _, ok := fieldsOf(m)["entity_ids"]; !ok {
		t.Fatalf("400 = %v", m)
	}
	fake.set(401, `{"type":"Unauthenticated","description":"token expired"}`, 0)
	e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 401, "")
	fake.set(403, `not json`, 0)
	e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 403, "")
	// Its failures, and no answer in time, are 503.
	fake.set(500, `{"type":"Internal","description":"internal error"}`, 0)
	e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 503, "")
	fake.set(200, `not json`, 0)
	e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 503, "")
	fake.set(200, `{}`, 1500*time.Millisecond)
	start := time.Now()
	e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 503, "")
	if d := time.Since(start); d > 1400*time.Millisecond+time.Second {
		t.Fatalf("the timeout took %s", d)
	}
	srv.Close()
	e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 503, "")
}

// TestTagRoutesCrossTenant: every registry route under another client's
// business is 404 BusinessNotFound and changes nothing; the owner's
// dimension addressed through another business is 404 too.
func TestTagRoutesCrossTenant(t *testing.T) {
	fake := &fakeTransactions{}
	fake.set(200, `{"data":{"type":"Bank_Transaction_Tags","tags":[]},"tags":[]}`, 0)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	e := newEnvWith(t, map[string]string{"TRANSACTIONS_URL": srv.URL, "CUSTOMERS_INVOICES_URL": srv.URL})
	owner := e.Token("client-a")
	bid := e.business("client-a")
	mine := e.business("client-a")
	b := base(bid)
	dim := data(e.Do(req("POST", b+"/tags/dimensions", owner, map[string]any{"key": "dept", "defined_values": []any{"ops"}}), 201))
	dimID := dim["id"].(string)
	valID := dim["defined_values"].([]any)[0].(map[string]any)["id"].(string)
	vendor := e.create(bid, owner, map[string]any{"company_name": "V"}, 201)["id"].(string)
	bill := data(e.Do(req("POST", b+"/bills", owner, twoLineBill(vendor)), 201))["id"].(string)
	kv := []any{map[string]any{"key": "k", "value": "v"}}
	routes := []struct {
		method, path string
		body         any
	}{
		{"GET", "/tags/dimensions", nil},
		{"GET", "/tags/dimensions?include_deleted=true", nil},
		{"POST", "/tags/dimensions", map[string]any{"key": "dept", "defined_values": []any{"x"}}},
		{"GET", "/tags/dimensions/key/dept", nil},
		{"PATCH", "/tags/dimensions/" + dimID, map[string]any{"display_name": "Hijacked"}},
		{"POST", "/tags/dimensions/" + dimID + "/values", map[string]any{"value": "x"}},
		{"POST", "/tags/dimensions/" + dimID + "/values/" + valID + "/archive", nil},
		{"POST", "/tags", map[string]any{"key_values": kv, "entity_ids": []any{bill}, "entity_type": "BILL"}},
		{"POST", "/tags", map[string]any{"key_values": kv, "entity_ids": []any{uuid.NewString()}, "entity_type": "BANK_TRANSACTION"}},
		{"POST", "/tags", map[string]any{"key_values": kv, "entity_ids": []any{uuid.NewString()}, "entity_type": "INVOICE"}},
		{"POST", "/tags", map[string]any{"key_values": kv, "entity_ids": []any{uuid.NewString()}, "entity_type": "INVOICE_PAYMENT"}},
	}
	strangers := map[string]string{
		"another client's platform token": e.Token("client-b"),
		"a business token of another one": e.Svc.Tokens.Business(t, "client-a", mine),
		"the other client's business":     e.Svc.Tokens.Business(t, "client-b", e.business("client-b")),
	}
	for who, tok := range strangers {
		for _, r := range routes {
			t.Run(who+" "+r.method+" "+r.path, func(t *testing.T) {
				e := e.with(t)
				m := e.DoInvalid(req(r.method, b+r.path, tok, r.body), 404, "BusinessNotFound")
				if m["type"] != "NotFound" {
					t.Fatalf("error = %v", m)
				}
			})
		}
	}
	if len(fake.auth) != 0 {
		t.Fatalf("a refused request reached the transactions or customers-invoices service: %v", fake.paths)
	}
	d := e.dimensions(bid, owner, "")
	if len(d) != 1 || d["dept"]["display_name"] != "dept" || len(values(d["dept"])) != 1 || values(d["dept"])["ops"]["archived_at"] != nil {
		t.Fatalf("the registry changed: %v", d)
	}
	if got := billTagsOf(data(e.Do(req("GET", b+"/bills/"+bill, owner, nil), 200))); len(got) != 1 {
		t.Fatalf("the bill changed: %v", got)
	}
	// The owner, through its other business: the dimension and the bill are not there.
	other := base(mine)
	e.DoInvalid(req("GET", other+"/tags/dimensions/key/dept", owner, nil), 404, "TagDimensionNotFound")
	e.DoInvalid(req("PATCH", other+"/tags/dimensions/"+dimID, owner, map[string]any{"user_visible": false}), 404, "TagDimensionNotFound")
	e.DoInvalid(req("POST", other+"/tags/dimensions/"+dimID+"/values", owner, map[string]any{"value": "x"}), 404, "TagDimensionNotFound")
	e.DoInvalid(req("POST", other+"/tags/dimensions/"+dimID+"/values/"+valID+"/archive", owner, nil), 404, "TagDimensionNotFound")
	e.DoInvalid(req("POST", other+"/tags", owner, map[string]any{"key_values": kv, "entity_ids": []any{bill}, "entity_type": "BILL"}), 404, "BillNotFound")
	if got := e.dimensions(mine, owner, ""); len(got) != 0 {
		t.Fatalf("the other business lists %v", got)
	}
}

// TestOpenAPIDocumentsTagRoutes: every registry route is in the document.
func TestOpenAPIDocumentsTagRoutes(t *testing.T) {
	doc, err := openapi.Load(billstags.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"/v1/businesses/{businessId}/tags/dimensions",
		"/v1/businesses/{businessId}/tags/dimensions/key/{dimensionKey}",
		"/v1/businesses/{businessId}/tags/dimensions/{dimensionId}",
		"/v1/businesses/{businessId}/tags/dimensions/{dimensionId}/values",
		"/v1/businesses/{businessId}/tags/dimensions/{dimensionId}/values/{valueId}/archive",
		"/v1/businesses/{businessId}/tags",
	} {
		if doc.Paths.Value(p) == nil {
			t.Errorf("path %s undocumented", p)
		}
	}
}

// TestTagBillPaymentsThroughPostTags: POST /tags with entity_type
// BILL_PAYMENT tags the payments (the same as POST
// /bills/bill-payments/tags): the payment shows the tag, the registry
// learns it, a repeat adds nothing, an unknown payment is 404 naming
// nothing changed.
func TestTagBillPaymentsThroughPostTags(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	vendor := e.create(bid, tok, map[string]any{"company_name": "Ink Co"}, 201)["id"].(string)
	b := e.simpleBill(bid, tok, vendor, 10000, "")
	p := data(e.Do(req("POST", base(bid)+"/bills/bill-payments", tok, map[string]any{
		"paid_at": "2026-02-10T12:00:00Z", "method": "ACH", "amount": 4000,
		"bill_payment_allocations": []any{alloc(b, 4000)},
	}), 201))
	pid := p["id"].(string)
	body := map[string]any{"key_values": []any{map[string]any{"key": "region", "value": "west"}}, "entity_ids": []any{pid}, "entity_type": "BILL_PAYMENT"}
	out := e.Do(req("POST", base(bid)+"/tags", tok, body), 200)
	if tagsOf(out) != 1 {
		t.Fatalf("tagging answer %v", out)
	}
	got := data(e.Do(req("GET", base(bid)+"/bills/bill-payments/"+pid, tok, nil), 200))
	tt, _ := got["transaction_tags"].([]any)
	if len(tt) != 1 || tt[0].(map[string]any)["key"] != "region" || tt[0].(map[string]any)["value"] != "west" {
		t.Fatalf("payment tags %v", got["transaction_tags"])
	}
	if dims := e.dimensions(bid, tok, ""); dims["region"] == nil {
		t.Fatalf("the registry did not learn region: %v", dims)
	}
	if again := e.Do(req("POST", base(bid)+"/tags", tok, body), 200); tagsOf(again) != 0 {
		t.Fatalf("a repeat added tags: %v", again)
	}
	body["entity_ids"] = []any{uuid.NewString()}
	e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 404, "")
}

// tagsOf is how many tags a POST /tags answer lists.
func tagsOf(m map[string]any) int {
	ts, _ := m["tags"].([]any)
	return len(ts)
}
