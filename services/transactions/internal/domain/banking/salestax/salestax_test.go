package salestax

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/money"
)

func date(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func codes(opts []Option) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.Code
	}
	return out
}

func TestOptionsByProvinceAndDate(t *testing.T) {
	tests := []struct {
		province Province
		on       string
		want     []string
	}{
		{ON, "2025-06-01", []string{"HST_ON", "GST"}},
		{AB, "2025-06-01", []string{"GST"}},
		{NT, "2025-06-01", []string{"GST"}},
		{QC, "2025-06-01", []string{"GST_QST", "GST"}},
		{BC, "2025-06-01", []string{"GST_PST_BC", "GST"}},
		{BC, "2012-06-01", []string{"HST_BC", "GST"}},
		{BC, "2013-03-31", []string{"HST_BC", "GST"}},
		{BC, "2013-04-01", []string{"GST_PST_BC", "GST"}},
		{SK, "2017-03-22", []string{"GST"}},
		{SK, "2017-03-23", []string{"GST_PST_SK", "GST"}},
		{MB, "2025-06-01", []string{"GST_PST_MB", "GST"}},
		{NS, "2025-03-31", []string{"HST_NS", "GST"}},
		{NB, "2025-06-01", []string{"HST_NB", "GST"}},
		{NL, "2025-06-01", []string{"HST_NL", "GST"}},
		{PE, "2025-06-01", []string{"HST_PE", "GST"}},
		{PE, "2012-01-01", []string{"GST"}},
		{ON, "2007-12-31", []string{}},
		{"", "2025-06-01", []string{"HST_ON", "HST_NB", "HST_NL", "HST_NS", "HST_PE", "GST_QST", "GST_PST_BC", "GST_PST_SK", "GST_PST_MB", "GST"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.province)+"/"+tt.on, func(t *testing.T) {
			got := codes(Options(tt.province, date(tt.on)))
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Options(%s, %s) = %v, want %v", tt.province, tt.on, got, tt.want)
			}
		})
	}
}

func TestRatesOnDates(t *testing.T) {
	tests := []struct {
		province Province
		code, on string
		rate     string
		display  string
	}{
		{ON, "HST_ON", "2025-06-01", "13%", "HST Ontario (13%)"},
		{NS, "HST_NS", "2025-03-31", "15%", "HST Nova Scotia (15%)"},
		{NS, "HST_NS", "2025-04-01", "14%", "HST Nova Scotia (14%)"},
		{NB, "HST_NB", "2016-06-30", "13%", "HST New Brunswick (13%)"},
		{NB, "HST_NB", "2016-07-01", "15%", "HST New Brunswick (15%)"},
		{NL, "HST_NL", "2024-01-01", "15%", "HST Newfoundland and Labrador (15%)"},
		{PE, "HST_PE", "2016-09-30", "14%", "HST Prince Edward Island (14%)"},
		{PE, "HST_PE", "2016-10-01", "15%", "HST Prince Edward Island (15%)"},
		{QC, "GST_QST", "2025-01-01", "14.975%", "GST + QST (5% + 9.975%)"},
		{BC, "GST_PST_BC", "2025-01-01", "12%", "GST + PST British Columbia (5% + 7%)"},
		{SK, "GST_PST_SK", "2025-01-01", "11%", "GST + PST Saskatchewan (5% + 6%)"},
		{MB, "GST_PST_MB", "2019-06-30", "13%", "GST + RST Manitoba (5% + 8%)"},
		{MB, "GST_PST_MB", "2019-07-01", "12%", "GST + RST Manitoba (5% + 7%)"},
		{AB, "GST", "2025-01-01", "5%", "GST (5%)"},
		{ON, "GST", "2025-01-01", "5%", "GST (5%)"},
	}
	for _, tt := range tests {
		t.Run(tt.code+"/"+tt.on, func(t *testing.T) {
			o, ok := Lookup(tt.province, tt.code, date(tt.on))
			if !ok {
				t.Fatalf("Lookup(%s, %s, %s) found nothing", tt.province, tt.code, tt.on)
			}
			if got := o.Rate().String(); got != tt.rate {
				t.Errorf("rate = %s, want %s", got, tt.rate)
			}
			if o.DisplayName != tt.display {
				t.Errorf("display name = %q, want %q", o.DisplayName, tt.display)
			}
		})
	}
}

func TestLookupRefusesOtherProvincesAndDates(t *testing.T) {
	tests := []struct {
		province Province
		code, on string
	}{
		{AB, "HST_ON", "2025-01-01"},     // not offered in Alberta
		{QC, "GST_PST_BC", "2025-01-01"}, // another province's code
		{NB, "HST_ON", "2025-01-01"},     // another HST province
		{YT, "GST_QST", "2025-01-01"},    // a territory
		{BC, "HST_BC", "2013-04-01"},     // ended the day before
		{BC, "GST_PST_BC", "2013-03-31"}, // HST era
		{SK, "GST_PST_SK", "2017-03-22"}, // before the table's row
		{PE, "HST_PE", "2013-03-31"},     // before PE harmonized
		{ON, "HST_ON", "2010-06-30"},     // before HST in Ontario
		{QC, "GST_QST", "2012-12-31"},    // the compounded QST era is not in the table
		{MB, "GST_PST_MB", "2013-06-30"}, // before the table
		{ON, "GST", "2007-12-31"},        // before GST's row
		{"", "HST_BC", "2025-01-01"},     // unknown province, but no row that day
		{ON, "VAT", "2025-01-01"},        // unknown code
		{ON, "hst_on", "2025-01-01"},     // codes are case-sensitive
		{ON, "HST_ON ", "2025-01-01"},    // no trimming
		{ON, "", "2025-01-01"},           // empty code
		{QC, "QST", "2025-01-01"},        // a component is not a code
	}
	for _, tt := range tests {
		if o, ok := Lookup(tt.province, tt.code, date(tt.on)); ok {
			t.Errorf("Lookup(%q, %q, %s) = %s, want nothing", tt.province, tt.code, tt.on, o.Code)
		}
	}
}

func TestSplitExamples(t *testing.T) {
	tests := []struct {
		name     string
		province Province
		code     string
		total    money.Cents
		net      money.Cents
		shares   []money.Cents
	}{
		{"Ontario HST", ON, "HST_ON", 11300, 10000, []money.Cents{1300}},
		{"Alberta GST", AB, "GST", 10500, 10000, []money.Cents{500}},
		{"BC GST+PST", BC, "GST_PST_BC", 11200, 10000, []money.Cents{500, 700}},
		{"Quebec GST+QST", QC, "GST_QST", 11498, 10000, []money.Cents{500, 998}},
		{"Saskatchewan", SK, "GST_PST_SK", 11100, 10000, []money.Cents{500, 600}},
		{"Manitoba", MB, "GST_PST_MB", 11200, 10000, []money.Cents{500, 700}},
		{"Nova Scotia 14%", NS, "HST_NS", 11400, 10000, []money.Cents{1400}},
		{"one cent", ON, "HST_ON", 1, 1, []money.Cents{0}},
		{"refund", ON, "HST_ON", -11300, -10000, []money.Cents{-1300}},
		{"rounding half away", ON, "HST_ON", 113, 100, []money.Cents{13}},
		{"uneven combined", QC, "GST_QST", 1, 1, []money.Cents{0, 0}},
		{"combined allocation", QC, "GST_QST", 115, 100, []money.Cents{5, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, ok := Lookup(tt.province, tt.code, date("2025-06-01"))
			if !ok {
				t.Fatalf("no %s", tt.code)
			}
			net, shares, err := o.Split(tt.total)
			if err != nil {
				t.Fatal(err)
			}
			if net != tt.net {
				t.Errorf("net = %d, want %d", net, tt.net)
			}
			got := make([]money.Cents, len(shares))
			for i, s := range shares {
				got[i] = s.Amount
				if s.Recoverable != (s.Tax != PST) {
					t.Errorf("share %s recoverable = %v", s.Tax, s.Recoverable)
				}
			}
			if !slices.Equal(got, tt.shares) {
				t.Errorf("shares = %v, want %v", got, tt.shares)
			}
		})
	}
}

// TestSplitAlwaysAddsUp is a property test: for every option valid today
// and random totals (extremes included), net + shares == total, every
// share has the total's sign, and the net keeps it too.
func TestSplitAlwaysAddsUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	totals := []money.Cents{0, 1, -1, 2, 99, 100, 113, money.MaxCents, money.MinCents + 1}
	for range 2000 {
		totals = append(totals, money.Cents(rng.Int64N(1_000_000_000_00)), money.Cents(rng.Int64()))
	}
	for _, o := range Options("", date("2025-06-01")) {
		for _, total := range totals {
			net, shares, err := o.Split(total)
			if err != nil {
				t.Fatalf("%s split %d: %v", o.Code, total, err)
			}
			parts := []money.Cents{net}
			for _, s := range shares {
				if total > 0 && s.Amount < 0 || total < 0 && s.Amount > 0 {
					t.Fatalf("%s split %d: share %d has the wrong sign", o.Code, total, s.Amount)
				}
				parts = append(parts, s.Amount)
			}
			sum, err := money.Sum(parts...)
			if err != nil || sum != total {
				t.Fatalf("%s split %d: net %d + shares %v = %d (%v)", o.Code, total, net, shares, sum, err)
			}
			if total > 0 && net <= 0 {
				t.Fatalf("%s split %d: net %d not positive", o.Code, total, net)
			}
		}
	}
}

func TestParseProvince(t *testing.T) {
	tests := []struct {
		in   string
		want Province
		ok   bool
	}{
		{"ON", ON, true}, {" qc ", QC, true}, {"bc", BC, true}, {"XX", "", false}, {"", "", false}, {"ONT", "", false},
	}
	for _, tt := range tests {
		got, ok := ParseProvince(tt.in)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("ParseProvince(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestTableIsConsistent(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range table {
		if seen[s.code] {
			t.Errorf("code %s appears twice", s.code)
		}
		seen[s.code] = true
		for i, p := range s.periods {
			if p.from > p.until {
				t.Errorf("%s period %d ends before it starts", s.code, i)
			}
			if i > 0 && p.from <= s.periods[i-1].until {
				t.Errorf("%s period %d overlaps the previous one", s.code, i)
			}
			if len(p.rates) == 0 {
				t.Errorf("%s period %d has no rates", s.code, i)
			}
		}
	}
	if !slices.Equal(Codes(), []string{"HST_ON", "HST_NB", "HST_NL", "HST_NS", "HST_PE", "HST_BC", "GST_QST", "GST_PST_BC", "GST_PST_SK", "GST_PST_MB", "GST"}) {
		t.Errorf("Codes() = %v", Codes())
	}
}
