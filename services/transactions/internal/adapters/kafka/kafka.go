// Package kafka is the transactions service's event consumers: each
// handler calls the use cases in the inbox transaction of the event
// (pgdb.WithTx), so what they change and publish commits with the event's
// record. (The events the service publishes are built by the app and
// enqueued through the transactional outbox.)
package kafka

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/transactions/internal/app"
)

// BusinessHandler seeds the chart of accounts of every business created
// (or updated: see app.Ledger.SeedChart) on acct.business.v1. It runs in
// the inbox transaction, after the business directory's own handler.
func BusinessHandler(l *app.Ledger) consumer.Handler {
	return func(ctx context.Context, tx bun.Tx, e events.Event) error {
		if e.Type != events.TypeBusinessCreated && e.Type != events.TypeBusinessUpdated {
			return nil
		}
		var b events.Business
		if err := e.Decode(&b); err != nil {
			return err
		}
		if b.ID == uuid.Nil || b.Country == "" {
			return fmt.Errorf("business event %s: payload lacks id or country", e.ID)
		}
		return l.SeedChart(pgdb.WithTx(ctx, tx), b)
	}
}

// postingCarrier is what PostingHandler reads of any document event: the
// ledger posting it carries, if any (customer snapshots carry none), or
// the postings of a document that stands for several entries (a customer
// refund: events.InvoiceRefundUpserted).
type postingCarrier struct {
	BusinessID uuid.UUID              `json:"business_id"`
	Posting    *events.LedgerPosting  `json:"posting"`
	Postings   []events.LedgerPosting `json:"postings"`
}

// PostingHandler applies the ledger posting carried by the events of a
// document service's topic (acct.invoicing.v1, acct.bills.v1): the ledger
// then holds the entry the document stands for (app.Ledger.ApplyPosting).
// Events without a posting are ignored. The business is the event's
// subject.
func PostingHandler(l *app.Ledger, logger *slog.Logger) consumer.Handler {
	return func(ctx context.Context, tx bun.Tx, e events.Event) error {
		var c postingCarrier
		if err := e.Decode(&c); err != nil {
			return err
		}
		postings := c.Postings
		if c.Posting != nil {
			postings = append([]events.LedgerPosting{*c.Posting}, postings...)
		}
		if len(postings) == 0 {
			return nil
		}
		businessID, err := uuid.Parse(e.Subject)
		if err != nil {
			return fmt.Errorf("event %s (%s): subject %q is not a business id", e.ID, e.Type, e.Subject)
		}
		for _, p := range postings {
			res, err := l.ApplyPosting(pgdb.WithTx(ctx, tx), businessID, p)
			if err != nil {
				return fmt.Errorf("event %s (%s): %w", e.ID, e.Type, err)
			}
			logger.DebugContext(ctx, "ledger posting applied", "event_id", e.ID, "type", e.Type, "business_id", businessID,
				"source_type", p.SourceType, "source_id", p.SourceID, "version", p.Version, "result", string(res))
		}
		return nil
	}
}

// PaymentsHandler keeps the projection of customer payments that deposits
// are matched to (app.Banking.ApplyPaymentEvent); it runs after
// PostingHandler in the same inbox transaction.
func PaymentsHandler(b *app.Banking) consumer.Handler {
	return func(ctx context.Context, tx bun.Tx, e events.Event) error {
		return b.ApplyPaymentEvent(pgdb.WithTx(ctx, tx), e)
	}
}
