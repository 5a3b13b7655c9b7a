package banking

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/money"
)

func query(s string) url.Values {
	q, err := url.ParseQuery(s)
	if err != nil {
		panic(err)
	}
	return q
}

func TestParseFilter(t *testing.T) {
	idA := uuid.MustParse("0190a6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b")
	idB := uuid.MustParse("0190a6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5c")
	tests := []struct {
		name  string
		query string
		want  Filter
	}{
		{"nothing", "", Filter{}},
		{"pagination parameters are left alone", "sort_by=date&sort_order=DESC&limit=200&cursor=abc", Filter{}},
		{"empty values are absent", "direction=&q=%20&bank_account_ids=,", Filter{}},
		{"date range", "start_date=2025-01-01&end_date=2025-01-31", Filter{Start: ptr(day("2025-01-01")), End: ptr(day("2025-02-01"))}},
		{"timestamp end is inclusive", "end_date=2025-01-31T12:00:00Z",
			Filter{End: ptr(time.Date(2025, 1, 31, 12, 0, 0, 1000, time.UTC))}},
		{"same start and end day", "start_date=2025-01-31&end_date=2025-01-31", Filter{Start: ptr(day("2025-01-31")), End: ptr(day("2025-02-01"))}},
		{"direction", "direction=CREDIT", Filter{Direction: ptr(Credit)}},
		{"OUTFLOW is DEBIT", "direction=OUTFLOW", Filter{Direction: ptr(Debit)}},
		{"inflow in lower case", "direction=inflow", Filter{Direction: ptr(Credit)}},
		{"categorized", "categorized=true", Filter{Categorized: ptr(true)}},
		{"uncategorized", "categorized=FALSE", Filter{Categorized: ptr(false)}},
		{"statuses repeated and comma-separated", "categorization_status=SPLIT,PENDING&categorization_status=CATEGORIZED&categorization_status=pending",
			Filter{Statuses: []CategorizationStatus{StatusCategorized, StatusPending, StatusSplit}}},
		{"category by stable name", "category=OFFICE_EXPENSES", Filter{Category: ptr(StableNameClassification("OFFICE_EXPENSES"))}},
		{"category by id", "category=" + idA.String(), Filter{Category: ptr(AccountIDClassification(idA))}},
		{"category by exclusion", "category=PERSONAL_EXPENSES", Filter{Category: ptr(ExclusionClassification(PersonalExpenses))}},
		{"amounts", "amount_min=0&amount_max=5000", Filter{AmountMin: ptr(money.Cents(0)), AmountMax: ptr(money.Cents(5000))}},
		{"equal amounts", "amount_min=5000&amount_max=5000", Filter{AmountMin: ptr(money.Cents(5000)), AmountMax: ptr(money.Cents(5000))}},
		{"search", "q=+tim+hortons+&reference_number=R-1", Filter{Query: "tim hortons", ReferenceNumber: "R-1"}},
		{"tags", "tag_key=project&tag_values=beta,alpha&tag_values=alpha", Filter{TagKey: "project", TagValues: []string{"alpha", "beta"}}},
		{"tag key alone", "tag_key=project", Filter{TagKey: "project"}},
		{"account ids", "bank_account_ids=" + idB.String() + "," + idA.String() + "&bank_account_ids=" + idB.String() + "&source_account_ids=s-2,s-1&external_account_id=" + idA.String(),
			Filter{BankAccountIDs: []uuid.UUID{idA, idB}, SourceAccountIDs: []string{"s-1", "s-2"}, ExternalAccountID: ptr(idA)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFilter(query(tt.query))
			if err != nil {
				t.Fatalf("ParseFilter: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseFilter(%q) =\n  %+v\nwant\n  %+v", tt.query, got, tt.want)
			}
		})
	}
}

func TestParseFilterRejects(t *testing.T) {
	many := make([]string, MaxFilterIDs+1)
	for i := range many {
		many[i] = uuid.NewString()
	}
	tests := []struct {
		query string
		field string
	}{
		{"start_date=yesterday", "start_date"},
		{"start_date=2025-01-01&start_date=2025-02-01", "start_date"},
		{"end_date=2025-13-01", "end_date"},
		{"start_date=2025-02-01&end_date=2025-01-31", "end_date"},
		{"start_date=2025-02-01T10:00:00Z&end_date=2025-02-01T09:00:00Z", "end_date"},
		{"direction=SIDEWAYS", "direction"},
		{"direction=CREDIT&direction=DEBIT", "direction"},
		{"categorized=yes", "categorized"},
		{"categorized=1", "categorized"},
		{"categorization_status=DONE", "categorization_status"},
		{"categorization_status=PENDING,NOPE", "categorization_status"},
		{"category=office%20expenses", "category"},
		{"category=" + strings.Repeat("A", 101), "category"},
		{"amount_min=-1", "amount_min"},
		{"amount_min=1.50", "amount_min"},
		{"amount_max=lots", "amount_max"},
		{"amount_max=99999999999999999999", "amount_max"},
		{"amount_min=500&amount_max=100", "amount_max"},
		{"q=" + strings.Repeat("q", MaxQueryLength+1), "q"},
		{"q=a%00b", "q"},
		{"reference_number=" + strings.Repeat("r", 256), "reference_number"},
		{"tag_values=alpha", "tag_values"},
		{"tag_key=" + strings.Repeat("k", 101), "tag_key"},
		{"tag_key=k&tag_values=" + strings.Repeat("v", 201), "tag_values"},
		{"bank_account_ids=not-a-uuid", "bank_account_ids"},
		{"bank_account_ids=" + strings.Join(many, ","), "bank_account_ids"},
		{"source_account_ids=" + strings.Repeat("s", 256), "source_account_ids"},
		{"external_account_id=123", "external_account_id"},
		{"external_account_id={" + uuid.NewString() + "}", "external_account_id"},
	}
	for _, tt := range tests {
		t.Run(tt.query[:min(len(tt.query), 60)], func(t *testing.T) {
			_, err := ParseFilter(query(tt.query))
			ae := wantErr(t, err, 400, EnumInvalidFilter, tt.field)
			if ae != nil && ae.Type != "InvalidParameters" {
				t.Errorf("type = %s, want InvalidParameters", ae.Type)
			}
		})
	}
}

func TestParseFilterNamesEveryBadParameter(t *testing.T) {
	_, err := ParseFilter(query("direction=UP&amount_min=x&category=a%20b&external_account_id=1"))
	ae := want400(t, err, EnumInvalidFilter, "direction")
	got := fieldNames(ae.Meta["fields"].(map[string]string))
	if strings.Join(got, ",") != "amount_min,category,direction,external_account_id" {
		t.Errorf("fields = %v", got)
	}
}

func TestFilterFingerprint(t *testing.T) {
	fp := func(s string) string {
		f, err := ParseFilter(query(s))
		if err != nil {
			t.Fatalf("ParseFilter(%q): %v", s, err)
		}
		return f.Fingerprint()
	}
	same := [][]string{
		{"", "sort_by=date&limit=5", "q=&direction="},
		{"direction=DEBIT", "direction=OUTFLOW", "direction=money_out"},
		{"categorization_status=SPLIT,PENDING", "categorization_status=PENDING&categorization_status=SPLIT&categorization_status=SPLIT"},
		{"start_date=2025-01-01&end_date=2025-01-31", "end_date=2025-01-31&start_date=2025-01-01T00:00:00Z", "start_date=2025-01-01T01:00:00%2B01:00&end_date=2025-01-31T23:59:59.999999Z&end_date="},
		{"tag_key=k&tag_values=b,a", "tag_values=a&tag_values=b&tag_key=k"},
		{"q=tim", "q=+tim+"},
		{"end_date=2025-01-01", "end_date=2025-01-01T23:59:59.999999Z"},
	}
	for _, group := range same {
		want := fp(group[0])
		for _, s := range group[1:] {
			if got := fp(s); got != want {
				t.Errorf("fingerprint of %q differs from %q", s, group[0])
			}
		}
	}
	distinct := []string{
		"", "direction=DEBIT", "direction=CREDIT", "categorized=true", "categorized=false",
		"categorization_status=SPLIT", "category=MEALS", "category=PERSONAL_EXPENSES",
		"amount_min=1", "amount_max=1", "q=tim", "q=Tim", "reference_number=tim", "tag_key=tim",
		"tag_key=k&tag_values=tim", "source_account_ids=tim", "start_date=2025-01-01", "end_date=2025-01-01",
		"end_date=2025-01-01T23:59:59.999998Z", "source_account_ids=a,b", "source_account_ids=a%26source_account_id%3Db",
	}
	seen := map[string]string{}
	for _, s := range distinct {
		got := fp(s)
		if prev, dup := seen[got]; dup {
			t.Errorf("%q and %q share a fingerprint", prev, s)
		}
		seen[got] = s
		if len(got) != 32 {
			t.Errorf("fingerprint %q is not 32 hex digits", got)
		}
	}
}

// FuzzParseFilter: any query string either parses into a consistent
// filter with a deterministic fingerprint or is refused with a 400.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{
		"start_date=2025-01-01&end_date=2025-01-31&direction=INFLOW&categorized=true&categorization_status=SPLIT,PENDING",
		"category=MEALS&amount_min=0&amount_max=100&q=tim&tag_key=k&tag_values=a,b",
		"bank_account_ids=0190a6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b&external_account_id=0190a6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b",
		"amount_min=%ff", "q=%00", "direction=&direction=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		flt, err := ParseFilter(q)
		if err != nil {
			if !is4xx(err) {
				t.Fatalf("refusal is not a 4xx: %v", err)
			}
			return
		}
		if flt.AmountMin != nil && flt.AmountMax != nil && *flt.AmountMin > *flt.AmountMax {
			t.Fatal("min above max accepted")
		}
		if flt.Start != nil && flt.End != nil && !flt.Start.Before(*flt.End) {
			t.Fatal("empty date range accepted")
		}
		if flt.Fingerprint() != flt.Fingerprint() {
			t.Fatal("fingerprint is not deterministic")
		}
	})
}
