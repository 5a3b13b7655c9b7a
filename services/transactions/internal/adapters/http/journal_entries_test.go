package http

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

const validBody = `{"external_id":"je-1","entry_at":"2026-03-01T10:00:00Z","created_by":"Ann","memo":"Opening",
 "line_items":[
  {"account_identifier":{"type":"StableName","stable_name":"CASH"},"amount":"150000","direction":"DEBIT","memo":"till","tags":[{"key":"k","value":"v"}]},
  {"account_identifier":{"type":"AccountId","id":"0190f2a4-5b6c-7d8e-9f00-112233445566"},"amount":150000,"direction":"CREDIT","external_id":"l2"}],
 "tags":[{"key":"project","value":"alpha"}],"metadata":{"b":1,"a":"x"},"reference_number":"R-1"}`

func TestParseJournalEntryBody(t *testing.T) {
	in, err := ParseJournalEntryBody([]byte(validBody))
	if err != nil {
		t.Fatal(err)
	}
	acct := uuid.MustParse("0190f2a4-5b6c-7d8e-9f00-112233445566")
	if *in.ExternalID != "je-1" || !in.EntryAt.Equal(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)) || *in.CreatedBy != "Ann" ||
		len(in.Lines) != 2 || len(in.Tags) != 1 || string(in.Metadata) != `{"b":1,"a":"x"}` || *in.Reference != "R-1" {
		t.Fatalf("input = %+v", in)
	}
	l0, l1 := in.Lines[0], in.Lines[1]
	if l0.Account != domain.ByStableName("CASH") || l0.Amount != 150000 || l0.Direction != domain.Debit || *l0.Memo != "till" || len(l0.Tags) != 1 {
		t.Fatalf("line 0 = %+v", l0)
	}
	if l1.Account != domain.ByID(acct) || l1.Amount != 150000 || l1.Direction != domain.Credit || *l1.ExternalID != "l2" {
		t.Fatalf("line 1 = %+v", l1)
	}

	date, err := ParseJournalEntryBody([]byte(`{"entry_at":"2026-03-01","entry_type":"OPENING_BALANCE","line_items":[]}`))
	if err != nil || !date.EntryAt.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) || date.EntryType != domain.EntryOpeningBalance {
		t.Fatalf("date form: %+v %v", date, err)
	}

	line := func(amount string) string {
		return `{"line_items":[{"account_identifier":{"type":"StableName","stable_name":"CASH"},"amount":` + amount + `,"direction":"DEBIT"}]}`
	}
	bad := []struct {
		name, body, wantEnum string
	}{
		{"not JSON", `{`, "InvalidPayload"},
		{"unknown field", `{"line_items":[],"surprise":1}`, "InvalidPayload"},
		{"no line items", `{}`, "InvalidPayload"},
		{"fractional amount", line("1.5"), money.EnumTooManyDecimals},
		{"fraction in a string", line(`"100.0"`), money.EnumTooManyDecimals},
		{"exponent", line("1e3"), money.EnumMalformedNumber},
		{"overflowing amount", line(`"9223372036854775808"`), money.EnumOutOfRange},
		{"null amount", line("null"), "InvalidPayload"},
		{"boolean amount", line("true"), money.EnumMalformedNumber},
		{"bad direction", `{"line_items":[{"account_identifier":{"type":"StableName","stable_name":"CASH"},"amount":1,"direction":"LEFT"}]}`, "InvalidPayload"},
		{"no direction", `{"line_items":[{"account_identifier":{"type":"StableName","stable_name":"CASH"},"amount":1}]}`, "InvalidPayload"},
		{"no account", `{"line_items":[{"amount":1,"direction":"DEBIT"}]}`, "InvalidPayload"},
		{"bad account id", `{"line_items":[{"account_identifier":{"type":"AccountId","id":"nope"},"amount":1,"direction":"DEBIT"}]}`, "InvalidPayload"},
		{"identifier of both kinds", `{"line_items":[{"account_identifier":{"type":"AccountId","id":"0190f2a4-5b6c-7d8e-9f00-112233445566","stable_name":"X"},"amount":1,"direction":"DEBIT"}]}`, "InvalidPayload"},
		{"empty stable name", `{"line_items":[{"account_identifier":{"type":"StableName","stable_name":""},"amount":1,"direction":"DEBIT"}]}`, "InvalidPayload"},
		{"bad entry_at", `{"entry_at":"yesterday","line_items":[]}`, "InvalidPayload"},
		{"bad entry_type", `{"entry_type":"BANK","line_items":[]}`, "InvalidPayload"},
		{"metadata array", `{"metadata":[1],"line_items":[]}`, "InvalidPayload"},
		// Stored as text/jsonb, which cannot hold NUL: a 400, not a 500.
		{"NUL in memo", `{"memo":"a\u0000b","line_items":[]}`, "InvalidPayload"},
		{"NUL in reference_number", `{"reference_number":"\u0000","line_items":[]}`, "InvalidPayload"},
		{"NUL in a line memo", `{"line_items":[{"account_identifier":{"type":"StableName","stable_name":"CASH"},"amount":1,"direction":"DEBIT","memo":"\u0000"}]}`, "InvalidPayload"},
		{"NUL in metadata", `{"metadata":{"k":"\u0000"},"line_items":[]}`, "InvalidPayload"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseJournalEntryBody([]byte(tt.body))
			if err == nil {
				t.Fatal("accepted")
			}
			ae := apperr.From(err)
			if ae.Status() != 400 || ae.Body().ErrorEnum != tt.wantEnum {
				t.Fatalf("error %v: status %d enum %s, want 400 %s", err, ae.Status(), ae.Body().ErrorEnum, tt.wantEnum)
			}
		})
	}
}

func TestPeriod(t *testing.T) {
	day := func(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name               string
		start, end, asOf   string
		wantFrom, wantUntl *time.Time
		wantErr            bool
	}{
		{"none", "", "", "", nil, nil, false},
		{"dates are whole days", "2026-01-01", "2026-01-31", "", ptr(day(2026, 1, 1)), ptr(day(2026, 2, 1)), false},
		{"as_of a date", "", "", "2026-02-28", nil, ptr(day(2026, 3, 1)), false},
		{"as_of a date-time", "", "", "2026-02-28T12:00:00+01:00", nil, ptr(time.Date(2026, 2, 28, 11, 0, 0, 1000, time.UTC)), false},
		{"same day", "2026-01-01", "2026-01-01", "", ptr(day(2026, 1, 1)), ptr(day(2026, 1, 2)), false},
		{"end before start", "2026-02-01", "2026-01-01", "", nil, nil, true},
		{"as_of and end_date", "", "2026-01-01", "2026-01-01", nil, nil, true},
		{"bad start", "01/01/2026", "", "", nil, nil, true},
		{"bad end", "", "2026-13-01", "", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, until, err := period(tt.start, tt.end, tt.asOf)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v", err)
			}
			if err != nil {
				if apperr.From(err).Type != apperr.InvalidParameters {
					t.Fatalf("error type %s", apperr.From(err).Type)
				}
				return
			}
			if !sameTime(from, tt.wantFrom) || !sameTime(until, tt.wantUntl) {
				t.Fatalf("period [%v, %v), want [%v, %v)", from, until, tt.wantFrom, tt.wantUntl)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

func TestIdentifierInputs(t *testing.T) {
	id := "0190f2a4-5b6c-7d8e-9f00-112233445566"
	var body accountBody
	if err := json.Unmarshal([]byte(`{"name":"n","parent_id":"`+id+`","stable_name":"S1","account_type":{"value":"ASSET","display_name":"Asset"},
		"account_subtype":"CASH","normality":"DEBIT"}`), &body); err != nil {
		t.Fatal(err)
	}
	if body.ParentID.ref != domain.ByID(uuid.MustParse(id)) || *body.stableName() != "S1" || body.AccountType.value != "ASSET" ||
		*body.subtype() != "CASH" || body.Normality.value != "DEBIT" {
		t.Fatalf("body = %+v", body)
	}
	if err := json.Unmarshal([]byte(`{"name":"n","stable_name":{"type":"StableName","stable_name":"S2"},"parent_id":{"type":"StableName","stable_name":"RENT"}}`), &body); err != nil {
		t.Fatal(err)
	}
	if *body.stableName() != "S2" || body.ParentID.ref != domain.ByStableName("RENT") {
		t.Fatalf("object forms: %+v", body)
	}
	for _, bad := range []string{
		`{"parent_id":"not-a-uuid"}`, `{"parent_id":{"type":"Other","id":"x"}}`, `{"parent_id":7}`,
		`{"stable_name":{"type":"AccountId","stable_name":"x"}}`, `{"account_type":{"display_name":"x"}}`, `{"account_type":3}`,
	} {
		var b accountBody
		if err := json.Unmarshal([]byte(bad), &b); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// FuzzParseJournalEntryBody feeds arbitrary bodies to the parser: it never
// panics, every rejection is a 4xx error object, and what it accepts is
// well formed (an account reference and a direction on every line, the
// line count of the body).
func FuzzParseJournalEntryBody(f *testing.F) {
	for _, seed := range []string{
		validBody,
		`{"line_items":[]}`,
		`{"entry_at":"2026-03-01","line_items":[{"account_identifier":{"type":"StableName","stable_name":"CASH"},"amount":"1","direction":"DEBIT"}]}`,
		`{"line_items":[{"account_identifier":{"type":"AccountId","id":"0190f2a4-5b6c-7d8e-9f00-112233445566"},"amount":-1,"direction":"CREDIT"}]}`,
		`{"line_items":[{"account_identifier":"0190f2a4-5b6c-7d8e-9f00-112233445566","amount":1e3,"direction":"CREDIT"}]}`,
		`{"line_items":[{"amount":"99999999999999999999","direction":"DEBIT"}],"metadata":{"a":[1,2,{"b":null}]}}`,
		`{"line_items":null,"tags":[{"key":"","value":""}]}`,
		`[]`, `null`, ``, `{"line_items":[{}]}`, "{\"memo\":\"\u0000\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseJournalEntryBody(body)
		if err != nil {
			if st := apperr.From(err).Status(); st < 400 || st >= 500 {
				t.Fatalf("rejection with status %d: %v", st, err)
			}
			return
		}
		var raw struct {
			LineItems []json.RawMessage `json:"line_items"`
		}
		if err := json.Unmarshal(body, &raw); err != nil {
			t.Fatalf("accepted a body encoding/json rejects: %v", err)
		}
		if len(raw.LineItems) != len(in.Lines) {
			t.Fatalf("%d lines parsed from %d", len(in.Lines), len(raw.LineItems))
		}
		for i, l := range in.Lines {
			if !l.Direction.Valid() || l.Account == (domain.AccountRef{}) || (l.Account.ID != uuid.Nil && l.Account.StableName != "") {
				t.Fatalf("line %d accepted malformed: %+v", i, l)
			}
		}
		if in.EntryAt != nil && in.EntryAt.IsZero() {
			t.Fatal("zero entry_at accepted")
		}
	})
}
