package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// EntryLines implements app.Store: the lines on accounts of the journal
// copy's entries dated start..end, in day, entry and line order, at most
// limit (then it returns limit+1 lines, so the caller knows there are
// more). A line's Account holds only its id (the caller knows the
// accounts).
func (s *Store) EntryLines(ctx context.Context, bid uuid.UUID, start, end time.Time, accounts map[uuid.UUID]bool, limit int) ([]domain.DetailLine, error) {
	db := s.conn(ctx)
	rows, err := db.QueryContext(ctx, `SELECT payload FROM entries WHERE business_id = ? AND day BETWEEN ? AND ? ORDER BY day, entry_id`,
		bid, start, end)
	if err != nil {
		return nil, wrap("read entries", err)
	}
	defer rows.Close()
	var out []domain.DetailLine
	for rows.Next() && len(out) <= limit {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, wrap("read entries", err)
		}
		var p events.LedgerEntryPosted
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("decode entry: %w", err)
		}
		day, err := time.Parse(domain.DateLayout, p.Date)
		if err != nil {
			day = p.EntryAt.UTC().Truncate(24 * time.Hour)
		}
		for _, l := range p.Lines {
			if !accounts[l.AccountID] {
				continue
			}
			ts := make([]domain.Tag, len(l.Tags))
			for i, t := range l.Tags {
				ts[i] = domain.Tag{Key: t.Key, Value: t.Value}
			}
			out = append(out, domain.DetailLine{ID: l.LineID.String(), EntryID: p.EntryID.String(), Account: domain.Account{ID: l.AccountID},
				Amount: l.SignedAmount, Day: day, EntryAt: p.EntryAt, SourceType: p.SourceType, SourceID: p.SourceID, Tags: domain.NewTagSet(ts)})
		}
	}
	return out, wrap("read entries", rows.Err())
}

// RecognizedLines implements app.Store: what payments recognized on the
// cash basis on accounts on the days start..end, per document, day,
// account and tag set, at most limit+1.
func (s *Store) RecognizedLines(ctx context.Context, bid uuid.UUID, start, end time.Time, accounts map[uuid.UUID]bool, limit int) ([]domain.DetailLine, error) {
	ids := make([]uuid.UUID, 0, len(accounts))
	for id := range accounts {
		ids = append(ids, id)
	}
	var rows []struct {
		SourceType string    `bun:"source_type"`
		SourceID   string    `bun:"source_id"`
		Day        time.Time `bun:"day"`
		AccountID  uuid.UUID `bun:"account_id"`
		TagSetID   uuid.UUID `bun:"tag_set_id"`
		Amount     int64     `bun:"amount"`
		Tags       []byte    `bun:"tags"`
	}
	if err := s.conn(ctx).NewRaw(`SELECT r.source_type, r.source_id, r.day, r.account_id, r.tag_set_id, r.amount, t.tags
		FROM cash_recognized r LEFT JOIN tag_sets t ON t.business_id = r.business_id AND t.id = r.tag_set_id
		WHERE r.business_id = ? AND r.day BETWEEN ? AND ? AND r.account_id = ANY(?::uuid[]) AND r.amount <> 0
		ORDER BY r.day, r.source_type, r.source_id, r.account_id, r.tag_set_id LIMIT ?`,
		bid, start, end, pgdialect.Array(ids), limit+1).Scan(ctx, &rows); err != nil {
		return nil, wrap("read recognized", err)
	}
	out := make([]domain.DetailLine, len(rows))
	for i, r := range rows {
		var ts domain.TagSet
		if len(r.Tags) > 0 {
			if err := json.Unmarshal(r.Tags, &ts); err != nil {
				return nil, fmt.Errorf("decode tag set: %w", err)
			}
		}
		day := r.Day.UTC()
		// A recognized part has no ledger line of its own: its id names
		// the document, day, account and tag set.
		id := uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "%s/%s/%s/%s/%s/%s", bid, r.SourceType, r.SourceID, day.Format(domain.DateLayout), r.AccountID, r.TagSetID))
		out[i] = domain.DetailLine{ID: id.String(), Account: domain.Account{ID: r.AccountID}, Amount: r.Amount, Day: day, EntryAt: day,
			SourceType: r.SourceType, SourceID: r.SourceID, Tags: ts}
	}
	return out, nil
}
