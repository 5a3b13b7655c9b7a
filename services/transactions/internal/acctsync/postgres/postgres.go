// Package postgres is acctsync's store on PostgreSQL (Bun): pending OAuth
// states, connections with their sealed tokens, the imported external
// chart of accounts and its mapping to the local ledger. Its tables carry
// the acctsync_ prefix and its own migration set, so it lives beside the
// ledger's tables in the transactions schema without touching them.
package postgres

import (
	"context"
	"embed"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is the acctsync migration set (bookkeeping in
// bun_migrations_acctsync).
var Migrations = pgdb.Embedded("acctsync", migrationFiles, "migrations")

// Store implements acctsync.Store.
type Store struct{ db *bun.DB }

var _ acctsync.Store = (*Store)(nil)

// New wraps an open database whose search path is the service's schema.
func New(db *bun.DB) *Store { return &Store{db: db} }

// maxTreeDepth bounds the sub-account recursion (QuickBooks Online allows
// five levels; the import refuses cycles, this is a second guard).
const maxTreeDepth = 32

// insertBatch is the number of account rows per INSERT (15 parameters each).
const insertBatch = 1000

type stateRow struct {
	bun.BaseModel `bun:"table:acctsync_oauth_states"`

	StateHash  []byte    `bun:"state_hash,pk,type:bytea"`
	BusinessID uuid.UUID `bun:"business_id,type:uuid"`
	ClientID   string    `bun:"client_id"`
	CreatedAt  time.Time `bun:"created_at"`
	ExpiresAt  time.Time `bun:"expires_at"`
}

type connectionRow struct {
	bun.BaseModel `bun:"table:acctsync_connections,alias:conn"`

	BusinessID       uuid.UUID  `bun:"business_id,pk,type:uuid"`
	RealmID          string     `bun:"realm_id"`
	ConnectedBy      string     `bun:"connected_by"`
	ConnectedAt      time.Time  `bun:"connected_at"`
	AccessTokenEnc   []byte     `bun:"access_token_enc,type:bytea"`
	RefreshTokenEnc  []byte     `bun:"refresh_token_enc,type:bytea"`
	TokenType        string     `bun:"token_type"`
	AccessExpiresAt  time.Time  `bun:"access_expires_at"`
	RefreshExpiresAt *time.Time `bun:"refresh_expires_at"`
	TokenVersion     int64      `bun:"token_version"`
	LastSyncedAt     *time.Time `bun:"last_synced_at"`
	UpdatedAt        time.Time  `bun:"updated_at"`
}

func (r connectionRow) domain() acctsync.Connection {
	c := acctsync.Connection{
		BusinessID: r.BusinessID, RealmID: r.RealmID, ConnectedBy: r.ConnectedBy, ConnectedAt: r.ConnectedAt.UTC(),
		AccessTokenEnc: r.AccessTokenEnc, RefreshTokenEnc: r.RefreshTokenEnc, TokenType: r.TokenType,
		AccessExpiresAt: r.AccessExpiresAt.UTC(), TokenVersion: r.TokenVersion,
	}
	if r.RefreshExpiresAt != nil {
		t := r.RefreshExpiresAt.UTC()
		c.RefreshExpiresAt = &t
	}
	if r.LastSyncedAt != nil {
		t := r.LastSyncedAt.UTC()
		c.LastSyncedAt = &t
	}
	return c
}

type accountRow struct {
	bun.BaseModel `bun:"table:acctsync_accounts,alias:a"`

	ID                 uuid.UUID `bun:"id,pk,type:uuid"`
	BusinessID         uuid.UUID `bun:"business_id,type:uuid"`
	RealmID            string    `bun:"realm_id"`
	ExternalID         string    `bun:"external_id"`
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
	ImportedAt         time.Time `bun:"imported_at"`
}

type mapRow struct {
	bun.BaseModel `bun:"table:acctsync_account_map"`

	BusinessID        uuid.UUID `bun:"business_id,pk,type:uuid"`
	ExternalAccountID string    `bun:"external_account_id,pk"`
	LocalAccountID    uuid.UUID `bun:"local_account_id,type:uuid"`
	Rule              string    `bun:"rule"`
}

// SaveState implements acctsync.Store.
func (s *Store) SaveState(ctx context.Context, st acctsync.State, now time.Time) error {
	return pgdb.InTx(ctx, s.db, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*stateRow)(nil)).Where("expires_at <= ?", now).Exec(ctx); err != nil {
			return fmt.Errorf("purge expired states: %w", err)
		}
		row := stateRow{StateHash: st.Hash, BusinessID: st.BusinessID, ClientID: st.ClientID, CreatedAt: st.CreatedAt, ExpiresAt: st.ExpiresAt}
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return fmt.Errorf("insert state: %w", err)
		}
		return nil
	})
}

// ConsumeState implements acctsync.Store with one DELETE ... RETURNING, so
// two callbacks racing with the same state cannot both get it.
func (s *Store) ConsumeState(ctx context.Context, hash []byte) (acctsync.State, bool, error) {
	var rows []stateRow
	if err := pgdb.Conn(ctx, s.db).NewDelete().Model(&rows).Where("state_hash = ?", hash).Returning("*").Scan(ctx); err != nil {
		return acctsync.State{}, false, fmt.Errorf("consume state: %w", err)
	}
	if len(rows) == 0 {
		return acctsync.State{}, false, nil
	}
	r := rows[0]
	return acctsync.State{Hash: r.StateHash, BusinessID: r.BusinessID, ClientID: r.ClientID,
		CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC()}, true, nil
}

// Connect implements acctsync.Store.
func (s *Store) Connect(ctx context.Context, c acctsync.Connection, imp acctsync.Import) error {
	return pgdb.InTx(ctx, s.db, func(ctx context.Context, tx bun.Tx) error {
		row := connectionRow{
			BusinessID: c.BusinessID, RealmID: c.RealmID, ConnectedBy: c.ConnectedBy, ConnectedAt: c.ConnectedAt,
			AccessTokenEnc: c.AccessTokenEnc, RefreshTokenEnc: c.RefreshTokenEnc, TokenType: c.TokenType,
			AccessExpiresAt: c.AccessExpiresAt, RefreshExpiresAt: c.RefreshExpiresAt, TokenVersion: 1,
			LastSyncedAt: c.LastSyncedAt, UpdatedAt: imp.At,
		}
		_, err := tx.NewInsert().Model(&row).
			On("CONFLICT (business_id) DO UPDATE").
			Set("realm_id = EXCLUDED.realm_id").
			Set("connected_by = EXCLUDED.connected_by").
			Set("connected_at = EXCLUDED.connected_at").
			Set("access_token_enc = EXCLUDED.access_token_enc").
			Set("refresh_token_enc = EXCLUDED.refresh_token_enc").
			Set("token_type = EXCLUDED.token_type").
			Set("access_expires_at = EXCLUDED.access_expires_at").
			Set("refresh_expires_at = EXCLUDED.refresh_expires_at").
			Set("token_version = conn.token_version + 1").
			Set("last_synced_at = EXCLUDED.last_synced_at").
			Set("updated_at = EXCLUDED.updated_at").
			Exec(ctx)
		if err != nil {
			return fmt.Errorf("upsert connection: %w", err)
		}
		return writeImport(ctx, tx, imp)
	})
}

// ReplaceAccounts implements acctsync.Store. The connection row is locked
// first, so a concurrent reconnection to another company cannot interleave.
func (s *Store) ReplaceAccounts(ctx context.Context, imp acctsync.Import) (bool, error) {
	stored := false
	err := pgdb.InTx(ctx, s.db, func(ctx context.Context, tx bun.Tx) error {
		var realms []string
		if err := tx.NewSelect().Model((*connectionRow)(nil)).Column("realm_id").
			Where("business_id = ?", imp.BusinessID).For("UPDATE").Scan(ctx, &realms); err != nil {
			return fmt.Errorf("lock connection: %w", err)
		}
		if len(realms) == 0 || realms[0] != imp.RealmID {
			return nil
		}
		if _, err := tx.NewUpdate().Model((*connectionRow)(nil)).
			Set("last_synced_at = ?", imp.At).Set("updated_at = ?", imp.At).
			Where("business_id = ?", imp.BusinessID).Exec(ctx); err != nil {
			return fmt.Errorf("mark synced: %w", err)
		}
		stored = true
		return writeImport(ctx, tx, imp)
	})
	return stored, err
}

// writeImport replaces the business's accounts and mappings with imp's,
// keeping the ids of accounts the provider still reports.
func writeImport(ctx context.Context, tx bun.Tx, imp acctsync.Import) error {
	if _, err := tx.NewDelete().Model((*accountRow)(nil)).
		Where("business_id = ? AND realm_id <> ?", imp.BusinessID, imp.RealmID).Exec(ctx); err != nil {
		return fmt.Errorf("drop accounts of another company: %w", err)
	}
	ids := make([]string, 0, len(imp.Accounts))
	rows := make([]accountRow, 0, len(imp.Accounts))
	for _, a := range imp.Accounts {
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		r := accountRow{
			ID: id, BusinessID: imp.BusinessID, RealmID: imp.RealmID, ExternalID: a.ExternalID,
			Name: a.Name, FullyQualifiedName: a.FullyQualifiedName, AccountNumber: a.AccountNumber,
			AccountType: a.AccountType, AccountSubtype: a.AccountSubType, Classification: string(a.Classification),
			CurrentBalance: int64(a.CurrentBalance), Currency: a.Currency, Active: a.Active, ImportedAt: imp.At,
		}
		if a.ParentExternalID != "" {
			p := a.ParentExternalID
			r.ParentExternalID = &p
		}
		rows = append(rows, r)
		ids = append(ids, a.ExternalID)
	}
	for chunk := range slices.Chunk(rows, insertBatch) {
		_, err := setExcluded(tx.NewInsert().Model(&chunk).On("CONFLICT (business_id, external_id) DO UPDATE"),
			append(accountColumns, "imported_at")...).Exec(ctx)
		if err != nil {
			return fmt.Errorf("upsert accounts: %w", err)
		}
	}
	if _, err := tx.NewDelete().Model((*accountRow)(nil)).
		Where("business_id = ? AND NOT (external_id = ANY(?))", imp.BusinessID, pgdialect.Array(ids)).Exec(ctx); err != nil {
		return fmt.Errorf("drop accounts the provider no longer reports: %w", err)
	}
	if _, err := tx.NewDelete().Model((*mapRow)(nil)).Where("business_id = ?", imp.BusinessID).Exec(ctx); err != nil {
		return fmt.Errorf("clear mapping: %w", err)
	}
	maps := make([]mapRow, 0, len(imp.Mappings))
	for _, m := range imp.Mappings {
		maps = append(maps, mapRow{BusinessID: imp.BusinessID, ExternalAccountID: m.ExternalID, LocalAccountID: m.LocalAccountID, Rule: m.Rule})
	}
	for chunk := range slices.Chunk(maps, insertBatch) {
		if _, err := tx.NewInsert().Model(&chunk).Exec(ctx); err != nil {
			return fmt.Errorf("insert mapping: %w", err)
		}
	}
	return nil
}

// Connection implements acctsync.Store.
func (s *Store) Connection(ctx context.Context, businessID uuid.UUID) (acctsync.Connection, bool, error) {
	var rows []connectionRow
	if err := pgdb.Conn(ctx, s.db).NewSelect().Model(&rows).Where("business_id = ?", businessID).Scan(ctx); err != nil {
		return acctsync.Connection{}, false, fmt.Errorf("read connection: %w", err)
	}
	if len(rows) == 0 {
		return acctsync.Connection{}, false, nil
	}
	return rows[0].domain(), true, nil
}

// lockConnection reads the business's connection row FOR UPDATE.
func lockConnection(ctx context.Context, tx bun.Tx, businessID uuid.UUID) (connectionRow, bool, error) {
	var rows []connectionRow
	if err := tx.NewSelect().Model(&rows).Where("business_id = ?", businessID).For("UPDATE").Scan(ctx); err != nil {
		return connectionRow{}, false, fmt.Errorf("lock connection: %w", err)
	}
	if len(rows) == 0 {
		return connectionRow{}, false, nil
	}
	return rows[0], true, nil
}

// UpdateConnection implements acctsync.Store: SELECT ... FOR UPDATE, fn,
// then UPDATE in the same transaction.
func (s *Store) UpdateConnection(ctx context.Context, businessID uuid.UUID, fn func(c *acctsync.Connection) (bool, error)) (acctsync.Connection, bool, error) {
	var out acctsync.Connection
	found := false
	err := pgdb.InTx(ctx, s.db, func(ctx context.Context, tx bun.Tx) error {
		row, ok, err := lockConnection(ctx, tx, businessID)
		if !ok || err != nil {
			return err
		}
		found = true
		c := row.domain()
		changed, err := fn(&c)
		if err != nil {
			return err
		}
		if changed {
			c.TokenVersion++
			_, err := tx.NewUpdate().Model((*connectionRow)(nil)).
				Set("access_token_enc = ?", c.AccessTokenEnc).
				Set("refresh_token_enc = ?", c.RefreshTokenEnc).
				Set("token_type = ?", c.TokenType).
				Set("access_expires_at = ?", c.AccessExpiresAt).
				Set("refresh_expires_at = ?", c.RefreshExpiresAt).
				Set("token_version = ?", c.TokenVersion).
				Set("updated_at = now()").
				Where("business_id = ?", businessID).
				Exec(ctx)
			if err != nil {
				return fmt.Errorf("update tokens: %w", err)
			}
		}
		out = c
		return nil
	})
	if err != nil {
		return acctsync.Connection{}, false, err
	}
	return out, found, nil
}

// treeRow is an account of the recursive read with its depth and mapping.
type treeRow struct {
	accountRow     `bun:",extend"`
	Depth          int        `bun:"depth"`
	LocalAccountID *uuid.UUID `bun:"local_account_id,type:uuid"`
}

// AccountTree implements acctsync.Store with one recursive query.
func (s *Store) AccountTree(ctx context.Context, businessID, accountID uuid.UUID) (acctsync.AccountNode, bool, error) {
	trees, err := s.trees(ctx, businessID, []uuid.UUID{accountID})
	if err != nil {
		return acctsync.AccountNode{}, false, err
	}
	n, ok := trees[accountID]
	return n, ok, nil
}

// trees reads the accounts ids of the business, each with all its
// sub-accounts, in one recursive query; an id not found is left out.
func (s *Store) trees(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]acctsync.AccountNode, error) {
	out := make(map[uuid.UUID]acctsync.AccountNode, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []treeRow
	err := pgdb.Conn(ctx, s.db).NewRaw(`
WITH RECURSIVE tree AS (
    SELECT a.*, 0 AS depth
      FROM acctsync_accounts a
     WHERE a.business_id = ? AND a.id = ANY(?)
    UNION ALL
    SELECT c.*, t.depth + 1
      FROM acctsync_accounts c
      JOIN tree t ON c.business_id = t.business_id AND c.parent_external_id = t.external_id
     WHERE t.depth < ?
)
SELECT tree.*, m.local_account_id
  FROM tree
  LEFT JOIN acctsync_account_map m
    ON m.business_id = tree.business_id AND m.external_account_id = tree.external_id
 ORDER BY tree.depth, tree.name, tree.external_id`, businessID, pgdialect.Array(ids), maxTreeDepth).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("read account trees: %w", err)
	}
	children := map[string][]treeRow{}
	for _, r := range rows {
		if r.Depth > 0 && r.ParentExternalID != nil {
			children[*r.ParentExternalID] = append(children[*r.ParentExternalID], r)
		}
	}
	var build func(r treeRow, depth int) acctsync.AccountNode
	build = func(r treeRow, depth int) acctsync.AccountNode {
		n := acctsync.AccountNode{Account: r.domain(), Children: []acctsync.AccountNode{}}
		if depth >= maxTreeDepth {
			return n
		}
		for _, c := range children[r.ExternalID] {
			n.Children = append(n.Children, build(c, depth+1))
		}
		return n
	}
	for _, r := range rows {
		if r.Depth == 0 {
			out[r.ID] = build(r, 0)
		}
	}
	return out, nil
}

func (r treeRow) domain() acctsync.Account {
	a := acctsync.Account{
		ID: r.ID, BusinessID: r.BusinessID, RealmID: r.RealmID, ImportedAt: r.ImportedAt.UTC(),
		LocalAccountID: r.LocalAccountID,
		ExternalAccount: acctsync.ExternalAccount{
			ExternalID: r.ExternalID, Name: r.Name, FullyQualifiedName: r.FullyQualifiedName,
			AccountNumber: r.AccountNumber, AccountType: r.AccountType, AccountSubType: r.AccountSubtype,
			Classification: acctsync.Classification(r.Classification), CurrentBalance: money.Cents(r.CurrentBalance),
			Currency: r.Currency, Active: r.Active,
		},
	}
	if r.ParentExternalID != nil {
		a.ParentExternalID = *r.ParentExternalID
	}
	return a
}

// accountColumns are the columns an import of the chart replaces on an
// account it finds again (business_id and external_id identify it).
var accountColumns = []string{"parent_external_id", "name", "fully_qualified_name", "account_number", "account_type",
	"account_subtype", "classification", "current_balance", "currency", "active"}

// setExcluded makes an upsert replace cols with the inserted row's.
func setExcluded(q *bun.InsertQuery, cols ...string) *bun.InsertQuery {
	for _, c := range cols {
		q = q.Set(c + " = EXCLUDED." + c)
	}
	return q
}
