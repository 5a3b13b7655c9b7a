package kafka

import (
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/tagreg"
)

// FuzzCollect feeds arbitrary events of every type the tag registry
// consumes to collect, its event decoder: a malformed payload is an
// error (the event goes to the DLQ), never a panic, and every tag learned
// belongs to a business and has a normalised, non-empty key.
func FuzzCollect(f *testing.F) {
	bid := "0190c4c4-0000-7000-8000-000000000001"
	for _, s := range []struct{ typ, data string }{
		{events.TypeLedgerEntryPosted, `{"business_id":"` + bid + `","tags":[{"definition_id":"` + bid + `","key":"Project","value":"Apollo"}],"lines":[{"tags":[{"key":"region","value":"west"}]}]}`},
		{events.TypeBankTransactionUpserted, `{"business_id":"` + bid + `","tags":[{"key":"k","value":"v"}]}`},
		{events.TypeInvoiceUpserted, `{"business_id":"` + bid + `","posting":{"lines":[{"amount":1,"tags":[{"key":"a","value":"b"}]}]}}`},
		{events.TypeBillUpserted, `{"business_id":"` + bid + `","posting":null}`},
		{events.TypeLedgerEntryPosted, `{"business_id":"00000000-0000-0000-0000-000000000000","tags":[{"key":"","value":""}]}`},
		{events.TypeLedgerEntryPosted, `{"tags":"x"}`},
		{events.TypeLedgerEntryPosted, `[]`},
		{events.TypeTripUpserted, `{"business_id":"` + bid + `","trip":{"tags":[{"key":"car","value":"1"}]}}`},
		{"something.else", `{}`},
	} {
		f.Add(s.typ, []byte(s.data))
	}
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		var c tagreg.Collector
		if err := collect(&c, events.Event{Type: typ, Data: data}); err != nil {
			return
		}
		for _, l := range c.Learned() {
			if l.BusinessID == uuid.Nil || l.Key == "" {
				t.Fatalf("learned %+v from %s %s", l, typ, data)
			}
		}
	})
}
