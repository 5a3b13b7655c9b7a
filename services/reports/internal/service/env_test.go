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

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/testkit"
	"github.com/acctsuite/acct/services/reports"
	kafkaadapter "github.com/acctsuite/acct/services/reports/internal/adapters/kafka"
	"github.com/acctsuite/acct/services/reports/internal/config"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// env is a running reports service (servicetest.Env) with the reports
// tests' own helpers.
type env struct {
	*servicetest.Env[Service]
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, servicetest.ServiceOptions{})
}

func newEnvWith(t *testing.T, opts servicetest.ServiceOptions) *env {
	t.Helper()
	return &env{servicetest.Start(t, config.LoadFrom, New, reports.OpenAPI, opts)}
}

// deliver hands the events to the service's acct.ledger.v1,
// acct.transactions.v1 or acct.invoicing.v1 handler (by topic), each in its own transaction, as the kit's consumer does (without its inbox, so
// the handler's own idempotency is what is tested).
func (e *env) deliver(evts ...events.Event) {
	e.T.Helper()
	ledger, txs := kafkaadapter.LedgerHandler(e.S.Reports), kafkaadapter.TransactionsHandler(e.S.Reports)
	invoicing, bills := kafkaadapter.InvoicingHandler(e.S.Reports), kafkaadapter.BillsHandler(e.S.Reports)
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
		if err := e.DB.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
			return h(ctx, tx, evt)
		}); err != nil {
			e.T.Fatalf("deliver %s: %v", evt.ID, err)
		}
	}
}

// deliverInBatches applies ledger events as the kit's consumer applies a
// batch: consecutive runs of 1 to maxBatch events, each run through the
// batch handler in one transaction (a run may hold the same event twice, as
// an entry published twice would).
func (e *env) deliverInBatches(r *rand.Rand, maxBatch int, evts ...events.Event) {
	e.T.Helper()
	h := kafkaadapter.LedgerBatchHandler(e.S.Reports)
	for len(evts) > 0 {
		n := min(len(evts), 1+r.IntN(maxBatch))
		if err := e.DB.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
			return h(ctx, tx, evts[:n])
		}); err != nil {
			e.T.Fatalf("deliver a batch of %d: %v", n, err)
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
	e.T.Helper()
	resp, body := e.V.Do(e.T, e.HTTP, openapitest.Request(http.MethodGet, pnlPath(bid, q), token, nil))
	if resp.StatusCode != http.StatusOK {
		e.T.Fatalf("GET %s: %d %s", q.Encode(), resp.StatusCode, body)
	}
	var out pnlResponse
	if err := json.Unmarshal(body, &out); err != nil {
		e.T.Fatal(err)
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
