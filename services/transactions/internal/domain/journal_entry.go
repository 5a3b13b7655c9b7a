package domain

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/tags"
)

// JournalEntry is a manual journal entry (opening balances, adjustments)
// as a caller created it through POST /ledger/journal-entries; the ledger
// entry it posted is EntryID.
type JournalEntry struct {
	ID         uuid.UUID
	BusinessID uuid.UUID
	ExternalID *string
	EntryID    uuid.UUID
	CreatedBy  string
	Memo       string
	Reference  *string
	Metadata   json.RawMessage
	Tags       []tags.Tag
	LineItems  []JournalEntryLine
	// RequestHash identifies the request's content: the same external id
	// with the same content is a replay, with other content a conflict.
	RequestHash []byte
	CreatedAt   time.Time
}

// JournalEntryLine is a line of a manual journal entry as the caller sent
// it, pointing at the ledger line it posted.
type JournalEntryLine struct {
	ID         uuid.UUID
	ExternalID *string
	Memo       *string
	LineID     uuid.UUID
	Tags       []tags.Tag
}

// Limits of journal-entry text fields, in characters.
const (
	MaxMemoLength       = 2000
	MaxCreatedByLength  = 255
	MaxExternalIDLength = 255
	MaxReferenceLength  = 255
)
