package domain

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/csvexport"
	"github.com/acctsuite/acct/pkg/events"
)

func TestParseExportQueryDefaults(t *testing.T) {
	activation := time.Date(2025, 7, 4, 23, 30, 0, 0, time.FixedZone("x", -3600)) // 2025-07-05 UTC
	now := time.Date(2026, 1, 2, 0, 30, 0, 0, time.UTC)
	q, err := ParseExportQuery(url.Values{}, activation, now)
	if err != nil || q.Start.Format(DateLayout) != "2025-07-05" || q.End.Format(DateLayout) != "2026-01-02" ||
		q.Categorized != nil || q.Category != "" || q.Status != "" {
		t.Fatalf("%+v %v", q, err)
	}
	q, err = ParseExportQuery(url.Values{"categorized": {"false"}, "category": {" RENT "}, "categorization_status": {"PENDING"}}, activation, now)
	if err != nil || q.Categorized == nil || *q.Categorized || q.Category != "RENT" || q.Status != StatusFilterPending {
		t.Fatalf("%+v %v", q, err)
	}
}

// A category PostgreSQL cannot compare with (NUL, invalid UTF-8, control
// characters) is a 400 InvalidFilter; the contract fuzzer found
// ?category=%00nul answered 500.
func TestParseExportQueryCategoryText(t *testing.T) {
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, c := range []string{"\x00nul", "RENT\x00", "\xff\xfe", "a\nb", ""} {
		_, err := ParseExportQuery(url.Values{"category": {c}}, now, now)
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Enum != EnumInvalidFilter || !strings.Contains(ae.Error(), "category") {
			t.Fatalf("category %q: %v, want 400 InvalidFilter", c, err)
		}
	}
}

func TestNewBankTransaction(t *testing.T) {
	s := func(v string) *string { return &v }
	b := NewBankTransaction(events.BankTransactionUpserted{Status: "SPLIT", Splits: []events.BankSplit{
		{Category: events.BankCategory{StableName: s("RENT"), DisplayName: "Rent"}},
		{Category: events.BankCategory{StableName: s("RENT"), DisplayName: "Rent"}},
		{Category: events.BankCategory{ExclusionType: s("PERSONAL"), DisplayName: "Personal"}},
	}, Tags: []events.LedgerTag{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}}})
	if !slices.Equal(b.CategoryStableNames, []string{"RENT"}) || *b.CategoryDisplay != "Rent; Rent; Personal" || b.TagsText != "a:1, b:2" {
		t.Fatalf("%+v", b)
	}
	if !Categorized("SPLIT") || Categorized("JOURNALING") {
		t.Fatal("statuses")
	}
	r := ExportRow{Day: "2026-01-02", Direction: "CREDIT", Amount: 5, Status: "PENDING"}
	if got := r.Record(nil); len(got) != len(ExportHeader) || got[5] != "0.05" || got[1] != "" {
		t.Fatalf("%q", got)
	}
}

func TestSafeCell(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "Coffee": "Coffee", "=HYPERLINK(\"x\")": "'=HYPERLINK(\"x\")", "+1": "'+1", "-5% discount": "'-5% discount",
		"@SUM(A1)": "'@SUM(A1)", "\tx": "'\tx", "\rx": "'\rx", "a=b": "a=b",
	} {
		if got := csvexport.SafeCell(in); got != want {
			t.Errorf("csvexport.SafeCell(%q) = %q, want %q", in, got, want)
		}
	}
	memo := "=cmd|' /C calc'!A0"
	r := ExportRow{Day: "2026-03-01", Direction: "DEBIT", Amount: 100, Memo: memo, Tags: "@k:v"}
	if got := r.Record(nil); got[9] != "'"+memo || got[8] != "'@k:v" {
		t.Fatalf("record = %q", got)
	}
}
