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
// transaction; other event types of the topic are ignored: a batch of one.
func LedgerHandler(r *app.Reports) consumer.Handler {
	return LedgerBatchHandler(r).Single()
}

// LedgerBatchHandler applies the ledger.entry.posted events of a consumer
// batch in its transaction, with a few statements for all of them; other
// event types of the topic are ignored.
func LedgerBatchHandler(r *app.Reports) consumer.BatchHandler {
	return func(ctx context.Context, tx bun.Tx, es []events.Event) error {
		entries, err := decodeBatch(es, events.TypeLedgerEntryPosted, postedEntry)
		if err != nil || len(entries) == 0 {
			return err
		}
		return r.ApplyEntries(pgdb.WithTx(ctx, tx), entries)
	}
}

// postedEntry is a decoded ledger.entry.posted, which must name its entry
// and business.
func postedEntry(e events.Event, p events.LedgerEntryPosted) (app.PostedEntry, error) {
	if p.EntryID == uuid.Nil || p.BusinessID == uuid.Nil {
		return app.PostedEntry{}, fmt.Errorf("ledger.entry.posted %s: entry and business ids are required", e.ID)
	}
	return app.PostedEntry{Entry: p, EventTime: e.Time, Payload: e.Data}, nil
}

// decodeBatch decodes the events of es of type typ into P, in order, and
// makes each an A with conv; events of other types are passed over. The
// first event that does not decode or convert fails the batch (the
// consumer then applies its events one at a time).
func decodeBatch[P, A any](es []events.Event, typ string, conv func(events.Event, P) (A, error)) ([]A, error) {
	out := make([]A, 0, len(es))
	for _, e := range es {
		if e.Type != typ {
			continue
		}
		var p P
		if err := e.Decode(&p); err != nil {
			return nil, fmt.Errorf("event %s: %w", e.ID, err)
		}
		a, err := conv(e, p)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}
