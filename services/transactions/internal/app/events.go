package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// Source is the CloudEvents source of the service's events.
const Source = "acct/transactions"

// DateLayout is the layout of an event's calendar date.
const DateLayout = "2006-01-02"

// entryEvents are the ledger.entry.posted events of es (acct.ledger.v1),
// keyed by the business so a business's entries keep their order.
// accounts supplies the ancestry of the lines' accounts.
func entryEvents(es []domain.Entry, accounts map[uuid.UUID]domain.Account) ([]events.Event, error) {
	out := make([]events.Event, len(es))
	for i, e := range es {
		evt, err := events.New(events.TopicLedger, events.TypeLedgerEntryPosted, Source, e.BusinessID, EntryPayload(e, accounts))
		if err != nil {
			return nil, fmt.Errorf("ledger event: %w", err)
		}
		out[i] = evt
	}
	return out, nil
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

// publishAccounts publishes one ledger_accounts.upserted on
// acct.accounts.v1 with the current state of accounts of one business
// (created, renamed, archived; a seeded chart at once).
func (l *Ledger) publishAccounts(ctx context.Context, businessID uuid.UUID, accounts []domain.Account) error {
	if len(accounts) == 0 {
		return nil
	}
	evt, err := events.New(events.TopicAccounts, events.TypeLedgerAccountsUpserted, Source, businessID, AccountsPayload(businessID, accounts))
	if err != nil {
		return fmt.Errorf("accounts event: %w", err)
	}
	return l.pub.Publish(ctx, evt)
}

// AccountsPayload is the snapshot of accounts of one business.
func AccountsPayload(businessID uuid.UUID, accounts []domain.Account) events.LedgerAccountsUpserted {
	payload := events.LedgerAccountsUpserted{BusinessID: businessID, Accounts: make([]events.LedgerAccountSnapshot, len(accounts))}
	for i, a := range accounts {
		payload.Accounts[i] = events.LedgerAccountSnapshot{ID: a.ID, StableName: a.StableName, Name: a.Name,
			AccountType: string(a.Type), ParentID: a.ParentID, Archived: a.Archived(), UpdatedAt: a.UpdatedAt}
	}
	return payload
}

// publishTransactions publishes one bank_transaction.upserted event
// (acct.transactions.v1) per transaction, together.
func (b *Banking) publishTransactions(ctx context.Context, txns ...banking.BankTransaction) error {
	evts := make([]events.Event, 0, len(txns))
	for _, t := range txns {
		evt, err := events.New(events.TopicTransactions, events.TypeBankTransactionUpserted, Source, t.BusinessID, TransactionPayload(t))
		if err != nil {
			return fmt.Errorf("transaction event: %w", err)
		}
		evts = append(evts, evt)
	}
	return b.pub.Publish(ctx, evts...)
}

// TransactionPayload is the snapshot of t.
func TransactionPayload(t banking.BankTransaction) events.BankTransactionUpserted {
	signed := int64(t.Amount)
	if !t.Direction.MoneyIn() {
		signed = -signed
	}
	p := events.BankTransactionUpserted{
		TransactionID: t.ID, BusinessID: t.BusinessID, Version: t.Version, Source: string(t.Source),
		SourceTransactionID: t.SourceTransactionID, SourceAccountID: t.SourceAccountID,
		ExternalAccountID: t.ExternalAccountID, CustomAccountID: t.CustomAccountID, AccountName: t.AccountName,
		AccountMask: t.AccountMask, LedgerAccountID: t.LedgerAccountID, Date: t.Date.UTC().Format(DateLayout),
		DateTime: t.Date, Description: t.Description, CounterpartyName: t.CounterpartyName,
		Direction: string(t.Direction), Amount: int64(t.Amount), SignedAmount: signed, Status: string(t.Status),
		TaxCode: t.TaxCode, Tags: events.LedgerTagsOf(t.Tags), Memo: t.Memo, ReferenceNumber: t.ReferenceNumber,
		Metadata: t.Metadata, ImportedAt: t.ImportedAt, UpdatedAt: t.UpdatedAt, Splits: []events.BankSplit{},
		CustomerID: t.CustomerID, CustomerExternalID: t.CustomerExternalID, VendorID: t.VendorID,
		VendorExternalID: t.VendorExternalID, CounterpartyID: t.CounterpartyID(), ArchivedAt: t.ArchivedAt,
	}
	if t.Method != nil {
		m := string(*t.Method)
		p.Method = &m
	}
	if c := t.Category; c != nil {
		if c.Split {
			for _, e := range c.Entries {
				p.Splits = append(p.Splits, events.BankSplit{Amount: int64(e.Amount), Category: bankCategory(e), Tags: events.LedgerTagsOf(e.Tags)})
			}
			p.Category = &events.BankCategory{DisplayName: "Split"}
		} else if len(c.Entries) == 1 {
			bc := bankCategory(c.Entries[0])
			p.Category = &bc
		}
	}
	return p
}

func bankCategory(e banking.TxnCategoryEntry) events.BankCategory {
	return events.BankCategory{AccountID: e.AccountID, StableName: e.StableName, ExclusionType: e.ExclusionType, DisplayName: e.DisplayName}
}
