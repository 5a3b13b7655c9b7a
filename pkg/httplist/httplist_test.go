package httplist_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/httplist"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
)

// colour filters the items by colour ("" is every colour).
type colour string

func (c colour) Fingerprint() string { return string(c) }

type item struct {
	id     uuid.UUID
	n      int64
	colour string
}

func TestList(t *testing.T) {
	bid := uuid.New()
	var items []item
	for i := range 7 {
		c := "red"
		if i%2 == 1 {
			c = "blue"
		}
		items = append(items, item{uuid.Must(uuid.NewV7()), int64(i), c})
	}
	var seen []uuid.UUID // the business of each Find
	l := httplist.List[colour, item, map[string]any]{
		Spec:  page.Spec{Keys: map[string]page.Key{"n": {Column: "n", Kind: page.KindInt}}, Default: "n", DefaultLimit: 2, MaxLimit: 3},
		Codec: page.NewCodec([]byte("secret")),
		Filter: func(q url.Values) (colour, error) {
			c := q.Get("colour")
			if c != "" && c != "red" && c != "blue" {
				return "", apperr.New(apperr.InvalidParameters, "colour: red or blue")
			}
			return colour(c), nil
		},
		Find: func(_ context.Context, b uuid.UUID, f colour, p page.Params) ([]item, page.Meta, error) {
			seen = append(seen, b)
			var rows []item
			for _, it := range items {
				after := p.After == nil || it.n > p.After.Value.(int64)
				if after && (f == "" || string(f) == it.colour) {
					rows = append(rows, it)
				}
			}
			return page.Finish(rows[:min(len(rows), p.Limit+1)], p, func(it item) (any, uuid.UUID) { return it.n, it.id })
		},
		Render: func(it item) map[string]any { return map[string]any{"n": it.n, "colour": it.colour} },
	}
	app := httpx.New(httpx.Options{})
	app.Get("/items", func(c *fiber.Ctx) error {
		c.Locals(httpauth.LocalBusinessID, bid)
		return c.Next()
	}, l.Handle)

	get := func(t *testing.T, query string) (int, map[string]any) {
		t.Helper()
		resp, err := app.Test(httptest.NewRequest("GET", "/items?"+query, nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return resp.StatusCode, m
	}
	ns := func(m map[string]any) []int {
		var out []int
		for _, x := range m["data"].([]any) {
			out = append(out, int(x.(map[string]any)["n"].(float64)))
		}
		return out
	}
	cursor := func(m map[string]any) string {
		c, _ := m["meta"].(map[string]any)["pagination"].(map[string]any)["cursor"].(string)
		return c
	}

	tests := []struct {
		name   string
		query  string
		status int
		want   []int
	}{
		{"first page, default limit", "", 200, []int{0, 1}},
		{"filtered", "colour=blue&limit=3", 200, []int{1, 3, 5}},
		{"limit over the maximum", "limit=4", 400, nil},
		{"bad filter", "colour=green", 400, nil},
		{"unknown sort key", "sort_by=colour", 400, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, m := get(t, tt.query)
			if status != tt.status {
				t.Fatalf("status %d, want %d: %v", status, tt.status, m)
			}
			if tt.status != 200 {
				if m["type"] != "InvalidParameters" {
					t.Fatalf("error = %v", m)
				}
				return
			}
			if got := ns(m); !slices.Equal(got, tt.want) {
				t.Fatalf("items %v, want %v", got, tt.want)
			}
		})
	}

	t.Run("the cursor walks the filter it was issued for, and only it", func(t *testing.T) {
		_, m := get(t, "colour=red")
		var all []int
		for pages := 0; ; pages++ {
			all = append(all, ns(m)...)
			c := cursor(m)
			if c == "" {
				break
			}
			if pages > 5 {
				t.Fatal("no end")
			}
			if status, other := get(t, "colour=blue&cursor="+url.QueryEscape(c)); status != 400 {
				t.Fatalf("a red cursor with the blue filter: %d %v", status, other)
			}
			_, m = get(t, "colour=red&cursor="+url.QueryEscape(c))
		}
		if !slices.Equal(all, []int{0, 2, 4, 6}) {
			t.Fatalf("walked %v", all)
		}
	})
	for _, b := range seen {
		if b != bid {
			t.Fatalf("Find got business %s, want %s", b, bid)
		}
	}
	if len(seen) == 0 {
		t.Fatal("Find never called")
	}
}
