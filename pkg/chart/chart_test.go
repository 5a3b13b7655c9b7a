package chart_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

func newDB(t *testing.T) *bun.DB {
	t.Helper()
	db := testkit.DB(t, "charttest")
	if err := chart.CreateTable(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return db
}

func stable(name string) *string { return &name }

func TestTableKeepsNewestStateAndFindsLiveAccounts(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	var table chart.Table
	bid, other := uuid.New(), uuid.New()
	custom, archived, unknown := uuid.New(), uuid.New(), uuid.New()
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	refs := []chart.Ref{{ID: &custom}, {ID: &archived}, {ID: &unknown}, {StableName: "SALES"}, {StableName: "NOPE"}}

	live, arrived, err := table.LiveAccounts(ctx, db, bid, refs)
	if err != nil || arrived || len(live) != 0 {
		t.Fatalf("before the chart: live %v, arrived %v, err %v", live, arrived, err)
	}
	if err := table.UpsertLedgerAccounts(ctx, db, bid, []events.LedgerAccountSnapshot{
		{ID: custom, Name: "Consulting", AccountType: "REVENUE", UpdatedAt: t0},
		{ID: archived, Name: "Old", AccountType: "REVENUE", UpdatedAt: t0},
		{ID: uuid.New(), StableName: stable("SALES"), Name: "Sales", AccountType: "REVENUE", UpdatedAt: t0},
	}); err != nil {
		t.Fatal(err)
	}
	// A newer state archives one account; an older snapshot redelivered
	// afterwards changes nothing.
	if err := table.UpsertLedgerAccounts(ctx, db, bid, []events.LedgerAccountSnapshot{
		{ID: archived, Name: "Old", AccountType: "REVENUE", Archived: true, UpdatedAt: t0.Add(time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	if err := table.UpsertLedgerAccounts(ctx, db, bid, []events.LedgerAccountSnapshot{
		{ID: archived, Name: "Old", AccountType: "REVENUE", UpdatedAt: t0}}); err != nil {
		t.Fatal(err)
	}
	if err := table.UpsertLedgerAccounts(ctx, db, bid, nil); err != nil {
		t.Fatal(err)
	}

	live, arrived, err = table.LiveAccounts(ctx, db, bid, refs)
	if err != nil || !arrived {
		t.Fatalf("after the chart: arrived %v, err %v", arrived, err)
	}
	want := map[string]bool{refs[0].Key(): true, refs[3].Key(): true}
	if len(live) != len(want) || !live[refs[0].Key()] || !live[refs[3].Key()] {
		t.Fatalf("live = %v, want %v", live, want)
	}
	// Another business's chart is its own.
	if live, arrived, err := table.LiveAccounts(ctx, db, other, refs); err != nil || arrived || len(live) != 0 {
		t.Fatalf("other business: live %v, arrived %v, err %v", live, arrived, err)
	}
}

func TestCheck(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	var table chart.Table
	bid := uuid.New()
	custom, unknown := uuid.New(), uuid.New()
	fields := []chart.Field{{Name: "line_items[0].account_identifier", Ref: chart.Ref{ID: &custom}},
		{Name: "line_items[1].account_identifier", Ref: chart.Ref{StableName: "CASH"}}}
	cashOnly := func(r chart.Ref) bool { return r.ID == nil && r.StableName == "CASH" }

	if err := chart.Check(ctx, db, table, bid, nil, nil); err != nil {
		t.Fatalf("no fields: %v", err)
	}
	// Before the chart: 503, unless every field exists before it.
	if err := chart.Check(ctx, db, table, bid, fields, cashOnly); !apperr.Is(err, apperr.Unavailable) {
		t.Fatalf("before the chart: %v, want Unavailable", err)
	}
	if err := chart.Check(ctx, db, table, bid, fields[1:], nil); !apperr.Is(err, apperr.Unavailable) {
		t.Fatalf("before the chart, no exception: %v, want Unavailable", err)
	}
	if err := chart.Check(ctx, db, table, bid, fields[1:], cashOnly); err != nil {
		t.Fatalf("before the chart, an account that exists from the start: %v", err)
	}

	if err := chart.Apply(ctx, db, table, mustEvent(t, bid, []events.LedgerAccountSnapshot{
		{ID: custom, Name: "Consulting", AccountType: "REVENUE", UpdatedAt: time.Now()},
		{ID: uuid.New(), StableName: stable("CASH"), Name: "Cash", AccountType: "ASSET", UpdatedAt: time.Now()},
	})); err != nil {
		t.Fatal(err)
	}
	if err := chart.Check(ctx, db, table, bid, fields, nil); err != nil {
		t.Fatalf("live accounts: %v", err)
	}
	bad := append(fields, chart.Field{Name: "additional_sales_taxes[0].tax_account", Ref: chart.Ref{ID: &unknown}},
		chart.Field{Name: "payment_clearing_account_identifier", Ref: chart.Ref{StableName: "NOPE"}})
	err := chart.Check(ctx, db, table, bid, bad, nil)
	var e *apperr.Error
	if !errors.As(err, &e) || e.Type != apperr.InvalidPayload || e.Enum != chart.EnumUnknownAccount || e.Status() != 400 {
		t.Fatalf("unknown accounts: %v, want a 400 InvalidPayload UnknownAccount", err)
	}
	got, _ := e.Meta["fields"].(map[string]string)
	wantFields := map[string]string{
		"additional_sales_taxes[0].tax_account": "the business has no live ledger account " + unknown.String(),
		"payment_clearing_account_identifier":   "the business has no live ledger account NOPE",
	}
	if len(got) != len(wantFields) {
		t.Fatalf("fields = %v, want %v", got, wantFields)
	}
	for f, r := range wantFields {
		if got[f] != r {
			t.Fatalf("fields[%s] = %q, want %q", f, got[f], r)
		}
	}

	if err := chart.Check(ctx, db, nil, bid, fields, nil); err == nil || apperr.From(err).Status() != 500 {
		t.Fatalf("no store: %v, want an internal error", err)
	}
}

func mustEvent(t *testing.T, bid uuid.UUID, accounts []events.LedgerAccountSnapshot) events.Event {
	t.Helper()
	e, err := events.New(events.TopicAccounts, events.TypeLedgerAccountsUpserted, "acct/transactions", bid,
		events.LedgerAccountsUpserted{BusinessID: bid, Accounts: accounts})
	if err != nil {
		t.Fatal(err)
	}
	return e
}
