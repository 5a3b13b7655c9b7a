package service

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/testkit"
	"github.com/acctsuite/acct/services/mileage"
	"github.com/acctsuite/acct/services/mileage/internal/config"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// env is a running mileage service with helpers to call it.
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
	return &env{t: t, svc: svc, s: s, http: svc.Kit.App(), v: openapitest.New(t, mileage.OpenAPI), db: svc.Kit.DB()}
}

// business records a business of clientID as acct.business.v1 would.
func (e *env) business(clientID string) uuid.UUID {
	e.t.Helper()
	return e.svc.SeedBusiness(e.t, clientID)
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

// counts is the number of vehicles, trips and outbox rows.
func (e *env) counts() [3]int {
	e.t.Helper()
	var c [3]int
	for i, table := range []string{"vehicles", "trips", "outbox"} {
		if err := e.db.NewRaw("SELECT count(*) FROM "+table).Scan(context.Background(), &c[i]); err != nil {
			e.t.Fatal(err)
		}
	}
	return c
}

// outbox returns the (type, data) of the outbox rows about entity id
// (vehicle_id or trip_id), oldest first, checking their envelope.
func (e *env) outbox(bid uuid.UUID, key, id string) []outboxRow {
	e.t.Helper()
	var rows []outboxRow
	err := e.db.NewRaw("SELECT topic, key, source, subject, type, data FROM outbox WHERE data->>? = ? ORDER BY seq", key, id).
		Scan(context.Background(), &rows)
	if err != nil {
		e.t.Fatalf("outbox rows: %v", err)
	}
	for _, r := range rows {
		if r.Topic != events.TopicMileage || r.Key != bid.String() || r.Subject != bid.String() || r.Source != "acct/mileage" {
			e.t.Fatalf("event envelope: %+v", r)
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
	e.t.Helper()
	return data(e.do(req("POST", base(bid)+"/mileage/vehicles", token, body), want))
}

func (e *env) trip(bid uuid.UUID, token string, body map[string]any, want int) map[string]any {
	e.t.Helper()
	return data(e.do(req("POST", base(bid)+"/mileage/trips", token, body), want))
}

func (e *env) get(path, token string) map[string]any {
	e.t.Helper()
	return e.do(req("GET", path, token, nil), 200)
}

// noContent sends a request answered 204 (validated against the document).
func (e *env) noContent(rq *http.Request) {
	e.t.Helper()
	resp, _ := e.v.Do(e.t, e.http, rq)
	if resp.StatusCode != 204 {
		e.t.Fatalf("%s %s: status %d, want 204", rq.Method, rq.URL, resp.StatusCode)
	}
}
