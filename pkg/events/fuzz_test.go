package events_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/acctsuite/acct/pkg/events"
)

// FuzzFromMessage feeds arbitrary envelopes to the consumers' first
// parser. A message is either an event or an ErrMalformed error (it goes
// to the DLQ at once); an event re-encoded with ToMessage decodes to the
// same event.
func FuzzFromMessage(f *testing.F) {
	const id = "0190c4c4-0000-7000-8000-000000000001"
	f.Add([]byte(`{"id":"x"}`), "1.0", id, "auth-tokens", "business.created", "2026-01-02T03:04:05.123456Z", "0190c4c4-0000-7000-8000-000000000002", "application/json", "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	f.Add([]byte(`[]`), "1.0", id, "s", "t", "", "", "application/json; charset=utf-8", "CE_TYPE", "shadow")
	f.Add([]byte(`{}`), "1.0", id, "s", "t", "2026-01-02T03:04:05+01:00", "", "", "", "")
	f.Add([]byte(`{`), "1.0", id, "s", "t", "", "", "", "", "")
	f.Add([]byte(`{}`), "0.3", id, "s", "t", "", "", "", "", "")
	f.Add([]byte(`{}`), "1.0", "00000000-0000-0000-0000-000000000000", "s", "t", "", "", "", "", "")
	f.Add([]byte(`{}`), "1.0", id, "", "t", "", "", "", "", "")
	f.Add([]byte(`{}`), "1.0", id, "s", "t", "yesterday", "", "", "", "")
	f.Add([]byte(`{}`), "1.0", id, "s", "t", "", "", "text/plain", "", "")
	f.Add([]byte(nil), "1.0", id, "s", "t", "", "", "", "", "")
	f.Add([]byte("\"\xff\""), "1.0", "{"+id+"}", "s", "t", "", "", ";", "", "")
	f.Fuzz(func(t *testing.T, value []byte, spec, id, source, typ, at, subject, ct, extraKey, extraVal string) {
		m := kafka.Message{Topic: "acct.fuzz.v1", Key: []byte("k"), Value: value}
		for _, h := range [][2]string{{events.HeaderSpecVersion, spec}, {events.HeaderID, id}, {events.HeaderSource, source},
			{events.HeaderType, typ}, {events.HeaderTime, at}, {events.HeaderSubject, subject}, {events.HeaderContentType, ct}} {
			if h[1] != "" {
				m.Headers = append(m.Headers, kafka.Header{Key: h[0], Value: []byte(h[1])})
			}
		}
		if extraKey != "" {
			m.Headers = append(m.Headers, kafka.Header{Key: extraKey, Value: []byte(extraVal)})
		}
		e, err := events.FromMessage(m)
		if err != nil {
			if !errors.Is(err, events.ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if !json.Valid(e.Data) || !bytes.Equal(e.Data, value) {
			t.Fatalf("data %q, want the message value %q", e.Data, value)
		}
		again, err := events.FromMessage(events.ToMessage(e))
		if err != nil {
			t.Fatalf("re-encoded event does not decode: %v", err)
		}
		if again.ID != e.ID || again.Type != e.Type || again.Source != e.Source || again.Subject != e.Subject ||
			!again.Time.Equal(e.Time) || again.Topic != e.Topic || again.Key != e.Key || !bytes.Equal(again.Data, e.Data) ||
			!reflect.DeepEqual(again.Headers, e.Headers) {
			t.Fatalf("round trip changed the event:\n%+v\n%+v", e, again)
		}
	})
}

// payloads are the payload types the consumers decode.
func payloads() []any {
	return []any{
		&events.Business{}, &events.LedgerAccountsUpserted{}, &events.VendorUpserted{}, &events.BillUpserted{},
		&events.BillPaymentUpserted{}, &events.BillPaymentDeleted{}, &events.VendorCreditUpserted{},
		&events.InvoiceUpserted{}, &events.InvoiceDeleted{}, &events.InvoicePaymentUpserted{}, &events.InvoicePaymentDeleted{},
		&events.InvoiceWriteOffUpserted{}, &events.CustomerUpserted{}, &events.LedgerEntryPosted{},
		&events.VehicleUpserted{}, &events.TripUpserted{}, &events.BankTransactionUpserted{}, &events.LedgerPosting{},
		&events.ReceiptParsed{},
	}
}

// FuzzEventDecode decodes arbitrary payloads into every payload type the
// consumers read (Event.Decode): never a panic, and a payload that
// decodes renders to JSON that decodes to the same value (so a consumer
// that re-publishes or stores it keeps it intact). A posting's Check
// never panics either.
func FuzzEventDecode(f *testing.F) {
	f.Add([]byte(`{"id":"0190c4c4-0000-7000-8000-000000000001","client_id":"c","legal_name":"Acme","country":"US","default_reporting_basis":"ACCRUAL"}`))
	f.Add([]byte(`{"business_id":"0190c4c4-0000-7000-8000-000000000001","posting":{"source_type":"INVOICE","source_id":"x","version":2,"entry_type":"INVOICE","entry_at":"2026-03-01T00:00:00Z","lines":[{"account":{"type":"StableName","stable_name":"ACCOUNTS_RECEIVABLE"},"direction":"DEBIT","amount":1250},{"account":{"type":"Tax_Name","tax_name":"GST"},"direction":"CREDIT","amount":1250,"tags":[{"key":"k","value":"v"}]}]}}`))
	f.Add([]byte(`{"source_type":"BILL","source_id":"b","version":1,"entry_type":"BILL","entry_at":"2026-03-01T00:00:00Z","lines":[{"account":{"type":"AccountId","id":"0190c4c4-0000-7000-8000-000000000001"},"direction":"DEBIT","amount":9223372036854775807},{"account":{"type":"AccountId","id":"0190c4c4-0000-7000-8000-000000000002"},"direction":"CREDIT","amount":9223372036854775807}]}`))
	f.Add([]byte(`{"source_type":"X","version":-1,"lines":[{"direction":"SIDEWAYS","amount":-5}]}`))
	f.Add([]byte(`{"entry_id":"0190c4c4-0000-7000-8000-000000000001","lines":[{"amount":1e400}],"metadata":{"a":[1,2]}}`))
	f.Add([]byte(`{"entry_at":"2026-13-45T00:00:00Z"}`))
	f.Add([]byte(`{"receipt_id":"0190c4c4-0000-7000-8000-000000000001","business_id":"0190c4c4-0000-7000-8000-000000000002","status":"READY_FOR_BILL","failure_reason":null,"file_name":"r.pdf","file_type":"pdf","proposed_amount_cents":4200,"proposed_vendor_display":"ACME","matched_vendor_id":null,"created_at":"2026-03-14T09:26:53.000589Z"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`"x"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return // FromMessage dead-letters it before any Decode
		}
		e := events.Event{Type: "fuzz", Data: data}
		for _, v := range payloads() {
			if err := e.Decode(v); err != nil {
				continue
			}
			if p, ok := v.(*events.LedgerPosting); ok {
				_ = p.Check()
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("%T decoded from %q does not render: %v", v, data, err)
			}
			fresh := reflect.New(reflect.TypeOf(v).Elem()).Interface()
			if err := (events.Event{Data: out}).Decode(fresh); err != nil {
				t.Fatalf("%T rendered as %s does not decode: %v", v, out, err)
			}
			out2, _ := json.Marshal(fresh)
			if !bytes.Equal(out, out2) {
				t.Fatalf("%T round trip changed:\n%s\n%s", v, out, out2)
			}
		}
	})
}
