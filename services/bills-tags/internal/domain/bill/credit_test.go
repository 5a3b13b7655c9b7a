package bill

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

func TestCreditPostingAndSnapshot(t *testing.T) {
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	biz, id, acct := uuid.New(), uuid.New(), uuid.New()
	c := Credit{ID: id, BusinessID: biz, VendorID: uuid.New(), ReceivedAt: at, Version: 3,
		Tags: TagSet(biz, id, nil, []tags.KeyValue{{Key: "dept", Value: "ops"}}, at),
		Lines: []CreditLine{
			{ID: uuid.New(), Amount: 700, Account: AccountRef{ID: &acct}, Tags: TagSet(biz, id, nil, []tags.KeyValue{{Key: "p", Value: "x"}}, at)},
			{ID: uuid.New(), Amount: 300},
		},
		Allocations: []CreditAllocation{{ID: uuid.New(), BillID: uuid.New(), Amount: 400}},
	}
	if c.Total() != 1000 || c.Applied() != 400 || c.Unapplied() != 600 {
		t.Fatalf("total %d applied %d unapplied %d", c.Total(), c.Applied(), c.Unapplied())
	}
	p := c.Posting()
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	if p.EntryType != "VENDOR_CREDIT" || p.SourceType != events.SourceVendorCredit || p.SourceID != id.String() ||
		p.Version != 3 || !p.EntryAt.Equal(at) || len(p.Lines) != 3 {
		t.Fatalf("posting = %+v", p)
	}
	if l := p.Lines[0]; l.Account.StableName != AccountsPayable || l.Direction != "DEBIT" || l.Amount != 1000 || len(l.Tags) != 1 {
		t.Fatalf("A/P line = %+v", l)
	}
	if l := p.Lines[1]; l.Account.ID == nil || *l.Account.ID != acct || l.Direction != "CREDIT" || l.Amount != 700 || len(l.Tags) != 2 {
		t.Fatalf("line 1 = %+v", l)
	}
	if l := p.Lines[2]; l.Account.StableName != DefaultExpenseAccount || l.Amount != 300 {
		t.Fatalf("line 2 = %+v", l)
	}
	s := c.Snapshot()
	if s.TotalAmount != 1000 || s.Unapplied != 600 || len(s.Allocations) != 1 || s.Allocations[0].Amount != 400 ||
		s.Version != 3 || *s.VendorID != c.VendorID || len(s.Tags) != 1 {
		t.Fatalf("snapshot = %+v", s)
	}
}

func TestCheckAllocationsForCredits(t *testing.T) {
	b1, b2 := uuid.New(), uuid.New()
	bal := map[uuid.UUID]Balance{b1: {Outstanding: 500}, b2: {Voided: true}}
	field := func(err error) string {
		for k := range apperr.From(err).Meta["fields"].(map[string]string) {
			return k
		}
		return ""
	}
	cases := []struct {
		name  string
		total money.Cents
		als   []Applied
		enum  string
		field string
	}{
		{"none", 100, nil, "", ""},
		{"within", 1000, []Applied{{"allocations[0]", b1, 500}}, "", ""},
		{"over the credit", 400, []Applied{{"allocations[0]", b1, 401}}, EnumAllocationMismatch, "allocations"},
		{"over the bill", 1000, []Applied{{"allocations[0]", b1, 501}}, EnumOverpaid, "allocations[0].amount"},
		{"voided", 1000, []Applied{{"allocations[0]", b2, 1}}, EnumBillVoided, "allocations[0].bill_id"},
		{"zero", 1000, []Applied{{"allocations[0]", b1, 0}}, EnumInvalidCredit, "allocations[0].amount"},
		{"twice", 1000, []Applied{{"allocations[0]", b1, 1}, {"allocations[1]", b1, 1}}, EnumInvalidCredit, "allocations[1].bill_id"},
	}
	for _, c := range cases {
		err := CheckAllocations(c.total, false, "allocations", c.als, bal, EnumInvalidCredit)
		if c.enum == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if e := apperr.From(err); err == nil || e.Enum != c.enum || e.Status() != 400 || field(err) != c.field {
			t.Errorf("%s: %v (fields %v), want %s on %s", c.name, err, e, c.enum, c.field)
		}
	}
}

func TestParseCredit(t *testing.T) {
	in, err := ParseCredit([]byte(`{"received_at":"2026-03-01T10:00:00+02:00","vendor_id":"0190a0b0-0000-7000-8000-000000000001",
		"line_items":[{"amount":"250","expense_account_identifier":{"type":"StableName","stable_name":"OFFICE_SUPPLIES"},"memo":" m ","tags":[{"key":"k","value":"v"}]}],
		"allocations":[{"bill_id":"0190a0b0-0000-7000-8000-000000000002","amount":100}],"memo":"x","metadata":{"a":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.ReceivedAt.Location() != time.UTC || in.ReceivedAt.Hour() != 8 || len(in.Lines) != 1 || in.Lines[0].Amount != 250 ||
		in.Lines[0].Account.StableName != "OFFICE_SUPPLIES" || *in.Lines[0].Memo != "m" || len(in.Allocations) != 1 || in.Allocations[0].Amount != 100 {
		t.Fatalf("input = %+v", in)
	}
	for body, field := range map[string]string{
		`{"vendor_id":"0190a0b0-0000-7000-8000-000000000001","line_items":[{"amount":1}]}`:                                                               "received_at",
		`{"received_at":"2026-03-01T00:00:00Z","line_items":[{"amount":1}]}`:                                                                             "vendor_id",
		`{"received_at":"2026-03-01T00:00:00Z","vendor_id":"0190a0b0-0000-7000-8000-000000000001","vendor_external_id":"v","line_items":[{"amount":1}]}`: "vendor_external_id",
		`{"received_at":"2026-03-01T00:00:00Z","vendor_external_id":"v","line_items":[]}`:                                                                "line_items",
		`{"received_at":"2026-03-01T00:00:00Z","vendor_external_id":"v","line_items":[{"amount":0}]}`:                                                    "line_items[0].amount",
		`{"received_at":"2026-03-01T00:00:00Z","vendor_external_id":"v","line_items":[{"amount":1,"expense_account_identifier":{"type":"Tax_Name"}}]}`:   "line_items[0].expense_account_identifier.type",
		`{"received_at":"2026-03-01T00:00:00Z","vendor_external_id":"v","line_items":[{"amount":1}],"allocations":[{"amount":1}]}`:                       "allocations[0].bill_id",
		`{"received_at":"2026-03-01T00:00:00Z","vendor_external_id":"v","line_items":[{"amount":9223372036854775807},{"amount":1}]}`:                     "line_items[1].amount",
		`{"received_at":"2026-03-01T00:00:00Z","vendor_external_id":"v","line_items":[{"amount":1}],"fee":1}`:                                            "body",
	} {
		_, err := ParseCredit([]byte(body))
		e := apperr.From(err)
		if err == nil || e.Status() != 400 || e.Enum != EnumInvalidCredit {
			t.Errorf("%s: %v", body, err)
			continue
		}
		if _, ok := e.Meta["fields"].(map[string]string)[field]; !ok {
			t.Errorf("%s: fields %v, want %s", body, e.Meta["fields"], field)
		}
	}
	_, err = ParseCredit([]byte(`{"received_at":"2026-03-01T00:00:00Z","vendor_external_id":"v","line_items":[{"amount":1}],"metadata":{"k":"` + strings.Repeat("x", 1100) + `"}}`))
	if apperr.From(err).Enum != EnumMetadataTooLarge {
		t.Errorf("large metadata: %v", err)
	}
}

func TestParseCreditPatch(t *testing.T) {
	p, err := ParseCreditPatch([]byte(`{"memo":null,"reference_number":"R","allocations":[],"tags":[{"key":"a","value":"b"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Memo.Set || p.Memo.Value != nil || *p.ReferenceNumber.Value != "R" || !p.Allocations.Set || len(p.Allocations.Value) != 0 ||
		len(p.Tags.Value) != 1 || p.Lines.Set || p.ReceivedAt.Set {
		t.Fatalf("patch = %+v", p)
	}
	for _, body := range []string{`{"external_id":"x"}`, `{"vendor_id":"0190a0b0-0000-7000-8000-000000000001"}`, `{"received_at":null}`,
		`{"line_items":[]}`, `{"allocations":[{"amount":1}]}`, `[]`, `{"allocations":[{"bill_id":"0190a0b0-0000-7000-8000-000000000001","amount":1,"x":1}]}`} {
		if _, err := ParseCreditPatch([]byte(body)); err == nil || apperr.From(err).Enum != EnumInvalidCredit {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func TestParseCreditFilter(t *testing.T) {
	f, err := ParseCreditFilter(url.Values{"reference_numbers": {"b, a", "a"}, "memo_contains": {" rent "}, "received_at_end": {"2026-03-01"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.ReferenceNumbers) != 2 || f.ReferenceNumbers[0] != "a" || f.MemoContains != "rent" || f.ReceivedEnd.Hour() != 23 {
		t.Fatalf("filter = %+v", f)
	}
	if f.Fingerprint() == (CreditFilter{}).Fingerprint() {
		t.Fatal("the fingerprint ignores the filter")
	}
	_, err = ParseCreditFilter(url.Values{"vendor_id": {"x"}, "received_at_start": {"nope"}, "reference_numbers": {strings.Repeat("x", 256)}})
	fs, _ := apperr.From(err).Meta["fields"].(map[string]string)
	if apperr.From(err).Enum != EnumInvalidFilter || len(fs) != 3 {
		t.Fatalf("bad filter: %v (%v)", err, fs)
	}
}
