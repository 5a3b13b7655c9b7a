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
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// PaymentBill is the payment kind of the bills service's payments.
const PaymentBill = "BILL_PAYMENT"

// BillsHandler keeps what the bills service's payments and vendor credits
// paid on which bill, and when (acct.bills.v1), for the cash basis and the
// A/P aging, and for the aging the bills' vendors and due dates and the
// vendors' names; the documents' own figures come from their ledger
// entries, and the topic's other event types are ignored. A vendor credit
// applied to bills counts as a payment of those bills on the credit's day,
// and as the use of as much of the credit itself.
func BillsHandler(r *app.Reports) consumer.Handler {
	return func(ctx context.Context, tx bun.Tx, e events.Event) error {
		switch e.Type {
		case events.TypeBillPaymentUpserted:
			var p events.BillPaymentUpserted
			if err := e.Decode(&p); err != nil {
				return err
			}
			s := p.Payment
			if s.ID == uuid.Nil || s.BusinessID == uuid.Nil || s.Version <= 0 || s.PaidAt.IsZero() {
				return fmt.Errorf("bill_payment.upserted %s: payment id, business id, a positive version and paid_at are required", e.ID)
			}
			pay := app.Payment{BusinessID: s.BusinessID, Type: PaymentBill, ID: s.ID, Version: s.Version, Day: app.UTCDay(s.PaidAt)}
			for _, a := range s.Allocations {
				if a.BillID == uuid.Nil {
					return fmt.Errorf("bill_payment.upserted %s: an allocation has no bill id", e.ID)
				}
				pay.Paid = append(pay.Paid, app.PaidDoc{DocID: a.BillID.String(), Amount: a.Amount})
			}
			return r.ApplyPaymentAndAging(pgdb.WithTx(ctx, tx), pay, e.Time)
		case events.TypeBillPaymentDeleted:
			var p events.BillPaymentDeleted
			if err := e.Decode(&p); err != nil {
				return err
			}
			if p.PaymentID == uuid.Nil || p.BusinessID == uuid.Nil || p.Posting == nil || p.Posting.Version <= 0 {
				return fmt.Errorf("bill_payment.deleted %s: payment id, business id and the posting's version are required", e.ID)
			}
			return r.ApplyPaymentAndAging(pgdb.WithTx(ctx, tx), app.Payment{BusinessID: p.BusinessID, Type: PaymentBill, ID: p.PaymentID,
				Version: p.Posting.Version, Deleted: true}, e.Time)
		case events.TypeVendorCreditUpserted:
			var p events.VendorCreditUpserted
			if err := e.Decode(&p); err != nil {
				return err
			}
			c := p.VendorCredit
			if c.ID == uuid.Nil || c.BusinessID == uuid.Nil || c.Version <= 0 || c.ReceivedAt.IsZero() {
				return fmt.Errorf("vendor_credit.upserted %s: credit id, business id, a positive version and received_at are required", e.ID)
			}
			day := app.UTCDay(c.ReceivedAt)
			// A voided credit (its posting without lines) applies to nothing.
			voided := p.Posting != nil && len(p.Posting.Lines) == 0
			toBills := app.Payment{BusinessID: c.BusinessID, Type: domain.PaymentCreditToBills, ID: c.ID, Version: c.Version, Day: day, Deleted: voided}
			var applied int64
			for _, a := range c.Allocations {
				if a.BillID == uuid.Nil {
					return fmt.Errorf("vendor_credit.upserted %s: an allocation has no bill id", e.ID)
				}
				toBills.Paid = append(toBills.Paid, app.PaidDoc{DocID: a.BillID.String(), Amount: a.Amount})
				applied += a.Amount
			}
			if err := r.ApplyPaymentAndAging(pgdb.WithTx(ctx, tx), toBills, e.Time); err != nil {
				return err
			}
			used := app.Payment{BusinessID: c.BusinessID, Type: domain.PaymentCreditUsed, ID: c.ID, Version: c.Version, Day: day, Deleted: voided,
				Paid: []app.PaidDoc{{DocID: c.ID.String(), Amount: applied}}}
			return r.ApplyPaymentAndAging(pgdb.WithTx(ctx, tx), used, e.Time)
		case events.TypeBillUpserted:
			var p events.BillUpserted
			if err := e.Decode(&p); err != nil {
				return err
			}
			b := p.Bill
			if b.ID == uuid.Nil || b.BusinessID == uuid.Nil || b.Version <= 0 || b.ReceivedAt.IsZero() {
				return fmt.Errorf("bill.upserted %s: bill id, business id, a positive version and received_at are required", e.ID)
			}
			return r.ApplyAgingDocument(pgdb.WithTx(ctx, tx), b.BusinessID,
				app.NewAgingDocument(domain.AgingAP, b.ID, b.VendorID, b.ReceivedAt, b.DueAt, b.Version), e.Time)
		case events.TypeVendorUpserted:
			var p events.VendorUpserted
			if err := e.Decode(&p); err != nil {
				return err
			}
			if p.VendorID == uuid.Nil || p.BusinessID == uuid.Nil || p.Version <= 0 {
				return fmt.Errorf("vendor.upserted %s: vendor id, business id and a positive version are required", e.ID)
			}
			return r.ApplyAgingParty(pgdb.WithTx(ctx, tx), p.BusinessID, domain.AgingAP, p.VendorID, p.DisplayName, int64(p.Version))
		}
		return nil
	}
}
