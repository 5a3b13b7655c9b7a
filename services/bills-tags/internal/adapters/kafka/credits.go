package kafka

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

var _ app.CreditPublisher = Publisher{}

// VendorCreditUpserted implements app.CreditPublisher: the credit's
// snapshot (allocations included) and its posting (version c.Version,
// never without lines).
func (Publisher) VendorCreditUpserted(ctx context.Context, db bun.IDB, c bill.Credit) error {
	posting := c.Posting()
	if err := posting.Check(); err != nil {
		return fmt.Errorf("vendor credit %s: %w", c.ID, err)
	}
	evt, err := events.New(events.TopicBills, events.TypeVendorCreditUpserted, Source, c.BusinessID,
		events.VendorCreditUpserted{BusinessID: c.BusinessID, VendorCredit: c.Snapshot(), Posting: posting})
	if err != nil {
		return fmt.Errorf("vendor credit event: %w", err)
	}
	return outbox.Enqueue(ctx, db, evt)
}
