package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking/autocat"
)

// insertBatch is the number of rows per multi-row INSERT: large imports
// take one statement per batch, never one per row.
const insertBatch = 1000

// bankTxnRow is a row of bank_transactions.
type bankTxnRow struct {
	bun.BaseModel `bun:"table:bank_transactions,alias:bt"`

	BusinessID          uuid.UUID            `bun:"business_id,pk,type:uuid"`
	ID                  uuid.UUID            `bun:"id,pk,type:uuid"`
	Source              string               `bun:"source"`
	SourceTransactionID string               `bun:"source_transaction_id"`
	SourceAccountID     *string              `bun:"source_account_id"`
	ExternalID          *string              `bun:"external_id"`
	CustomAccountID     *uuid.UUID           `bun:"custom_account_id,type:uuid"`
	ExternalAccountID   *uuid.UUID           `bun:"external_account_id,type:uuid"`
	LedgerAccountID     uuid.UUID            `bun:"ledger_account_id,type:uuid"`
	AccountName         *string              `bun:"account_name"`
	AccountMask         *string              `bun:"account_mask"`
	InstitutionName     *string              `bun:"institution_name"`
	TransactionType     *string              `bun:"transaction_type"`
	Date                time.Time            `bun:"date"`
	Direction           string               `bun:"direction"`
	Amount              int64                `bun:"amount"`
	CounterpartyName    *string              `bun:"counterparty_name"`
	CounterpartyKey     *string              `bun:"counterparty_key"`
	Description         *string              `bun:"description"`
	ReferenceNumber     *string              `bun:"reference_number"`
	Memo                *string              `bun:"memo"`
	Metadata            json.RawMessage      `bun:"metadata,type:jsonb"`
	Status              string               `bun:"categorization_status"`
	Method              *string              `bun:"categorization_method"`
	Category            *banking.TxnCategory `bun:"category,type:jsonb"`
	TaxCode             *string              `bun:"tax_code"`
	CustomerID          *uuid.UUID           `bun:"customer_id,type:uuid"`
	CustomerExternalID  *string              `bun:"customer_external_id"`
	VendorID            *uuid.UUID           `bun:"vendor_id,type:uuid"`
	VendorExternalID    *string              `bun:"vendor_external_id"`
	Match               *banking.TxnMatch    `bun:"match,type:jsonb"`
	ImportedAt          time.Time            `bun:"imported_at"`
	UpdatedAt           time.Time            `bun:"updated_at"`
	ArchivedAt          *time.Time           `bun:"archived_at"`
	Version             int                  `bun:"version"`

	// Read with the row by withExtras: the transaction's tags (a JSON
	// array of tags.Tag) and its live document ids, oldest first.
	TagsJSON    json.RawMessage `bun:"tags_json,scanonly"`
	DocumentIDs []string        `bun:"document_ids,array,scanonly"`
}

// withExtras makes q (a select of a few bankTxnRow) read each
// transaction's tags and live document ids in the same statement
// (correlated subqueries, evaluated for the rows returned only), so
// reading or locking a transaction is one round trip. Pages of a listing
// use loadExtras instead.
func withExtras(q *bun.SelectQuery) *bun.SelectQuery {
	return q.ColumnExpr("bt.*").
		ColumnExpr(`(SELECT coalesce(json_agg(json_build_object(
				'id', t.id, 'key', t.key, 'value', t.value, 'dimension_id', t.dimension_id,
				'definition_id', t.definition_id, 'dimension_display_name', t.dimension_display_name,
				'value_display_name', t.value_display_name, 'created_at', t.created_at, 'updated_at', t.updated_at)
				ORDER BY t.key, t.value), '[]')
			FROM bank_transaction_tags t WHERE t.business_id = bt.business_id AND t.transaction_id = bt.id) AS tags_json`).
		ColumnExpr(`(SELECT coalesce(array_agg(d.id::text ORDER BY d.created_at, d.id), '{}')
			FROM bank_transaction_documents d
			WHERE d.business_id = bt.business_id AND d.transaction_id = bt.id AND d.archived_at IS NULL) AS document_ids`)
}

// bankTxnTagRow is a row of bank_transaction_tags.
type bankTxnTagRow struct {
	bun.BaseModel `bun:"table:bank_transaction_tags,alias:btt"`

	BusinessID           uuid.UUID `bun:"business_id,pk,type:uuid"`
	ID                   uuid.UUID `bun:"id,pk,type:uuid"`
	TransactionID        uuid.UUID `bun:"transaction_id,type:uuid"`
	Key                  string    `bun:"key"`
	Value                string    `bun:"value"`
	DimensionID          uuid.UUID `bun:"dimension_id,type:uuid"`
	DefinitionID         uuid.UUID `bun:"definition_id,type:uuid"`
	DimensionDisplayName *string   `bun:"dimension_display_name"`
	ValueDisplayName     *string   `bun:"value_display_name"`
	CreatedAt            time.Time `bun:"created_at"`
	UpdatedAt            time.Time `bun:"updated_at"`
}

func toBankTxnRow(t banking.BankTransaction) bankTxnRow {
	r := bankTxnRow{
		BusinessID: t.BusinessID, ID: t.ID, Source: string(t.Source), SourceTransactionID: t.SourceTransactionID,
		SourceAccountID: t.SourceAccountID, ExternalID: t.ExternalID, CustomAccountID: t.CustomAccountID,
		ExternalAccountID: t.ExternalAccountID, LedgerAccountID: t.LedgerAccountID, AccountName: t.AccountName,
		AccountMask: t.AccountMask, InstitutionName: t.InstitutionName, TransactionType: t.TransactionType,
		Date: t.Date, Direction: string(t.Direction),
		Amount: int64(t.Amount), CounterpartyName: t.CounterpartyName, Description: t.Description,
		ReferenceNumber: t.ReferenceNumber, Memo: t.Memo, Status: string(t.Status), Category: t.Category,
		TaxCode: t.TaxCode, ImportedAt: t.ImportedAt, UpdatedAt: t.UpdatedAt, Version: t.Version,
		CustomerID: t.CustomerID, CustomerExternalID: t.CustomerExternalID, VendorID: t.VendorID,
		VendorExternalID: t.VendorExternalID, Match: t.Match, ArchivedAt: t.ArchivedAt,
	}
	if len(t.Metadata) > 0 {
		r.Metadata = t.Metadata
	}
	if t.CounterpartyName != nil {
		if k := autocat.NormalizeCounterparty(*t.CounterpartyName); k != "" {
			r.CounterpartyKey = &k
		}
	}
	if t.Method != nil {
		m := string(*t.Method)
		r.Method = &m
	}
	return r
}

func (r bankTxnRow) transaction() banking.BankTransaction {
	t := banking.BankTransaction{
		ID: r.ID, BusinessID: r.BusinessID, Source: banking.Source(r.Source), SourceTransactionID: r.SourceTransactionID,
		SourceAccountID: r.SourceAccountID, ExternalID: r.ExternalID, CustomAccountID: r.CustomAccountID,
		ExternalAccountID: r.ExternalAccountID, LedgerAccountID: r.LedgerAccountID, AccountName: r.AccountName,
		AccountMask: r.AccountMask, InstitutionName: r.InstitutionName, TransactionType: r.TransactionType, Date: r.Date.UTC(),
		Direction: banking.Direction(r.Direction), Amount: money.Cents(r.Amount), CounterpartyName: r.CounterpartyName,
		Description: r.Description, ReferenceNumber: r.ReferenceNumber, Memo: r.Memo,
		Status: banking.CategorizationStatus(r.Status), Category: r.Category, TaxCode: r.TaxCode,
		ImportedAt: r.ImportedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), Version: r.Version, Tags: []tags.Tag{},
		CustomerID: r.CustomerID, CustomerExternalID: r.CustomerExternalID, VendorID: r.VendorID,
		VendorExternalID: r.VendorExternalID, Match: r.Match,
	}
	if r.ArchivedAt != nil {
		at := r.ArchivedAt.UTC()
		t.ArchivedAt = &at
	}
	if len(r.Metadata) > 0 && string(r.Metadata) != "null" {
		t.Metadata = r.Metadata
	}
	if r.Method != nil {
		m := banking.CategorizationMethod(*r.Method)
		t.Method = &m
	}
	return t
}

func (r bankTxnTagRow) tag() tags.Tag {
	return tags.Tag{
		ID: r.ID, Key: r.Key, Value: r.Value, DimensionID: r.DimensionID, DefinitionID: r.DefinitionID,
		DimensionDisplayName: r.DimensionDisplayName, ValueDisplayName: r.ValueDisplayName,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

// InsertBankTransactions implements app.BankStore: multi-row INSERT ... ON
// CONFLICT DO NOTHING per batch, then the tags of the inserted rows.
func (s *BankStore) InsertBankTransactions(ctx context.Context, txns []banking.BankTransaction) (map[uuid.UUID]bool, error) {
	db := s.conn(ctx)
	inserted := make(map[uuid.UUID]bool, len(txns))
	for start := 0; start < len(txns); start += insertBatch {
		batch := txns[start:min(start+insertBatch, len(txns))]
		rows := make([]bankTxnRow, len(batch))
		for i, t := range batch {
			rows[i] = toBankTxnRow(t)
		}
		var ids []uuid.UUID
		_, err := db.NewInsert().Model(&rows).
			On("CONFLICT (business_id, source, source_transaction_id) DO NOTHING").
			Returning("id").Exec(ctx, &ids)
		if err != nil {
			return nil, wrap("insert bank transactions", err)
		}
		for _, id := range ids {
			inserted[id] = true
		}
	}
	var tagRows []bankTxnTagRow
	for _, t := range txns {
		if !inserted[t.ID] {
			continue
		}
		for _, tg := range t.Tags {
			tagRows = append(tagRows, bankTxnTagRow{
				BusinessID: t.BusinessID, ID: tg.ID, TransactionID: t.ID, Key: tg.Key, Value: tg.Value,
				DimensionID: tg.DimensionID, DefinitionID: tg.DefinitionID, DimensionDisplayName: tg.DimensionDisplayName,
				ValueDisplayName: tg.ValueDisplayName, CreatedAt: tg.CreatedAt, UpdatedAt: tg.UpdatedAt,
			})
		}
	}
	for start := 0; start < len(tagRows); start += insertBatch {
		batch := tagRows[start:min(start+insertBatch, len(tagRows))]
		if _, err := db.NewInsert().Model(&batch).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
			return nil, wrap("insert bank transaction tags", err)
		}
	}
	var fresh []banking.BankTransaction
	for _, t := range txns {
		if inserted[t.ID] {
			fresh = append(fresh, t)
		}
	}
	if err := addCounterparties(ctx, db, fresh...); err != nil {
		return nil, err
	}
	return inserted, nil
}

// loadExtras converts rows read without withExtras (a page of a listing:
// correlated subqueries per row cost more there than two batched
// queries), loading the tags and live document ids of all of them in two
// queries.
func loadExtras(ctx context.Context, db bun.IDB, businessID uuid.UUID, rows []bankTxnRow) ([]banking.BankTransaction, error) {
	out := make([]banking.BankTransaction, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]uuid.UUID, len(rows))
	index := make(map[uuid.UUID]int, len(rows))
	for i, r := range rows {
		out[i], ids[i], index[r.ID] = r.transaction(), r.ID, i
	}
	var tagRows []bankTxnTagRow
	err := db.NewSelect().Model(&tagRows).
		Where("btt.business_id = ? AND btt.transaction_id IN (?)", businessID, bun.In(ids)).
		OrderExpr("btt.transaction_id, btt.key, btt.value").Scan(ctx)
	if err != nil {
		return nil, wrap("find bank transaction tags", err)
	}
	for _, tr := range tagRows {
		i := index[tr.TransactionID]
		out[i].Tags = append(out[i].Tags, tr.tag())
	}
	var docs []struct {
		ID            uuid.UUID `bun:"id,type:uuid"`
		TransactionID uuid.UUID `bun:"transaction_id,type:uuid"`
	}
	err = db.NewSelect().Table("bank_transaction_documents").Column("id", "transaction_id").
		Where("business_id = ? AND transaction_id IN (?) AND archived_at IS NULL", businessID, bun.In(ids)).
		OrderExpr("created_at, id").Scan(ctx, &docs)
	if err != nil {
		return nil, wrap("find bank transaction documents", err)
	}
	for _, d := range docs {
		i := index[d.TransactionID]
		out[i].DocumentIDs = append(out[i].DocumentIDs, d.ID)
	}
	return out, nil
}

// transactions converts rows read through withExtras.
func transactions(rows []bankTxnRow) ([]banking.BankTransaction, error) {
	out := make([]banking.BankTransaction, len(rows))
	for i, r := range rows {
		out[i] = r.transaction()
		if len(r.TagsJSON) > 0 {
			if err := json.Unmarshal(r.TagsJSON, &out[i].Tags); err != nil {
				return nil, fmt.Errorf("decode tags of bank transaction %s: %w", r.ID, err)
			}
			for k, tg := range out[i].Tags {
				out[i].Tags[k].CreatedAt, out[i].Tags[k].UpdatedAt = tg.CreatedAt.UTC(), tg.UpdatedAt.UTC()
			}
		}
		for _, d := range r.DocumentIDs {
			id, err := uuid.Parse(d)
			if err != nil {
				return nil, fmt.Errorf("document id %q of bank transaction %s: %w", d, r.ID, err)
			}
			out[i].DocumentIDs = append(out[i].DocumentIDs, id)
		}
	}
	return out, nil
}

// FindBankTransactionsBySource implements app.BankStore.
func (s *BankStore) FindBankTransactionsBySource(ctx context.Context, businessID uuid.UUID, source banking.Source, ids []string) ([]banking.BankTransaction, error) {
	db := s.conn(ctx)
	var rows []bankTxnRow
	err := db.NewSelect().Model(&rows).
		Where("bt.business_id = ? AND bt.source = ? AND bt.source_transaction_id IN (?)", businessID, string(source), bun.In(ids)).
		Scan(ctx)
	if err != nil {
		return nil, wrap("find bank transactions by source", err)
	}
	return loadExtras(ctx, db, businessID, rows)
}

// FindBankTransaction implements app.BankStore.
func (s *BankStore) FindBankTransaction(ctx context.Context, businessID, id uuid.UUID, lock app.Lock) (banking.BankTransaction, bool, error) {
	db := s.conn(ctx)
	var r bankTxnRow
	err := selectLocked(withExtras(db.NewSelect().Model(&r)).Where("bt.business_id = ? AND bt.id = ?", businessID, id), lock).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return banking.BankTransaction{}, false, nil
	}
	if err != nil {
		return banking.BankTransaction{}, false, wrap("find bank transaction", err)
	}
	out, err := transactions([]bankTxnRow{r})
	if err != nil {
		return banking.BankTransaction{}, false, err
	}
	return out[0], true, nil
}

// externalAccountRow is a row of external_accounts.
type externalAccountRow struct {
	bun.BaseModel `bun:"table:external_accounts,alias:ea"`

	BusinessID      uuid.UUID `bun:"business_id,pk,type:uuid"`
	ID              uuid.UUID `bun:"id,pk,type:uuid"`
	Source          string    `bun:"source"`
	SourceAccountID string    `bun:"source_account_id"`
	AccountName     *string   `bun:"account_name"`
	LedgerAccountID uuid.UUID `bun:"ledger_account_id,type:uuid"`
	CreatedAt       time.Time `bun:"created_at"`
}

// FindExternalAccount implements app.BankStore.
func (s *BankStore) FindExternalAccount(ctx context.Context, businessID uuid.UUID, source banking.Source, sourceAccountID string) (app.ExternalAccount, bool, error) {
	db := s.conn(ctx)
	var r externalAccountRow
	err := db.NewSelect().Model(&r).
		Where("ea.business_id = ? AND ea.source = ? AND ea.source_account_id = ?", businessID, string(source), sourceAccountID).
		Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return app.ExternalAccount{}, false, nil
	}
	if err != nil {
		return app.ExternalAccount{}, false, wrap("find external account", err)
	}
	return app.ExternalAccount{
		ID: r.ID, BusinessID: r.BusinessID, Source: banking.Source(r.Source), SourceAccountID: r.SourceAccountID,
		AccountName: r.AccountName, LedgerAccountID: r.LedgerAccountID, CreatedAt: r.CreatedAt.UTC(),
	}, true, nil
}

// InsertExternalAccount implements app.BankStore.
func (s *BankStore) InsertExternalAccount(ctx context.Context, a app.ExternalAccount) error {
	db := s.conn(ctx)
	r := externalAccountRow{
		BusinessID: a.BusinessID, ID: a.ID, Source: string(a.Source), SourceAccountID: a.SourceAccountID,
		AccountName: a.AccountName, LedgerAccountID: a.LedgerAccountID, CreatedAt: a.CreatedAt,
	}
	_, err := db.NewInsert().Model(&r).Exec(ctx)
	return wrap("insert external account", err)
}

// UpdateBankTransaction implements app.BankStore.
func (s *BankStore) UpdateBankTransaction(ctx context.Context, t banking.BankTransaction) error {
	db := s.conn(ctx)
	r := toBankTxnRow(t)
	_, err := db.NewUpdate().Model(&r).
		Column("categorization_status", "categorization_method", "category", "tax_code", "memo", "match", "updated_at",
			"archived_at", "version").
		WherePK().Exec(ctx)
	return wrap("update bank transaction", err)
}

// LockBankTransactions implements app.BankStore.
func (s *BankStore) LockBankTransactions(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) ([]banking.BankTransaction, error) {
	db := s.conn(ctx)
	if len(ids) == 0 {
		return nil, nil
	}
	var rows []bankTxnRow
	err := withExtras(db.NewSelect().Model(&rows)).Where("bt.business_id = ? AND bt.id IN (?)", businessID, bun.In(ids)).
		OrderExpr("bt.id").For("UPDATE OF bt").Scan(ctx)
	if err != nil {
		return nil, wrap("lock bank transactions", err)
	}
	return transactions(rows)
}

// InsertTags implements app.BankStore.
func (s *BankStore) InsertTags(ctx context.Context, businessID, transactionID uuid.UUID, ts []tags.Tag) error {
	db := s.conn(ctx)
	if len(ts) == 0 {
		return nil
	}
	rows := make([]bankTxnTagRow, len(ts))
	for i, tg := range ts {
		rows[i] = bankTxnTagRow{
			BusinessID: businessID, ID: tg.ID, TransactionID: transactionID, Key: tg.Key, Value: tg.Value,
			DimensionID: tg.DimensionID, DefinitionID: tg.DefinitionID, DimensionDisplayName: tg.DimensionDisplayName,
			ValueDisplayName: tg.ValueDisplayName, CreatedAt: tg.CreatedAt, UpdatedAt: tg.UpdatedAt,
		}
	}
	_, err := db.NewInsert().Model(&rows).On("CONFLICT DO NOTHING").Exec(ctx)
	return wrap("insert tags", err)
}

// DeleteTags implements app.BankStore.
func (s *BankStore) DeleteTags(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID][]tags.Tag, error) {
	db := s.conn(ctx)
	var rows []bankTxnTagRow
	_, err := db.NewDelete().Model((*bankTxnTagRow)(nil)).
		Where("business_id = ? AND id IN (?)", businessID, bun.In(ids)).Returning("*").Exec(ctx, &rows)
	if err != nil {
		return nil, wrap("delete tags", err)
	}
	out := map[uuid.UUID][]tags.Tag{}
	for _, r := range rows {
		out[r.TransactionID] = append(out[r.TransactionID], r.tag())
	}
	return out, nil
}

// TaggedTransactions implements app.TagStore.
func (s *BankStore) TaggedTransactions(ctx context.Context, businessID uuid.UUID) (map[uuid.UUID][]uuid.UUID, error) {
	db := s.conn(ctx)
	var rows []struct {
		BusinessID    uuid.UUID `bun:"business_id"`
		TransactionID uuid.UUID `bun:"transaction_id"`
	}
	q := db.NewSelect().TableExpr("bank_transaction_tags").ColumnExpr("DISTINCT business_id, transaction_id")
	if businessID != uuid.Nil {
		q = q.Where("business_id = ?", businessID)
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := map[uuid.UUID][]uuid.UUID{}
	for _, r := range rows {
		out[r.BusinessID] = append(out[r.BusinessID], r.TransactionID)
	}
	return out, nil
}
