package clientshapes

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCopyIsCurrent: the embedded copy is the specification's file, where
// the specification sits next to the repository (the development machines);
// elsewhere the copy is all there is.
func TestCopyIsCurrent(t *testing.T) {
	spec := filepath.Join("..", "..", "..", "..", "shared", "spec", "client-shapes.md")
	b, err := os.ReadFile(spec)
	if os.IsNotExist(err) {
		t.Skipf("%s is not on this machine: the embedded copy stands", spec)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, Document) {
		t.Fatalf("tools/internal/clientshapes/client-shapes.md differs from %s: copy it again", spec)
	}
}

func TestParseTheDocument(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Shapes) < 100 || len(c.Calls) < 70 {
		t.Fatalf("read %d shapes and %d calls: the document's format changed", len(c.Shapes), len(c.Calls))
	}
	rule := c.Shapes["CategorizationRule"]
	if rule == nil || len(rule.Fields) != 15 {
		t.Fatalf("CategorizationRule: %+v", rule)
	}
	var dir Field
	for _, f := range rule.Fields {
		if f.Name == "bank_direction_filter" {
			dir = f
		}
	}
	if !dir.Nullable || dir.Required || strings.Join(dir.Closed, ",") != "MONEY_IN,MONEY_OUT" {
		t.Fatalf("bank_direction_filter read as %+v", dir)
	}
	if got := c.Shapes["AccountIdentifier"].OneOf; strings.Join(got, ",") != "StableNameIdentifier,AccountIdIdentifier" {
		t.Fatalf("AccountIdentifier members: %v", got)
	}
}

func TestMatch(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	b := "/v1/businesses/9b2c7f2e-52a5-4d0c-9a43-5b1b4f1f9e01"
	for _, tc := range []struct {
		method, path string
		want         string // shape of the first match; "" none
	}{
		{"GET", b + "/bank-transactions?limit=200", "BankTransaction"},
		{"DELETE", b + "/bank-transactions/abc", "BankTransaction"},
		{"PATCH", b + "/bank-transactions/abc/metadata", "BankTransactionMetadata"},
		{"GET", b + "/counterparties", "BankTransactionCounterparty"},
		{"POST", b + "/invoices/inv/payment/", "InvoicePayment"},
		{"GET", b + "/invoices/inv/pdf", "S3PresignedUrl"},
		{"POST", b + "/categorization-rules/r/archive", "CategorizationRule"},
		{"GET", b + "/no-such-thing", ""},
		{"PUT", b + "/counterparties", ""},
	} {
		got := c.Match(tc.method, tc.path)
		switch {
		case tc.want == "" && len(got) != 0:
			t.Errorf("%s %s matched %v", tc.method, tc.path, got[0].Key())
		case tc.want != "" && (len(got) == 0 || got[0].Shape != tc.want):
			t.Errorf("%s %s: matched %v, want %s", tc.method, tc.path, got, tc.want)
		}
	}
}

func TestCheckAnswer(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	rules := c.Match("POST", "/v1/businesses/b/categorization-rules/r/archive")[0]
	counterparties := c.Match("GET", "/v1/businesses/b/counterparties")[0]
	const ruleOK = `"id":"r","business_id":"b","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05.123Z"`
	for _, tc := range []struct {
		name string
		call Call
		body string
		want string // a substring of the first error; "" valid
	}{
		{"minimal rule", rules, `{"data":{` + ruleOK + `}}`, ""},
		{"nullable fields null", rules, `{"data":{` + ruleOK + `,"name":null,"category":null,"archived_at":null}}`, ""},
		{"unknown keys allowed", rules, `{"data":{` + ruleOK + `,"extra":[1,2]}}`, ""},
		{"missing required", rules, `{"data":{"id":"r","business_id":"b","created_at":"2026-01-02T03:04:05Z"}}`, "$.data.updated_at: required, missing"},
		{"null not nullable", rules, `{"data":{` + ruleOK + `,"id":null}}`, ""}, // duplicate key: the last wins, checked below
		{"wrong type", rules, `{"data":{"id":1,"business_id":"b","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z"}}`, "$.data.id: must be string, is a number"},
		{"bad date-time", rules, `{"data":{"id":"r","business_id":"b","created_at":"2026-01-02","updated_at":"2026-01-02T03:04:05Z"}}`, `$.data.created_at: "2026-01-02" is not a date-time`},
		{"closed enum", rules, `{"data":{` + ruleOK + `,"bank_direction_filter":"INFLOW"}}`, `"INFLOW" is not one of MONEY_IN, MONEY_OUT`},
		{"union member", rules, `{"data":{` + ruleOK + `,"category":{"type":"StableName","stable_name":"MEALS"}}}`, ""},
		{"union member incomplete", rules, `{"data":{` + ruleOK + `,"category":{"type":"AccountId"}}}`, "$.data.category.id: required, missing"},
		{"union no member", rules, `{"data":{` + ruleOK + `,"category":{"type":"Nope"}}}`, `type "Nope" is none of StableNameIdentifier, AccountIdIdentifier`},
		{"nested shape", rules, `{"data":{` + ruleOK + `,"counterparty_filter":{"id":"c","mccs":"5812"}}}`, "$.data.counterparty_filter.mccs: must be array"},
		{"no data", rules, `{"id":"r"}`, "$.data: missing"},
		{"not JSON", rules, `<html>`, "not JSON"},
		{"paginated", counterparties, `{"data":[{"id":"c","name":"Cafe","mccs":["5812"]}],"meta":{"pagination":{"cursor":null,"has_more":false}}}`, ""},
		{"paginated item", counterparties, `{"data":[{"id":"c","mccs":[5812]}]}`, "$.data[0].mccs[0]: must be string, is a number"},
		{"paginated meta", counterparties, `{"data":[],"meta":{"pagination":{"cursor":"x"}}}`, "$.meta.pagination.has_more: required, missing"},
		{"paginated not an array", counterparties, `{"data":{}}`, "$.data: not an array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := c.CheckAnswer(tc.call, []byte(tc.body))
			if tc.name == "null not nullable" {
				if len(errs) == 0 || !strings.Contains(errs[0], "$.data.id: null, not nullable") {
					t.Fatalf("errors %v", errs)
				}
				return
			}
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Fatalf("valid answer refused: %v", errs)
			case tc.want != "" && len(errs) == 0:
				t.Fatalf("invalid answer accepted, want %q", tc.want)
			case tc.want != "" && !strings.Contains(errs[0], tc.want):
				t.Fatalf("errors %v, want %q first", errs, tc.want)
			}
		})
	}
}

func TestFormats(t *testing.T) {
	for _, tc := range []struct {
		format, value string
		ok            bool
	}{
		{"uuid", "9b2c7f2e-52a5-4d0c-9a43-5b1b4f1f9e01", true},
		{"uuid", "9b2c7f2e52a54d0c9a435b1b4f1f9e01", false},
		{"date", "2026-02-28", true},
		{"date", "2026-02-30", false},
		{"decimal", "1.5", true},
		{"decimal", "-2", true},
		{"decimal", "1e3", false},
		{"decimal", "", false},
		{"number-string", "12.25", true},
		{"number-string", "twelve", false},
		{"non-empty", " x ", true},
		{"non-empty", "  ", false},
		{"date-time", "2026-01-02T03:04:05+01:00", true},
		{"date-time", "2026-01-02 03:04:05", false},
	} {
		if got := checkFormat(tc.format, tc.value) == ""; got != tc.ok {
			t.Errorf("%s %q: ok=%v, want %v", tc.format, tc.value, got, tc.ok)
		}
	}
}
