package kafka

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// TxnPublisher enqueues acct.transactions.v1 snapshots in the caller's
// transaction (the outbox).
type TxnPublisher struct{}

var _ app.TxnPublisher = TxnPublisher{}

// TransactionsUpserted implements app.TxnPublisher: one
// bank_transaction.upserted event per transaction, enqueued together.
func (TxnPublisher) TransactionsUpserted(ctx context.Context, db bun.IDB, txns []banking.BankTransaction) error {
	evts := make([]events.Event, 0, len(txns))
	for _, t := range txns {
		evt, err := events.New(events.TopicTransactions, events.TypeBankTransactionUpserted, Source, t.BusinessID, TransactionPayload(t))
		if err != nil {
			return fmt.Errorf("transaction event: %w", err)
		}
		evts = append(evts, evt)
	}
	return outbox.Enqueue(ctx, db, evts...)
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
		VendorExternalID: t.VendorExternalID,
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
