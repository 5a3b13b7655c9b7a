package service

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/businessdir"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/testkit"
	transactions "github.com/acctsuite/acct/services/transactions"
	kafkaadapter "github.com/acctsuite/acct/services/transactions/internal/adapters/kafka"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/config"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

var (
	req      = servicetest.Req
	data     = servicetest.Data
	base     = servicetest.Base
	fieldsOf = servicetest.FieldsOf
)

// env is a running transactions service (servicetest.Env) with the
// transactions tests' own helpers.
type env struct {
	*servicetest.Env[Service]
}

// with is e reporting to t (a subtest).
func (e *env) with(t *testing.T) *env { return &env{e.Env.With(t)} }

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, servicetest.ServiceOptions{})
}

// newEnvWith is newEnv with more environment (receipt storage, say).
func newEnvWith(t *testing.T, opts servicetest.ServiceOptions) *env {
	t.Helper()
	return &env{servicetest.Start(t, config.LoadFrom, New, transactions.OpenAPI, opts)}
}

// business records a business of clientID in the service exactly as the
// acct.business.v1 consumer does (the directory's handler, then the
// service's own, in one transaction) and returns its id.
func (e *env) business(clientID, country string) uuid.UUID {
	e.T.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	b := events.Business{
		ID: uuid.Must(uuid.NewV7()), ClientID: clientID, LegalName: "Biz of " + clientID, Country: country,
		DefaultReportingBasis: "ACCRUAL", CreatedAt: now, UpdatedAt: now,
	}
	evt, err := events.New(events.TopicBusiness, events.TypeBusinessCreated, "test", b.ID, b)
	if err != nil {
		e.T.Fatal(err)
	}
	handler := kafkaadapter.BusinessHandler(e.S.Ledger)
	err = e.DB.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		if err := businessdir.Handle(ctx, tx, evt); err != nil {
			return err
		}
		return handler(ctx, tx, evt)
	})
	if err != nil {
		e.T.Fatalf("seed business: %v", err)
	}
	return b.ID
}

// chart returns the business's chart nodes by stable name (and by id).
func (e *env) chart(bid uuid.UUID, token string) map[string]map[string]any {
	e.T.Helper()
	out := map[string]map[string]any{}
	var walk func(nodes []any)
	walk = func(nodes []any) {
		for _, n := range nodes {
			node := n.(map[string]any)
			if s, ok := node["stable_name"].(string); ok {
				out[s] = node
			}
			out[node["id"].(string)] = node
			walk(node["sub_accounts"].([]any))
		}
	}
	walk(data(e.Do(req("GET", base(bid)+"/ledger/chart", token, nil), 200))["accounts"].([]any))
	return out
}

// line is a journal-entry line body.
func line(ident map[string]any, amount any, direction string) map[string]any {
	return map[string]any{"account_identifier": ident, "amount": amount, "direction": direction}
}

func stable(name string) map[string]any {
	return map[string]any{"type": "StableName", "stable_name": name}
}

func accountID(id string) map[string]any { return map[string]any{"type": "AccountId", "id": id} }

// post posts a journal entry and returns the answer's data.
func (e *env) post(bid uuid.UUID, token string, body map[string]any, want int) map[string]any {
	e.T.Helper()
	return data(e.Do(req("POST", base(bid)+"/ledger/journal-entries", token, body), want))
}

func cents(v any) int64 {
	switch n := v.(type) {
	case float64:
		return int64(n)
	case json.Number:
		i, _ := n.Int64()
		return i
	}
	panic(fmt.Sprintf("not a number: %T %v", v, v))
}

// balances returns the balance of every node of GET /ledger/balances by
// stable name (and by id).
func (e *env) balances(bid uuid.UUID, token, query string) map[string]int64 {
	e.T.Helper()
	d := data(e.Do(req("GET", base(bid)+"/ledger/balances"+query, token, nil), 200))
	if d["type"] != "Ledger_Balances" {
		e.T.Fatalf("type = %v", d["type"])
	}
	out := map[string]int64{}
	var walk func(nodes []any)
	walk = func(nodes []any) {
		for _, n := range nodes {
			node := n.(map[string]any)
			b := cents(node["balance"])
			if s, ok := node["stable_name"].(string); ok {
				out[s] = b
			}
			out[node["id"].(string)] = b
			walk(node["sub_accounts"].([]any))
		}
	}
	walk(d["accounts"].([]any))
	return out
}

// postBank posts, through the ledger's API as the bank-transaction use
// cases do, the categorization of a money-out bank transaction: debit the
// category, credit BANK_ACCOUNTS.
func (e *env) postBank(bid uuid.UUID, txID, version, category string, amount int64) domain.Entry {
	e.T.Helper()
	var out domain.Entry
	err := e.DB.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		out, err = e.S.Ledger.PostEntry(pgdb.WithTx(ctx, tx), bid, app.NewEntry{
			EntryType: domain.EntryBank, Agent: domain.AgentAPI, EntryAt: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC),
			Source: domain.Source{Type: "BANK_TRANSACTION", ID: txID, Version: version},
			Lines: []domain.JournalLine{
				{Account: domain.ByStableName(category), Amount: money.Cents(amount), Direction: domain.Debit},
				{Account: domain.ByStableName("BANK_ACCOUNTS"), Amount: money.Cents(amount), Direction: domain.Credit},
			},
		})
		return err
	})
	if err != nil {
		e.T.Fatalf("post bank entry: %v", err)
	}
	return out
}

func moneyCents(v int64) money.Cents { return money.Cents(v) }

func ptr[T any](v T) *T { return &v }
