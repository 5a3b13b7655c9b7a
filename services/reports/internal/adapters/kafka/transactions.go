package kafka

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/reports/internal/app"
)

// TransactionsHandler applies bank_transaction.upserted snapshots
// (acct.transactions.v1) in the inbox transaction; other event types of
// the topic are ignored. It is TransactionsBatchHandler of one event.
func TransactionsHandler(r *app.Reports) consumer.Handler {
	return TransactionsBatchHandler(r).Single()
}

// TransactionsBatchHandler applies the bank_transaction.upserted snapshots
// of a batch of acct.transactions.v1 events with a few statements for all
// of them (app.ApplyBankTransactions); other event types are ignored. A
// snapshot that does not decode fails the batch, which the consumer then
// applies one event at a time.
func TransactionsBatchHandler(r *app.Reports) consumer.BatchHandler {
	return func(ctx context.Context, tx bun.Tx, es []events.Event) error {
		snaps, err := decodeBatch(es, events.TypeBankTransactionUpserted, bankSnapshot)
		if err != nil {
			return err
		}
		return r.ApplyBankTransactions(pgdb.WithTx(ctx, tx), snaps)
	}
}

// bankSnapshot is a decoded bank_transaction.upserted, which must name its
// transaction and business.
func bankSnapshot(e events.Event, p events.BankTransactionUpserted) (app.BankTransactionSnapshot, error) {
	if p.TransactionID == uuid.Nil || p.BusinessID == uuid.Nil {
		return app.BankTransactionSnapshot{}, fmt.Errorf("bank_transaction.upserted %s: transaction and business ids are required", e.ID)
	}
	return app.BankTransactionSnapshot{Snapshot: p, EventTime: e.Time}, nil
}
