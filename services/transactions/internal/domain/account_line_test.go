package domain

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

func accountLine(dir Direction, amount money.Cents) AccountLine {
	return AccountLine{Line: Line{ID: uuid.New(), Direction: dir, Amount: amount}}
}

// TestRunningBalances: a page read in either order carries the same
// balance after each line, on the account's normal side.
func TestRunningBalances(t *testing.T) {
	asc := []AccountLine{accountLine(Debit, 100), accountLine(Credit, 30), accountLine(Debit, 5)}
	if err := RunningBalances(asc, Debit, 1000, false); err != nil {
		t.Fatal(err)
	}
	var got []money.Cents
	for _, l := range asc {
		got = append(got, l.RunningBalance)
	}
	if !slices.Equal(got, []money.Cents{1100, 1070, 1075}) {
		t.Fatalf("ascending = %v", got)
	}
	// Descending, starting from the balance after the newest line.
	desc := slices.Clone(asc)
	slices.Reverse(desc)
	for i := range desc {
		desc[i].RunningBalance = 0
	}
	if err := RunningBalances(desc, Debit, 1075, true); err != nil {
		t.Fatal(err)
	}
	for i, l := range desc {
		if l.RunningBalance != asc[len(asc)-1-i].RunningBalance {
			t.Fatalf("descending line %d = %d, ascending %d", i, l.RunningBalance, asc[len(asc)-1-i].RunningBalance)
		}
	}
	// A credit-normal account grows with credits.
	credit := []AccountLine{accountLine(Debit, 100), accountLine(Credit, 30)}
	if err := RunningBalances(credit, Credit, 0, false); err != nil || credit[0].RunningBalance != -100 || credit[1].RunningBalance != -70 {
		t.Fatalf("credit normal = %v, %v (%v)", credit[0].RunningBalance, credit[1].RunningBalance, err)
	}
	if err := RunningBalances([]AccountLine{accountLine(Debit, 1)}, Debit, math.MaxInt64, false); err == nil {
		t.Fatal("an overflowing balance was accepted")
	}
}

func TestChronologicalCompare(t *testing.T) {
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	a := AccountLine{Line: Line{ID: uuid.MustParse("00000000-0000-0000-0000-000000000002"), EntryAt: at}, EntryNumber: 7}
	b := AccountLine{Line: Line{ID: uuid.MustParse("00000000-0000-0000-0000-000000000001"), EntryAt: at}, EntryNumber: 8}
	c := AccountLine{Line: Line{ID: uuid.MustParse("00000000-0000-0000-0000-000000000003"), EntryAt: at}, EntryNumber: 8}
	d := AccountLine{Line: Line{ID: uuid.MustParse("00000000-0000-0000-0000-000000000000"), EntryAt: at.Add(time.Microsecond)}, EntryNumber: 1}
	lines := []AccountLine{d, c, b, a}
	slices.SortFunc(lines, ChronologicalCompare)
	for i, want := range []AccountLine{a, b, c, d} {
		if lines[i].ID != want.ID {
			t.Fatalf("position %d: %s, want %s", i, lines[i].ID, want.ID)
		}
	}
}

// TestExportLineRecord: amounts under their side, tags as key:value, text
// others wrote defused against formula injection.
func TestExportLineRecord(t *testing.T) {
	memo, stable := "=cmd|' /C calc'!A0", "OFFICE"
	rev := uuid.New()
	r := ExportLine{
		EntryAt: time.Date(2026, 3, 2, 23, 30, 0, 0, time.FixedZone("x", -3600)), EntryNumber: 42, EntryID: uuid.New(),
		EntryType: EntryManual, Source: Source{Type: "CUSTOM_JOURNAL_ENTRY", ID: "j1"}, AccountName: "-Office",
		AccountStableName: &stable, Direction: Credit, Amount: 123456, Memo: &memo,
		Tags: []tags.Tag{{Key: "site", Value: "north"}, {Key: "project", Value: "alpha"}}, ReversedBy: &rev,
	}
	got := r.Record(nil)
	want := []string{"2026-03-03", "42", r.EntryID.String(), "MANUAL", "CUSTOM_JOURNAL_ENTRY j1", "'-Office", "OFFICE", "",
		"", "1234.56", "'" + memo, "site:north, project:alpha", "", rev.String()}
	if !slices.Equal(got, want) {
		t.Fatalf("record =\n %q\nwant\n %q", got, want)
	}
	if len(got) != len(EntriesExportHeader) {
		t.Fatalf("%d fields, header %d", len(got), len(EntriesExportHeader))
	}
}

// TestWalkBalanceRecords: depth first in chart order, with each node's
// parent and level.
func TestWalkBalanceRecords(t *testing.T) {
	acct := func(name string) Account {
		return Account{ID: uuid.New(), Name: name, Type: Asset, Normality: Debit}
	}
	nodes := []BalanceNode{
		{Account: acct("Assets"), Balance: 150, Totals: DebitCredit{Debits: 200, Credits: 50}, Children: []BalanceNode{
			{Account: acct("Cash"), Balance: 150, Totals: DebitCredit{Debits: 200, Credits: 50}},
			{Account: acct("Bank"), Children: []BalanceNode{{Account: acct("Checking")}}},
		}},
		{Account: acct("Liabilities")},
	}
	var rows [][]string
	if err := WalkBalanceRecords(nodes, func(r []string) error { rows = append(rows, slices.Clone(r)); return nil }); err != nil {
		t.Fatal(err)
	}
	var names, parents, levels []string
	for _, r := range rows {
		names, parents, levels = append(names, r[1]), append(parents, r[4]), append(levels, r[5])
	}
	if !slices.Equal(names, []string{"Assets", "Cash", "Bank", "Checking", "Liabilities"}) ||
		!slices.Equal(parents, []string{"", "Assets", "Assets", "Bank", ""}) ||
		!slices.Equal(levels, []string{"0", "1", "1", "2", "0"}) {
		t.Fatalf("rows = %v", rows)
	}
	if rows[0][9] != "2.00" || rows[0][10] != "0.50" || rows[0][11] != "1.50" || len(rows[0]) != len(BalancesExportHeader) {
		t.Fatalf("figures = %v", rows[0])
	}
}
