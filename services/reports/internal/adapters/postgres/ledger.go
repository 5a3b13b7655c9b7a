package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/reports/internal/app"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// RecordEntry keeps p in the journal copy; false when the entry was
// already there (a redelivery: nothing else must change).
func (s *Store) RecordEntry(ctx context.Context, db bun.IDB, p events.LedgerEntryPosted, day time.Time, eventTime time.Time) (bool, error) {
	payload, err := json.Marshal(p)
	if err != nil {
		return false, fmt.Errorf("encode entry: %w", err)
	}
	res, err := db.NewRaw(`INSERT INTO entries (business_id, entry_id, day, event_time, payload)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (business_id, entry_id) DO NOTHING`,
		p.BusinessID, p.EntryID, day, eventTime, string(payload)).Exec(ctx)
	if err != nil {
		return false, wrap("record entry", err)
	}
	n, err := res.RowsAffected()
	return n == 1, wrap("record entry", err)
}

type accountRow struct {
	id         uuid.UUID
	stableName *string
	name       string
	typ        string
	subtype    *string
	normality  *string
	path       []string
}

type dayKey struct {
	account, tagSet uuid.UUID
}

// ApplyLines adds p's lines to the read model: accounts (and their
// ancestors), tag sets, per-day amounts and the business's freshness.
func (s *Store) ApplyLines(ctx context.Context, db bun.IDB, p events.LedgerEntryPosted, day time.Time, eventTime time.Time) error {
	bid := p.BusinessID
	seen := p.CreatedAt
	if seen.IsZero() {
		seen = eventTime
	}
	accounts := map[uuid.UUID]accountRow{}
	tagSets := map[uuid.UUID]domain.TagSet{}
	amounts := map[dayKey]int64{}
	var order []uuid.UUID
	for _, l := range p.Lines {
		path := make([]string, 0, len(l.Ancestors))
		for _, a := range l.Ancestors {
			if _, ok := accounts[a.AccountID]; !ok {
				order = append(order, a.AccountID)
				accounts[a.AccountID] = accountRow{id: a.AccountID, stableName: a.StableName, name: a.Name, typ: l.AccountType, path: append([]string{}, path...)}
			}
			path = append(path, a.AccountID.String())
		}
		if _, ok := accounts[l.AccountID]; !ok {
			order = append(order, l.AccountID)
		}
		st, norm := l.AccountSubtype, l.Normality
		accounts[l.AccountID] = accountRow{id: l.AccountID, stableName: l.StableName, name: l.AccountName, typ: l.AccountType,
			subtype: nonEmpty(st), normality: nonEmpty(norm), path: path}
		tags := make([]domain.Tag, len(l.Tags))
		for i, t := range l.Tags {
			tags[i] = domain.Tag{Key: t.Key, Value: t.Value}
		}
		ts := domain.NewTagSet(tags)
		tid := ts.ID(bid)
		tagSets[tid] = ts
		amounts[dayKey{l.AccountID, tid}] += l.SignedAmount
	}
	// One statement per table for the whole entry (rows deduplicated
	// above: ON CONFLICT may touch a row once per statement).
	if len(order) > 0 {
		vals := make([]string, 0, len(order))
		args := make([]any, 0, 9*len(order))
		for _, id := range order {
			a := accounts[id]
			vals = append(vals, "(?, ?, ?, ?, ?, ?, ?, ?::uuid[], ?::timestamptz)")
			args = append(args, bid, a.id, a.stableName, a.name, a.typ, a.subtype, a.normality, pgdialect.Array(a.path), seen)
		}
		if _, err := db.NewRaw(`INSERT INTO accounts AS a (business_id, id, stable_name, name, account_type, subtype, normality, path, seen_at)
			VALUES `+strings.Join(vals, ", ")+`
			ON CONFLICT (business_id, id) DO UPDATE SET
			  stable_name  = CASE WHEN a.seen_at <= EXCLUDED.seen_at THEN EXCLUDED.stable_name ELSE a.stable_name END,
			  name         = CASE WHEN a.seen_at <= EXCLUDED.seen_at THEN EXCLUDED.name ELSE a.name END,
			  account_type = CASE WHEN a.seen_at <= EXCLUDED.seen_at THEN EXCLUDED.account_type ELSE a.account_type END,
			  path         = CASE WHEN a.seen_at <= EXCLUDED.seen_at THEN EXCLUDED.path ELSE a.path END,
			  subtype      = CASE WHEN a.seen_at <= EXCLUDED.seen_at THEN COALESCE(EXCLUDED.subtype, a.subtype) ELSE COALESCE(a.subtype, EXCLUDED.subtype) END,
			  normality    = CASE WHEN a.seen_at <= EXCLUDED.seen_at THEN COALESCE(EXCLUDED.normality, a.normality) ELSE COALESCE(a.normality, EXCLUDED.normality) END,
			  seen_at      = GREATEST(a.seen_at, EXCLUDED.seen_at)`, args...).Exec(ctx); err != nil {
			return wrap("upsert accounts", err)
		}
	}
	if len(tagSets) > 0 {
		vals := make([]string, 0, len(tagSets))
		args := make([]any, 0, 5*len(tagSets))
		for id, ts := range tagSets {
			tags, err := json.Marshal(ts)
			if err != nil {
				return fmt.Errorf("encode tag set: %w", err)
			}
			vals = append(vals, "(?, ?, ?::jsonb, ?::text[], ?::text[])")
			args = append(args, bid, id, string(tags), pgdialect.Array(ts.KVs()), pgdialect.Array(ts.Keys()))
		}
		if _, err := db.NewRaw(`INSERT INTO tag_sets (business_id, id, tags, kv, keys) VALUES `+strings.Join(vals, ", ")+`
			ON CONFLICT (business_id, id) DO NOTHING`, args...).Exec(ctx); err != nil {
			return wrap("insert tag sets", err)
		}
	}
	vals := make([]string, 0, len(amounts))
	args := make([]any, 0, 5*len(amounts))
	for k, amt := range amounts {
		if amt == 0 {
			continue
		}
		vals = append(vals, "(?, ?::date, ?, ?, ?::bigint)")
		args = append(args, bid, day, k.account, k.tagSet, amt)
	}
	if len(vals) > 0 {
		if _, err := db.NewRaw(`INSERT INTO account_days AS d (business_id, day, account_id, tag_set_id, amount) VALUES `+strings.Join(vals, ", ")+`
			ON CONFLICT (business_id, day, account_id, tag_set_id) DO UPDATE SET amount = d.amount + EXCLUDED.amount`, args...).Exec(ctx); err != nil {
			return wrap("add amounts", err)
		}
	}
	_, err := db.NewRaw(`INSERT INTO freshness AS f (business_id, last_event_at) VALUES (?, ?)
		ON CONFLICT (business_id) DO UPDATE SET last_event_at = GREATEST(f.last_event_at, EXCLUDED.last_event_at)`,
		bid, eventTime).Exec(ctx)
	return wrap("freshness", err)
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ClearBusiness removes the read model of business bid that its journal
// copy recomputes: not the journal copy, not the latest snapshots (bank
// transactions, payments and their allocations) and not its freshness
// (the last event applied stays the last applied).
func (s *Store) ClearBusiness(ctx context.Context, db bun.IDB, bid uuid.UUID) error {
	for _, t := range []string{"account_days", "cash_days", "cash_doc_lines", "cash_docs", "cash_recognized", "tag_sets", "accounts"} {
		if _, err := db.NewRaw("DELETE FROM ? WHERE business_id = ?", bun.Ident(t), bid).Exec(ctx); err != nil {
			return wrap("clear "+t, err)
		}
	}
	return nil
}

// JournalBusinesses is every business of the journal copy.
func (s *Store) JournalBusinesses(ctx context.Context, db bun.IDB) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := db.NewRaw("SELECT DISTINCT business_id FROM entries ORDER BY business_id").Scan(ctx, &ids)
	return ids, wrap("list businesses", err)
}

// JournalPage is up to limit entries of business bid after entry id after
// (uuid.Nil: from the start), in entry id order.
func (s *Store) JournalPage(ctx context.Context, db bun.IDB, bid, after uuid.UUID, limit int) ([]app.JournalEntry, error) {
	var rows []struct {
		Day       time.Time       `bun:"day"`
		EventTime time.Time       `bun:"event_time"`
		Payload   json.RawMessage `bun:"payload"`
	}
	if err := db.NewRaw(`SELECT day, event_time, payload FROM entries WHERE business_id = ? AND entry_id > ?
		ORDER BY entry_id LIMIT ?`, bid, after, limit).Scan(ctx, &rows); err != nil {
		return nil, wrap("read journal", err)
	}
	out := make([]app.JournalEntry, len(rows))
	for i, r := range rows {
		if err := json.Unmarshal(r.Payload, &out[i].Entry); err != nil {
			return nil, fmt.Errorf("decode journal entry: %w", err)
		}
		out[i].Day, out[i].EventTime = r.Day, r.EventTime
	}
	return out, nil
}
