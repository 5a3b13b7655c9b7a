package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
)

type syncRow struct {
	bun.BaseModel `bun:"table:acctsync_syncs"`

	BusinessID      uuid.UUID  `bun:"business_id,pk,type:uuid"`
	RealmID         string     `bun:"realm_id"`
	Status          string     `bun:"status"`
	RunID           *uuid.UUID `bun:"run_id,type:uuid"`
	LeaseUntil      *time.Time `bun:"lease_until"`
	Cursor          int        `bun:"cursor_position"`
	Fetched         int        `bun:"fetched"`
	Attempts        int        `bun:"attempts"`
	RequestedAt     *time.Time `bun:"requested_at"`
	StartedAt       *time.Time `bun:"started_at"`
	FinishedAt      *time.Time `bun:"finished_at"`
	LastSucceededAt *time.Time `bun:"last_succeeded_at"`
	LastError       string     `bun:"last_error"`
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func (r syncRow) domain() acctsync.SyncState {
	st := acctsync.SyncState{
		BusinessID: r.BusinessID, RealmID: r.RealmID, Status: acctsync.SyncStatus(r.Status),
		LeaseUntil: utc(r.LeaseUntil), Cursor: r.Cursor, Fetched: r.Fetched, Attempts: r.Attempts,
		RequestedAt: utc(r.RequestedAt), StartedAt: utc(r.StartedAt), FinishedAt: utc(r.FinishedAt),
		LastSucceededAt: utc(r.LastSucceededAt), LastError: r.LastError,
	}
	if r.RunID != nil {
		st.RunID = *r.RunID
	}
	return st
}

func syncRowOf(st acctsync.SyncState) syncRow {
	r := syncRow{
		BusinessID: st.BusinessID, RealmID: st.RealmID, Status: string(st.Status), LeaseUntil: st.LeaseUntil,
		Cursor: st.Cursor, Fetched: st.Fetched, Attempts: st.Attempts, RequestedAt: st.RequestedAt,
		StartedAt: st.StartedAt, FinishedAt: st.FinishedAt, LastSucceededAt: st.LastSucceededAt, LastError: st.LastError,
	}
	if st.RunID != uuid.Nil {
		id := st.RunID
		r.RunID = &id
	}
	return r
}

type stagedRow struct {
	bun.BaseModel `bun:"table:acctsync_sync_staged_accounts"`

	BusinessID         uuid.UUID `bun:"business_id,pk,type:uuid"`
	ExternalID         string    `bun:"external_id,pk"`
	ParentExternalID   *string   `bun:"parent_external_id"`
	Name               string    `bun:"name"`
	FullyQualifiedName string    `bun:"fully_qualified_name"`
	AccountNumber      string    `bun:"account_number"`
	AccountType        string    `bun:"account_type"`
	AccountSubtype     string    `bun:"account_subtype"`
	Classification     string    `bun:"classification"`
	CurrentBalance     int64     `bun:"current_balance"`
	Currency           string    `bun:"currency"`
	Active             bool      `bun:"active"`
}

// SyncState implements acctsync.Store.
func (s *Store) SyncState(ctx context.Context, businessID uuid.UUID) (acctsync.SyncState, bool, error) {
	var rows []syncRow
	if err := pgdb.Conn(ctx, s.db).NewSelect().Model(&rows).Where("business_id = ?", businessID).Scan(ctx); err != nil {
		return acctsync.SyncState{}, false, fmt.Errorf("read sync: %w", err)
	}
	if len(rows) == 0 {
		return acctsync.SyncState{}, false, nil
	}
	return rows[0].domain(), true, nil
}

// UpdateSync implements acctsync.Store. The connection row is locked
// first (as UpdateConnection and ReplaceAccounts do), then the sync row.
func (s *Store) UpdateSync(ctx context.Context, businessID uuid.UUID,
	fn func(c acctsync.Connection, st *acctsync.SyncState) (acctsync.SyncChange, error)) (acctsync.SyncState, bool, error) {
	var out acctsync.SyncState
	found := false
	err := pgdb.InTx(ctx, s.db, func(ctx context.Context, tx bun.Tx) error {
		conn, ok, err := lockConnection(ctx, tx, businessID)
		if !ok || err != nil {
			return err
		}
		found = true
		var rows []syncRow
		if err := tx.NewSelect().Model(&rows).Where("business_id = ?", businessID).For("UPDATE").Scan(ctx); err != nil {
			return fmt.Errorf("lock sync: %w", err)
		}
		st := acctsync.SyncState{BusinessID: businessID, Status: acctsync.SyncIdle}
		if len(rows) > 0 {
			st = rows[0].domain()
		}
		change, err := fn(conn.domain(), &st)
		if err != nil {
			return err
		}
		out = st
		if st.Status == acctsync.SyncIdle {
			return nil // nothing was asked for: nothing to keep
		}
		st.BusinessID = businessID
		row := syncRowOf(st)
		_, err = tx.NewInsert().Model(&row).
			On("CONFLICT (business_id) DO UPDATE").
			Set("realm_id = EXCLUDED.realm_id").
			Set("status = EXCLUDED.status").
			Set("run_id = EXCLUDED.run_id").
			Set("lease_until = EXCLUDED.lease_until").
			Set("cursor_position = EXCLUDED.cursor_position").
			Set("fetched = EXCLUDED.fetched").
			Set("attempts = EXCLUDED.attempts").
			Set("requested_at = EXCLUDED.requested_at").
			Set("started_at = EXCLUDED.started_at").
			Set("finished_at = EXCLUDED.finished_at").
			Set("last_succeeded_at = EXCLUDED.last_succeeded_at").
			Set("last_error = EXCLUDED.last_error").
			Exec(ctx)
		if err != nil {
			return fmt.Errorf("store sync: %w", err)
		}
		return applySyncChange(ctx, tx, businessID, change)
	})
	if err != nil {
		return acctsync.SyncState{}, false, err
	}
	return out, found, nil
}

func applySyncChange(ctx context.Context, tx bun.Tx, businessID uuid.UUID, change acctsync.SyncChange) error {
	if change.ResetStaging || change.Import != nil {
		if _, err := tx.NewDelete().Model((*stagedRow)(nil)).Where("business_id = ?", businessID).Exec(ctx); err != nil {
			return fmt.Errorf("clear staged accounts: %w", err)
		}
	}
	if len(change.Stage) > 0 {
		rows := make([]stagedRow, 0, len(change.Stage))
		seen := map[string]int{}
		for _, a := range change.Stage {
			r := stagedRow{
				BusinessID: businessID, ExternalID: a.ExternalID, Name: a.Name, FullyQualifiedName: a.FullyQualifiedName,
				AccountNumber: a.AccountNumber, AccountType: a.AccountType, AccountSubtype: a.AccountSubType,
				Classification: string(a.Classification), CurrentBalance: int64(a.CurrentBalance), Currency: a.Currency, Active: a.Active,
			}
			if a.ParentExternalID != "" {
				p := a.ParentExternalID
				r.ParentExternalID = &p
			}
			// One page naming an id twice would make the upsert touch a
			// row twice; the chart check refuses such a chart anyway.
			if i, dup := seen[a.ExternalID]; dup {
				rows[i] = r
				continue
			}
			seen[a.ExternalID] = len(rows)
			rows = append(rows, r)
		}
		for chunk := range slices.Chunk(rows, insertBatch) {
			_, err := setExcluded(tx.NewInsert().Model(&chunk).On("CONFLICT (business_id, external_id) DO UPDATE"),
				accountColumns...).Exec(ctx)
			if err != nil {
				return fmt.Errorf("stage accounts: %w", err)
			}
		}
	}
	if imp := change.Import; imp != nil {
		if _, err := tx.NewUpdate().Model((*connectionRow)(nil)).
			Set("last_synced_at = ?", imp.At).Set("updated_at = ?", imp.At).
			Where("business_id = ? AND realm_id = ?", businessID, imp.RealmID).Exec(ctx); err != nil {
			return fmt.Errorf("mark synced: %w", err)
		}
		return writeImport(ctx, tx, *imp)
	}
	return nil
}

// ClaimableSyncs implements acctsync.Store.
func (s *Store) ClaimableSyncs(ctx context.Context, now time.Time, limit int) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := pgdb.Conn(ctx, s.db).NewSelect().Model((*syncRow)(nil)).Column("business_id").
		Where("status = ? OR (status = ? AND (lease_until IS NULL OR lease_until <= ?))",
			string(acctsync.SyncQueued), string(acctsync.SyncRunning), now).
		OrderExpr("requested_at ASC NULLS FIRST").Limit(int64(limit)).Scan(ctx, &ids)
	if err != nil {
		return nil, fmt.Errorf("list claimable syncs: %w", err)
	}
	return ids, nil
}

// StagedAccounts implements acctsync.Store.
func (s *Store) StagedAccounts(ctx context.Context, businessID uuid.UUID) ([]acctsync.ExternalAccount, error) {
	var rows []stagedRow
	if err := pgdb.Conn(ctx, s.db).NewSelect().Model(&rows).Where("business_id = ?", businessID).
		OrderExpr("external_id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("read staged accounts: %w", err)
	}
	out := make([]acctsync.ExternalAccount, 0, len(rows))
	for _, r := range rows {
		a := acctsync.ExternalAccount{
			ExternalID: r.ExternalID, Name: r.Name, FullyQualifiedName: r.FullyQualifiedName, AccountNumber: r.AccountNumber,
			AccountType: r.AccountType, AccountSubType: r.AccountSubtype, Classification: acctsync.Classification(r.Classification),
			CurrentBalance: money.Cents(r.CurrentBalance), Currency: r.Currency, Active: r.Active,
		}
		if r.ParentExternalID != nil {
			a.ParentExternalID = *r.ParentExternalID
		}
		out = append(out, a)
	}
	return out, nil
}

// Disconnect implements acctsync.Store: deleting the connection cascades
// to the imported accounts, their mapping, the sync and its staged pages.
func (s *Store) Disconnect(ctx context.Context, businessID uuid.UUID) (acctsync.Connection, bool, error) {
	var rows []connectionRow
	if err := pgdb.Conn(ctx, s.db).NewDelete().Model(&rows).Where("business_id = ?", businessID).Returning("*").Scan(ctx); err != nil {
		return acctsync.Connection{}, false, fmt.Errorf("delete connection: %w", err)
	}
	if len(rows) == 0 {
		return acctsync.Connection{}, false, nil
	}
	return rows[0].domain(), true, nil
}

// RootAccounts implements acctsync.Store: a keyset page of the accounts
// whose parent is not imported, then their subtrees in one recursive
// query.
func (s *Store) RootAccounts(ctx context.Context, businessID uuid.UUID, p page.Params) ([]acctsync.AccountNode, page.Meta, error) {
	q := pgdb.Conn(ctx, s.db).NewSelect().Model((*accountRow)(nil)).
		Where("a.business_id = ?", businessID).
		Where(`NOT EXISTS (SELECT 1 FROM acctsync_accounts parent
		        WHERE parent.business_id = a.business_id AND parent.external_id = a.parent_external_id)`)
	roots, meta, err := pagebun.Fetch(ctx, q, p, "a.id", func(r accountRow) (any, uuid.UUID) {
		if p.SortBy == "external_id" {
			return r.ExternalID, r.ID
		}
		return r.Name, r.ID
	})
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("list root accounts: %w", err)
	}
	ids := make([]uuid.UUID, len(roots))
	for i, r := range roots {
		ids[i] = r.ID
	}
	trees, err := s.trees(ctx, businessID, ids)
	if err != nil {
		return nil, page.Meta{}, err
	}
	out := make([]acctsync.AccountNode, 0, len(roots))
	for _, r := range roots {
		if n, ok := trees[r.ID]; ok { // gone since the page was read: skipped
			out = append(out, n)
		}
	}
	return out, meta, nil
}
