package pagebun_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

type item struct {
	bun.BaseModel `bun:"table:items"`
	ID            uuid.UUID `bun:"id,pk,type:uuid" json:"id"`
	CreatedAt     time.Time `bun:"created_at" json:"created_at"`
	Amount        int64     `bun:"amount" json:"amount"`
	Name          string    `bun:"name" json:"name"`
	Group         string    `bun:"grp" json:"group"`
}

var itemSpec = page.Spec{
	Keys: map[string]page.Key{
		"created_at": {Column: "created_at", Kind: page.KindTime},
		"amount":     {Column: "amount", Kind: page.KindInt},
		"name":       {Column: "name", Kind: page.KindString},
	},
	Default: "created_at",
}

func itemKey(sortBy string) func(item) (any, uuid.UUID) {
	return func(it item) (any, uuid.UUID) {
		switch sortBy {
		case "amount":
			return it.Amount, it.ID
		case "name":
			return it.Name, it.ID
		}
		return it.CreatedAt, it.ID
	}
}

// listApp is a minimal listing endpoint built like a service's handler.
func listApp(db *bun.DB, codec *page.Codec) *fiber.App {
	app := fiber.New(fiber.Config{ErrorHandler: func(c *fiber.Ctx, err error) error {
		ae := apperr.From(err)
		return c.Status(ae.Status()).JSON(ae.Body())
	}})
	app.Get("/items", func(c *fiber.Ctx) error {
		group := c.Query("group")
		p, err := page.Parse(httpx.Query(c), itemSpec, codec, "group="+group)
		if err != nil {
			return err
		}
		q := db.NewSelect().Model((*item)(nil))
		if group != "" {
			q = q.Where("grp = ?", group)
		}
		rows, meta, err := pagebun.Fetch(c.UserContext(), q, p, "id", itemKey(p.SortBy))
		if err != nil {
			return err
		}
		return c.JSON(fiber.Map{"data": rows, "meta": meta})
	})
	return app
}

type listResponse struct {
	Data []item    `json:"data"`
	Meta page.Meta `json:"meta"`
}

func get(t *testing.T, app *fiber.App, target string) (int, []byte) {
	t.Helper()
	resp, err := app.Test(httptest.NewRequest("GET", target, nil), 10_000)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

func seed(t *testing.T, db *bun.DB, n int) []item {
	t.Helper()
	ctx := context.Background()
	// COLLATE "C": the expected order is computed with Go's byte-wise compare.
	if _, err := db.ExecContext(ctx, `CREATE TABLE items (id uuid PRIMARY KEY, created_at timestamptz NOT NULL,
		amount bigint NOT NULL, name text COLLATE "C" NOT NULL, grp text NOT NULL)`); err != nil {
		t.Fatalf("create table: %v", err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	items := make([]item, n)
	for i := range items {
		// Few distinct values per key: most rows tie on the sort column.
		items[i] = item{
			ID:        uuid.New(),
			CreatedAt: base.Add(time.Duration(i%10) * 1500 * time.Microsecond),
			Amount:    int64(i%7) - 3,
			Name:      []string{"alpha", "Beta", "gamma", "δ", ""}[i%5],
			Group:     []string{"a", "b"}[i%2],
		}
	}
	if _, err := db.NewInsert().Model(&items).Exec(ctx); err != nil {
		t.Fatalf("insert: %v", err)
	}
	return items
}

func TestWalkAllPagesWithTies(t *testing.T) {
	db, err := pgdb.Open(context.Background(), pgdb.Config{URL: testkit.NewDatabase(t), Schema: "svc", MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	items := seed(t, db, 250)
	app := listApp(db, page.NewCodec([]byte("test")))

	for _, sortBy := range []string{"created_at", "amount", "name"} {
		for _, order := range []string{"ASC", "desc"} {
			t.Run(sortBy+"_"+order, func(t *testing.T) {
				// Expected order: by the key, then by id bytes (PostgreSQL's uuid order).
				want := append([]item(nil), items...)
				sort.Slice(want, func(i, j int) bool {
					c := compareItems(sortBy, want[i], want[j])
					if strings.EqualFold(order, "DESC") {
						c = -c
					}
					return c < 0
				})

				var got []item
				var sizes []int
				cursor := ""
				for pageNo := 0; ; pageNo++ {
					if pageNo > 5 {
						t.Fatal("pagination does not terminate")
					}
					q := url.Values{"sort_by": {sortBy}, "sort_order": {order}, "limit": {"100"}}
					if cursor != "" {
						q.Set("cursor", cursor)
					}
					if pageNo == 0 {
						q.Set("show_total_count", "true")
					}
					status, body := get(t, app, "/items?"+q.Encode())
					if status != 200 {
						t.Fatalf("page %d: %d %s", pageNo, status, body)
					}
					var r listResponse
					if err := json.Unmarshal(body, &r); err != nil {
						t.Fatal(err)
					}
					pg := r.Meta.Pagination
					if r.Meta.Type != "request_metadata" || pg.SortBy != sortBy || string(pg.SortOrder) != strings.ToUpper(order) {
						t.Fatalf("meta %+v", r.Meta)
					}
					if (pageNo == 0) != (pg.TotalCount != nil) || (pg.TotalCount != nil && *pg.TotalCount != 250) {
						t.Fatalf("page %d total_count %v", pageNo, pg.TotalCount)
					}
					got = append(got, r.Data...)
					sizes = append(sizes, len(r.Data))
					if !pg.HasMore {
						if pg.Cursor != nil {
							t.Fatalf("cursor %q without has_more", *pg.Cursor)
						}
						break
					}
					cursor = *pg.Cursor
				}
				if fmt.Sprint(sizes) != "[100 100 50]" {
					t.Fatalf("page sizes %v", sizes)
				}
				for i := range want {
					if got[i].ID != want[i].ID {
						t.Fatalf("row %d: got %+v, want %+v", i, got[i], want[i])
					}
				}
			})
		}
	}
}

func compareItems(sortBy string, a, b item) int {
	var c int
	switch sortBy {
	case "amount":
		c = cmp.Compare(a.Amount, b.Amount)
	case "name":
		c = strings.Compare(a.Name, b.Name)
	default:
		c = a.CreatedAt.Compare(b.CreatedAt)
	}
	if c != 0 {
		return c
	}
	return bytes.Compare(a.ID[:], b.ID[:])
}

func TestCursorRejected(t *testing.T) {
	db, err := pgdb.Open(context.Background(), pgdb.Config{URL: testkit.NewDatabase(t), MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seed(t, db, 30)
	app := listApp(db, page.NewCodec([]byte("test")))

	status, body := get(t, app, "/items?group=a&limit=5")
	var r listResponse
	if err := json.Unmarshal(body, &r); err != nil || status != 200 || r.Meta.Pagination.Cursor == nil {
		t.Fatalf("first page: %d %s", status, body)
	}
	cur := *r.Meta.Pagination.Cursor
	tampered := []byte(cur)
	tampered[len(tampered)/2] = map[bool]byte{true: 'A', false: 'B'}[tampered[len(tampered)/2] != 'A']

	otherSecret := listApp(db, page.NewCodec([]byte("another")))
	tests := []struct {
		name   string
		app    *fiber.App
		target string
		status int
	}{
		{"valid", app, "/items?group=a&limit=5&cursor=" + cur, 200},
		{"tampered", app, "/items?group=a&limit=5&cursor=" + string(tampered), 400},
		{"other filters", app, "/items?group=b&limit=5&cursor=" + cur, 400},
		{"other sort", app, "/items?group=a&sort_by=name&cursor=" + cur, 400},
		{"other order", app, "/items?group=a&sort_order=DESC&cursor=" + cur, 400},
		{"other secret", otherSecret, "/items?group=a&limit=5&cursor=" + cur, 400},
		{"bad limit", app, "/items?limit=1001", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := get(t, tt.app, tt.target)
			if status != tt.status {
				t.Fatalf("status %d, want %d: %s", status, tt.status, body)
			}
			if tt.status == 400 && !bytes.Contains(body, []byte(`"type":"InvalidParameters"`)) {
				t.Fatalf("body %s is not an InvalidParameters error object", body)
			}
		})
	}
}
