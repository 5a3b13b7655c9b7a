package service

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/testkit"
	billstags "github.com/acctsuite/acct/services/bills-tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/bills-tags/internal/config"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

var (
	req      = servicetest.Req
	data     = servicetest.Data
	base     = servicetest.Base
	fieldsOf = servicetest.FieldsOf
)

// env is a running bills-tags service (servicetest.Env) with its tests'
// own helpers.
type env struct {
	*servicetest.Env[Service]
}

// with is e reporting to t (a subtest).
func (e *env) with(t *testing.T) *env { return &env{e.Env.With(t)} }

func newEnv(t *testing.T) *env {
	t.Helper()
	return &env{servicetest.Start(t, config.LoadFrom, New, billstags.OpenAPI, servicetest.ServiceOptions{})}
}

// business records a business of clientID as acct.business.v1 would.
func (e *env) business(clientID string) uuid.UUID {
	e.T.Helper()
	bid := e.Svc.SeedBusiness(e.T, clientID)
	e.ledgerAccounts(bid, false, nil, defaultChart...)
	return bid
}

// defaultChart are stable names of the ledger's default chart the tests
// name (services/transactions/internal/domain/chart.go).
var defaultChart = []string{"ACCOUNTS_PAYABLE", "BANK_ACCOUNTS", "CASH", "UNCATEGORIZED_EXPENSES", "ITEMS_FOR_RESALE",
	"MATERIALS", "PAYROLL_CONTRACTORS", "RENT", "UTILITIES", "INSURANCE", "MARKETING", "OFFICE_EXPENSES", "TRAVEL", "MEALS",
	"SOFTWARE", "BANK_FEES", "OTHER_FEES", "OTHER_BUSINESS_EXPENSES", "EQUIPMENT", "PHONE", "PROFESSIONAL_SERVICES"}

// ledgerAccounts records accounts of the business's chart as the
// acct.accounts.v1 consumer does: the custom accounts ids and the default
// chart's stable names (with the ledger's deterministic ids), archived or
// live.
func (e *env) ledgerAccounts(bid uuid.UUID, archived bool, ids []uuid.UUID, stableNames ...string) {
	e.T.Helper()
	p := events.LedgerAccountsUpserted{BusinessID: bid}
	now := time.Now().UTC()
	for i, id := range ids {
		p.Accounts = append(p.Accounts, events.LedgerAccountSnapshot{ID: id, Name: fmt.Sprintf("Account %d", i),
			AccountType: "EXPENSE", Archived: archived, UpdatedAt: now})
	}
	for _, n := range stableNames {
		name := n
		p.Accounts = append(p.Accounts, events.LedgerAccountSnapshot{ID: events.DefaultAccountID(bid, n), StableName: &name,
			Name: n, AccountType: "EXPENSE", Archived: archived, UpdatedAt: now})
	}
	evt, err := events.New(events.TopicAccounts, events.TypeLedgerAccountsUpserted, "acct/transactions", bid, p)
	if err != nil {
		e.T.Fatal(err)
	}
	if err := chart.Apply(context.Background(), e.DB, postgres.New(e.DB), evt); err != nil {
		e.T.Fatal(err)
	}
}

// counts is the number of vendors and outbox rows.
func (e *env) counts() [2]int {
	e.T.Helper()
	var c [2]int
	for i, table := range []string{"vendors", "outbox"} {
		if err := e.DB.NewRaw("SELECT count(*) FROM "+table).Scan(context.Background(), &c[i]); err != nil {
			e.T.Fatal(err)
		}
	}
	return c
}

// events returns the vendor.upserted payloads of vendor id in the
// outbox, oldest first, checking their envelope on the way.
func (e *env) events(bid uuid.UUID, id string) []events.VendorUpserted {
	e.T.Helper()
	var rows []struct {
		Topic   string          `bun:"topic"`
		Key     string          `bun:"key"`
		Source  string          `bun:"source"`
		Subject string          `bun:"subject"`
		Data    json.RawMessage `bun:"data"`
	}
	err := e.DB.NewRaw("SELECT topic, key, source, subject, data FROM outbox WHERE type = ? AND data->>'vendor_id' = ? ORDER BY seq",
		events.TypeVendorUpserted, id).Scan(context.Background(), &rows)
	if err != nil {
		e.T.Fatalf("outbox rows: %v", err)
	}
	out := make([]events.VendorUpserted, len(rows))
	for i, r := range rows {
		if r.Topic != events.TopicBills || r.Key != bid.String() || r.Subject != bid.String() || r.Source != "acct/bills-tags" {
			e.T.Fatalf("event envelope: topic %s key %s subject %s source %s", r.Topic, r.Key, r.Subject, r.Source)
		}
		if err := json.Unmarshal(r.Data, &out[i]); err != nil {
			e.T.Fatal(err)
		}
	}
	return out
}

// create posts a vendor and returns the answer's data.
func (e *env) create(bid uuid.UUID, token string, body map[string]any, want int) map[string]any {
	e.T.Helper()
	return data(e.Do(req("POST", base(bid)+"/vendors", token, body), want))
}

// list gets one page of vendors with the query (without "?") and returns
// the whole answer.
func (e *env) list(bid uuid.UUID, token, query string) map[string]any {
	e.T.Helper()
	path := base(bid) + "/vendors"
	if query != "" {
		path += "?" + query
	}
	return e.Do(req("GET", path, token, nil), 200)
}

// ids returns the ids of a listing's vendors, in order.
func ids(m map[string]any) []string {
	var out []string
	for _, c := range m["data"].([]any) {
		out = append(out, c.(map[string]any)["id"].(string))
	}
	return out
}
