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
	"github.com/acctsuite/acct/services/mileage"
	"github.com/acctsuite/acct/services/mileage/internal/config"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// env is a running mileage service (servicetest.Env: tokens, businesses,
// validated requests) with the mileage tests' own helpers.
type env struct {
	*servicetest.Env[Service]
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return &env{servicetest.Start(t, config.LoadFrom, New, mileage.OpenAPI, servicetest.ServiceOptions{})}
}

// with is e reporting to t (a subtest).
func (e *env) with(t *testing.T) *env { return &env{e.Env.With(t)} }

var (
	req      = servicetest.Req
	data     = servicetest.Data
	base     = servicetest.Base
	fieldsOf = servicetest.FieldsOf
)

// counts is the number of vehicles, trips and outbox rows.
func (e *env) counts() [3]int {
	e.T.Helper()
	return [3]int(e.Rows("vehicles", "trips", "outbox"))
}

// outbox returns the (type, data) of the outbox rows about entity id
// (vehicle_id or trip_id), oldest first, checking their envelope.
func (e *env) outbox(bid uuid.UUID, key, id string) []outboxRow {
	e.T.Helper()
	var rows []outboxRow
	err := e.DB.NewRaw("SELECT topic, key, source, subject, type, data FROM outbox WHERE data->>? = ? ORDER BY seq", key, id).
		Scan(context.Background(), &rows)
	if err != nil {
		e.T.Fatalf("outbox rows: %v", err)
	}
	for _, r := range rows {
		if r.Topic != events.TopicMileage || r.Key != bid.String() || r.Subject != bid.String() || r.Source != "acct/mileage" {
			e.T.Fatalf("event envelope: %+v", r)
		}
	}
	return rows
}

type outboxRow struct {
	Topic   string          `bun:"topic"`
	Key     string          `bun:"key"`
	Source  string          `bun:"source"`
	Subject string          `bun:"subject"`
	Type    string          `bun:"type"`
	Data    json.RawMessage `bun:"data"`
}

func (e *env) vehicle(bid uuid.UUID, token string, body map[string]any, want int) map[string]any {
	e.T.Helper()
	return data(e.Do(req("POST", base(bid)+"/mileage/vehicles", token, body), want))
}

func (e *env) trip(bid uuid.UUID, token string, body map[string]any, want int) map[string]any {
	e.T.Helper()
	return data(e.Do(req("POST", base(bid)+"/mileage/trips", token, body), want))
}

func (e *env) get(path, token string) map[string]any {
	e.T.Helper()
	return e.Do(req("GET", path, token, nil), 200)
}
