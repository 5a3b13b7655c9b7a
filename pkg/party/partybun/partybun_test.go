package partybun

import (
	"database/sql"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/pkg/party"
	"github.com/acctsuite/acct/pkg/tags"
)

type kind struct{}

func (kind) Kind() party.Kind {
	return party.Kind{Noun: "vendor", EnumInvalid: "InvalidVendor", EnumNameRequired: "VendorNameRequired"}
}

type row struct {
	bun.BaseModel `bun:"table:vendors,alias:c"`
	Row
}

func TestRowRoundTrip(t *testing.T) {
	paris := time.FixedZone("Paris", 3600)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, paris)
	name, memo := "Acme", "net 30"
	c := party.New[kind](uuid.New(), uuid.New(), party.Input{CompanyName: &name, Memo: &memo,
		Tags: []tags.KeyValue{{Key: "k", Value: "v"}}}, t0)
	c, _, _ = c.Apply(party.ArchivePatch(), t0.Add(time.Hour))
	back := PartyOf[kind](RowOf(c))
	if back.CreatedAt.Location() != time.UTC || back.ArchivedAt.Location() != time.UTC || back.Tags[0].CreatedAt.Location() != time.UTC {
		t.Fatalf("times not in UTC: %+v", back)
	}
	utc := c
	utc.CreatedAt, utc.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	at := c.ArchivedAt.UTC()
	utc.ArchivedAt = &at
	utc.Tags = []tags.Tag{c.Tags[0]}
	utc.Tags[0].CreatedAt, utc.Tags[0].UpdatedAt = c.Tags[0].CreatedAt.UTC(), c.Tags[0].UpdatedAt.UTC()
	if !reflect.DeepEqual(back, utc) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", back, utc)
	}
	if r := RowOf(party.Party[kind]{}); r.Tags == nil {
		t.Fatal("no tags must be [] (the column is NOT NULL jsonb)")
	}
}

func TestWhere(t *testing.T) {
	db := bun.NewDB(&sql.DB{}, pgdialect.New())
	biz := uuid.MustParse("0190c4c4-0000-7000-8000-000000000001")
	q := func(f party.Filter) string {
		return Where(db.NewSelect().Model((*row)(nil)), biz, f).String()
	}
	if s := q(party.Filter{}); !strings.Contains(s, `WHERE (c.business_id = '`+biz.String()+`') AND (c.status = 'ACTIVE')`) {
		t.Fatalf("default filter: %s", s)
	}
	s := q(party.Filter{IncludeArchived: true, ExternalID: "x", ExternalIDContains: "a_b", Name: "n", NameContains: "50%", Query: `q\`})
	for _, want := range []string{`(c.external_id = 'x')`, `(c.external_id ILIKE '%a\_b%')`, `((c.individual_name = 'n' OR c.company_name = 'n'))`,
		`((c.individual_name ILIKE '%50\%%' OR c.company_name ILIKE '%50\%%'))`, `c.email ILIKE '%q\\%'`} {
		if !strings.Contains(s, want) {
			t.Errorf("%s\nlacks %s", s, want)
		}
	}
	if strings.Contains(s, "c.status") {
		t.Errorf("include_archived still filters by status: %s", s)
	}
}

func TestPageKey(t *testing.T) {
	r := Row{ID: uuid.New(), SortName: "acme", CreatedAt: time.Unix(1, 0), UpdatedAt: time.Unix(2, 0)}
	for sortBy, want := range map[string]any{"": "acme", "name": "acme", "created_at": r.CreatedAt, "updated_at": r.UpdatedAt} {
		if k, id := PageKey(sortBy, r); k != want || id != r.ID {
			t.Errorf("%q: %v %s", sortBy, k, id)
		}
		if _, ok := party.PageSpec.Keys[sortBy]; !ok && sortBy != "" {
			t.Errorf("%q is not a key of party.PageSpec", sortBy)
		}
	}
}
