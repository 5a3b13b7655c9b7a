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

// PaymentInvoice is the payment kind of the invoicing service's payments.
const PaymentInvoice = "INVOICE_PAYMENT"

// InvoicingHandler keeps the invoice payments of acct.invoicing.v1 (what
// each paid on which invoice, and when) for the cash basis; the invoices'
// own figures come from their ledger entries, and the topic's other event
// types are ignored.
func InvoicingHandler(r *app.Reports) consumer.Handler {
	return func(ctx context.Context, tx bun.Tx, e events.Event) error {
		switch e.Type {
		case events.TypeInvoicePaymentUpserted:
			var p events.InvoicePaymentUpserted
			if err := e.Decode(&p); err != nil {
				return err
			}
			s := p.Payment
			if s.ID == uuid.Nil || s.BusinessID == uuid.Nil || s.Version <= 0 || s.PaidAt.IsZero() {
				return fmt.Errorf("invoice_payment.upserted %s: payment id, business id, a positive version and paid_at are required", e.ID)
			}
			pay := app.Payment{BusinessID: s.BusinessID, Type: PaymentInvoice, ID: s.ID, Version: s.Version, Day: app.UTCDay(s.PaidAt)}
			for _, a := range s.Allocations {
				if a.InvoiceID == uuid.Nil {
					return fmt.Errorf("invoice_payment.upserted %s: an allocation has no invoice id", e.ID)
				}
				pay.Paid = append(pay.Paid, app.PaidDoc{DocID: a.InvoiceID.String(), Amount: a.Amount})
			}
			return r.ApplyPayment(pgdb.WithTx(ctx, tx), pay, e.Time)
		case events.TypeInvoicePaymentDeleted:
			var p events.InvoicePaymentDeleted
			if err := e.Decode(&p); err != nil {
				return err
			}
			if p.PaymentID == uuid.Nil || p.BusinessID == uuid.Nil || p.Posting == nil || p.Posting.Version <= 0 {
				return fmt.Errorf("invoice_payment.deleted %s: payment id, business id and the posting's version are required", e.ID)
			}
			return r.ApplyPayment(pgdb.WithTx(ctx, tx), app.Payment{BusinessID: p.BusinessID, Type: PaymentInvoice, ID: p.PaymentID,
				Version: p.Posting.Version, Deleted: true}, e.Time)
		}
		return nil
	}
}
