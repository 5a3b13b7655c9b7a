package banking

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/money"
)

// bulkItem is a valid bulk import item with some members replaced (a nil
// value removes the member).
func bulkItem(over map[string]any) map[string]any {
	it := map[string]any{
		"source": "PROVIDER_1", "source_transaction_id": "tx-1", "source_account_id": "acct-9",
		"account_name": "Checking", "date": "2025-06-01", "direction": "DEBIT", "amount": 11300,
		"counterparty_name": "Tim Hortons", "description": "coffee", "reference_number": "R-1",
		"memo": "team\nmeeting", "metadata": map[string]any{"k": "v"}, "tags": []any{map[string]any{"key": "project", "value": "alpha"}},
	}
	for k, v := range over {
		if v == nil {
			delete(it, k)
		} else {
			it[k] = v
		}
	}
	return it
}

func batch(items ...map[string]any) []byte {
	b, err := json.Marshal(map[string]any{"transactions": items})
	if err != nil {
		panic(err)
	}
	return b
}

func TestParseImportBatchValid(t *testing.T) {
	body := batch(
		bulkItem(nil),
		bulkItem(map[string]any{
			"source": "API", "source_transaction_id": "tx-1", "amount": "42", "direction": "MONEY_IN",
			"date": "2025-06-01T13:45:00-04:00", "account_name": nil, "counterparty_name": "  ", "description": nil,
			"reference_number": nil, "memo": nil, "metadata": nil, "tags": nil,
		}),
		bulkItem(map[string]any{"source_transaction_id": "tx-2", "direction": "INFLOW", "metadata": json.RawMessage(`{ "a" : [1, 2] }`)}),
	)
	items, err := ParseImportBatch(body)
	if err != nil {
		t.Fatalf("ParseImportBatch: %v", err)
	}
	if len(items) != 3 {
		t.Fatalf("%d items, want 3", len(items))
	}
	a, b, c := items[0], items[1], items[2]
	if a.Source != SourceProvider1 || a.SourceTransactionID != "tx-1" || a.SourceAccountID != "acct-9" || *a.AccountName != "Checking" ||
		!a.Date.Equal(day("2025-06-01")) || a.Direction != Debit || a.Amount != 11300 || *a.CounterpartyName != "Tim Hortons" ||
		*a.Description != "coffee" || *a.ReferenceNumber != "R-1" || *a.Memo != "team\nmeeting" ||
		string(a.Metadata) != `{"k":"v"}` || len(a.Tags) != 1 || a.Tags[0].Key != "project" {
		t.Errorf("item 0 = %+v", a)
	}
	if b.Source != SourceAPI || b.Amount != 42 || b.Direction != Credit ||
		!b.Date.Equal(time.Date(2025, 6, 1, 17, 45, 0, 0, time.UTC)) ||
		b.AccountName != nil || b.CounterpartyName != nil || b.Description != nil || b.Memo != nil || b.Metadata != nil || b.Tags != nil {
		t.Errorf("item 1 = %+v", b)
	}
	if c.Direction != Credit || string(c.Metadata) != `{"a":[1,2]}` {
		t.Errorf("item 2 = %+v (metadata %s)", c, c.Metadata)
	}
}

func TestParseImportBatchRejects(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	bigMeta := map[string]any{"k": long(MaxMetadataBytes - 7)} // {"k":"…"} is 8 bytes + the text
	okMeta := map[string]any{"k": long(MaxMetadataBytes - 8)}
	if _, err := ParseImportBatch(batch(bulkItem(map[string]any{"metadata": okMeta}))); err != nil {
		t.Fatalf("metadata of exactly %d bytes refused: %v", MaxMetadataBytes, err)
	}
	many := make([]map[string]any, MaxImportItems+1)
	for i := range many {
		many[i] = bulkItem(map[string]any{"source_transaction_id": fmt.Sprint(i)})
	}
	tests := []struct {
		name  string
		body  []byte
		enum  string
		field string
	}{
		{"not JSON", []byte(`{"transactions":[`), EnumInvalidTransaction, "body"},
		{"bare array", []byte(`[]`), EnumInvalidTransaction, "body"},
		{"no transactions", []byte(`{}`), EnumInvalidTransaction, "transactions"},
		{"transactions an object", []byte(`{"transactions":{}}`), EnumInvalidTransaction, "transactions"},
		{"empty", []byte(`{"transactions":[]}`), EnumNoTransactions, "transactions"},
		{"too many", batch(many...), EnumTooManyTransactions, "transactions"},
		{"item not an object", []byte(`{"transactions":[1]}`), EnumInvalidTransaction, "transactions[0]"},
		{"missing source", batch(bulkItem(map[string]any{"source": nil})), EnumInvalidTransaction, "transactions[0].source"},
		{"CUSTOM source", batch(bulkItem(map[string]any{"source": "CUSTOM"})), EnumInvalidTransaction, "transactions[0].source"},
		{"unknown source", batch(bulkItem(map[string]any{"source": "PLAID"})), EnumInvalidTransaction, "transactions[0].source"},
		{"missing source transaction id", batch(bulkItem(map[string]any{"source_transaction_id": nil})), EnumInvalidTransaction, "transactions[0].source_transaction_id"},
		{"blank source transaction id", batch(bulkItem(map[string]any{"source_transaction_id": " "})), EnumInvalidTransaction, "transactions[0].source_transaction_id"},
		{"numeric source transaction id", batch(bulkItem(map[string]any{"source_transaction_id": 7})), EnumInvalidTransaction, "transactions[0].source_transaction_id"},
		{"long source transaction id", batch(bulkItem(map[string]any{"source_transaction_id": long(256)})), EnumInvalidTransaction, "transactions[0].source_transaction_id"},
		{"missing source account id", batch(bulkItem(map[string]any{"source_account_id": nil})), EnumInvalidTransaction, "transactions[0].source_account_id"},
		{"long account name", batch(bulkItem(map[string]any{"account_name": long(256)})), EnumInvalidTransaction, "transactions[0].account_name"},
		{"missing date", batch(bulkItem(map[string]any{"date": nil})), EnumInvalidTransaction, "transactions[0].date"},
		{"bad date", batch(bulkItem(map[string]any{"date": "2025-02-30"})), EnumInvalidTransaction, "transactions[0].date"},
		{"US date", batch(bulkItem(map[string]any{"date": "06/01/2025"})), EnumInvalidTransaction, "transactions[0].date"},
		{"date without zone", batch(bulkItem(map[string]any{"date": "2025-06-01T10:00:00"})), EnumInvalidTransaction, "transactions[0].date"},
		{"ancient date", batch(bulkItem(map[string]any{"date": "0001-01-01"})), EnumInvalidTransaction, "transactions[0].date"},
		{"far future date", batch(bulkItem(map[string]any{"date": "2200-01-01"})), EnumInvalidTransaction, "transactions[0].date"},
		{"missing direction", batch(bulkItem(map[string]any{"direction": nil})), EnumInvalidTransaction, "transactions[0].direction"},
		{"bad direction", batch(bulkItem(map[string]any{"direction": "debit"})), EnumInvalidTransaction, "transactions[0].direction"},
		{"missing amount", batch(bulkItem(map[string]any{"amount": nil})), EnumInvalidTransaction, "transactions[0].amount"},
		{"zero amount", batch(bulkItem(map[string]any{"amount": 0})), EnumInvalidTransaction, "transactions[0].amount"},
		{"negative amount", batch(bulkItem(map[string]any{"amount": -5})), EnumInvalidTransaction, "transactions[0].amount"},
		{"fractional amount", batch(bulkItem(map[string]any{"amount": 1.5})), EnumInvalidTransaction, "transactions[0].amount"},
		{"dollar string amount", batch(bulkItem(map[string]any{"amount": "113.00"})), EnumInvalidTransaction, "transactions[0].amount"},
		{"overflowing amount", batch(bulkItem(map[string]any{"amount": json.RawMessage("92233720368547758070")})), EnumAmountOutOfRange, "transactions[0].amount"},
		{"long counterparty", batch(bulkItem(map[string]any{"counterparty_name": long(256)})), EnumInvalidTransaction, "transactions[0].counterparty_name"},
		{"counterparty with a newline", batch(bulkItem(map[string]any{"counterparty_name": "a\nb"})), EnumInvalidTransaction, "transactions[0].counterparty_name"},
		{"long description", batch(bulkItem(map[string]any{"description": long(1001)})), EnumInvalidTransaction, "transactions[0].description"},
		{"description with NUL", batch(bulkItem(map[string]any{"description": "a\x00b"})), EnumInvalidTransaction, "transactions[0].description"},
		{"long reference number", batch(bulkItem(map[string]any{"reference_number": long(256)})), EnumInvalidTransaction, "transactions[0].reference_number"},
		{"long memo", batch(bulkItem(map[string]any{"memo": long(2001)})), EnumInvalidTransaction, "transactions[0].memo"},
		{"memo a number", batch(bulkItem(map[string]any{"memo": 3})), EnumInvalidTransaction, "transactions[0].memo"},
		{"metadata an array", batch(bulkItem(map[string]any{"metadata": []any{1}})), EnumInvalidTransaction, "transactions[0].metadata"},
		{"metadata a string", batch(bulkItem(map[string]any{"metadata": "{}"})), EnumInvalidTransaction, "transactions[0].metadata"},
		{"metadata over 1 KB", batch(bulkItem(map[string]any{"metadata": bigMeta})), EnumMetadataTooLarge, "transactions[0].metadata"},
		{"tags an object", batch(bulkItem(map[string]any{"tags": map[string]any{}})), "InvalidTags", "transactions[0].tags"},
		{"tag without value", batch(bulkItem(map[string]any{"tags": []any{map[string]any{"key": "k"}}})), "InvalidTags", "transactions[0].tags[0].value"},
		{"duplicate source transaction id", batch(bulkItem(nil), bulkItem(map[string]any{"amount": 5})), EnumDuplicateExternalID, "transactions[1].source_transaction_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := ParseImportBatch(tt.body)
			want400(t, err, tt.enum, tt.field)
			if items != nil {
				t.Errorf("items = %d, want none (all or nothing)", len(items))
			}
		})
	}
}

func TestParseImportBatchSameIDOtherSource(t *testing.T) {
	items, err := ParseImportBatch(batch(bulkItem(nil), bulkItem(map[string]any{"source": "PROVIDER_2"})))
	if err != nil || len(items) != 2 {
		t.Fatalf("the same id from two sources: %v (%d items), want both accepted", err, len(items))
	}
}

func TestParseImportBatchReportsEveryItem(t *testing.T) {
	body := batch(
		bulkItem(map[string]any{"amount": 0}),
		bulkItem(map[string]any{"source_transaction_id": "tx-2"}),
		bulkItem(map[string]any{"source_transaction_id": "tx-3", "date": "yesterday", "direction": "SIDEWAYS"}),
		bulkItem(map[string]any{"source_transaction_id": "tx-2"}),
	)
	ae := want400(t, func() error { _, err := ParseImportBatch(body); return err }(), EnumInvalidTransaction, "transactions[0].amount")
	fields := ae.Meta["fields"].(map[string]string)
	want := []string{"transactions[0].amount", "transactions[2].date", "transactions[2].direction", "transactions[3].source_transaction_id"}
	if got := fieldNames(fields); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("meta.fields = %v, want %v", got, want)
	}
}

func TestParseCustomTransactions(t *testing.T) {
	item := func(over map[string]any) map[string]any {
		it := map[string]any{"external_id": "e-1", "amount": 2500, "direction": "CREDIT", "date": "2025-01-31",
			"description": "deposit", "counterparty_name": "ACME", "reference_number": "42", "memo": "m", "metadata": map[string]any{}, "tags": []any{}}
		for k, v := range over {
			if v == nil {
				delete(it, k)
			} else {
				it[k] = v
			}
		}
		return it
	}
	items, err := ParseCustomTransactions(batch(item(nil), item(map[string]any{"external_id": nil}), item(map[string]any{"external_id": nil, "amount": "7"})))
	if err != nil {
		t.Fatalf("ParseCustomTransactions: %v", err)
	}
	if len(items) != 3 || *items[0].ExternalID != "e-1" || items[0].Amount != 2500 || items[0].Direction != Credit ||
		items[1].ExternalID != nil || items[2].Amount != money.Cents(7) || string(items[0].Metadata) != `{}` {
		t.Errorf("items = %+v", items)
	}
	tests := []struct {
		name  string
		body  []byte
		enum  string
		field string
	}{
		{"duplicate external id", batch(item(nil), item(nil)), EnumDuplicateExternalID, "transactions[1].external_id"},
		{"external id a number", batch(item(map[string]any{"external_id": 1})), EnumInvalidTransaction, "transactions[0].external_id"},
		{"long external id", batch(item(map[string]any{"external_id": strings.Repeat("e", 256)})), EnumInvalidTransaction, "transactions[0].external_id"},
		{"zero amount", batch(item(map[string]any{"amount": 0})), EnumInvalidTransaction, "transactions[0].amount"},
		{"bad date", batch(item(map[string]any{"date": "2025-13-01"})), EnumInvalidTransaction, "transactions[0].date"},
		{"empty", []byte(`{"transactions":[]}`), EnumNoTransactions, "transactions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCustomTransactions(tt.body)
			want400(t, err, tt.enum, tt.field)
		})
	}
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2025-06-01", day("2025-06-01"), true},
		{"2025-06-01T10:00:00Z", time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC), true},
		{"2025-06-01T10:00:00.123456+02:00", time.Date(2025, 6, 1, 8, 0, 0, 123456000, time.UTC), true},
		{"1900-01-01", day("1900-01-01"), true},
		{"2199-12-31", day("2199-12-31"), true},
		{"1899-12-31", time.Time{}, false},
		{"2025-6-1", time.Time{}, false},
		{"20250601", time.Time{}, false},
		{"", time.Time{}, false},
		{"2025-06-01 10:00:00", time.Time{}, false},
	}
	for _, tt := range tests {
		got, err := ParseDate(tt.in)
		if (err == nil) != tt.ok || tt.ok && !got.Equal(tt.want) {
			t.Errorf("ParseDate(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// FuzzParseImportBatch: the batch parser never panics, refuses with a 400
// error object, and what it accepts keeps every rule: 1 to 1,000 items,
// positive amounts, importable sources, bounded metadata and unique
// (source, source_transaction_id).
func FuzzParseImportBatch(f *testing.F) {
	f.Add(batch(bulkItem(nil)))
	f.Add(batch(bulkItem(nil), bulkItem(nil)))
	f.Add(batch(bulkItem(map[string]any{"amount": "9223372036854775807", "date": "2025-06-01T00:00:00+14:00"})))
	f.Add(batch(bulkItem(map[string]any{"amount": json.RawMessage("1e3"), "metadata": json.RawMessage(`{"a":{"b":[null,true,1.5e300]}}`)})))
	f.Add([]byte(`{"transactions":[{"source":"API"}]}`))
	f.Add([]byte(`{"transactions":[null,[],"x"]}`))
	f.Add([]byte(`{"transactions":`))
	f.Add([]byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, body []byte) {
		items, err := ParseImportBatch(body)
		if err != nil {
			if !is4xx(err) {
				t.Fatalf("refusal is not a 4xx error object: %v", err)
			}
			return
		}
		if len(items) == 0 || len(items) > MaxImportItems {
			t.Fatalf("%d items accepted", len(items))
		}
		seen := map[string]bool{}
		for _, it := range items {
			if it.Amount <= 0 || !it.Source.Importable() || !it.Direction.Valid() || it.SourceTransactionID == "" || it.SourceAccountID == "" {
				t.Fatalf("invalid item accepted: %+v", it)
			}
			if len(it.Metadata) > MaxMetadataBytes || it.Metadata != nil && !json.Valid(it.Metadata) {
				t.Fatalf("metadata %q accepted", it.Metadata)
			}
			k := string(it.Source) + "\x00" + it.SourceTransactionID
			if seen[k] {
				t.Fatalf("duplicate %s accepted", k)
			}
			seen[k] = true
		}
	})
}
