// Package kafka is the transactions service's event adapter: the ledger's
// events encoded for acct.ledger.v1 (enqueued through the transactional
// outbox, never published directly) and the handlers of the events it
// consumes.
package kafka

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// Source is the CloudEvents source of the service's events.
const Source = "acct/transactions"

// DateLayout is the layout of an event's calendar date.
const DateLayout = "2006-01-02"

// Publisher implements app.Publisher with the outbox.
type Publisher struct{}

var _ app.Publisher = Publisher{}

// EntriesPosted implements app.Publisher: ledger.entry.posted per entry,
// keyed by the business so a business's entries keep their order, in one
// outbox write.
func (Publisher) EntriesPosted(ctx context.Context, db bun.IDB, es []domain.Entry, accounts map[uuid.UUID]domain.Account) error {
	evts := make([]events.Event, len(es))
	for i, e := range es {
		evt, err := events.New(events.TopicLedger, events.TypeLedgerEntryPosted, Source, e.BusinessID, EntryPayload(e, accounts))
		if err != nil {
			return fmt.Errorf("ledger event: %w", err)
		}
		evts[i] = evt
	}
	return outbox.Enqueue(ctx, db, evts...)
}

// EntryPayload is the event payload of a posted entry. accounts supplies
// the ancestry of the lines' accounts (an account missing from it has no
// ancestors in the payload).
func EntryPayload(e domain.Entry, accounts map[uuid.UUID]domain.Account) events.LedgerEntryPosted {
	entryTags := events.LedgerTagsOf(e.Tags)
	p := events.LedgerEntryPosted{
		EntryID: e.ID, BusinessID: e.BusinessID, LedgerID: domain.LedgerID(e.BusinessID), EntryNumber: e.EntryNumber,
		EntryType: string(e.EntryType), Agent: string(e.Agent), Date: e.Date.UTC().Format(DateLayout),
		EntryAt: e.EntryAt, SourceType: e.Source.Type, SourceID: e.Source.ID, SourceVersion: e.Source.Version,
		ReversalOfID: e.ReversalOfID, Memo: e.Memo, Tags: entryTags, Lines: make([]events.LedgerLine, len(e.Lines)),
		CreatedAt: e.CreatedAt, Metadata: e.Metadata,
	}
	for i, l := range e.Lines {
		ancestors := []events.LedgerAccountRef{}
		for _, a := range domain.Ancestors(accounts, l.Account.ID) {
			ancestors = append(ancestors, events.LedgerAccountRef{AccountID: a.ID, StableName: a.StableName, Name: a.Name})
		}
		p.Lines[i] = events.LedgerLine{
			LineID: l.ID, AccountID: l.Account.ID, AccountName: l.Account.Name, StableName: l.Account.StableName,
			AccountType: string(l.Account.Type), AccountSubtype: l.Account.Subtype, Normality: string(l.Account.Normality),
			Ancestors: ancestors, Direction: string(l.Direction), Amount: int64(l.Amount), SignedAmount: int64(l.Signed()),
			Memo: l.Memo, Tags: events.LedgerTagsOf(e.LineTags(i)),
		}
	}
	return p
}

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
		return l.SeedChart(ctx, tx, b)
	}
}

// postingCarrier is what PostingHandler reads of any document event: the
// ledger posting it carries, if any (customer snapshots carry none).
type postingCarrier struct {
	BusinessID uuid.UUID             `json:"business_id"`
	Posting    *events.LedgerPosting `json:"posting"`
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
		if c.Posting == nil {
			return nil
		}
		businessID, err := uuid.Parse(e.Subject)
		if err != nil {
			return fmt.Errorf("event %s (%s): subject %q is not a business id", e.ID, e.Type, e.Subject)
		}
		res, err := l.ApplyPosting(ctx, tx, businessID, *c.Posting)
		if err != nil {
			return fmt.Errorf("event %s (%s): %w", e.ID, e.Type, err)
		}
		logger.DebugContext(ctx, "ledger posting applied", "event_id", e.ID, "type", e.Type, "business_id", businessID,
			"source_type", c.Posting.SourceType, "source_id", c.Posting.SourceID, "version", c.Posting.Version, "result", string(res))
		return nil
	}
}

// PaymentsHandler keeps the projection of customer payments that deposits
// are matched to (app.Banking.ApplyPaymentEvent); it runs after
// PostingHandler in the same inbox transaction.
func PaymentsHandler(b *app.Banking) consumer.Handler {
	return func(ctx context.Context, tx bun.Tx, e events.Event) error {
		return b.ApplyPaymentEvent(ctx, tx, e)
	}
}

// AccountsUpserted implements app.Publisher: one ledger_accounts.upserted
// on acct.accounts.v1 with the accounts' current state.
func (Publisher) AccountsUpserted(ctx context.Context, db bun.IDB, businessID uuid.UUID, accounts []domain.Account) error {
	if len(accounts) == 0 {
		return nil
	}
	payload := events.LedgerAccountsUpserted{BusinessID: businessID, Accounts: make([]events.LedgerAccountSnapshot, len(accounts))}
	for i, a := range accounts {
		payload.Accounts[i] = events.LedgerAccountSnapshot{ID: a.ID, StableName: a.StableName, Name: a.Name,
			AccountType: string(a.Type), ParentID: a.ParentID, Archived: a.Archived(), UpdatedAt: a.UpdatedAt}
	}
	evt, err := events.New(events.TopicAccounts, events.TypeLedgerAccountsUpserted, Source, businessID, payload)
	if err != nil {
		return fmt.Errorf("accounts event: %w", err)
	}
	return outbox.Enqueue(ctx, db, evt)
}
