package bill

import (
	"net/url"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

var billSeeds = []string{
	`{"vendor_id":"0190a0b0-0000-7000-8000-000000000001","received_at":"2026-03-01T10:00:00Z","bill_terms":"NET_30","line_items":[{"unit_price":100,"quantity":"1.5"}]}`,
	`{"vendor_external_id":"v","received_at":"2026-03-01T10:00:00Z","due_at":"2026-03-02T00:00:00Z","line_items":[{"unit_price":"99","discount_amount":1,"sales_taxes":[{"tax_account":{"type":"Tax_Name","name":"vat"},"amount":5}]}],"additional_sales_taxes":[{"amount":1}],"metadata":{"a":1},"tags":[{"key":"k","value":"v"}]}`,
	`{}`, `[]`, `null`, `{"line_items":[{"unit_price":-1,"quantity":0}]}`, `{"received_at":"x"}`, `{"metadata":[1]}`,
	`{"vendor_id":"0190a0b0-0000-7000-8000-000000000001","received_at":"2026-03-01T10:00:00Z","line_items":[{"unit_price":9223372036854775807,"quantity":"2"}]}`,
}

// FuzzParseInput: a create body parses into a bill Compute accepts or
// refuses with a 400, or is refused with a 400 itself; nothing panics.
func FuzzParseInput(f *testing.F) {
	for _, s := range billSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseInput(body)
		if err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("status %d for %q: %v", st, body, err)
			}
			return
		}
		if in.ReceivedAt.IsZero() || (in.VendorID == nil) == (in.VendorExternalID == nil) {
			t.Fatalf("%q parsed without received_at or with no/both vendors", body)
		}
		c, err := Compute(in.Lines, in.Additional, uuid.New)
		if err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("compute status %d for %q", st, body)
			}
			return
		}
		if c.Totals.Total < 0 || c.Totals.Total != c.Totals.Subtotal-c.Totals.Discounts+c.Totals.SalesTaxesTotal {
			t.Fatalf("%q: totals %+v", body, c.Totals)
		}
		b := Bill{ID: uuid.New(), Lines: c.Lines, AdditionalSalesTaxes: c.AdditionalSalesTaxes, Totals: c.Totals, Version: 1,
			ReceivedAt: in.ReceivedAt, Status: Received}
		if err := b.Posting().Check(); err != nil {
			t.Fatalf("%q: posting: %v", body, err)
		}
	})
}

// FuzzParsePatch: a patch body parses or is a 400.
func FuzzParsePatch(f *testing.F) {
	for _, s := range append(billSeeds, `{"bill_terms":"NET_10","memo":null}`, `{"external_id":"x"}`, `{"vendor_id":null}`, `{"tags":[]}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := ParsePatch(body); err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("status %d for %q: %v", st, body, err)
			}
		}
	})
}

// FuzzParseBulk: a bulk body parses or is a 400.
func FuzzParseBulk(f *testing.F) {
	f.Add([]byte(`{"bills":[` + billSeeds[0] + `]}`))
	f.Add([]byte(`[` + billSeeds[1] + `,{}]`))
	f.Add([]byte(`{"bills":[]}`))
	f.Add([]byte(`7`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := ParseBulk(body); err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("status %d for %q: %v", st, body, err)
			}
		}
	})
}

// FuzzParseFilter: a query parses or is a 400.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"", "status=PAID,voided", "received_at_start=2026-01-01&received_at_end=2025-01-01", "vendor_id=x", "due_at_end=2026-01-01T00:00:00Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		if _, err := ParseFilter(q); err != nil && apperr.From(err).Status() != 400 {
			t.Fatalf("status %d for %q", apperr.From(err).Status(), raw)
		}
	})
}
