package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// JournalEntryInput is POST /ledger/journal-entries as the caller sent it
// (already decoded: amounts in cents, account identifiers parsed).
type JournalEntryInput struct {
	ExternalID *string
	EntryType  domain.EntryType // MANUAL or OPENING_BALANCE
	EntryAt    *time.Time       // now when absent
	CreatedBy  *string          // DefaultCreatedBy when absent
	Memo       *string
	Reference  *string
	Metadata   json.RawMessage
	Tags       []tags.KeyValue
	Lines      []JournalEntryLineInput
	// DefaultCreatedBy names the caller (its client) when CreatedBy is absent.
	DefaultCreatedBy string
}

// JournalEntryLineInput is one line as sent.
type JournalEntryLineInput struct {
	domain.JournalLine
	ExternalID *string
}

// JournalEntryResult is a manual journal entry and the entry it posted.
type JournalEntryResult struct {
	JournalEntry domain.JournalEntry
	Entry        domain.Entry
	// Created is false when the external id was posted before with the
	// same content and this is that entry again.
	Created bool
}

// CreateJournalEntry posts a manual journal entry (opening balances,
// adjustments). An unbalanced entry is 400 UnbalancedEntry and nothing is
// written. With an external id the request is idempotent: the same id and
// content returns the first entry, the same id with other content is 409
// DuplicateExternalId.
func (l *Ledger) CreateJournalEntry(ctx context.Context, businessID uuid.UUID, in JournalEntryInput) (JournalEntryResult, error) {
	if in.EntryType == "" {
		in.EntryType = domain.EntryManual
	}
	if in.EntryType != domain.EntryManual && in.EntryType != domain.EntryOpeningBalance {
		return JournalEntryResult{}, apperr.PayloadField("entry_type", "must be MANUAL or OPENING_BALANCE")
	}
	createdBy := in.DefaultCreatedBy
	fields := map[string]string{}
	var err error
	if in.CreatedBy != nil {
		if createdBy, err = domain.CleanText("created_by", *in.CreatedBy, domain.MaxCreatedByLength); err != nil {
			fields["created_by"] = fmt.Sprintf("must be 1 to %d characters without control characters", domain.MaxCreatedByLength)
		}
	}
	memo, err := domain.CleanOptionalText("memo", in.Memo, domain.MaxMemoLength)
	if err != nil {
		fields["memo"] = fmt.Sprintf("must be at most %d characters without control characters", domain.MaxMemoLength)
	}
	ref, err := domain.CleanOptionalText("reference_number", in.Reference, domain.MaxReferenceLength)
	if err != nil {
		fields["reference_number"] = fmt.Sprintf("must be at most %d characters without control characters", domain.MaxReferenceLength)
	}
	var externalID *string
	if in.ExternalID != nil {
		v, err := domain.CleanText("external_id", *in.ExternalID, domain.MaxExternalIDLength)
		if err != nil {
			fields["external_id"] = fmt.Sprintf("must be 1 to %d characters without control characters", domain.MaxExternalIDLength)
		}
		externalID = &v
	}
	lines := make([]domain.JournalLine, len(in.Lines))
	for i, li := range in.Lines {
		lines[i] = li.JournalLine
		if lines[i].Memo, err = domain.CleanOptionalText("memo", li.Memo, domain.MaxMemoLength); err != nil {
			fields[fmt.Sprintf("line_items[%d].memo", i)] = fmt.Sprintf("must be at most %d characters without control characters", domain.MaxMemoLength)
		}
		if li.ExternalID != nil {
			if _, err := domain.CleanText("external_id", *li.ExternalID, domain.MaxExternalIDLength); err != nil {
				fields[fmt.Sprintf("line_items[%d].external_id", i)] = fmt.Sprintf("must be 1 to %d characters without control characters", domain.MaxExternalIDLength)
			}
		}
	}
	if len(fields) > 0 {
		return JournalEntryResult{}, apperr.FieldErrors(apperr.InvalidPayload, fields)
	}
	// Validate the whole request before touching the database.
	if _, err := domain.NewJournal(lines); err != nil {
		return JournalEntryResult{}, err
	}
	hash, err := requestHash(in)
	if err != nil {
		return JournalEntryResult{}, apperr.Wrap(apperr.InvalidPayload, err, "metadata must be a JSON object")
	}
	entryAt := l.clock()
	if in.EntryAt != nil {
		entryAt = *in.EntryAt
	}

	var res JournalEntryResult
	err = l.uow.Do(ctx, func(ctx context.Context) error {
		if externalID != nil {
			if err := l.store.LockExternalID(ctx, businessID, *externalID); err != nil {
				return fmt.Errorf("lock external id: %w", err)
			}
			prev, ok, err := l.store.FindJournalEntryByExternalID(ctx, businessID, *externalID)
			if err != nil {
				return fmt.Errorf("find journal entry %q: %w", *externalID, err)
			}
			if ok {
				if !bytes.Equal(prev.RequestHash, hash) {
					return apperr.Newf(apperr.Conflict, "external_id %q was used for a different journal entry", *externalID).
						WithEnum(domain.EnumDuplicateExternalID).WithMeta("id", prev.ID.String())
				}
				entry, ok, err := l.store.FindEntry(ctx, businessID, prev.EntryID, NoLock)
				if err != nil || !ok {
					return fmt.Errorf("entry %s of journal entry %s: found %v: %w", prev.EntryID, prev.ID, ok, err)
				}
				res = JournalEntryResult{JournalEntry: prev, Entry: entry}
				return nil
			}
		}
		id := newID()
		entry, err := l.PostEntry(ctx, businessID, NewEntry{
			EntryType: in.EntryType, Agent: domain.AgentAPI, EntryAt: entryAt,
			Source: domain.Source{Type: domain.SourceJournalEntry, ID: id.String()},
			Memo:   memo, Reference: ref, Metadata: in.Metadata, Tags: in.Tags, Lines: lines,
		})
		if err != nil {
			return err
		}
		je := domain.JournalEntry{
			ID: id, BusinessID: businessID, ExternalID: externalID, EntryID: entry.ID, CreatedBy: createdBy,
			Reference: ref, Metadata: entry.Metadata, Tags: entry.Tags, RequestHash: hash, CreatedAt: entry.CreatedAt,
		}
		if memo != nil {
			je.Memo = *memo
		}
		for i, line := range entry.Lines {
			je.LineItems = append(je.LineItems, domain.JournalEntryLine{
				ID: newID(), ExternalID: in.Lines[i].ExternalID, Memo: line.Memo, LineID: line.ID, Tags: line.Tags,
			})
		}
		if err := l.store.InsertJournalEntry(ctx, je); err != nil {
			return fmt.Errorf("insert journal entry: %w", err)
		}
		res = JournalEntryResult{JournalEntry: je, Entry: entry, Created: true}
		return nil
	})
	return res, err
}

// requestHash identifies a journal-entry request's content: every field as
// sent, amounts as cents, metadata with sorted keys.
func requestHash(in JournalEntryInput) ([]byte, error) {
	meta, err := canonicalJSON(in.Metadata)
	if err != nil {
		return nil, err
	}
	type line struct {
		Account    domain.AccountRef
		Amount     int64
		Direction  domain.Direction
		Memo       *string
		ExternalID *string
		Tags       []tags.KeyValue
	}
	canon := struct {
		ExternalID *string
		EntryType  domain.EntryType
		EntryAt    *time.Time
		CreatedBy  *string
		Memo       *string
		Reference  *string
		Metadata   json.RawMessage
		Tags       []tags.KeyValue
		Lines      []line
	}{in.ExternalID, in.EntryType, in.EntryAt, in.CreatedBy, in.Memo, in.Reference, meta, in.Tags, nil}
	if canon.EntryAt != nil {
		t := canon.EntryAt.UTC()
		canon.EntryAt = &t
	}
	for _, li := range in.Lines {
		canon.Lines = append(canon.Lines, line{li.Account, int64(li.Amount), li.Direction, li.Memo, li.ExternalID, li.Tags})
	}
	raw, err := json.Marshal(canon)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	return sum[:], nil
}
