package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// NewEntry is an entry to post.
type NewEntry struct {
	EntryType domain.EntryType
	Agent     domain.Agent
	// EntryAt is when the entry counts (balances as of a date include it
	// from then on); Date defaults to it.
	EntryAt   time.Time
	Date      *time.Time
	Source    domain.Source
	Memo      *string
	Reference *string
	Metadata  json.RawMessage // a JSON object of at most 1 KB, or nil
	Tags      []tags.KeyValue
	Lines     []domain.JournalLine
}

// PostEntry posts a balanced entry in the caller's transaction tx and
// enqueues its ledger.entry.posted event there. Lines name accounts by id
// or stable name; an unknown account is 400 UnknownAccount, an archived one
// 400 AccountArchived. The same source version posted again returns the
// entry posted the first time (409 SourceConflict when the lines differ);
// another version while the source has a live entry is 409
// LiveEntryExists.
func (l *Ledger) PostEntry(ctx context.Context, tx bun.IDB, businessID uuid.UUID, in NewEntry) (domain.Entry, error) {
	if !in.EntryType.Valid() {
		return domain.Entry{}, fmt.Errorf("post entry: unknown entry type %q", in.EntryType)
	}
	if !in.Agent.Valid() {
		return domain.Entry{}, fmt.Errorf("post entry: unknown agent %q", in.Agent)
	}
	if err := in.Source.Validate(); err != nil {
		return domain.Entry{}, err
	}
	if in.EntryAt.IsZero() {
		return domain.Entry{}, fmt.Errorf("post entry: no entry_at")
	}
	journal, err := domain.NewJournal(in.Lines)
	if err != nil {
		return domain.Entry{}, err
	}
	metadata, err := domain.CheckMetadata("metadata", in.Metadata)
	if err != nil {
		return domain.Entry{}, err
	}
	entryTags, err := tags.NormalizeList("tags", in.Tags)
	if err != nil {
		return domain.Entry{}, err
	}
	lineTags := make([][]tags.KeyValue, len(in.Lines))
	for i, line := range in.Lines {
		if lineTags[i], err = tags.NormalizeList(fmt.Sprintf("line_items[%d].tags", i), line.Tags); err != nil {
			return domain.Entry{}, err
		}
	}

	accounts, err := l.resolveLines(ctx, tx, businessID, journal)
	if err != nil {
		return domain.Entry{}, err
	}
	ids := make([]uuid.UUID, len(accounts))
	for i, a := range accounts {
		ids[i] = a.ID
	}
	if existing, ok, err := l.store.FindEntryBySource(ctx, tx, businessID, in.Source); err != nil {
		return domain.Entry{}, fmt.Errorf("find entry of source %+v: %w", in.Source, err)
	} else if ok {
		return replayed(existing, journal, ids)
	}
	if err := checkLive(accounts); err != nil {
		return domain.Entry{}, err
	}

	now := l.clock()
	entryAt := in.EntryAt.UTC().Truncate(time.Microsecond)
	date := entryAt
	if in.Date != nil {
		date = in.Date.UTC().Truncate(time.Microsecond)
	}
	e := domain.Entry{
		ID: newID(), BusinessID: businessID, EntryType: in.EntryType, Agent: in.Agent, Date: date, EntryAt: entryAt,
		Source: in.Source, Memo: in.Memo, Reference: in.Reference, Metadata: metadata, CreatedAt: now,
	}
	e.Tags = makeTags(businessID, e.ID, entryTags, now)
	for i, jl := range journal.Lines() {
		lineID := newID()
		e.Lines = append(e.Lines, domain.Line{
			ID: lineID, EntryID: e.ID, Number: i + 1, Account: accounts[i], Amount: jl.Amount, Direction: jl.Direction,
			Memo: jl.Memo, Tags: makeTags(businessID, lineID, lineTags[i], now), EntryAt: entryAt, CreatedAt: now,
		})
	}
	return l.insert(ctx, tx, e, journal, ids)
}

// insert stores e (a new entry or a reversal) and publishes it; a source
// conflict found by the unique indexes becomes a replay or a 409.
func (l *Ledger) insert(ctx context.Context, tx bun.IDB, e domain.Entry, journal domain.Journal, ids []uuid.UUID) (domain.Entry, error) {
	inserted, err := l.store.InsertEntry(ctx, tx, &e)
	if err != nil {
		return domain.Entry{}, fmt.Errorf("insert entry: %w", err)
	}
	if !inserted {
		if e.ReversalOfID != nil {
			return domain.Entry{}, apperr.New(apperr.Conflict, "the entry is already reversed").WithEnum(domain.EnumAlreadyReversed)
		}
		// A concurrent posting of the same source committed first.
		existing, ok, err := l.store.FindEntryBySource(ctx, tx, e.BusinessID, e.Source)
		if err != nil {
			return domain.Entry{}, fmt.Errorf("find entry of source %+v: %w", e.Source, err)
		}
		if ok {
			return replayed(existing, journal, ids)
		}
		live, _, err := l.store.FindLiveEntry(ctx, tx, e.BusinessID, e.Source.Type, e.Source.ID)
		if err != nil {
			return domain.Entry{}, fmt.Errorf("find live entry of source %+v: %w", e.Source, err)
		}
		return domain.Entry{}, apperr.Newf(apperr.Conflict,
			"source %s %s already has a live entry; reverse it before posting another", e.Source.Type, e.Source.ID).
			WithEnum(domain.EnumLiveEntryExists).WithMeta("entry_id", live.ID.String())
	}
	all, err := l.store.AccountsWithAncestors(ctx, tx, e.BusinessID, ids)
	if err != nil {
		return domain.Entry{}, fmt.Errorf("ancestors of entry accounts: %w", err)
	}
	byID := make(map[uuid.UUID]domain.Account, len(all))
	for _, a := range all {
		byID[a.ID] = a
	}
	if err := l.pub.EntryPosted(ctx, tx, e, byID); err != nil {
		return domain.Entry{}, fmt.Errorf("publish entry %s: %w", e.ID, err)
	}
	return e, nil
}

func replayed(existing domain.Entry, j domain.Journal, ids []uuid.UUID) (domain.Entry, error) {
	if !existing.SameLines(j, ids) {
		return domain.Entry{}, apperr.Newf(apperr.Conflict,
			"source %s %s version %q was posted with other lines", existing.Source.Type, existing.Source.ID, existing.Source.Version).
			WithEnum(domain.EnumSourceConflict).WithMeta("entry_id", existing.ID.String())
	}
	return existing, nil
}

// resolveLines finds (and share-locks) the account of every line, in line
// order.
func (l *Ledger) resolveLines(ctx context.Context, tx bun.IDB, businessID uuid.UUID, j domain.Journal) ([]domain.Account, error) {
	lines := j.Lines()
	refs := make([]domain.AccountRef, 0, len(lines))
	for _, line := range lines {
		if !slices.Contains(refs, line.Account) {
			refs = append(refs, line.Account)
		}
	}
	found, err := l.store.FindAccountsByRefs(ctx, tx, businessID, refs, LockShare)
	if err != nil {
		return nil, fmt.Errorf("resolve accounts: %w", err)
	}
	out := make([]domain.Account, len(lines))
	for i, line := range lines {
		idx := slices.IndexFunc(found, func(a domain.Account) bool {
			if line.Account.IsStableName() {
				return a.StableName != nil && *a.StableName == line.Account.StableName
			}
			return a.ID == line.Account.ID
		})
		if idx < 0 {
			return nil, domain.ErrUnknownAccount(fmt.Sprintf("line_items[%d].account_identifier", i), line.Account)
		}
		out[i] = found[idx]
	}
	return out, nil
}

// checkLive refuses lines on archived accounts (400 AccountArchived).
func checkLive(accounts []domain.Account) error {
	for i, a := range accounts {
		if a.Archived() {
			return apperr.PayloadField(fmt.Sprintf("line_items[%d].account_identifier", i), "the account is archived").
				WithEnum(domain.EnumAccountArchived)
		}
	}
	return nil
}

func makeTags(businessID, entityID uuid.UUID, kvs []tags.KeyValue, at time.Time) []tags.Tag {
	out := make([]tags.Tag, len(kvs))
	for i, kv := range kvs {
		out[i] = tags.NewTag(businessID, entityID, kv, at)
	}
	return out
}

// ReverseOptions adjust a reversal.
type ReverseOptions struct {
	// Agent defaults to the reversed entry's.
	Agent domain.Agent
	// EntryAt defaults to the reversed entry's, so the reversal cancels it
	// in the same period.
	EntryAt *time.Time
	// Memo defaults to the reversed entry's.
	Memo *string
}

// ReverseEntry posts, in the caller's transaction, the mirror of entry id
// (every line on the other side, reversal_of_id set) and records it as the
// entry's reversal_id. An unknown entry is 404; an entry already reversed,
// or itself a reversal, is 409.
func (l *Ledger) ReverseEntry(ctx context.Context, tx bun.IDB, businessID, id uuid.UUID, opts ReverseOptions) (domain.Entry, error) {
	orig, ok, err := l.store.FindEntry(ctx, tx, businessID, id, LockUpdate)
	if err != nil {
		return domain.Entry{}, fmt.Errorf("find entry %s: %w", id, err)
	}
	if !ok {
		return domain.Entry{}, domain.ErrEntryNotFound()
	}
	if err := orig.Reversible(); err != nil {
		return domain.Entry{}, err
	}
	j, err := orig.Journal()
	if err != nil {
		return domain.Entry{}, fmt.Errorf("entry %s: %w", id, err)
	}
	j = j.Reversed()
	accounts, err := l.resolveLines(ctx, tx, businessID, j)
	if err != nil {
		return domain.Entry{}, err
	}
	if err := checkLive(accounts); err != nil {
		// An account of the entry was archived since: the reversal would
		// leave a balance on it.
		return domain.Entry{}, apperr.Wrap(apperr.Conflict, err, "an account of the entry is archived").
			WithEnum(domain.EnumAccountArchived)
	}
	now := l.clock()
	e := domain.Entry{
		ID: newID(), BusinessID: businessID, EntryType: orig.EntryType, Agent: orig.Agent, Date: orig.Date,
		EntryAt: orig.EntryAt, Source: orig.Source, ReversalOfID: &orig.ID, Memo: orig.Memo, Reference: orig.Reference,
		Metadata: orig.Metadata, CreatedAt: now,
	}
	if opts.Agent != "" {
		if !opts.Agent.Valid() {
			return domain.Entry{}, fmt.Errorf("reverse entry: unknown agent %q", opts.Agent)
		}
		e.Agent = opts.Agent
	}
	if opts.EntryAt != nil {
		e.EntryAt = opts.EntryAt.UTC().Truncate(time.Microsecond)
		e.Date = e.EntryAt
	}
	if opts.Memo != nil {
		e.Memo = opts.Memo
	}
	e.Tags = retag(businessID, e.ID, orig.Tags, now)
	ids := make([]uuid.UUID, len(accounts))
	for i, jl := range j.Lines() {
		lineID := newID()
		ids[i] = accounts[i].ID
		e.Lines = append(e.Lines, domain.Line{
			ID: lineID, EntryID: e.ID, Number: i + 1, Account: accounts[i], Amount: jl.Amount, Direction: jl.Direction,
			Memo: jl.Memo, Tags: retag(businessID, lineID, orig.Lines[i].Tags, now), EntryAt: e.EntryAt, CreatedAt: now,
		})
	}
	out, err := l.insert(ctx, tx, e, j, ids)
	if err != nil {
		return domain.Entry{}, err
	}
	if err := l.store.SetReversal(ctx, tx, businessID, orig.ID, out.ID); err != nil {
		return domain.Entry{}, fmt.Errorf("mark entry %s reversed: %w", orig.ID, err)
	}
	return out, nil
}

// retag copies tags onto a new entity (a reversal and its lines), with the
// ids that entity's tags have.
func retag(businessID, entityID uuid.UUID, ts []tags.Tag, at time.Time) []tags.Tag {
	out := make([]tags.Tag, len(ts))
	for i, t := range ts {
		out[i] = tags.NewTag(businessID, entityID, tags.KeyValue{
			Key: t.Key, Value: t.Value, DimensionDisplayName: t.DimensionDisplayName, ValueDisplayName: t.ValueDisplayName,
		}, at)
	}
	return out
}

// ReverseJournalEntry is POST /ledger/entries/{id}/reverse, in its own
// transaction. Only manual entries are reversed this way: an entry a bank
// transaction, invoice or bill posted is reversed by changing that source,
// which keeps the source and its entry in step (409 EntryOwnedBySource).
func (l *Ledger) ReverseJournalEntry(ctx context.Context, businessID, id uuid.UUID) (domain.Entry, error) {
	var out domain.Entry
	err := l.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		orig, ok, err := l.store.FindEntry(ctx, tx, businessID, id, NoLock)
		if err != nil {
			return fmt.Errorf("find entry %s: %w", id, err)
		}
		if !ok {
			return domain.ErrEntryNotFound()
		}
		if orig.Source.Type != domain.SourceJournalEntry {
			return apperr.Newf(apperr.Conflict, "the entry was posted by %s %s; change that instead", orig.Source.Type, orig.Source.ID).
				WithEnum(domain.EnumEntryOwnedBySource)
		}
		out, err = l.ReverseEntry(ctx, tx, businessID, id, ReverseOptions{Agent: domain.AgentAPI})
		return err
	})
	return out, err
}

// LiveEntryForSource returns the source's entry that is not reversed.
func (l *Ledger) LiveEntryForSource(ctx context.Context, db bun.IDB, businessID uuid.UUID, sourceType, sourceID string) (domain.Entry, bool, error) {
	e, ok, err := l.store.FindLiveEntry(ctx, db, businessID, sourceType, sourceID)
	if err != nil {
		return domain.Entry{}, false, fmt.Errorf("find live entry of %s %s: %w", sourceType, sourceID, err)
	}
	return e, ok, nil
}

// GetEntry is GET /ledger/entries/{id}.
func (l *Ledger) GetEntry(ctx context.Context, businessID, id uuid.UUID) (domain.Entry, error) {
	e, ok, err := l.store.FindEntry(ctx, l.db, businessID, id, NoLock)
	if err != nil {
		return domain.Entry{}, fmt.Errorf("find entry %s: %w", id, err)
	}
	if !ok {
		return domain.Entry{}, domain.ErrEntryNotFound()
	}
	return e, nil
}

// EntryQuery is GET /ledger/entries: the filters as the caller gave them.
type EntryQuery struct {
	From, Until *time.Time
	// Account (id or stable name) keeps entries with a line on it or on an
	// account below it.
	Account    *domain.AccountRef
	EntryTypes []domain.EntryType
}

// FindEntries lists one page of entries.
func (l *Ledger) FindEntries(ctx context.Context, businessID uuid.UUID, q EntryQuery, p page.Params) ([]domain.Entry, page.Meta, error) {
	f := EntryFilter{BusinessID: businessID, From: q.From, Until: q.Until, EntryTypes: q.EntryTypes}
	if q.Account != nil {
		accounts, err := l.store.ListAccounts(ctx, l.db, businessID, true)
		if err != nil {
			return nil, page.Meta{}, fmt.Errorf("list accounts of %s: %w", businessID, err)
		}
		idx := slices.IndexFunc(accounts, func(a domain.Account) bool {
			if q.Account.IsStableName() {
				return a.StableName != nil && *a.StableName == q.Account.StableName
			}
			return a.ID == q.Account.ID
		})
		if idx < 0 {
			return nil, page.Meta{}, apperr.Field("account", "unknown "+q.Account.String()).WithEnum(domain.EnumUnknownAccount)
		}
		f.AccountIDs = domain.Descendants(domain.BuildTree(accounts), accounts[idx].ID)
	}
	entries, meta, err := l.store.FindEntries(ctx, l.db, f, p)
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("list entries of %s: %w", businessID, err)
	}
	return entries, meta, nil
}

// Balances is GET /ledger/balances: the chart with every account's balance
// over the period.
func (l *Ledger) Balances(ctx context.Context, businessID uuid.UUID, f PeriodFilter) ([]domain.BalanceNode, error) {
	accounts, err := l.store.ListAccounts(ctx, l.db, businessID, true)
	if err != nil {
		return nil, fmt.Errorf("list accounts of %s: %w", businessID, err)
	}
	totals, err := l.store.AccountTotals(ctx, l.db, businessID, f)
	if err != nil {
		return nil, fmt.Errorf("totals of %s: %w", businessID, err)
	}
	nodes, err := domain.BuildBalances(domain.BuildTree(accounts), totals)
	if err != nil {
		return nil, fmt.Errorf("balances of %s: %w", businessID, err)
	}
	return nodes, nil
}
