// Package kafka is the reports service's event adapter: the acct.ledger.v1
// consumer that feeds the read model. (The business projection is the
// kit's: Definition.Businesses.)
package kafka

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/reports/internal/app"
)

// LedgerHandler applies ledger.entry.posted events in the inbox
// transaction; other event types of the topic are ignored.
func LedgerHandler(r *app.Reports) consumer.Handler {
	return func(ctx context.Context, tx bun.Tx, e events.Event) error {
		if e.Type != events.TypeLedgerEntryPosted {
			return nil
		}
		var p events.LedgerEntryPosted
		if err := e.Decode(&p); err != nil {
			return err
		}
		if p.EntryID == uuid.Nil || p.BusinessID == uuid.Nil {
			return fmt.Errorf("ledger.entry.posted %s: entry and business ids are required", e.ID)
		}
		return r.ApplyEntry(ctx, tx, p, e.Time)
	}
}
