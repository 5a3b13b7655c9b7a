package autocat

import (
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// The client SDK's draft maps onto the rule's conditions and actions.
func TestDecodeClientDraft(t *testing.T) {
	cp := "0190a6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b"
	req, err := DecodeRuleRequest([]byte(`{"apply_retroactively":true,"created_by_suggestion_id":"` + cp + `","external_id":"r-1",
		"name":"Fees","category":{"type":"StableName","stable_name":"BANK_FEES"},"suggestion_1":{"type":"StableName","stable_name":"MEALS"},
		"suggestion_2":null,"business_name_filter":"bank","client_name_filter":"acme","transaction_description_filter":"fee",
		"transaction_type_filter":"Book","bank_direction_filter":"MONEY_OUT","amount_min_filter":100,"amount_max_filter":2500,
		"counterparty_filter":"` + cp + `","merchant_type_filter":null,"mcc_filter":null,"bank_transaction_type_filter":null}`))
	if err != nil {
		t.Fatal(err)
	}
	d := req.Draft
	if !req.ApplyRetroactively || d.CreatedBySuggestionID.String() != cp || *d.ExternalID != "r-1" || *d.Direction != banking.Debit ||
		d.Counterparty.Pattern != "bank" || d.ClientName.Pattern != "acme" || d.Description.Match != Contains || *d.TransactionType != "Book" ||
		*d.AmountMin != 100 || *d.AmountMax != 2500 || d.CounterpartyID.String() != cp || d.Suggestions[0] == nil || d.Suggestions[1] != nil {
		t.Fatalf("draft = %+v", d)
	}
	d.CounterpartyRef = &Counterparty{ID: *d.CounterpartyID, Key: "bank"}
	r, err := NewRule(uuid.New(), time.Now(), d)
	if err != nil {
		t.Fatal(err)
	}
	c := Candidate{Direction: banking.Debit, Amount: 500, Counterparty: "Bank of Acme", Description: "Monthly FEE", TransactionType: "book"}
	if r.Matches(c) {
		t.Fatal("matched a counterparty whose key is not the rule's")
	}
	c.Counterparty = "BANK"
	r.ClientName = nil
	if !r.Matches(c) {
		t.Fatal("did not match")
	}

	// A rule that only suggests: valid, never categorizes.
	only, err := DecodeRuleDraft([]byte(`{"bank_direction_filter":"MONEY_IN","suggestion_3":{"type":"AccountId","id":"` + cp + `"}}`))
	if err != nil {
		t.Fatal(err)
	}
	sr, err := NewRule(uuid.New(), time.Now(), only)
	if err != nil || sr.Categorizes() {
		t.Fatalf("suggestion rule %v %v", sr, err)
	}
	if _, ok := Match([]Rule{sr}, Candidate{Direction: banking.Credit, Amount: 1}); ok {
		t.Fatal("a suggestion-only rule categorized")
	}

	for _, tt := range []struct{ body, field string }{
		{`{"bank_direction_filter":"UP","category":{"type":"StableName","stable_name":"MEALS"}}`, "bank_direction_filter"},
		{`{"direction":"DEBIT","bank_direction_filter":"MONEY_OUT","category":{"type":"StableName","stable_name":"MEALS"}}`, "bank_direction_filter"},
		{`{"counterparty_filter":"x","category":{"type":"StableName","stable_name":"MEALS"}}`, "counterparty_filter"},
		{`{"mcc_filter":"5812","category":{"type":"StableName","stable_name":"MEALS"}}`, "mcc_filter"},
		{`{"bank_transaction_type_filter":"PURCHASE","category":{"type":"StableName","stable_name":"MEALS"}}`, "bank_transaction_type_filter"},
		{`{"amount_min_filter":1.5,"category":{"type":"StableName","stable_name":"MEALS"}}`, "amount_min_filter"},
		{`{"suggestion_1":{"type":"Exclusion","exclusion_type":"TRANSFER_BETWEEN_ACCOUNTS"}}`, "suggestion_1"},
		{`{"apply_retroactively":"yes","direction":"DEBIT","category":{"type":"StableName","stable_name":"MEALS"}}`, "apply_retroactively"},
	} {
		_, err := DecodeRuleRequest([]byte(tt.body))
		want400(t, err, tt.field)
	}
}

func TestRulePatch(t *testing.T) {
	min := money.Cents(100)
	base := RuleDraft{Direction: ptr(banking.Debit), Description: &TextDraft{Match: Contains, Pattern: "fee"}, AmountMin: &min,
		Category: banking.StableNameClassification("BANK_FEES")}
	p, err := DecodeRulePatch([]byte(`{"transaction_description_filter":null,"bank_direction_filter":"MONEY_IN","name":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	d := p.Apply(base)
	if d.Description != nil || *d.Direction != banking.Credit || *d.Name != "x" || d.AmountMin == nil || d.Category != base.Category {
		t.Fatalf("patched = %+v", d)
	}
	if _, err := DecodeRulePatch([]byte(`{"apply_retroactively":true}`)); err == nil {
		t.Fatal("apply_retroactively accepted in a patch")
	}
}

// FuzzDecodeRulePatch feeds arbitrary PATCH bodies: refusals are 400s,
// and an accepted patch applied to a valid rule is either valid or a 400.
func FuzzDecodeRulePatch(f *testing.F) {
	for _, s := range []string{`{"name":"n","bank_direction_filter":"MONEY_IN"}`, `{"transaction_description_filter":null}`,
		`{"counterparty_filter":"0190a6b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b"}`, `{"amount_min_filter":5,"amount_max_filter":1}`,
		`{"apply_retroactively":true}`, `{"category":null}`, `[]`, `{`, ``} {
		f.Add([]byte(s))
	}
	base := RuleDraft{Direction: ptr(banking.Debit), Category: banking.StableNameClassification("MEALS")}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := DecodeRulePatch(body)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		if _, err := NewRule(uuid.Nil, time.Now(), p.Apply(base)); err != nil {
			apperrtest.Require4xx(t, err)
		}
	})
}

// FuzzParseRuleFilter: refusals are 400s; accepted filters are bounded,
// sorted and distinct.
func FuzzParseRuleFilter(f *testing.F) {
	for _, s := range []string{"external_ids=a&external_ids=b,a&include_archived=true&q=fee", "include_archived=maybe", "q=%ff", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		rf, err := ParseRuleFilter(q)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		if len(rf.ExternalIDs) > MaxRuleFilterExternalIDs || !slices.IsSorted(rf.ExternalIDs) || len(slices.Compact(slices.Clone(rf.ExternalIDs))) != len(rf.ExternalIDs) {
			t.Fatalf("external ids %q", rf.ExternalIDs)
		}
	})
}
