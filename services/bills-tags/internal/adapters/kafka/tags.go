// Package kafka is the bills-tags service's event consumers: the tag
// registry learning the tags the suite's events carry. Each handler runs
// in the consumer's inbox transaction and calls the app with it in the
// context (pgdb.WithTx), so the app's stores write in it. (The events the
// service publishes are built in app and enqueued through the outbox; the
// business projection it consumes is the kit's: Definition.Businesses.)
package kafka

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/tagreg"
)

// RegistryTopics are the topics whose events carry the tags the registry
// learns: every posted ledger line (acct.ledger.v1: each tag posted
// anywhere), bank transactions (tags of uncategorized ones never reach the
// ledger), customers and invoicing documents, and this service's vendors
// and documents. Only the events' payloads are read, never another
// service's tables.
var RegistryTopics = []string{events.TopicLedger, events.TopicTransactions, events.TopicInvoicing, events.TopicBills}

// RegistryHandler teaches the registry the tags of a batch of events (one
// event, or several in one transaction): one multi-row insert of what the
// registry lacks, so a redelivery or a replay changes nothing. Event
// types without tags are ignored; a tag breaking the tag rules is skipped
// (and logged) rather than sending the event to the dead letters.
func RegistryHandler(t *app.Tags, logger *slog.Logger) consumer.BatchHandler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return func(ctx context.Context, tx bun.Tx, es []events.Event) error {
		var c tagreg.Collector
		for _, e := range es {
			if err := collect(&c, e); err != nil {
				return err
			}
		}
		if c.Skipped > 0 {
			logger.WarnContext(ctx, "tags breaking the tag rules skipped", slog.Int("count", c.Skipped))
		}
		return t.Learn(pgdb.WithTx(ctx, tx), c.Learned())
	}
}

// RegistryEventHandler is RegistryHandler for one event at a time (tests
// and the kit's one-by-one retry of a failed batch use the batch form).
func RegistryEventHandler(t *app.Tags, logger *slog.Logger) consumer.Handler {
	return RegistryHandler(t, logger).Single()
}

func ledgerTags(c *tagreg.Collector, bid uuid.UUID, ts []events.LedgerTag) {
	for _, t := range ts {
		c.Add(bid, t.Key, t.Value, t.DimensionDisplayName, t.ValueDisplayName)
	}
}

func postingTags(c *tagreg.Collector, bid uuid.UUID, p *events.LedgerPosting) {
	if p == nil {
		return
	}
	for _, l := range p.Lines {
		c.AddKeyValues(bid, l.Tags)
	}
}

// ledgerEntryTags is what the registry reads of a ledger.entry.posted:
// its business and the tags of the entry and of each line (the fields
// of events.LedgerEntryPosted of the same names).
type ledgerEntryTags struct {
	BusinessID uuid.UUID          `json:"business_id"`
	Tags       []events.LedgerTag `json:"tags"`
	Lines      []struct {
		Tags []events.LedgerTag `json:"tags"`
	} `json:"lines"`
}

// tagKeyField is the key every tag object has, however the payload is
// spaced (it went through a jsonb column).
var tagKeyField = []byte(`"key"`)

// collect records the tags of one event; a payload that does not decode
// is an error (the event goes to the dead letters, as in every consumer).
func collect(c *tagreg.Collector, e events.Event) error {
	decode := func(v any) error {
		if err := e.Decode(v); err != nil {
			return fmt.Errorf("tag registry: %w", err)
		}
		return nil
	}
	switch e.Type {
	case events.TypeLedgerEntryPosted:
		// Most entries carry no tag: every tag object has a "key", so an
		// entry whose payload has none teaches nothing and is not decoded.
		if !bytes.Contains(e.Data, tagKeyField) {
			return nil
		}
		// Only the tags: the rest of an entry (its accounts, ancestors
		// and amounts, most of its payload) is skipped over, not built.
		var p ledgerEntryTags
		if err := decode(&p); err != nil {
			return err
		}
		ledgerTags(c, p.BusinessID, p.Tags)
		for _, l := range p.Lines {
			ledgerTags(c, p.BusinessID, l.Tags)
		}
	case events.TypeBankTransactionUpserted:
		var p events.BankTransactionUpserted
		if err := decode(&p); err != nil {
			return err
		}
		ledgerTags(c, p.BusinessID, p.Tags)
		for _, s := range p.Splits {
			ledgerTags(c, p.BusinessID, s.Tags)
		}
	case events.TypeCustomerUpserted:
		var p events.CustomerUpserted
		if err := decode(&p); err != nil {
			return err
		}
		ledgerTags(c, p.BusinessID, p.Tags)
	case events.TypeInvoiceUpserted:
		var p events.InvoiceUpserted
		if err := decode(&p); err != nil {
			return err
		}
		c.AddKeyValues(p.BusinessID, p.Invoice.Tags)
		postingTags(c, p.BusinessID, p.Posting)
	case events.TypeInvoicePaymentUpserted:
		var p events.InvoicePaymentUpserted
		if err := decode(&p); err != nil {
			return err
		}
		c.AddKeyValues(p.BusinessID, p.Payment.Tags)
		postingTags(c, p.BusinessID, p.Posting)
	case events.TypeInvoiceWriteOffUpserted:
		var p events.InvoiceWriteOffUpserted
		if err := decode(&p); err != nil {
			return err
		}
		c.AddKeyValues(p.BusinessID, p.WriteOff.Tags)
		postingTags(c, p.BusinessID, p.Posting)
	case events.TypeVendorUpserted:
		var p events.VendorUpserted
		if err := decode(&p); err != nil {
			return err
		}
		ledgerTags(c, p.BusinessID, p.Tags)
	case events.TypeBillUpserted:
		var p events.BillUpserted
		if err := decode(&p); err != nil {
			return err
		}
		c.AddKeyValues(p.BusinessID, p.Bill.Tags)
		postingTags(c, p.BusinessID, p.Posting)
	case events.TypeBillPaymentUpserted:
		var p events.BillPaymentUpserted
		if err := decode(&p); err != nil {
			return err
		}
		c.AddKeyValues(p.BusinessID, p.Payment.Tags)
		postingTags(c, p.BusinessID, p.Posting)
	case events.TypeVendorCreditUpserted:
		var p events.VendorCreditUpserted
		if err := decode(&p); err != nil {
			return err
		}
		c.AddKeyValues(p.BusinessID, p.VendorCredit.Tags)
		postingTags(c, p.BusinessID, p.Posting)
	}
	return nil
}
