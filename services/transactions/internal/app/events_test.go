package app

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

func TestEntryPayload(t *testing.T) {
	bid := uuid.New()
	chart := domain.SeedChart(bid, "US", time.Now())
	byID := map[uuid.UUID]domain.Account{}
	byStable := map[string]domain.Account{}
	for _, a := range chart {
		byID[a.ID] = a
		byStable[*a.StableName] = a
	}
	at := time.Date(2026, 4, 30, 23, 30, 0, 0, time.UTC)
	entryID, lineA, lineB := uuid.New(), uuid.New(), uuid.New()
	project := tags.NewTag(bid, entryID, tags.KeyValue{Key: "project", Value: "alpha"}, at)
	lineTag := tags.NewTag(bid, lineA, tags.KeyValue{Key: "dept", Value: "ops"}, at)
	sameAsEntry := tags.NewTag(bid, lineB, tags.KeyValue{Key: "project", Value: "alpha"}, at)
	reversed := uuid.New()
	e := domain.Entry{
		ID: entryID, BusinessID: bid, EntryNumber: 42, EntryType: domain.EntryBank, Agent: domain.AgentAPI,
		Date: at, EntryAt: at, Source: domain.Source{Type: "BANK_TRANSACTION", ID: "t1", Version: "2"},
		ReversalOfID: &reversed, Tags: []tags.Tag{project}, CreatedAt: at, Metadata: json.RawMessage(`{"a":1}`),
		Lines: []domain.Line{
			{ID: lineA, Account: byStable["BANK_FEES"], Amount: 1250, Direction: domain.Debit, Tags: []tags.Tag{lineTag}},
			{ID: lineB, Account: byStable["CASH"], Amount: 1250, Direction: domain.Credit, Tags: []tags.Tag{sameAsEntry}},
		},
	}
	p := EntryPayload(e, byID)
	if p.EntryID != entryID || p.BusinessID != bid || p.LedgerID != domain.LedgerID(bid) || p.EntryNumber != 42 ||
		p.EntryType != "BANK" || p.Agent != "API" || p.Date != "2026-04-30" || !p.EntryAt.Equal(at) ||
		p.SourceType != "BANK_TRANSACTION" || p.SourceID != "t1" || p.SourceVersion != "2" || *p.ReversalOfID != reversed ||
		len(p.Tags) != 1 || p.Tags[0].Key != "project" {
		t.Fatalf("payload = %+v", p)
	}
	var sum int64
	for _, l := range p.Lines {
		sum += l.SignedAmount
		if l.Amount != 1250 {
			t.Fatalf("amount %d", l.Amount)
		}
	}
	if sum != 0 {
		t.Fatalf("signed amounts sum to %d", sum)
	}
	fees := p.Lines[0]
	var path []string
	for _, a := range fees.Ancestors {
		path = append(path, *a.StableName)
	}
	if fees.AccountID != byStable["BANK_FEES"].ID || *fees.StableName != "BANK_FEES" || fees.AccountType != "EXPENSE" ||
		fees.AccountSubtype != "FEES" || fees.Normality != "DEBIT" || fees.Direction != "DEBIT" || fees.SignedAmount != 1250 ||
		!slices.Equal(path, []string{"EXPENSES", "OPERATING_EXPENSES", "FEES"}) {
		t.Fatalf("fee line = %+v (path %v)", fees, path)
	}
	// A line's tags are its own plus the entry's, each key/value once.
	keys := func(ts []events.LedgerTag) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Key+"="+t.Value)
		}
		return out
	}
	if got := keys(fees.Tags); !slices.Equal(got, []string{"dept=ops", "project=alpha"}) {
		t.Fatalf("fee line tags %v", got)
	}
	if got := keys(p.Lines[1].Tags); !slices.Equal(got, []string{"project=alpha"}) || p.Lines[1].SignedAmount != -1250 {
		t.Fatalf("cash line = %+v", p.Lines[1])
	}

	// The payload travels as JSON in an event and decodes back.
	evt, err := events.New(events.TopicLedger, events.TypeLedgerEntryPosted, Source, bid, p)
	if err != nil {
		t.Fatal(err)
	}
	var back events.LedgerEntryPosted
	if err := evt.Decode(&back); err != nil {
		t.Fatal(err)
	}
	if back.EntryID != p.EntryID || len(back.Lines) != 2 || back.Lines[0].Ancestors[2].Name != "Fees" || string(back.Metadata) != `{"a":1}` {
		t.Fatalf("round trip = %+v", back)
	}
	var wire map[string]any
	_ = json.Unmarshal(evt.Data, &wire)
	line := wire["lines"].([]any)[0].(map[string]any)
	for _, k := range []string{"account_id", "stable_name", "account_type", "account_subtype", "signed_amount", "amount", "direction", "tags", "ancestors"} {
		if _, ok := line[k]; !ok {
			t.Errorf("line JSON lacks %s", k)
		}
	}
	for _, k := range []string{"entry_id", "business_id", "date", "entry_at", "entry_type", "source_type", "source_id", "reversal_of_id", "tags"} {
		if _, ok := wire[k]; !ok {
			t.Errorf("entry JSON lacks %s", k)
		}
	}
}
