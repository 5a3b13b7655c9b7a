package service

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/testkit"
	billstags "github.com/acctsuite/acct/services/bills-tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/bills-tags/internal/config"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// env is a running bills-tags service with helpers to call it.
type env struct {
	t    *testing.T
	svc  *servicetest.Service
	s    *Service
	http *fiber.App
	v    *openapitest.Validator
	db   *bun.DB
}

// with is e reporting to t (a subtest).
func (e *env) with(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}

func newEnv(t *testing.T) *env {
	t.Helper()
	var s *Service
	svc := servicetest.StartService(t, func(env map[string]string) (servicekit.Definition, error) {
		cfg, err := config.LoadFrom(env)
		if err != nil {
			return servicekit.Definition{}, err
		}
		var def servicekit.Definition
		s, def = New(cfg)
		return def, nil
	}, servicetest.ServiceOptions{})
	return &env{t: t, svc: svc, s: s, http: svc.Kit.App(), v: openapitest.New(t, billstags.OpenAPI), db: svc.Kit.DB()}
}

// business records a business of clientID as acct.business.v1 would.
func (e *env) business(clientID string) uuid.UUID {
	e.t.Helper()
	bid := e.svc.SeedBusiness(e.t, clientID)
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
	e.t.Helper()
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
		e.t.Fatal(err)
	}
	if err := chart.Apply(context.Background(), e.db, postgres.New(e.db), evt); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) token(clientID string) string { return e.svc.Tokens.Platform(e.t, clientID) }

// req builds a request; body may be a string (sent as is) or a value (JSON).
func req(method, path, token string, body any) *http.Request {
	return openapitest.Request(method, path, token, body)
}

// do sends a request the document describes, validates the exchange
// against it and returns the decoded body.
func (e *env) do(rq *http.Request, wantStatus int) map[string]any {
	e.t.Helper()
	return e.v.Expect(e.t, e.http, rq, wantStatus)
}

// doInvalid sends a request the document deliberately does not allow (bad
// UUID, bad enum, malformed body...): only the answer is validated, against
// the Error schema. It returns the error object.
func (e *env) doInvalid(rq *http.Request, wantStatus int, wantEnum string) map[string]any {
	e.t.Helper()
	m := e.v.ExpectError(e.t, e.http, rq, wantStatus)
	if wantEnum != "" && m["error_enum"] != wantEnum {
		e.t.Fatalf("%s %s: error_enum = %v, want %s (%v)", rq.Method, rq.URL, m["error_enum"], wantEnum, m)
	}
	return m
}

func data(m map[string]any) map[string]any { return m["data"].(map[string]any) }

func base(bid uuid.UUID) string { return "/v1/businesses/" + bid.String() }

// fieldsOf is the error object's meta.fields.
func fieldsOf(m map[string]any) map[string]any {
	meta, _ := m["meta"].(map[string]any)
	fields, _ := meta["fields"].(map[string]any)
	return fields
}

// counts is the number of vendors and outbox rows.
func (e *env) counts() [2]int {
	e.t.Helper()
	var c [2]int
	for i, table := range []string{"vendors", "outbox"} {
		if err := e.db.NewRaw("SELECT count(*) FROM "+table).Scan(context.Background(), &c[i]); err != nil {
			e.t.Fatal(err)
		}
	}
	return c
}

// events returns the vendor.upserted payloads of vendor id in the
// outbox, oldest first, checking their envelope on the way.
func (e *env) events(bid uuid.UUID, id string) []events.VendorUpserted {
	e.t.Helper()
	var rows []struct {
		Topic   string          `bun:"topic"`
		Key     string          `bun:"key"`
		Source  string          `bun:"source"`
		Subject string          `bun:"subject"`
		Data    json.RawMessage `bun:"data"`
	}
	err := e.db.NewRaw("SELECT topic, key, source, subject, data FROM outbox WHERE type = ? AND data->>'vendor_id' = ? ORDER BY seq",
		events.TypeVendorUpserted, id).Scan(context.Background(), &rows)
	if err != nil {
		e.t.Fatalf("outbox rows: %v", err)
	}
	out := make([]events.VendorUpserted, len(rows))
	for i, r := range rows {
		if r.Topic != events.TopicBills || r.Key != bid.String() || r.Subject != bid.String() || r.Source != "acct/bills-tags" {
			e.t.Fatalf("event envelope: topic %s key %s subject %s source %s", r.Topic, r.Key, r.Subject, r.Source)
		}
		if err := json.Unmarshal(r.Data, &out[i]); err != nil {
			e.t.Fatal(err)
		}
	}
	return out
}

// create posts a vendor and returns the answer's data.
func (e *env) create(bid uuid.UUID, token string, body map[string]any, want int) map[string]any {
	e.t.Helper()
	return data(e.do(req("POST", base(bid)+"/vendors", token, body), want))
}

// list gets one page of vendors with the query (without "?") and returns
// the whole answer.
func (e *env) list(bid uuid.UUID, token, query string) map[string]any {
	e.t.Helper()
	path := base(bid) + "/vendors"
	if query != "" {
		path += "?" + query
	}
	return e.do(req("GET", path, token, nil), 200)
}

// ids returns the ids of a listing's vendors, in order.
func ids(m map[string]any) []string {
	var out []string
	for _, c := range m["data"].([]any) {
		out = append(out, c.(map[string]any)["id"].(string))
	}
	return out
}
