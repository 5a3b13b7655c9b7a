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
// the topic are ignored.
func TransactionsHandler(r *app.Reports) consumer.Handler {
	return func(ctx context.Context, tx bun.Tx, e events.Event) error {
		if e.Type != events.TypeBankTransactionUpserted {
			return nil
		}
		var p events.BankTransactionUpserted
		if err := e.Decode(&p); err != nil {
			return err
		}
		if p.TransactionID == uuid.Nil || p.BusinessID == uuid.Nil {
			return fmt.Errorf("bank_transaction.upserted %s: transaction and business ids are required", e.ID)
		}
		return r.ApplyBankTransaction(pgdb.WithTx(ctx, tx), p, e.Time)
	}
}
