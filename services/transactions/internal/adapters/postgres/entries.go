package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// entryRow is a row of ledger_entries.
type entryRow struct {
	bun.BaseModel `bun:"table:ledger_entries,alias:e"`

	ID              uuid.UUID       `bun:"id,pk,type:uuid" json:"id"`
	BusinessID      uuid.UUID       `bun:"business_id,type:uuid" json:"business_id"`
	EntryNumber     int64           `bun:"entry_number" json:"entry_number"`
	EntryType       string          `bun:"entry_type" json:"entry_type"`
	Agent           string          `bun:"agent" json:"agent"`
	Date            time.Time       `bun:"date" json:"date"`
	EntryAt         time.Time       `bun:"entry_at" json:"entry_at"`
	SourceType      string          `bun:"source_type" json:"source_type"`
	SourceID        string          `bun:"source_id" json:"source_id"`
	SourceVersion   string          `bun:"source_version" json:"source_version"`
	ReversalOfID    *uuid.UUID      `bun:"reversal_of_id,type:uuid" json:"reversal_of_id"`
	ReversalID      *uuid.UUID      `bun:"reversal_id,type:uuid" json:"reversal_id"`
	Memo            *string         `bun:"memo" json:"memo"`
	ReferenceNumber *string         `bun:"reference_number" json:"reference_number"`
	Metadata        json.RawMessage `bun:"metadata,type:jsonb" json:"metadata"`
	Tags            []tags.Tag      `bun:"tags,type:jsonb" json:"tags"`
	CreatedAt       time.Time       `bun:"created_at" json:"created_at"`
}

func (r entryRow) entry() domain.Entry {
	e := domain.Entry{
		ID: r.ID, BusinessID: r.BusinessID, EntryNumber: r.EntryNumber, EntryType: domain.EntryType(r.EntryType),
		Agent: domain.Agent(r.Agent), Date: r.Date.UTC(), EntryAt: r.EntryAt.UTC(),
		Source:       domain.Source{Type: r.SourceType, ID: r.SourceID, Version: r.SourceVersion},
		ReversalOfID: r.ReversalOfID, ReversalID: r.ReversalID, Memo: r.Memo, Reference: r.ReferenceNumber,
		Tags: nonNilTags(r.Tags), CreatedAt: r.CreatedAt.UTC(),
	}
	if len(r.Metadata) > 0 && string(r.Metadata) != "null" {
		e.Metadata = r.Metadata
	}
	return e
}

// lineRow is a row of ledger_lines.
type lineRow struct {
	bun.BaseModel `bun:"table:ledger_lines,alias:l"`

	ID         uuid.UUID `bun:"id,pk,type:uuid" json:"id"`
	EntryID    uuid.UUID `bun:"entry_id,type:uuid" json:"entry_id"`
	BusinessID uuid.UUID `bun:"business_id,type:uuid" json:"business_id"`
	LineNumber int       `bun:"line_number" json:"line_number"`
	AccountID  uuid.UUID `bun:"account_id,type:uuid" json:"account_id"`
	Direction  string    `bun:"direction" json:"direction"`
	Amount     int64     `bun:"amount" json:"amount"`
	EntryAt    time.Time `bun:"entry_at" json:"entry_at"`
	// EntryNumber is the entry's, copied so that an account's lines sort
	// on one index; 0 (NULL) lets the database copy it.
	EntryNumber int64      `bun:"entry_number,nullzero" json:"entry_number"`
	Memo        *string    `bun:"memo" json:"memo"`
	Tags        []tags.Tag `bun:"tags,type:jsonb" json:"tags"`
	CreatedAt   time.Time  `bun:"created_at" json:"created_at"`
}

// line is the domain line of r, on account a.
func (r lineRow) line(a domain.Account) domain.Line {
	return domain.Line{
		ID: r.ID, EntryID: r.EntryID, Number: r.LineNumber, Account: a, Amount: moneyOf(r.Amount),
		Direction: domain.Direction(r.Direction), Memo: r.Memo, Tags: nonNilTags(r.Tags),
		EntryAt: r.EntryAt.UTC(), CreatedAt: r.CreatedAt.UTC(),
	}
}

// lineWithAccount is a line joined to its account's current state.
type lineWithAccount struct {
	lineRow
	Account accountRow `bun:"acct,embed:acct__"`
}

func nonNilTags(ts []tags.Tag) []tags.Tag {
	if ts == nil {
		return []tags.Tag{}
	}
	return ts
}

func moneyOf(v int64) money.Cents { return money.Cents(v) }

// InsertEntryRows implements app.Store: the entry rows in multi-row
// statements (ON CONFLICT DO NOTHING against the source indexes): an import
// of a thousand transactions posts its thousand entries in one statement.
// The deferred triggers check every entry's balance at commit, so the
// lines may follow in a later statement of the transaction.
func (s *Store) InsertEntryRows(ctx context.Context, es []*domain.Entry) (map[uuid.UUID]bool, error) {
	db := s.conn(ctx)
	inserted := make(map[uuid.UUID]bool, len(es))
	byID := make(map[uuid.UUID]*domain.Entry, len(es))
	for start := 0; start < len(es); start += insertBatch {
		batch := es[start:min(start+insertBatch, len(es))]
		rows := make([]entryRow, len(batch))
		for i, e := range batch {
			byID[e.ID] = e
			rows[i] = toEntryRow(e)
		}
		var got []struct {
			ID          uuid.UUID `bun:"id,type:uuid"`
			EntryNumber int64     `bun:"entry_number"`
		}
		err := insertEntries(db, &rows).Scan(ctx, &got)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, wrap("insert entries", err)
		}
		for _, g := range got {
			inserted[g.ID] = true
			byID[g.ID].EntryNumber = g.EntryNumber
		}
	}
	return inserted, nil
}

// insertEntries is the INSERT of entry rows: the entry number from its
// sequence, no reversal_id yet, nothing written for a row that conflicts
// with the source indexes; it returns id and entry_number.
func insertEntries(db bun.IDB, rows *[]entryRow) *bun.InsertQuery {
	return db.NewInsert().Model(rows).
		ExcludeColumn("entry_number", "reversal_id").
		On("CONFLICT DO NOTHING").
		Returning("id, entry_number")
}

func toEntryRow(e *domain.Entry) entryRow {
	r := entryRow{
		ID: e.ID, BusinessID: e.BusinessID, EntryType: string(e.EntryType), Agent: string(e.Agent),
		Date: e.Date, EntryAt: e.EntryAt, SourceType: e.Source.Type, SourceID: e.Source.ID,
		SourceVersion: e.Source.Version, ReversalOfID: e.ReversalOfID, Memo: e.Memo,
		ReferenceNumber: e.Reference, Tags: nonNilTags(e.Tags), CreatedAt: e.CreatedAt,
	}
	if len(e.Metadata) > 0 {
		r.Metadata = e.Metadata
	}
	return r
}

// InsertReversal implements app.Store: the reversal's row and the mark on
// the entry it reverses in one statement (the foreign key of reversal_id
// is checked at the end of the statement, when the new row exists).
func (s *Store) InsertReversal(ctx context.Context, e *domain.Entry) (bool, error) {
	db := s.conn(ctx)
	if e.ReversalOfID == nil {
		return false, fmt.Errorf("insert reversal %s: no reversal_of_id", e.ID)
	}
	rows := []entryRow{toEntryRow(e)}
	var got []struct {
		EntryNumber int64 `bun:"entry_number"`
		Marked      int   `bun:"marked"`
	}
	err := db.NewRaw(`WITH r AS (?), mark AS (
			UPDATE ledger_entries SET reversal_id = r.id FROM r
			WHERE ledger_entries.business_id = ? AND ledger_entries.id = ? AND ledger_entries.reversal_id IS NULL
			RETURNING ledger_entries.id)
		SELECT r.entry_number, (SELECT count(*) FROM mark) AS marked FROM r`,
		insertEntries(db, &rows), e.BusinessID, *e.ReversalOfID).Scan(ctx, &got)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, wrap("insert reversal", err)
	}
	if len(got) == 0 {
		return false, nil
	}
	if got[0].Marked != 1 {
		return false, fmt.Errorf("insert reversal %s: the reversed entry %s was not marked", e.ID, *e.ReversalOfID)
	}
	e.EntryNumber = got[0].EntryNumber
	return true, nil
}

// InsertLines implements app.Store: the lines of es in multi-row
// statements.
func (s *Store) InsertLines(ctx context.Context, es []*domain.Entry) error {
	db := s.conn(ctx)
	var lines []lineRow
	for _, e := range es {
		for _, l := range e.Lines {
			lines = append(lines, lineRow{
				ID: l.ID, EntryID: e.ID, BusinessID: e.BusinessID, LineNumber: l.Number, AccountID: l.Account.ID,
				Direction: string(l.Direction), Amount: int64(l.Amount), EntryAt: l.EntryAt, EntryNumber: e.EntryNumber,
				Memo: l.Memo, Tags: nonNilTags(l.Tags), CreatedAt: l.CreatedAt,
			})
		}
	}
	for start := 0; start < len(lines); start += insertBatch {
		batch := lines[start:min(start+insertBatch, len(lines))]
		if _, err := db.NewInsert().Model(&batch).Exec(ctx); err != nil {
			return wrap("insert lines", err)
		}
	}
	return nil
}

// FindEntry implements app.Store.
func (s *Store) FindEntry(ctx context.Context, businessID, id uuid.UUID, lock app.Lock) (domain.Entry, bool, error) {
	db := s.conn(ctx)
	return s.findOne(ctx, db, db.NewSelect().Where("e.business_id = ? AND e.id = ?", businessID, id), lock)
}

// FindEntryBySource implements app.Store: the original (not a reversal)
// posted for that source version.
func (s *Store) FindEntryBySource(ctx context.Context, businessID uuid.UUID, src domain.Source) (domain.Entry, bool, error) {
	db := s.conn(ctx)
	return s.findOne(ctx, db, db.NewSelect().Where(
		"e.business_id = ? AND e.source_type = ? AND e.source_id = ? AND e.source_version = ? AND e.reversal_of_id IS NULL",
		businessID, src.Type, src.ID, src.Version), app.NoLock)
}

// LiveEntryAndAccounts implements app.Store: the source's live entry, its
// lines, the accounts refs name and those of the lines (locked as asked),
// and every account above them, in one statement: the three parts come
// back as JSON documents.
func (s *Store) LiveEntryAndAccounts(ctx context.Context, businessID uuid.UUID, sourceType, sourceID string, refs []domain.AccountRef, lock app.Lock) (domain.Entry, bool, []domain.Account, error) {
	db := s.conn(ctx)
	ids, names := []string{}, []string{}
	for _, r := range refs {
		if r.IsStableName() {
			names = append(names, r.StableName)
		} else {
			ids = append(ids, r.ID.String())
		}
	}
	var got struct {
		Entry    json.RawMessage `bun:"entry"`
		Lines    json.RawMessage `bun:"lines"`
		Accounts json.RawMessage `bun:"accounts"`
	}
	err := db.NewRaw(`
		WITH RECURSIVE live AS (
			SELECT * FROM ledger_entries e
			WHERE e.business_id = ?0 AND e.source_type = ?1 AND e.source_id = ?2
			  AND e.reversal_of_id IS NULL AND e.reversal_id IS NULL
		), live_lines AS (
			SELECT l.* FROM ledger_lines l JOIN live e ON l.business_id = e.business_id AND l.entry_id = e.id
		), picked AS (
			SELECT a.* FROM ledger_accounts a
			WHERE a.business_id = ?0 AND (a.id = ANY(?3::uuid[]) OR a.stable_name = ANY(?4::text[])
			   OR a.id IN (SELECT account_id FROM live_lines))
			`+lockClause(lock)+`
		), up AS (
			SELECT * FROM picked
			UNION
			SELECT p.* FROM ledger_accounts p JOIN up ON p.id = up.parent_id AND p.business_id = up.business_id
		)
		SELECT (SELECT row_to_json(live) FROM live) AS entry,
			(SELECT json_agg(l ORDER BY l.line_number) FROM live_lines l) AS lines,
			(SELECT json_agg(up ORDER BY up.id) FROM up) AS accounts`,
		businessID, sourceType, sourceID, pgdialect.Array(ids), pgdialect.Array(names)).Scan(ctx, &got)
	if err != nil {
		return domain.Entry{}, false, nil, wrap("live entry and accounts", err)
	}
	var accountRows []accountRow
	if len(got.Accounts) > 0 && string(got.Accounts) != "null" {
		if err := json.Unmarshal(got.Accounts, &accountRows); err != nil {
			return domain.Entry{}, false, nil, fmt.Errorf("decode accounts: %w", err)
		}
	}
	accts := accounts(accountRows)
	if len(got.Entry) == 0 || string(got.Entry) == "null" {
		return domain.Entry{}, false, accts, nil
	}
	var er entryRow
	if err := json.Unmarshal(got.Entry, &er); err != nil {
		return domain.Entry{}, false, nil, fmt.Errorf("decode live entry: %w", err)
	}
	var lines []lineRow
	if err := json.Unmarshal(got.Lines, &lines); err != nil {
		return domain.Entry{}, false, nil, fmt.Errorf("decode lines of entry %s: %w", er.ID, err)
	}
	byID := make(map[uuid.UUID]domain.Account, len(accts))
	for _, a := range accts {
		byID[a.ID] = a
	}
	e := er.entry()
	for _, l := range lines {
		a, ok := byID[l.AccountID]
		if !ok {
			return domain.Entry{}, false, nil, fmt.Errorf("entry %s: account %s of line %d not read", er.ID, l.AccountID, l.LineNumber)
		}
		e.Lines = append(e.Lines, l.line(a))
	}
	return e, true, accts, nil
}

// FindLiveEntry implements app.Store: LiveEntryAndAccounts without refs
// or locks (the accounts read are those of the lines, with ancestors).
func (s *Store) FindLiveEntry(ctx context.Context, businessID uuid.UUID, sourceType, sourceID string) (domain.Entry, bool, error) {
	e, ok, _, err := s.LiveEntryAndAccounts(ctx, businessID, sourceType, sourceID, nil, app.NoLock)
	return e, ok, err
}

func (s *Store) findOne(ctx context.Context, db bun.IDB, q *bun.SelectQuery, lock app.Lock) (domain.Entry, bool, error) {
	var r entryRow
	err := selectLocked(q.Model(&r), lock).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Entry{}, false, nil
	}
	if err != nil {
		return domain.Entry{}, false, wrap("find entry", err)
	}
	es, err := s.withLines(ctx, db, []entryRow{r})
	if err != nil {
		return domain.Entry{}, false, err
	}
	return es[0], true, nil
}

// withLines loads the lines (with their accounts) of the entries in one query.
func (s *Store) withLines(ctx context.Context, db bun.IDB, rows []entryRow) ([]domain.Entry, error) {
	if len(rows) == 0 {
		return []domain.Entry{}, nil
	}
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	var lines []lineWithAccount
	err := db.NewRaw(`
		SELECT l.*,
			acct.id AS acct__id, acct.business_id AS acct__business_id, acct.parent_id AS acct__parent_id,
			acct.name AS acct__name, acct.account_number AS acct__account_number, acct.stable_name AS acct__stable_name,
			acct.normality AS acct__normality, acct.account_type AS acct__account_type,
			acct.account_subtype AS acct__account_subtype, acct.is_default AS acct__is_default,
			acct.position AS acct__position, acct.archived_at AS acct__archived_at,
			acct.created_at AS acct__created_at, acct.updated_at AS acct__updated_at
		FROM ledger_lines l
		JOIN ledger_accounts acct ON acct.business_id = l.business_id AND acct.id = l.account_id
		WHERE l.business_id = ? AND l.entry_id IN (?)
		ORDER BY l.entry_id, l.line_number`, rows[0].BusinessID, bun.In(ids)).Scan(ctx, &lines)
	if err != nil {
		return nil, wrap("load lines", err)
	}
	byEntry := make(map[uuid.UUID][]domain.Line, len(rows))
	for _, l := range lines {
		byEntry[l.EntryID] = append(byEntry[l.EntryID], l.line(l.Account.account()))
	}
	out := make([]domain.Entry, len(rows))
	for i, r := range rows {
		out[i] = r.entry()
		out[i].Lines = byEntry[r.ID]
	}
	return out, nil
}

// FindEntries implements app.Store: one keyset page, then the page's lines.
func (s *Store) FindEntries(ctx context.Context, f app.EntryFilter, p page.Params) ([]domain.Entry, page.Meta, error) {
	db := s.conn(ctx)
	q := db.NewSelect().Model((*entryRow)(nil)).Where("e.business_id = ?", f.BusinessID)
	if f.From != nil {
		q = q.Where("e.entry_at >= ?", *f.From)
	}
	if f.Until != nil {
		q = q.Where("e.entry_at < ?", *f.Until)
	}
	if len(f.EntryTypes) > 0 {
		types := make([]string, len(f.EntryTypes))
		for i, t := range f.EntryTypes {
			types[i] = string(t)
		}
		slices.Sort(types)
		q = q.Where("e.entry_type IN (?)", bun.In(types))
	}
	if f.AccountIDs != nil {
		q = q.Where(`EXISTS (SELECT 1 FROM ledger_lines l
			WHERE l.business_id = e.business_id AND l.entry_id = e.id AND l.account_id IN (?))`, bun.In(f.AccountIDs))
	}
	rows, meta, err := pagebun.Fetch(ctx, q, p, "e.id", func(r entryRow) (any, uuid.UUID) {
		switch p.SortBy {
		case "entry_number":
			return r.EntryNumber, r.ID
		case "created_at":
			return r.CreatedAt, r.ID
		}
		return r.EntryAt, r.ID
	})
	if err != nil {
		return nil, page.Meta{}, wrap("list entries", err)
	}
	entries, err := s.withLines(ctx, db, rows)
	if err != nil {
		return nil, page.Meta{}, err
	}
	return entries, meta, nil
}

// AccountTotals implements app.Store.
func (s *Store) AccountTotals(ctx context.Context, businessID uuid.UUID, f app.PeriodFilter) (map[uuid.UUID]domain.DebitCredit, error) {
	db := s.conn(ctx)
	var rows []struct {
		AccountID uuid.UUID `bun:"account_id,type:uuid"`
		Debits    int64     `bun:"debits"`
		Credits   int64     `bun:"credits"`
	}
	q := db.NewSelect().TableExpr("ledger_lines AS l").
		ColumnExpr("l.account_id").
		ColumnExpr("coalesce(sum(l.amount) FILTER (WHERE l.direction = 'DEBIT'), 0) AS debits").
		ColumnExpr("coalesce(sum(l.amount) FILTER (WHERE l.direction = 'CREDIT'), 0) AS credits").
		Where("l.business_id = ?", businessID).
		GroupExpr("l.account_id")
	if f.From != nil {
		q = q.Where("l.entry_at >= ?", *f.From)
	}
	if f.Until != nil {
		q = q.Where("l.entry_at < ?", *f.Until)
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, wrap("account totals", err)
	}
	out := make(map[uuid.UUID]domain.DebitCredit, len(rows))
	for _, r := range rows {
		out[r.AccountID] = domain.DebitCredit{Debits: moneyOf(r.Debits), Credits: moneyOf(r.Credits)}
	}
	return out, nil
}
