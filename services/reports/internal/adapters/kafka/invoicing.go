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

// PaymentInvoice is the payment kind of the invoicing service's payments.
const PaymentInvoice = "INVOICE_PAYMENT"

// InvoicingHandler keeps the invoice payments of acct.invoicing.v1 (what
// each paid on which invoice, and when) for the cash basis and the A/R
// aging, and for the aging the invoices' customers and due dates, the
// write-offs' invoices and the customers' names; the invoices' own figures
// come from their ledger entries, and the topic's other event types are
// ignored.
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
			return r.ApplyPaymentAndAging(pgdb.WithTx(ctx, tx), pay, e.Time)
		case events.TypeInvoicePaymentDeleted:
			var p events.InvoicePaymentDeleted
			if err := e.Decode(&p); err != nil {
				return err
			}
			if p.PaymentID == uuid.Nil || p.BusinessID == uuid.Nil || p.Posting == nil || p.Posting.Version <= 0 {
				return fmt.Errorf("invoice_payment.deleted %s: payment id, business id and the posting's version are required", e.ID)
			}
			return r.ApplyPaymentAndAging(pgdb.WithTx(ctx, tx), app.Payment{BusinessID: p.BusinessID, Type: PaymentInvoice, ID: p.PaymentID,
				Version: p.Posting.Version, Deleted: true}, e.Time)
		case events.TypeInvoiceUpserted:
			var p events.InvoiceUpserted
			if err := e.Decode(&p); err != nil {
				return err
			}
			inv := p.Invoice
			if inv.ID == uuid.Nil || inv.BusinessID == uuid.Nil || inv.Version <= 0 || inv.SentAt.IsZero() {
				return fmt.Errorf("invoice.upserted %s: invoice id, business id, a positive version and sent_at are required", e.ID)
			}
			return r.ApplyAgingDocument(pgdb.WithTx(ctx, tx), inv.BusinessID,
				app.NewAgingDocument(domain.AgingAR, inv.ID, inv.CustomerID, inv.SentAt, inv.DueAt, inv.Version), e.Time)
		case events.TypeInvoiceWriteOffUpserted:
			var p events.InvoiceWriteOffUpserted
			if err := e.Decode(&p); err != nil {
				return err
			}
			w := p.WriteOff
			if w.ID == uuid.Nil || w.BusinessID == uuid.Nil || w.InvoiceID == uuid.Nil || w.Version <= 0 {
				return fmt.Errorf("invoice_write_off.upserted %s: write-off id, business id, invoice id and a positive version are required", e.ID)
			}
			return r.ApplyWriteOff(pgdb.WithTx(ctx, tx), w.BusinessID, w.ID, w.InvoiceID, w.Version, e.Time)
		case events.TypeCustomerUpserted:
			var p events.CustomerUpserted
			if err := e.Decode(&p); err != nil {
				return err
			}
			if p.CustomerID == uuid.Nil || p.BusinessID == uuid.Nil || p.Version <= 0 {
				return fmt.Errorf("customer.upserted %s: customer id, business id and a positive version are required", e.ID)
			}
			return r.ApplyAgingParty(pgdb.WithTx(ctx, tx), p.BusinessID, domain.AgingAR, p.CustomerID, p.DisplayName, int64(p.Version))
		}
		return nil
	}
}
