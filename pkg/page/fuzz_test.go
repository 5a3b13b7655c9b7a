package page

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

var fuzzCodec = NewCodec([]byte("fuzz-secret"))

// FuzzDecode checks that no input crashes the decoder and that anything it
// accepts is exactly what the codec itself would have produced.
func FuzzDecode(f *testing.F) {
	id := uuid.MustParse("0190c4c4-0000-7000-8000-000000000001")
	for _, c := range []cursor{
		{V: cursorVersion, SortBy: "date", Order: Asc, Filter: filterHash(""), Value: time.Unix(0, 0).UTC().Format(time.RFC3339Nano), ID: id.String()},
		{V: cursorVersion, SortBy: "amount", Order: Desc, Filter: filterHash("x"), Value: "-9", ID: id.String()},
		{V: cursorVersion, SortBy: "name", Order: Asc, Filter: filterHash("y"), Value: "ü\x00\"", ID: "not-a-uuid"},
	} {
		f.Add(fuzzCodec.encode(c))
	}
	f.Add("")
	f.Add("AAAA")
	f.Fuzz(func(t *testing.T, s string) {
		cur, err := fuzzCodec.decode(s)
		if err != nil {
			return
		}
		if again := fuzzCodec.encode(cur); again != s {
			t.Fatalf("accepted non-canonical cursor %q (canonical %q)", s, again)
		}
		for _, k := range []Kind{KindTime, KindInt, KindString} {
			if pos, err := cur.position(k); err == nil && pos == nil {
				t.Fatal("nil position without error")
			}
		}
	})
}
