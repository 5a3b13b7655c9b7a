package page

import (
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// FuzzParse feeds arbitrary query strings to Parse, the pagination parser
// of every list endpoint: refusals are 400 error objects, the limit stays
// within the spec's bounds, and an accepted cursor is one the codec issued
// for the same sort and filters.
func FuzzParse(f *testing.F) {
	codec := NewCodec([]byte("fuzz-secret"))
	id := uuid.MustParse("0190c4c4-0000-7000-8000-000000000001")
	day := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	cur := codec.encode(cursor{V: cursorVersion, SortBy: "date", Order: Asc, Filter: filterHash("biz=1"), Value: day.Format(time.RFC3339Nano), ID: id.String()})
	curDesc := codec.encode(cursor{V: cursorVersion, SortBy: "amount", Order: Desc, Filter: filterHash("biz=1"), Value: "-42", ID: id.String()})
	for _, q := range []string{"", "sort_by=name&sort_order=desc&limit=1000&show_total_count=true",
		"cursor=" + url.QueryEscape(cur), "sort_by=amount&sort_order=DESC&cursor=" + url.QueryEscape(curDesc),
		"sort_by=amount&cursor=" + url.QueryEscape(cur), "limit=0", "limit=1001", "limit=-1", "limit=1e3",
		"sort_by=nope", "sort_order=up", "show_total_count=yes", "cursor=AAAA", "cursor=%ZZ", "limit=1&limit=2"} {
		f.Add(q, "biz=1")
	}
	f.Add("cursor="+url.QueryEscape(cur), "biz=2")
	f.Fuzz(func(t *testing.T, raw, filter string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return // the framework refuses it before any parser
		}
		p, err := Parse(q, testSpec, codec, filter)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		if p.Limit < 1 || p.Limit > MaxLimit {
			t.Fatalf("limit %d out of [1, %d]", p.Limit, MaxLimit)
		}
		if _, ok := testSpec.Keys[p.SortBy]; !ok {
			t.Fatalf("sort_by %q is not a key of the spec", p.SortBy)
		}
		if v := q.Get(ParamLimit); v != "" && strconv.Itoa(p.Limit) != v {
			if n, _ := strconv.Atoi(v); n != p.Limit {
				t.Fatalf("limit=%q parsed as %d", v, p.Limit)
			}
		}
		if c := q.Get(ParamCursor); c != "" {
			got, err := codec.decode(c)
			if err != nil || got.SortBy != p.SortBy || got.Order != p.Order || got.Filter != filterHash(filter) || p.After == nil {
				t.Fatalf("accepted cursor %q for sort %s %s, filter %q", c, p.SortBy, p.Order, filter)
			}
		}
	})
}
