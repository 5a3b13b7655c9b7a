package service

import (
	"net/url"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/events"
)

// TestBankTransactionsReadModel: the newest version of a snapshot wins
// whatever the delivery order, a redelivery changes nothing, and
// fully_categorized follows the statuses of the bank transactions dated
// in the period (in the GET and in every comparison result).
func TestBankTransactionsReadModel(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	march, april := period("2026-03-01", "2026-03-31"), period("2026-04-01", "2026-04-30")
	fully := func(q url.Values) bool { return e.pnl(tok, bid, q).Data.FullyCategorized }

	v1 := bankTx(bid, "2026-03-05", "PENDING", "", 1234)
	v2 := v1
	v2.Version, v2.Status, v2.Category = 2, "CATEGORIZED", &events.BankCategory{StableName: ptr("RENT"), DisplayName: "Rent"}
	v2.Memo = ptr("march rent")
	v3 := v2
	v3.Version, v3.Status, v3.Category = 3, "SERVICE_REVIEW", nil

	e.deliver(txEvent(t, v1))
	if fully(march) || !fully(april) {
		t.Fatal("a pending transaction in March: March is not fully categorized, April is")
	}
	// The topic keeps no inbox rows: a snapshot the read model already has
	// (the same version again, an older one) writes nothing, not even a new
	// export version (which would make the next export be made again).
	exportVersion := func() int64 {
		t.Helper()
		var v []int64
		if err := e.DB.NewRaw("SELECT version FROM export_versions WHERE business_id = ?", bid).Scan(t.Context(), &v); err != nil || len(v) != 1 {
			t.Fatalf("export version %v %v", v, err)
		}
		return v[0]
	}
	before := exportVersion()
	e.deliver(txEvent(t, v1), txEvent(t, v1))
	if got := exportVersion(); got != before {
		t.Fatalf("a redelivered snapshot moved the export version %d -> %d", before, got)
	}
	e.deliver(txEvent(t, v2), txEvent(t, v1), txEvent(t, v2))
	if !fully(march) {
		t.Fatal("version 2 (categorized) must win over a late version 1")
	}
	if got := exportVersion(); got <= before {
		t.Fatalf("a newer version left the export version at %d", got)
	}
	before = exportVersion()
	e.deliver(txEvent(t, v1), txEvent(t, v2))
	if got := exportVersion(); got != before {
		t.Fatalf("late and repeated snapshots moved the export version %d -> %d", before, got)
	}
	type row struct {
		Version int
		Status  string
		Memo    *string
		Names   []string `bun:"category_stable_names,array"`
	}
	var got []row
	read := func() row {
		t.Helper()
		got = nil
		if err := e.DB.NewRaw(`SELECT version, categorization_status AS status, memo, category_stable_names FROM bank_transactions
			WHERE business_id = ?`, bid).Scan(t.Context(), &got); err != nil || len(got) != 1 {
			t.Fatalf("rows %+v %v", got, err)
		}
		return got[0]
	}
	if r := read(); r.Version != 2 || r.Status != "CATEGORIZED" || r.Memo == nil || *r.Memo != "march rent" || len(r.Names) != 1 || r.Names[0] != "RENT" {
		t.Fatalf("row %+v", r)
	}
	e.deliver(txEvent(t, v3), txEvent(t, v2))
	if r := read(); r.Version != 3 || r.Status != "SERVICE_REVIEW" || fully(march) {
		t.Fatalf("version 3 (in review: uncategorized): %+v", r)
	}
	for _, s := range []string{"SPLIT", "MATCHED", "CATEGORIZED"} {
		v3.Version++
		v3.Status = s
		e.deliver(txEvent(t, v3))
		if !fully(march) {
			t.Fatalf("%s counts as categorized", s)
		}
	}
	for _, s := range []string{"READY_FOR_INPUT", "JOURNALING", "PENDING"} {
		v3.Version++
		v3.Status = s
		e.deliver(txEvent(t, v3))
		if fully(march) {
			t.Fatalf("%s counts as uncategorized", s)
		}
	}

	// An archived transaction is out of the books: it no longer counts
	// (March is fully categorized without it), until a newer snapshot
	// restores it; a late pre-archive snapshot changes nothing.
	archived := v3
	archived.Version++
	archived.ArchivedAt = ptr(time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC))
	e.deliver(txEvent(t, archived), txEvent(t, v3))
	if !fully(march) {
		t.Fatal("an archived uncategorized transaction still counts")
	}
	restored := archived
	restored.Version++
	restored.ArchivedAt = nil
	e.deliver(txEvent(t, restored))
	if fully(march) {
		t.Fatal("a restored uncategorized transaction must count again")
	}

	// Every comparison result: March (uncategorized) × 2 filters, April.
	c := e.compare(tok, bid, anyMap{"periods": months(2026, 3, 2026, 4),
		"tag_filters": []anyMap{required("dept", "retail"), required("dept", "wholesale")}})
	for _, p := range c.Data.Pnls {
		if want := p.Period.Month == 4; p.Pnl.FullyCategorized != want {
			t.Fatalf("comparison %+v: fully_categorized %v, want %v", p.Period, p.Pnl.FullyCategorized, want)
		}
	}

	// Another business's transactions do not count.
	other := e.Svc.SeedBusiness(t, "client-b")
	e.deliver(txEvent(t, bankTx(other, "2026-04-10", "PENDING", "", 5)))
	if !fully(april) {
		t.Fatal("another business's transaction counted")
	}
}
