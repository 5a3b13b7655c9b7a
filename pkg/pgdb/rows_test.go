package pgdb_test

import (
	"context"
	"maps"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/testkit"
)

type allocRow struct {
	bun.BaseModel `bun:"table:allocs"`
	BusinessID    uuid.UUID `bun:"business_id,type:uuid"`
	PaymentID     uuid.UUID `bun:"payment_id,type:uuid"`
	Amount        int64     `bun:"amount"`
}

func TestRowHelpers(t *testing.T) {
	ctx := context.Background()
	db := open(t, testkit.NewDatabase(t), "svc")
	for _, q := range []string{
		"CREATE TABLE docs (business_id uuid, id uuid, external_id text)",
		"CREATE TABLE allocs (business_id uuid, payment_id uuid, amount bigint)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	a, b := uuid.New(), uuid.New()
	d1, d2, d3 := uuid.New(), uuid.New(), uuid.New()
	for _, r := range []struct {
		bid, id uuid.UUID
		ext     any
	}{{a, d1, "x-1"}, {a, d2, "x-2"}, {b, d3, "x-1"}, {a, uuid.New(), nil}} {
		if _, err := db.ExecContext(ctx, "INSERT INTO docs VALUES (?, ?, ?)", r.bid, r.id, r.ext); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("ids by external id, of the business only", func(t *testing.T) {
		tests := []struct {
			bid  uuid.UUID
			ext  []string
			want map[string]uuid.UUID
		}{
			{a, []string{"x-1", "x-2", "nope"}, map[string]uuid.UUID{"x-1": d1, "x-2": d2}},
			{b, []string{"x-1", "x-2"}, map[string]uuid.UUID{"x-1": d3}},
			{a, nil, map[string]uuid.UUID{}},
		}
		for _, tt := range tests {
			got, err := pgdb.IDsByExternalID(ctx, db, "docs", tt.bid, tt.ext)
			if err != nil || !maps.Equal(got, tt.want) {
				t.Fatalf("IDsByExternalID(%v) = %v, %v; want %v", tt.ext, got, err, tt.want)
			}
		}
	})

	t.Run("replace children of one parent of the business", func(t *testing.T) {
		p, other := uuid.New(), uuid.New()
		seed := []allocRow{{BusinessID: a, PaymentID: p, Amount: 1}, {BusinessID: a, PaymentID: p, Amount: 2},
			{BusinessID: a, PaymentID: other, Amount: 3}, {BusinessID: b, PaymentID: p, Amount: 4}}
		if _, err := db.NewInsert().Model(&seed).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		sum := func(bid, pid uuid.UUID) (n int, total int64) {
			if err := db.NewRaw("SELECT count(*), coalesce(sum(amount), 0) FROM allocs WHERE business_id = ? AND payment_id = ?", bid, pid).
				Scan(ctx, &n, &total); err != nil {
				t.Fatal(err)
			}
			return n, total
		}
		next := []allocRow{{BusinessID: a, PaymentID: p, Amount: 10}}
		if err := pgdb.ReplaceChildren(ctx, db, (*allocRow)(nil), "payment_id", a, p, &next); err != nil {
			t.Fatal(err)
		}
		if n, total := sum(a, p); n != 1 || total != 10 {
			t.Fatalf("replaced: %d rows, %d", n, total)
		}
		if n, _ := sum(a, other); n != 1 {
			t.Fatal("another parent's rows changed")
		}
		if n, total := sum(b, p); n != 1 || total != 4 {
			t.Fatal("another business's rows changed")
		}
		if err := pgdb.ReplaceChildren(ctx, db, (*allocRow)(nil), "payment_id", a, p, &[]allocRow{}); err != nil {
			t.Fatal(err)
		}
		if n, _ := sum(a, p); n != 0 {
			t.Fatal("an empty replacement left rows")
		}
		if err := pgdb.ReplaceChildren(ctx, db, (*allocRow)(nil), "payment_id", a, p, next); err == nil {
			t.Fatal("rows that are not a pointer to a slice were accepted")
		}
	})
}
