package chart_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/pkg/events"
)

func TestTableAccountIDs(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	var table chart.Table
	bid, other := uuid.New(), uuid.New()
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	rent, custom, oldCustom, live, otherRent := uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New()

	if got, err := table.AccountIDs(ctx, db, bid, nil); err != nil || len(got) != 0 {
		t.Fatalf("no names: %v, %v", got, err)
	}
	if err := table.UpsertLedgerAccounts(ctx, db, bid, []events.LedgerAccountSnapshot{
		{ID: rent, StableName: stable("RENT"), Name: "Rent", AccountType: "EXPENSE", UpdatedAt: t0},
		{ID: custom, StableName: stable("MY_TOOLS"), Name: "Tools", AccountType: "EXPENSE", UpdatedAt: t0},
		// A stable name held twice: the live account wins over an archived
		// one, even a newer one.
		{ID: oldCustom, StableName: stable("DUP"), Name: "Old", AccountType: "EXPENSE", Archived: true, UpdatedAt: t0.Add(time.Hour)},
		{ID: live, StableName: stable("DUP"), Name: "New", AccountType: "EXPENSE", UpdatedAt: t0},
		{ID: uuid.New(), Name: "No stable name", AccountType: "EXPENSE", UpdatedAt: t0},
	}); err != nil {
		t.Fatal(err)
	}
	if err := table.UpsertLedgerAccounts(ctx, db, other, []events.LedgerAccountSnapshot{
		{ID: otherRent, StableName: stable("RENT"), Name: "Rent", AccountType: "EXPENSE", UpdatedAt: t0},
		{ID: uuid.New(), StableName: stable("ONLY_OTHER"), Name: "x", AccountType: "EXPENSE", UpdatedAt: t0},
	}); err != nil {
		t.Fatal(err)
	}

	got, err := table.AccountIDs(ctx, db, bid, []string{"RENT", "MY_TOOLS", "DUP", "UNKNOWN", "ONLY_OTHER", "RENT"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uuid.UUID{"RENT": rent, "MY_TOOLS": custom, "DUP": live}
	if len(got) != len(want) {
		t.Fatalf("ids = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %s, want %s", k, got[k], v)
		}
	}
	// Another business's chart is its own.
	if got, err := table.AccountIDs(ctx, db, other, []string{"RENT", "MY_TOOLS"}); err != nil || len(got) != 1 || got["RENT"] != otherRent {
		t.Fatalf("other business: %v, %v", got, err)
	}
}
