package service

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/testkit"
	"github.com/acctsuite/acct/services/reports"
	kafkaadapter "github.com/acctsuite/acct/services/reports/internal/adapters/kafka"
	"github.com/acctsuite/acct/services/reports/internal/config"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

type env struct {
	t    *testing.T
	svc  *servicetest.Service
	s    *Service
	http *fiber.App
	v    *openapitest.Validator
	db   *bun.DB
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, servicetest.ServiceOptions{})
}

func newEnvWith(t *testing.T, opts servicetest.ServiceOptions) *env {
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
	}, opts)
	return &env{t: t, svc: svc, s: s, http: svc.Kit.App(), v: openapitest.New(t, reports.OpenAPI), db: svc.Kit.DB()}
}

// deliver hands the events to the service's acct.ledger.v1,
// acct.transactions.v1 or acct.invoicing.v1 handler (by topic), each in its own transaction, as the kit's consumer does (without its inbox, so
// the handler's own idempotency is what is tested).
func (e *env) deliver(evts ...events.Event) {
	e.t.Helper()
	ledger, txs := kafkaadapter.LedgerHandler(e.s.Reports), kafkaadapter.TransactionsHandler(e.s.Reports)
	invoicing, bills := kafkaadapter.InvoicingHandler(e.s.Reports), kafkaadapter.BillsHandler(e.s.Reports)
	for _, evt := range evts {
		h := ledger
		switch evt.Topic {
		case events.TopicTransactions:
			h = txs
		case events.TopicInvoicing:
			h = invoicing
		case events.TopicBills:
			h = bills
		}
		if err := e.db.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
			return h(ctx, tx, evt)
		}); err != nil {
			e.t.Fatalf("deliver %s: %v", evt.ID, err)
		}
	}
}

// deliverInBatches applies ledger events as the kit's consumer applies a
// batch: consecutive runs of 1 to maxBatch events, each run through the
// batch handler in one transaction (a run may hold the same event twice, as
// an entry published twice would).
func (e *env) deliverInBatches(r *rand.Rand, maxBatch int, evts ...events.Event) {
	e.t.Helper()
	h := kafkaadapter.LedgerBatchHandler(e.s.Reports)
	for len(evts) > 0 {
		n := min(len(evts), 1+r.IntN(maxBatch))
		if err := e.db.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
			return h(ctx, tx, evts[:n])
		}); err != nil {
			e.t.Fatalf("deliver a batch of %d: %v", n, err)
		}
		evts = evts[n:]
	}
}

// pnlBody is a report (the GET's data, a comparison result's pnl).
type pnlBody struct {
	BusinessID        uuid.UUID        `json:"business_id"`
	StartDate         time.Time        `json:"start_date"`
	EndDate           time.Time        `json:"end_date"`
	Income            domain.LineItem  `json:"income"`
	CostOfGoodsSold   domain.LineItem  `json:"cost_of_goods_sold"`
	GrossProfit       int64            `json:"gross_profit"`
	Expenses          domain.LineItem  `json:"expenses"`
	ProfitBeforeTaxes int64            `json:"profit_before_taxes"`
	Taxes             domain.LineItem  `json:"taxes"`
	NetProfit         int64            `json:"net_profit"`
	OtherOutflows     *domain.LineItem `json:"other_outflows"`
	PersonalExpenses  *domain.LineItem `json:"personal_expenses"`
	FullyCategorized  bool             `json:"fully_categorized"`
}

// pnlResponse is the report's answer.
type pnlResponse struct {
	Data pnlBody `json:"data"`
	Meta struct {
		ReportingBasis string     `json:"reporting_basis"`
		LastEventAt    *time.Time `json:"last_event_at"`
	} `json:"meta"`
}

func pnlPath(bid uuid.UUID, q url.Values) string {
	return fmt.Sprintf("/v1/businesses/%s/reports/profit-and-loss?%s", bid, q.Encode())
}

// pnl asks for the report, validates the exchange and decodes it.
func (e *env) pnl(token string, bid uuid.UUID, q url.Values) pnlResponse {
	e.t.Helper()
	resp, body := e.v.Do(e.t, e.http, openapitest.Request(http.MethodGet, pnlPath(bid, q), token, nil))
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("GET %s: %d %s", q.Encode(), resp.StatusCode, body)
	}
	var out pnlResponse
	if err := json.Unmarshal(body, &out); err != nil {
		e.t.Fatal(err)
	}
	return out
}

func period(start, end string, kv ...string) url.Values {
	q := url.Values{"start_date": {start}, "end_date": {end}}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Add(kv[i], kv[i+1])
	}
	return q
}
