package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// journalEntryRow is a row of ledger_journal_entries.
type journalEntryRow struct {
	bun.BaseModel `bun:"table:ledger_journal_entries,alias:j"`

	ID              uuid.UUID         `bun:"id,pk,type:uuid"`
	BusinessID      uuid.UUID         `bun:"business_id,type:uuid"`
	ExternalID      *string           `bun:"external_id"`
	EntryID         uuid.UUID         `bun:"entry_id,type:uuid"`
	CreatedBy       string            `bun:"created_by"`
	Memo            string            `bun:"memo"`
	ReferenceNumber *string           `bun:"reference_number"`
	Metadata        json.RawMessage   `bun:"metadata,type:jsonb"`
	Tags            []tags.Tag        `bun:"tags,type:jsonb"`
	LineItems       []journalLineJSON `bun:"line_items,type:jsonb"`
	RequestHash     []byte            `bun:"request_hash"`
	CreatedAt       time.Time         `bun:"created_at"`
}

// journalLineJSON is one element of line_items.
type journalLineJSON struct {
	ID         uuid.UUID  `json:"id"`
	ExternalID *string    `json:"external_id"`
	Memo       *string    `json:"memo"`
	LineID     uuid.UUID  `json:"line_item_id"`
	Tags       []tags.Tag `json:"tags"`
}

// LockExternalID implements app.Store with a transaction-scoped advisory
// lock on the (business, external id) pair.
func (s *Store) LockExternalID(ctx context.Context, businessID uuid.UUID, externalID string) error {
	db := s.conn(ctx)
	_, err := db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))",
		"ledger_journal_entries:"+businessID.String()+":"+externalID)
	return wrap("lock external id", err)
}

// FindJournalEntryByExternalID implements app.Store.
func (s *Store) FindJournalEntryByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (domain.JournalEntry, bool, error) {
	db := s.conn(ctx)
	var r journalEntryRow
	err := db.NewSelect().Model(&r).Where("j.business_id = ? AND j.external_id = ?", businessID, externalID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.JournalEntry{}, false, nil
	}
	if err != nil {
		return domain.JournalEntry{}, false, wrap("find journal entry", err)
	}
	j := domain.JournalEntry{
		ID: r.ID, BusinessID: r.BusinessID, ExternalID: r.ExternalID, EntryID: r.EntryID, CreatedBy: r.CreatedBy,
		Memo: r.Memo, Reference: r.ReferenceNumber, Tags: nonNilTags(r.Tags), RequestHash: r.RequestHash,
		CreatedAt: r.CreatedAt.UTC(),
	}
	if len(r.Metadata) > 0 && string(r.Metadata) != "null" {
		j.Metadata = r.Metadata
	}
	for _, l := range r.LineItems {
		j.LineItems = append(j.LineItems, domain.JournalEntryLine{
			ID: l.ID, ExternalID: l.ExternalID, Memo: l.Memo, LineID: l.LineID, Tags: nonNilTags(l.Tags),
		})
	}
	return j, true, nil
}

// InsertJournalEntry implements app.Store.
func (s *Store) InsertJournalEntry(ctx context.Context, j domain.JournalEntry) error {
	db := s.conn(ctx)
	r := journalEntryRow{
		ID: j.ID, BusinessID: j.BusinessID, ExternalID: j.ExternalID, EntryID: j.EntryID, CreatedBy: j.CreatedBy,
		Memo: j.Memo, ReferenceNumber: j.Reference, Tags: nonNilTags(j.Tags), LineItems: []journalLineJSON{},
		RequestHash: j.RequestHash, CreatedAt: j.CreatedAt,
	}
	if len(j.Metadata) > 0 {
		r.Metadata = j.Metadata
	}
	for _, l := range j.LineItems {
		r.LineItems = append(r.LineItems, journalLineJSON{ID: l.ID, ExternalID: l.ExternalID, Memo: l.Memo, LineID: l.LineID, Tags: nonNilTags(l.Tags)})
	}
	_, err := db.NewInsert().Model(&r).Exec(ctx)
	return wrap("insert journal entry", err)
}
