package page

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

var testSpec = Spec{
	Keys: map[string]Key{
		"date":   {Column: "date", Kind: KindTime},
		"amount": {Column: "amount", Kind: KindInt},
		"name":   {Column: "name", Kind: KindString},
	},
	Default: "date",
}

func mustCursor(t *testing.T, codec *Codec, sortBy string, o Order, filter string, v any) string {
	t.Helper()
	p := Params{SortBy: sortBy, Key: testSpec.Keys[sortBy], Order: o, Limit: 1, codec: codec, filter: filter}
	_, meta, err := Finish([]int{1, 2}, p, func(int) (any, uuid.UUID) { return v, uuid.MustParse("0190c4c4-0000-7000-8000-000000000001") })
	if err != nil || meta.Pagination.Cursor == nil {
		t.Fatalf("make cursor: %v", err)
	}
	return *meta.Pagination.Cursor
}

func TestParse(t *testing.T) {
	codec := NewCodec([]byte("secret"))
	day := time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC)
	good := mustCursor(t, codec, "date", Asc, "biz=1", day)
	goodDesc := mustCursor(t, codec, "amount", Desc, "biz=1", int64(-42))
	foreign := mustCursor(t, NewCodec([]byte("other")), "date", Asc, "biz=1", day)
	// Move the position by editing the signed payload: the MAC must catch it.
	raw, err := b64.DecodeString(good)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(raw), `"k":"2026-03-04`, `"k":"2027-03-04`, 1)
	if edited == string(raw) {
		t.Fatalf("payload layout changed: %q", raw)
	}
	tampered := b64.EncodeToString([]byte(edited))

	tests := []struct {
		name      string
		query     string
		spec      Spec
		want      Params // compared on exported fields
		wantField string // parameter named by the error
		wantType  apperr.Type
	}{
		{name: "defaults", query: "", want: Params{SortBy: "date", Order: Asc, Limit: 100}},
		{name: "all set", query: "sort_by=name&sort_order=desc&limit=1000&show_total_count=true",
			want: Params{SortBy: "name", Order: Desc, Limit: 1000, ShowTotalCount: true}},
		{name: "order any case", query: "sort_order=aSc", want: Params{SortBy: "date", Order: Asc, Limit: 100}},
		{name: "total false", query: "show_total_count=false&limit=1", want: Params{SortBy: "date", Order: Asc, Limit: 1}},
		{name: "spec limits", query: "", spec: Spec{Keys: testSpec.Keys, Default: "name", DefaultLimit: 20, MaxLimit: 50},
			want: Params{SortBy: "name", Order: Asc, Limit: 20}},
		{name: "spec max", query: "limit=51", spec: Spec{Keys: testSpec.Keys, Default: "name", DefaultLimit: 20, MaxLimit: 50},
			wantField: "limit"},
		{name: "unknown sort key", query: "sort_by=id", wantField: "sort_by"},
		{name: "bad order", query: "sort_order=up", wantField: "sort_order"},
		{name: "limit zero", query: "limit=0", wantField: "limit"},
		{name: "limit negative", query: "limit=-5", wantField: "limit"},
		{name: "limit too big", query: "limit=1001", wantField: "limit"},
		{name: "limit not int", query: "limit=ten", wantField: "limit"},
		{name: "bad bool", query: "show_total_count=maybe", wantField: "show_total_count"},
		{name: "cursor ok", query: "cursor=" + good,
			want: Params{SortBy: "date", Order: Asc, Limit: 100,
				After: &Position{Value: day, ID: uuid.MustParse("0190c4c4-0000-7000-8000-000000000001")}}},
		{name: "cursor desc int", query: "sort_by=amount&sort_order=DESC&cursor=" + goodDesc,
			want: Params{SortBy: "amount", Order: Desc, Limit: 100,
				After: &Position{Value: int64(-42), ID: uuid.MustParse("0190c4c4-0000-7000-8000-000000000001")}}},
		{name: "cursor garbage", query: "cursor=not-a-cursor", wantField: "cursor"},
		{name: "cursor tampered", query: "cursor=" + string(tampered), wantField: "cursor"},
		{name: "cursor other secret", query: "cursor=" + foreign, wantField: "cursor"},
		{name: "cursor other sort key", query: "sort_by=name&cursor=" + good, wantField: "cursor"},
		{name: "cursor other order", query: "sort_order=DESC&cursor=" + good, wantField: "cursor"},
		{name: "bad spec", query: "", spec: Spec{Keys: testSpec.Keys, Default: "nope"}, wantType: apperr.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			spec := tt.spec
			if spec.Keys == nil {
				spec = testSpec
			}
			got, err := Parse(q, spec, codec, "biz=1")
			if tt.wantField != "" || tt.wantType != "" {
				ae := apperr.From(err)
				if err == nil {
					t.Fatalf("Parse(%q) = %+v, want error", tt.query, got)
				}
				if tt.wantType != "" {
					if ae.Type != tt.wantType {
						t.Fatalf("error type %s, want %s", ae.Type, tt.wantType)
					}
					return
				}
				fields, _ := ae.Meta["fields"].(map[string]string)
				if ae.Type != apperr.InvalidParameters || fields[tt.wantField] == "" {
					t.Fatalf("error %v does not name %s as InvalidParameters", err, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.query, err)
			}
			if got.SortBy != tt.want.SortBy || got.Order != tt.want.Order || got.Limit != tt.want.Limit ||
				got.ShowTotalCount != tt.want.ShowTotalCount || got.Key != spec.Keys[tt.want.SortBy] {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			switch {
			case tt.want.After == nil && got.After != nil:
				t.Fatalf("After = %+v, want nil", got.After)
			case tt.want.After != nil && (got.After == nil || got.After.ID != tt.want.After.ID):
				t.Fatalf("After = %+v, want %+v", got.After, tt.want.After)
			case tt.want.After != nil:
				if wt, ok := tt.want.After.Value.(time.Time); ok {
					if gt, ok := got.After.Value.(time.Time); !ok || !gt.Equal(wt) {
						t.Fatalf("After.Value = %v, want %v", got.After.Value, wt)
					}
				} else if got.After.Value != tt.want.After.Value {
					t.Fatalf("After.Value = %#v, want %#v", got.After.Value, tt.want.After.Value)
				}
			}
		})
	}
}

func TestCursorBoundToFilters(t *testing.T) {
	codec := NewCodec([]byte("secret"))
	cur := mustCursor(t, codec, "name", Asc, "business=a&status=PENDING", "m")
	q := url.Values{"sort_by": {"name"}, "cursor": {cur}}
	if _, err := Parse(q, testSpec, codec, "business=a&status=PENDING"); err != nil {
		t.Fatalf("same filters: %v", err)
	}
	_, err := Parse(q, testSpec, codec, "business=b&status=PENDING")
	if !apperr.Is(err, apperr.InvalidParameters) || !strings.Contains(err.Error(), "other filters") {
		t.Fatalf("other filters: %v, want InvalidParameters naming the filters", err)
	}
}

func TestNewCodecRandomSecret(t *testing.T) {
	a, b := NewCodec(nil), NewCodec(nil)
	cur := mustCursor(t, a, "name", Asc, "", "x")
	q := url.Values{"sort_by": {"name"}, "cursor": {cur}}
	if _, err := Parse(q, testSpec, a, ""); err != nil {
		t.Fatalf("own cursor: %v", err)
	}
	if _, err := Parse(q, testSpec, b, ""); err == nil {
		t.Fatal("cursor accepted by another random codec")
	}
}

func TestFinish(t *testing.T) {
	codec := NewCodec([]byte("k"))
	ids := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
	type row struct {
		id   uuid.UUID
		name string
	}
	rows := []row{{ids[0], "a"}, {ids[1], "b"}, {ids[2], "c"}}
	key := func(r row) (any, uuid.UUID) { return r.name, r.id }
	tests := []struct {
		name      string
		limit     int
		wantLen   int
		wantMore  bool
		wantAfter string
	}{
		{"more rows than limit", 2, 2, true, "b"},
		{"exactly limit", 3, 3, false, ""},
		{"fewer", 10, 3, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Params{SortBy: "name", Key: testSpec.Keys["name"], Order: Asc, Limit: tt.limit, codec: codec}
			got, meta, err := Finish(rows, p, key)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.wantLen || meta.Pagination.HasMore != tt.wantMore {
				t.Fatalf("len %d more %v, want %d %v", len(got), meta.Pagination.HasMore, tt.wantLen, tt.wantMore)
			}
			if !tt.wantMore {
				if meta.Pagination.Cursor != nil {
					t.Fatalf("cursor %q on last page", *meta.Pagination.Cursor)
				}
				return
			}
			next, err := Parse(url.Values{"sort_by": {"name"}, "cursor": {*meta.Pagination.Cursor}}, testSpec, codec, "")
			if err != nil {
				t.Fatal(err)
			}
			if next.After.Value != tt.wantAfter || next.After.ID != got[len(got)-1].id {
				t.Fatalf("next position %+v, want after %s", next.After, tt.wantAfter)
			}
		})
	}
}

func TestFinishRejectsWrongValueKind(t *testing.T) {
	tests := []struct {
		kind Kind
		v    any
	}{
		{KindTime, "2026-01-01"},
		{KindInt, 1.5},
		{KindString, 7},
		{Kind(99), "x"},
	}
	for _, tt := range tests {
		p := Params{SortBy: "k", Key: Key{Column: "c", Kind: tt.kind}, Order: Asc, Limit: 1, codec: NewCodec(nil)}
		if _, _, err := Finish([]int{1, 2}, p, func(int) (any, uuid.UUID) { return tt.v, uuid.New() }); err == nil {
			t.Errorf("kind %d with %T: no error", tt.kind, tt.v)
		}
	}
}

func TestMetaJSON(t *testing.T) {
	cur := "abc"
	tests := []struct {
		name string
		meta Meta
		want string
	}{
		{"last page", Meta{Type: MetaType, Pagination: Pagination{SortBy: "date", SortOrder: Asc}},
			`{"type":"request_metadata","pagination":{"sort_by":"date","sort_order":"ASC","cursor":null,"has_more":false}}`},
		{"more with total", Meta{Type: MetaType, Pagination: Pagination{SortBy: "date", SortOrder: Desc, Cursor: &cur, HasMore: true}}.WithTotal(0),
			`{"type":"request_metadata","pagination":{"sort_by":"date","sort_order":"DESC","cursor":"abc","has_more":true,"total_count":0}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.meta)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Fatalf("got  %s\nwant %s", b, tt.want)
			}
		})
	}
}

func TestSpecValidate(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		ok   bool
	}{
		{"ok", testSpec, true},
		{"no keys", Spec{Default: "a"}, false},
		{"missing column", Spec{Keys: map[string]Key{"a": {Kind: KindInt}}, Default: "a"}, false},
		{"missing kind", Spec{Keys: map[string]Key{"a": {Column: "a"}}, Default: "a"}, false},
		{"default above max", Spec{Keys: testSpec.Keys, Default: "date", DefaultLimit: 10, MaxLimit: 5}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.spec.Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
