// Package kafka is the reports service's event adapter: the handlers of
// acct.ledger.v1, acct.transactions.v1, acct.invoicing.v1 and
// acct.bills.v1 that feed the read model, each calling the use cases with
// the inbox transaction in their context (pgdb.WithTx). (The business
// projection is the kit's: Definition.Businesses.)
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

// LedgerHandler applies ledger.entry.posted events in the inbox
// transaction; other event types of the topic are ignored.
func LedgerHandler(r *app.Reports) consumer.Handler {
	batch := LedgerBatchHandler(r)
	return func(ctx context.Context, tx bun.Tx, e events.Event) error {
		return batch(ctx, tx, []events.Event{e})
	}
}

// LedgerBatchHandler applies the ledger.entry.posted events of a consumer
// batch in its transaction, with a few statements for all of them; other
// event types of the topic are ignored.
func LedgerBatchHandler(r *app.Reports) consumer.BatchHandler {
	return func(ctx context.Context, tx bun.Tx, es []events.Event) error {
		entries := make([]app.PostedEntry, 0, len(es))
		for _, e := range es {
			if e.Type != events.TypeLedgerEntryPosted {
				continue
			}
			var p events.LedgerEntryPosted
			if err := e.Decode(&p); err != nil {
				return fmt.Errorf("event %s: %w", e.ID, err)
			}
			if p.EntryID == uuid.Nil || p.BusinessID == uuid.Nil {
				return fmt.Errorf("ledger.entry.posted %s: entry and business ids are required", e.ID)
			}
			entries = append(entries, app.PostedEntry{Entry: p, EventTime: e.Time, Payload: e.Data})
		}
		if len(entries) == 0 {
			return nil
		}
		return r.ApplyEntries(pgdb.WithTx(ctx, tx), entries)
	}
}
