// Package kafka turns the domain topics' events into the webhooks
// service's changes (domain.Change) and applies them in the consumer's
// transaction. It reads only the events' payloads, never another
// service's schema.
package kafka

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/webhooks/internal/app"
	"github.com/acctsuite/acct/services/webhooks/internal/domain"
)

// Topics are the domain topics the service turns into webhooks.
var Topics = []string{
	events.TopicTransactions, events.TopicLedger, events.TopicInvoicing, events.TopicBills, events.TopicMileage, events.TopicAccounts,
}

// BatchHandler applies a batch of one partition's events of Topics at
// once (app.ApplyBatch: a few statements for the whole batch). Event
// types it does not know are ignored: a producer may add types before
// this service knows them. An event it cannot read fails the batch, whose
// events are then applied one at a time (the bad one goes to the DLQ).
func BatchHandler(w *app.Webhooks) consumer.BatchHandler {
	return func(ctx context.Context, tx bun.Tx, es []events.Event) error {
		batch := make([]app.Sourced, 0, len(es))
		for _, e := range es {
			changes, err := Changes(e)
			if err != nil {
				return err
			}
			if len(changes) > 0 {
				batch = append(batch, app.Sourced{Source: e.ID, Changes: changes})
			}
		}
		if len(batch) == 0 {
			return nil
		}
		return w.ApplyBatch(pgdb.WithTx(ctx, tx), batch)
	}
}

// BusinessHandler applies business.created and business.updated, after
// the kit's business projection has stored the business in the same
// transaction, and fans out what waited for it.
func BusinessHandler(w *app.Webhooks) consumer.Handler {
	return func(ctx context.Context, tx bun.Tx, e events.Event) error {
		changes, err := Changes(e)
		if err != nil || len(changes) == 0 {
			return err
		}
		ctx = pgdb.WithTx(ctx, tx)
		if err := w.Apply(ctx, e.ID, changes); err != nil {
			return err
		}
		return w.BusinessKnown(ctx, changes[0].BusinessID)
	}
}

// need checks the ids every change needs.
func need(e events.Event, bid uuid.UUID, id uuid.UUID) error {
	if bid == uuid.Nil || id == uuid.Nil {
		return fmt.Errorf("%s %s: business id and entity id are required", e.Type, e.ID)
	}
	return nil
}

func change(e events.Event, bid uuid.UUID, entity string, id uuid.UUID, ext *string, version int64, archived bool) domain.Change {
	return domain.Change{BusinessID: bid, Entity: entity, EntityID: id.String(), ExternalID: ext, Version: version,
		Initial: version == 1, Archived: archived, At: e.Time}
}

// Changes are the changes event e makes (none for a type the service does
// not turn into webhooks).
func Changes(e events.Event) ([]domain.Change, error) {
	one := func(c domain.Change, err error) ([]domain.Change, error) {
		if err != nil {
			return nil, err
		}
		return []domain.Change{c}, nil
	}
	switch e.Type {
	case events.TypeBusinessCreated, events.TypeBusinessUpdated:
		var p events.Business
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		c := change(e, p.ID, domain.EntityBusiness, p.ID, p.ExternalID, 0, false)
		// business events carry no version: the event's time orders them.
		c.Version, c.Initial = e.Time.UnixMicro(), e.Type == events.TypeBusinessCreated
		return one(c, need(e, p.ID, p.ID))
	case events.TypeBankTransactionUpserted:
		var p events.BankTransactionUpserted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		return one(change(e, p.BusinessID, domain.EntityBankTransaction, p.TransactionID, nil, int64(p.Version), false),
			need(e, p.BusinessID, p.TransactionID))
	case events.TypeLedgerEntryPosted:
		// Only the ids: an entry's lines (most of its payload) are skipped
		// over, not built.
		var p struct {
			BusinessID uuid.UUID `json:"business_id"`
			EntryID    uuid.UUID `json:"entry_id"`
		}
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		return one(domain.Change{BusinessID: p.BusinessID, EntityID: p.EntryID.String(), Fixed: domain.TypeJournalEntryPosted, At: e.Time},
			need(e, p.BusinessID, p.EntryID))
	case events.TypeLedgerAccountsUpserted:
		var p events.LedgerAccountsUpserted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		out := make([]domain.Change, 0, len(p.Accounts))
		for _, a := range p.Accounts {
			if err := need(e, p.BusinessID, a.ID); err != nil {
				return nil, err
			}
			c := change(e, p.BusinessID, domain.EntityGeneralLedgerAccount, a.ID, nil, a.UpdatedAt.UnixMicro(), a.Archived)
			// Accounts carry no version: UpdatedAt orders them, and the
			// first seen of an account is its creation.
			c.Initial = true
			c.Key = domain.EntityGeneralLedgerAccount + "/" + a.ID.String()
			out = append(out, c)
		}
		return out, nil
	case events.TypeCustomerUpserted:
		var p events.CustomerUpserted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		return one(change(e, p.BusinessID, domain.EntityCustomer, p.CustomerID, p.ExternalID, int64(p.Version), p.Status == "ARCHIVED"),
			need(e, p.BusinessID, p.CustomerID))
	case events.TypeInvoiceUpserted:
		var p events.InvoiceUpserted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		s := p.Invoice
		return one(change(e, p.BusinessID, domain.EntityInvoice, s.ID, s.ExternalID, s.Version, s.Status == "VOIDED"),
			need(e, p.BusinessID, s.ID))
	case events.TypeInvoiceDeleted:
		var p events.InvoiceDeleted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		return one(change(e, p.BusinessID, domain.EntityInvoice, p.InvoiceID, nil, 0, true), need(e, p.BusinessID, p.InvoiceID))
	case events.TypeInvoicePaymentUpserted:
		var p events.InvoicePaymentUpserted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		s := p.Payment
		return one(change(e, p.BusinessID, domain.EntityInvoicePayment, s.ID, s.ExternalID, s.Version, false), need(e, p.BusinessID, s.ID))
	case events.TypeInvoicePaymentDeleted:
		var p events.InvoicePaymentDeleted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		return one(change(e, p.BusinessID, domain.EntityInvoicePayment, p.PaymentID, nil, 0, true), need(e, p.BusinessID, p.PaymentID))
	case events.TypeInvoiceWriteOffUpserted:
		var p events.InvoiceWriteOffUpserted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		s := p.WriteOff
		return one(change(e, p.BusinessID, domain.EntityInvoiceWriteOff, s.ID, s.ExternalID, s.Version, s.Voided), need(e, p.BusinessID, s.ID))
	case events.TypeVendorUpserted:
		var p events.VendorUpserted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		return one(change(e, p.BusinessID, domain.EntityVendor, p.VendorID, p.ExternalID, int64(p.Version), p.Status == "ARCHIVED"),
			need(e, p.BusinessID, p.VendorID))
	case events.TypeBillUpserted:
		var p events.BillUpserted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		s := p.Bill
		return one(change(e, p.BusinessID, domain.EntityBill, s.ID, s.ExternalID, s.Version, s.Status == "VOIDED"), need(e, p.BusinessID, s.ID))
	case events.TypeBillPaymentUpserted:
		var p events.BillPaymentUpserted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		s := p.Payment
		return one(change(e, p.BusinessID, domain.EntityBillPayment, s.ID, s.ExternalID, s.Version, false), need(e, p.BusinessID, s.ID))
	case events.TypeBillPaymentDeleted:
		var p events.BillPaymentDeleted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		return one(change(e, p.BusinessID, domain.EntityBillPayment, p.PaymentID, nil, 0, true), need(e, p.BusinessID, p.PaymentID))
	case events.TypeVendorCreditUpserted:
		var p events.VendorCreditUpserted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		s := p.VendorCredit
		return one(change(e, p.BusinessID, domain.EntityVendorCredit, s.ID, s.ExternalID, s.Version, false), need(e, p.BusinessID, s.ID))
	case events.TypeReceiptParsed:
		var p events.ReceiptParsed
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		return one(domain.Change{BusinessID: p.BusinessID, EntityID: p.ReceiptID.String(), Fixed: domain.TypeReceiptParsed, At: e.Time},
			need(e, p.BusinessID, p.ReceiptID))
	case events.TypeVehicleUpserted:
		var p events.VehicleUpserted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		return one(change(e, p.BusinessID, domain.EntityVehicle, p.VehicleID, p.ExternalID, int64(p.Version), p.ArchivedAt != nil || p.DeletedAt != nil),
			need(e, p.BusinessID, p.VehicleID))
	case events.TypeTripUpserted, events.TypeTripDeleted:
		var p events.TripUpserted
		if err := e.Decode(&p); err != nil {
			return nil, err
		}
		return one(change(e, p.BusinessID, domain.EntityTrip, p.TripID, p.ExternalID, int64(p.Version), p.DeletedAt != nil),
			need(e, p.BusinessID, p.TripID))
	}
	return nil, nil
}
