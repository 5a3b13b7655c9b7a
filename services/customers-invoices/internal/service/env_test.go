package service

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/testkit"
	customersinvoices "github.com/acctsuite/acct/services/customers-invoices"
	"github.com/acctsuite/acct/services/customers-invoices/internal/config"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

var (
	req      = servicetest.Req
	data     = servicetest.Data
	base     = servicetest.Base
	fieldsOf = servicetest.FieldsOf
)

// env is a running customers-invoices service (servicetest.Env) with its tests'
// own helpers.
type env struct {
	*servicetest.Env[Service]
}

// with is e reporting to t (a subtest).
func (e *env) with(t *testing.T) *env { return &env{e.Env.With(t)} }

func newEnv(t *testing.T) *env {
	t.Helper()
	return &env{servicetest.Start(t, config.LoadFrom, New, customersinvoices.OpenAPI, servicetest.ServiceOptions{})}
}

// counts is the number of customers and outbox rows.
func (e *env) counts() [2]int {
	e.T.Helper()
	var c [2]int
	for i, table := range []string{"customers", "outbox"} {
		if err := e.DB.NewRaw("SELECT count(*) FROM "+table).Scan(context.Background(), &c[i]); err != nil {
			e.T.Fatal(err)
		}
	}
	return c
}

// events returns the customer.upserted payloads of customer id in the
// outbox, oldest first, checking their envelope on the way.
func (e *env) events(bid uuid.UUID, id string) []events.CustomerUpserted {
	e.T.Helper()
	var rows []struct {
		Topic   string          `bun:"topic"`
		Key     string          `bun:"key"`
		Source  string          `bun:"source"`
		Subject string          `bun:"subject"`
		Data    json.RawMessage `bun:"data"`
	}
	err := e.DB.NewRaw("SELECT topic, key, source, subject, data FROM outbox WHERE type = ? AND data->>'customer_id' = ? ORDER BY seq",
		events.TypeCustomerUpserted, id).Scan(context.Background(), &rows)
	if err != nil {
		e.T.Fatalf("outbox rows: %v", err)
	}
	out := make([]events.CustomerUpserted, len(rows))
	for i, r := range rows {
		if r.Topic != events.TopicInvoicing || r.Key != bid.String() || r.Subject != bid.String() || r.Source != "acct/customers-invoices" {
			e.T.Fatalf("event envelope: topic %s key %s subject %s source %s", r.Topic, r.Key, r.Subject, r.Source)
		}
		if err := json.Unmarshal(r.Data, &out[i]); err != nil {
			e.T.Fatal(err)
		}
	}
	return out
}

// create posts a customer and returns the answer's data.
func (e *env) create(bid uuid.UUID, token string, body map[string]any, want int) map[string]any {
	e.T.Helper()
	return data(e.Do(req("POST", base(bid)+"/customers", token, body), want))
}

// list gets one page of customers with the query (without "?") and returns
// the whole answer.
func (e *env) list(bid uuid.UUID, token, query string) map[string]any {
	e.T.Helper()
	path := base(bid) + "/customers"
	if query != "" {
		path += "?" + query
	}
	return e.Do(req("GET", path, token, nil), 200)
}

// ids returns the ids of a listing's customers, in order.
func ids(m map[string]any) []string {
	var out []string
	for _, c := range m["data"].([]any) {
		out = append(out, c.(map[string]any)["id"].(string))
	}
	return out
}
