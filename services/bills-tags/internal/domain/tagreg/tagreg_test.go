package tagreg

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/tags"
)

func TestEntriesUseDeterministicIDsAndFirstNames(t *testing.T) {
	bid := uuid.MustParse("0190c4c4-0000-7000-8000-000000000001")
	var c Collector
	c.Add(bid, " project ", "alpha", ptr("Project"), ptr("Alpha"))
	c.Add(bid, "project", "alpha", ptr("Other"), ptr("Other"))
	c.Add(bid, "project", "beta", nil, nil)
	c.Add(bid, "", "x", nil, nil)
	c.Add(bid, "k", "a\u0000b", nil, nil)
	c.Add(uuid.Nil, "k", "v", nil, nil)
	// (project, alpha) is kept once, as first seen.
	if c.Skipped != 3 || len(c.Learned()) != 2 {
		t.Fatalf("skipped %d, learned %v", c.Skipped, c.Learned())
	}
	es := Entries(c.Learned(), time.Unix(0, 0).UTC())
	if len(es) != 1 {
		t.Fatalf("entries = %+v", es)
	}
	d := es[0]
	if d.ID.String() != "4363752b-6979-55db-9ed9-7fa5576fa661" || d.DisplayName != "Project" || d.Strictness != tags.NonBalancing || !d.UserVisible {
		t.Fatalf("dimension = %+v", d)
	}
	if len(d.Values) != 2 {
		t.Fatalf("values = %+v", d.Values)
	}
	a, ok := d.Value(uuid.MustParse("504a97b7-b5de-525f-8e50-61716c1a7d39"))
	if !ok || a.DisplayName != "Alpha" || a.DimensionID != d.ID {
		t.Fatalf("alpha = %+v", a)
	}
	if b, _ := d.Value(tags.DefinitionID(bid, "project", "beta")); b.DisplayName != "beta" {
		t.Fatalf("beta = %+v", b)
	}
}

func ptr(s string) *string { return &s }
