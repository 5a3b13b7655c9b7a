package domain

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
)

func jl(ref AccountRef, amount money.Cents, d Direction) JournalLine {
	return JournalLine{Account: ref, Amount: amount, Direction: d}
}

func TestNewJournal(t *testing.T) {
	cash, equity, fees := ByStableName("CASH"), ByStableName("OPENING_BALANCE_EQUITY"), ByID(uuid.New())
	many := make([]JournalLine, MaxLines+1)
	for i := range many {
		many[i] = jl(cash, 1, Debit)
	}
	tests := []struct {
		name      string
		lines     []JournalLine
		wantEnum  string
		wantTotal money.Cents
	}{
		{"two lines", []JournalLine{jl(cash, 100, Debit), jl(equity, 100, Credit)}, "", 100},
		{"split credit", []JournalLine{jl(cash, 100, Debit), jl(equity, 60, Credit), jl(fees, 40, Credit)}, "", 100},
		{"largest amounts", []JournalLine{jl(cash, money.MaxCents, Debit), jl(equity, money.MaxCents, Credit)}, "", money.MaxCents},
		{"empty", nil, EnumTooFewLines, 0},
		{"one line", []JournalLine{jl(cash, 100, Debit)}, EnumTooFewLines, 0},
		{"too many lines", many, EnumTooManyLines, 0},
		{"unbalanced", []JournalLine{jl(cash, 100, Debit), jl(equity, 99, Credit)}, EnumUnbalancedEntry, 0},
		{"debits only", []JournalLine{jl(cash, 100, Debit), jl(equity, 100, Debit)}, EnumUnbalancedEntry, 0},
		{"zero amount", []JournalLine{jl(cash, 0, Debit), jl(equity, 0, Credit)}, EnumInvalidLine, 0},
		{"negative amount", []JournalLine{jl(cash, -5, Debit), jl(equity, -5, Credit)}, EnumInvalidLine, 0},
		{"bad direction", []JournalLine{jl(cash, 5, "UP"), jl(equity, 5, Credit)}, EnumInvalidLine, 0},
		{"no account", []JournalLine{jl(AccountRef{}, 5, Debit), jl(equity, 5, Credit)}, EnumInvalidLine, 0},
		{"overflowing debits", []JournalLine{jl(cash, money.MaxCents, Debit), jl(cash, 1, Debit), jl(equity, 1, Credit)}, money.EnumOutOfRange, 0},
		{"overflowing credits", []JournalLine{jl(cash, 1, Debit), jl(equity, money.MaxCents, Credit), jl(fees, money.MaxCents, Credit)}, money.EnumOutOfRange, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := NewJournal(tt.lines)
			typ, enum := errEnum(err)
			if enum != tt.wantEnum {
				t.Fatalf("error = %v (%s), want %q", err, enum, tt.wantEnum)
			}
			if err != nil {
				if typ != apperr.InvalidPayload {
					t.Fatalf("error type %s, want InvalidPayload", typ)
				}
				return
			}
			if j.Total() != tt.wantTotal || len(j.Lines()) != len(tt.lines) {
				t.Fatalf("total %d lines %d", j.Total(), len(j.Lines()))
			}
		})
	}
	t.Run("unbalanced error names both totals", func(t *testing.T) {
		_, err := NewJournal([]JournalLine{jl(cash, 100, Debit), jl(equity, 99, Credit)})
		meta := apperr.From(err).Meta
		if meta["debits"] != int64(100) || meta["credits"] != int64(99) {
			t.Fatalf("meta = %v", meta)
		}
	})
	t.Run("lines are copied", func(t *testing.T) {
		in := []JournalLine{jl(cash, 100, Debit), jl(equity, 100, Credit)}
		j, _ := NewJournal(in)
		in[0].Amount = 1
		out := j.Lines()
		out[1].Amount = 2
		if j.Lines()[0].Amount != 100 || j.Lines()[1].Amount != 100 {
			t.Fatal("journal shares its lines with callers")
		}
	})
}

// TestJournalProperties generates random line lists: NewJournal accepts
// exactly those with 2..MaxLines positive lines whose debits equal their
// credits, and a reversed journal is balanced with every side flipped.
func TestJournalProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	accepted := 0
	for i := range 5000 {
		n := rng.IntN(8)
		lines := make([]JournalLine, n)
		var debits, credits int64
		for k := range lines {
			d := Debit
			if rng.IntN(2) == 0 {
				d = Credit
			}
			amount := money.Cents(rng.Int64N(10_000) - 100) // a few non-positive
			lines[k] = jl(ByID(uuid.New()), amount, d)
		}
		if n >= 2 && rng.IntN(2) == 0 { // make half of them balance
			debits, credits = 0, 0
			for k := range lines[:n-1] {
				if lines[k].Amount <= 0 {
					lines[k].Amount = 1
				}
				if lines[k].Direction == Debit {
					debits += int64(lines[k].Amount)
				} else {
					credits += int64(lines[k].Amount)
				}
			}
			last := &lines[n-1]
			switch diff := debits - credits; {
			case diff > 0:
				last.Direction, last.Amount = Credit, money.Cents(diff)
			case diff < 0:
				last.Direction, last.Amount = Debit, money.Cents(-diff)
			default:
				last.Amount = 0 // cannot balance with a positive line: stays invalid
			}
		}
		var d, c int64
		positive := true
		for _, l := range lines {
			positive = positive && l.Amount > 0
			if l.Direction == Debit {
				d += int64(l.Amount)
			} else {
				c += int64(l.Amount)
			}
		}
		want := n >= 2 && positive && d == c
		j, err := NewJournal(lines)
		if (err == nil) != want {
			t.Fatalf("case %d: lines %+v: error %v, want accepted %v", i, lines, err, want)
		}
		if err != nil {
			continue
		}
		accepted++
		r := j.Reversed()
		if r.Total() != j.Total() {
			t.Fatalf("reversed total %d, want %d", r.Total(), j.Total())
		}
		if _, err := NewJournal(r.Lines()); err != nil {
			t.Fatalf("reversed journal unbalanced: %v", err)
		}
		for k, l := range r.Lines() {
			if l.Direction != lines[k].Direction.Opposite() || l.Amount != lines[k].Amount || l.Account != lines[k].Account {
				t.Fatalf("reversed line %d = %+v, original %+v", k, l, lines[k])
			}
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d of 5000 generated journals were balanced: generator broken", accepted)
	}
}

func TestCheckMetadata(t *testing.T) {
	big := `{"k":"` + strings.Repeat("x", MaxMetadataBytes) + `"}`
	tests := []struct {
		in       string
		want     string
		wantEnum string
	}{
		{"", "", ""},
		{"null", "", ""},
		{`{ "a" : 1 }`, `{"a":1}`, ""},
		{`[1]`, "", "InvalidPayload"},
		{`"s"`, "", "InvalidPayload"},
		{`{"a":`, "", "InvalidPayload"},
		{big, "", EnumMetadataTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.in[:min(len(tt.in), 12)], func(t *testing.T) {
			got, err := CheckMetadata("metadata", json.RawMessage(tt.in))
			if _, enum := errEnum(err); enum != tt.wantEnum {
				t.Fatalf("error %v, want %q", err, tt.wantEnum)
			}
			if string(got) != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestEntryRules(t *testing.T) {
	acct := func(s string) Account { return Account{ID: uuid.New(), StableName: ptr(s)} }
	cash, sales := acct("CASH"), acct("SALES")
	e := Entry{Lines: []Line{
		{Account: cash, Amount: 250, Direction: Debit},
		{Account: sales, Amount: 250, Direction: Credit},
	}}
	if err := e.Reversible(); err != nil {
		t.Fatalf("live entry not reversible: %v", err)
	}
	rev := uuid.New()
	if _, enum := errEnum(Entry{ReversalID: &rev}.Reversible()); enum != EnumAlreadyReversed {
		t.Fatalf("reversed entry: %s", enum)
	}
	if _, enum := errEnum(Entry{ReversalOfID: &rev}.Reversible()); enum != EnumReversalOfReversal {
		t.Fatalf("reversal: %s", enum)
	}
	if e.Lines[0].Signed() != 250 || e.Lines[1].Signed() != -250 {
		t.Fatal("signed amounts wrong")
	}
	j, err := e.Journal()
	if err != nil {
		t.Fatal(err)
	}
	if !e.SameLines(j, []uuid.UUID{cash.ID, sales.ID}) {
		t.Fatal("entry differs from its own journal")
	}
	if e.SameLines(j, []uuid.UUID{sales.ID, cash.ID}) || e.SameLines(j.Reversed(), []uuid.UUID{cash.ID, sales.ID}) || e.SameLines(j, nil) {
		t.Fatal("different lines compare equal")
	}
}

func TestSourceAndEnums(t *testing.T) {
	for _, tc := range []struct {
		s  Source
		ok bool
	}{
		{Source{Type: "BANK_TRANSACTION", ID: "1"}, true},
		{Source{Type: "BANK_TRANSACTION", ID: "1", Version: "3"}, true},
		{Source{ID: "1"}, false},
		{Source{Type: "X"}, false},
		{Source{Type: strings.Repeat("t", MaxSourceTypeLength+1), ID: "1"}, false},
		{Source{Type: "X", ID: strings.Repeat("i", MaxSourceIDLength+1)}, false},
	} {
		if err := tc.s.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: %v", tc.s, err)
		}
	}
	for _, et := range EntryTypes {
		if !et.Valid() {
			t.Errorf("%s invalid", et)
		}
	}
	if EntryType("SOMETHING").Valid() || Agent("ROBOT").Valid() || !AgentServiceAuto.Valid() {
		t.Fatal("enum validity wrong")
	}
	if got := fmt.Sprint(ByStableName("X"), " ", ByID(uuid.Nil)); !strings.Contains(got, "stable name X") {
		t.Fatalf("ref strings %q", got)
	}
}
