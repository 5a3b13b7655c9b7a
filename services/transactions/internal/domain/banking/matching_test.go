package banking

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/money"
)

func TestSuggestMatches(t *testing.T) {
	at := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	dep := BankTransaction{ID: uuid.New(), Direction: Credit, Amount: 5000, Date: at, Status: StatusReadyForInput}
	pay := func(deposit money.Cents, days float64) MatchablePayment {
		return MatchablePayment{ID: uuid.New(), MatchType: MatchTypeInvoicePayment, Deposit: deposit,
			PaidAt: at.Add(time.Duration(days * float64(24*time.Hour)))}
	}
	near, before, after, edge := pay(5000, 0.5), pay(5000, -3), pay(5000, 4), pay(5000, -10)
	open := []MatchablePayment{pay(4999, 0), after, pay(5000, 10.5), before, near, edge, pay(5000, -11)}
	got := SuggestMatches(dep, open)
	want := []uuid.UUID{near.ID, before.ID, after.ID, edge.ID}
	if len(got) != len(want) {
		t.Fatalf("%d suggestions, want %d: %+v", len(got), len(want), got)
	}
	for i, s := range got {
		if s.Payment.ID != want[i] {
			t.Errorf("suggestion %d is payment %s, want %s (nearest date first, window %s inclusive)", i, s.Payment.ID, want[i], MatchWindow)
		}
		if s.ID != SuggestionID(dep.ID, s.Payment.ID) || s.ID == SuggestionID(uuid.New(), s.Payment.ID) {
			t.Errorf("suggestion id %s is not the stable id of (transaction, payment)", s.ID)
		}
	}
	var many []MatchablePayment
	for i := range MaxSuggestedMatches + 3 {
		many = append(many, pay(5000, float64(i)/10))
	}
	if n := len(SuggestMatches(dep, many)); n != MaxSuggestedMatches {
		t.Errorf("%d suggestions, want at most %d", n, MaxSuggestedMatches)
	}
	for name, tx := range map[string]BankTransaction{
		"money out": {ID: dep.ID, Direction: Debit, Amount: 5000, Date: at},
		"matched":   {ID: dep.ID, Direction: Credit, Amount: 5000, Date: at, Status: StatusMatched},
	} {
		if tx.Matchable() {
			t.Errorf("%s is matchable", name)
		}
	}
}
