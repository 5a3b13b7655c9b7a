package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/services/reports/internal/app"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// RecordEntries keeps es in the journal copy with one statement and
// returns those that were not there yet, in order (a redelivery: nothing
// else must change for the others). An entry twice in es is recorded and
// returned once, as its first occurrence.
func (s *Store) RecordEntries(ctx context.Context, es []app.JournalEntry) ([]app.JournalEntry, error) {
	db := s.conn(ctx)
	type key struct{ business, entry uuid.UUID }
	first := make(map[key]int, len(es))
	vals := make([]string, 0, len(es))
	args := make([]any, 0, 5*len(es))
	for i, e := range es {
		k := key{e.Entry.BusinessID, e.Entry.EntryID}
		if _, dup := first[k]; dup {
			continue
		}
		first[k] = i
		payload := e.Payload
		if len(payload) == 0 {
			var err error
			if payload, err = json.Marshal(e.Entry); err != nil {
				return nil, fmt.Errorf("encode entry: %w", err)
			}
		}
		vals = append(vals, "(?, ?, ?::date, ?::timestamptz, ?::json)")
		args = append(args, k.business, k.entry, e.Day.Format(domain.DateLayout), e.EventTime, string(payload))
	}
	if len(vals) == 0 {
		return nil, nil
	}
	var inserted []struct {
		BusinessID uuid.UUID `bun:"business_id"`
		EntryID    uuid.UUID `bun:"entry_id"`
	}
	if err := db.NewRaw(`INSERT INTO entries (business_id, entry_id, day, event_time, payload) VALUES `+strings.Join(vals, ", ")+`
		ON CONFLICT (business_id, entry_id) DO NOTHING RETURNING business_id, entry_id`, args...).Scan(ctx, &inserted); err != nil {
		return nil, wrap("record entries", err)
	}
	fresh := make([]bool, len(es))
	for _, r := range inserted {
		fresh[first[key{r.BusinessID, r.EntryID}]] = true
	}
	out := make([]app.JournalEntry, 0, len(inserted))
	for i, e := range es {
		if fresh[i] {
			out = append(out, e)
		}
	}
	return out, nil
}

type accountRow struct {
	business   uuid.UUID
	id         uuid.UUID
	stableName *string
	name       string
	typ        string
	subtype    *string
	normality  *string
	path       []string
	seen       time.Time
}

// merged is what the accounts upsert leaves when row a meets row e: the
// newer (a tie goes to e) names, type and path; its subtype and normality
// unless null. Folding an entry's rows in order gives the same row as
// upserting them one entry at a time.
func merged(a, e accountRow) accountRow {
	if a.seen.After(e.seen) {
		a.subtype, a.normality = cmp.Or(a.subtype, e.subtype), cmp.Or(a.normality, e.normality)
		return a
	}
	e.subtype, e.normality = cmp.Or(e.subtype, a.subtype), cmp.Or(e.normality, a.normality)
	return e
}

type accountKey struct {
	business, id uuid.UUID
}

type dayKey struct {
	business        uuid.UUID
	day             string
	account, tagSet uuid.UUID
}

// ApplyLines adds the lines of es to the read model: accounts (and their
// ancestors), tag sets, per-day amounts and the businesses' freshness. The
// rows of all the entries are merged first, so the whole batch is one
// statement per table (ON CONFLICT may touch a row once per statement).
func (s *Store) ApplyLines(ctx context.Context, es []app.JournalEntry) error {
	db := s.conn(ctx)
	accounts := map[accountKey]accountRow{}
	var order []accountKey
	tagSets := map[accountKey]domain.TagSet{}
	var tagOrder []accountKey
	amounts := map[dayKey]int64{}
	var dayOrder []dayKey
	freshness := map[uuid.UUID]time.Time{}
	var bizOrder []uuid.UUID
	for _, je := range es {
		p, bid := je.Entry, je.Entry.BusinessID
		seen := p.CreatedAt
		if seen.IsZero() {
			seen = je.EventTime
		}
		day := je.Day.Format(domain.DateLayout)
		// The entry's own rows first (a line's account wins over the
		// same account as another line's ancestor), then folded into the
		// batch's.
		entryAccounts := map[uuid.UUID]accountRow{}
		var entryOrder []uuid.UUID
		entryAmounts := map[dayKey]int64{}
		var entryDays []dayKey
		for _, l := range p.Lines {
			path := make([]string, 0, len(l.Ancestors))
			for _, a := range l.Ancestors {
				if _, ok := entryAccounts[a.AccountID]; !ok {
					entryOrder = append(entryOrder, a.AccountID)
					entryAccounts[a.AccountID] = accountRow{business: bid, id: a.AccountID, stableName: a.StableName, name: a.Name, typ: l.AccountType,
						path: append([]string{}, path...), seen: seen}
				}
				path = append(path, a.AccountID.String())
			}
			if _, ok := entryAccounts[l.AccountID]; !ok {
				entryOrder = append(entryOrder, l.AccountID)
			}
			entryAccounts[l.AccountID] = accountRow{business: bid, id: l.AccountID, stableName: l.StableName, name: l.AccountName, typ: l.AccountType,
				subtype: nonEmpty(l.AccountSubtype), normality: nonEmpty(l.Normality), path: path, seen: seen}
			tags := make([]domain.Tag, len(l.Tags))
			for i, t := range l.Tags {
				tags[i] = domain.Tag{Key: t.Key, Value: t.Value}
			}
			ts := domain.NewTagSet(tags)
			tk := accountKey{bid, ts.ID(bid)}
			if _, ok := tagSets[tk]; !ok {
				tagSets[tk] = ts
				tagOrder = append(tagOrder, tk)
			}
			dk := dayKey{bid, day, l.AccountID, tk.id}
			if _, ok := entryAmounts[dk]; !ok {
				entryDays = append(entryDays, dk)
			}
			entryAmounts[dk] += l.SignedAmount
		}
		for _, id := range entryOrder {
			k := accountKey{bid, id}
			if old, ok := accounts[k]; ok {
				accounts[k] = merged(old, entryAccounts[id])
			} else {
				accounts[k] = entryAccounts[id]
				order = append(order, k)
			}
		}
		for _, dk := range entryDays {
			if entryAmounts[dk] == 0 {
				continue // an entry netting to zero on a row does not make it
			}
			if _, ok := amounts[dk]; !ok {
				dayOrder = append(dayOrder, dk)
			}
			amounts[dk] += entryAmounts[dk]
		}
		if last, ok := freshness[bid]; !ok {
			bizOrder = append(bizOrder, bid)
			freshness[bid] = je.EventTime
		} else if je.EventTime.After(last) {
			freshness[bid] = je.EventTime
		}
	}
	if len(order) > 0 {
		vals := make([]string, 0, len(order))
		args := make([]any, 0, 9*len(order))
		for _, k := range order {
			a := accounts[k]
			vals = append(vals, "(?, ?, ?, ?, ?, ?, ?, ?::uuid[], ?::timestamptz)")
			args = append(args, a.business, a.id, a.stableName, a.name, a.typ, a.subtype, a.normality, pgdialect.Array(a.path), a.seen)
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
	if len(tagOrder) > 0 {
		vals := make([]string, 0, len(tagOrder))
		args := make([]any, 0, 5*len(tagOrder))
		for _, k := range tagOrder {
			ts := tagSets[k]
			tags, err := json.Marshal(ts)
			if err != nil {
				return fmt.Errorf("encode tag set: %w", err)
			}
			vals = append(vals, "(?, ?, ?::jsonb, ?::text[], ?::text[])")
			args = append(args, k.business, k.id, string(tags), pgdialect.Array(ts.KVs()), pgdialect.Array(ts.Keys()))
		}
		if _, err := db.NewRaw(`INSERT INTO tag_sets (business_id, id, tags, kv, keys) VALUES `+strings.Join(vals, ", ")+`
			ON CONFLICT (business_id, id) DO NOTHING`, args...).Exec(ctx); err != nil {
			return wrap("insert tag sets", err)
		}
	}
	if len(dayOrder) > 0 {
		vals := make([]string, 0, len(dayOrder))
		args := make([]any, 0, 5*len(dayOrder))
		for _, k := range dayOrder {
			vals = append(vals, "(?, ?::date, ?, ?, ?::bigint)")
			args = append(args, k.business, k.day, k.account, k.tagSet, amounts[k])
		}
		if _, err := db.NewRaw(`INSERT INTO account_days AS d (business_id, day, account_id, tag_set_id, amount) VALUES `+strings.Join(vals, ", ")+`
			ON CONFLICT (business_id, day, account_id, tag_set_id) DO UPDATE SET amount = d.amount + EXCLUDED.amount`, args...).Exec(ctx); err != nil {
			return wrap("add amounts", err)
		}
		sums, keys := monthsOf(dayOrder, amounts)
		if err := addMonths(ctx, db, "account_months", sums, keys); err != nil {
			return err
		}
	}
	if len(bizOrder) == 0 {
		return nil
	}
	vals := make([]string, 0, len(bizOrder))
	args := make([]any, 0, 2*len(bizOrder))
	for _, bid := range bizOrder {
		vals = append(vals, "(?, ?::timestamptz)")
		args = append(args, bid, freshness[bid])
	}
	_, err := db.NewRaw(`INSERT INTO freshness AS f (business_id, last_event_at) VALUES `+strings.Join(vals, ", ")+`
		ON CONFLICT (business_id) DO UPDATE SET last_event_at = GREATEST(f.last_event_at, EXCLUDED.last_event_at)`, args...).Exec(ctx)
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
// (the last event applied stays the last applied); and it takes the
// business off the queue of pending rebuilds.
func (s *Store) ClearBusiness(ctx context.Context, bid uuid.UUID) error {
	db := s.conn(ctx)
	for _, t := range []string{"rebuild_pending", "account_days", "account_months", "cash_days", "cash_months", "cash_doc_lines", "cash_docs", "cash_recognized", "tag_sets", "accounts", "aging_moves", "aging_holders"} {
		if _, err := db.NewRaw("DELETE FROM ? WHERE business_id = ?", bun.Ident(t), bid).Exec(ctx); err != nil {
			return wrap("clear "+t, err)
		}
	}
	return nil
}

// PendingRebuilds implements app.Store, oldest first.
func (s *Store) PendingRebuilds(ctx context.Context) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := s.conn(ctx).NewRaw("SELECT business_id FROM rebuild_pending ORDER BY queued_at, business_id").Scan(ctx, &ids)
	return ids, wrap("read pending rebuilds", err)
}

// JournalBusinesses is every business of the journal copy.
func (s *Store) JournalBusinesses(ctx context.Context) ([]uuid.UUID, error) {
	db := s.conn(ctx)
	var ids []uuid.UUID
	err := db.NewRaw("SELECT DISTINCT business_id FROM entries ORDER BY business_id").Scan(ctx, &ids)
	return ids, wrap("list businesses", err)
}

// JournalPage is up to limit entries of business bid after entry id after
// (uuid.Nil: from the start), in entry id order.
func (s *Store) JournalPage(ctx context.Context, bid, after uuid.UUID, limit int) ([]app.JournalEntry, error) {
	db := s.conn(ctx)
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

// monthKey is a business, month (its first day, YYYY-MM-DD) and account.
type monthKey struct {
	business uuid.UUID
	month    string
	account  uuid.UUID
}

// monthsOf sums per-day amounts per month and account (all tag sets).
func monthsOf(order []dayKey, amounts map[dayKey]int64) (map[monthKey]int64, []monthKey) {
	out := map[monthKey]int64{}
	var keys []monthKey
	for _, k := range order {
		mk := monthKey{k.business, k.day[:8] + "01", k.account}
		if _, ok := out[mk]; !ok {
			keys = append(keys, mk)
		}
		out[mk] += amounts[k]
	}
	return out, keys
}

// addMonths adds month totals to table (account_months or cash_months), in
// one statement, in the transaction that wrote their days.
func addMonths(ctx context.Context, db bun.IDB, table string, sums map[monthKey]int64, keys []monthKey) error {
	vals := make([]string, 0, len(keys))
	args := make([]any, 0, 4*len(keys)+1)
	args = append(args, bun.Ident(table))
	for _, k := range keys {
		if sums[k] == 0 {
			continue
		}
		vals = append(vals, "(?, ?::date, ?, ?::bigint)")
		args = append(args, k.business, k.month, k.account, sums[k])
	}
	if len(vals) == 0 {
		return nil
	}
	_, err := db.NewRaw(`INSERT INTO ? AS m (business_id, month, account_id, amount) VALUES `+strings.Join(vals, ", ")+`
		ON CONFLICT (business_id, month, account_id) DO UPDATE SET amount = m.amount + EXCLUDED.amount`, args...).Exec(ctx)
	return wrap("add "+table, err)
}
