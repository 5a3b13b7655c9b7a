package service

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// accountEvents are the business's ledger_accounts.upserted payloads in
// the outbox, oldest first.
func (e *env) accountEvents(bid string) []events.LedgerAccountsUpserted {
	e.T.Helper()
	var rows []struct {
		Topic string          `bun:"topic"`
		Data  json.RawMessage `bun:"data"`
	}
	if err := e.DB.NewRaw("SELECT topic, data FROM outbox WHERE key = ? AND type = ? ORDER BY seq", bid,
		events.TypeLedgerAccountsUpserted).Scan(context.Background(), &rows); err != nil {
		e.T.Fatal(err)
	}
	out := make([]events.LedgerAccountsUpserted, len(rows))
	for i, r := range rows {
		if r.Topic != events.TopicAccounts {
			e.T.Fatalf("topic %s", r.Topic)
		}
		if err := json.Unmarshal(r.Data, &out[i]); err != nil {
			e.T.Fatal(err)
		}
	}
	return out
}

// TestChartIsPublished: the seeded chart goes out on acct.accounts.v1 at
// once, a seeding that adds nothing publishes nothing, and every account
// created, renamed or archived is published with its state.
func TestChartIsPublished(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	evs := e.accountEvents(bid.String())
	if len(evs) != 1 || len(evs[0].Accounts) != len(domain.SeedChart(bid, "US", time.Now())) || evs[0].BusinessID != bid {
		t.Fatalf("seed events: %+v", evs)
	}
	sales := domain.DefaultAccountID(bid, "SALES")
	found := false
	for _, a := range evs[0].Accounts {
		if a.ID == sales && a.StableName != nil && *a.StableName == "SALES" && a.AccountType == "REVENUE" && !a.Archived {
			found = true
		}
	}
	if !found {
		t.Fatalf("SALES not in the seeded chart's event: %+v", evs[0].Accounts)
	}
	if err := e.S.Ledger.SeedChart(context.Background(), events.Business{ID: bid, Country: "US"}); err != nil {
		t.Fatal(err)
	}
	if n := len(e.accountEvents(bid.String())); n != 1 {
		t.Fatalf("a seeding that added nothing published: %d events", n)
	}

	created := data(e.Do(req("POST", base(bid)+"/ledger/accounts", tok, map[string]any{
		"name": "Consulting", "account_type": "REVENUE", "parent_id": stable("REVENUE"),
		"stable_name": map[string]any{"type": "StableName", "stable_name": "CONSULTING"},
	}), 201))
	id := created["id"].(string)
	e.Do(req("PUT", base(bid)+"/ledger/accounts/"+id, tok, map[string]any{"name": "Consulting fees"}), 200)
	e.Do(req("POST", base(bid)+"/ledger/accounts/"+id+"/archive", tok, nil), 200)
	evs = e.accountEvents(bid.String())
	if len(evs) != 4 {
		t.Fatalf("%d events, want the seed, the create, the rename and the archive", len(evs))
	}
	last := []struct {
		name     string
		archived bool
	}{{"Consulting", false}, {"Consulting fees", false}, {"Consulting fees", true}}
	for i, want := range last {
		a := evs[i+1].Accounts
		if len(a) != 1 || a[0].ID.String() != id || a[0].Name != want.name || a[0].Archived != want.archived {
			t.Fatalf("event %d: %+v, want %+v", i+1, a, want)
		}
	}
}
