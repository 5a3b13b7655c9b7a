package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// EntryPageSpec is the pagination of GET /ledger/entries. Cursor positions
// are bound as literal values of the (sort column, id) comparison, so the
// listing seeks its index at any depth.
var EntryPageSpec = page.Spec{
	Keys: map[string]page.Key{
		"entry_at":     {Column: "e.entry_at", Kind: page.KindTime},
		"entry_number": {Column: "e.entry_number", Kind: page.KindInt},
		"created_at":   {Column: "e.created_at", Kind: page.KindTime},
	},
	Default:      "entry_at",
	DefaultLimit: 100,
	MaxLimit:     500,
}

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

// PostEntry posts a balanced entry in the caller's unit of work (the one
// ctx carries) and publishes its ledger.entry.posted event in it. Lines
// name accounts by id
// or stable name; an unknown account is 400 UnknownAccount, an archived
// one 400 AccountArchived. The same source version posted again returns the
// entry posted the first time (409 SourceConflict when the lines differ);
// another version while the source has a live entry is 409
// LiveEntryExists.
func (l *Ledger) PostEntry(ctx context.Context, businessID uuid.UUID, in NewEntry) (domain.Entry, error) {
	out, err := l.PostEntries(ctx, businessID, []NewEntry{in})
	if err != nil {
		return domain.Entry{}, err
	}
	return out[0], nil
}

// pending is an entry of PostEntries on its way in.
type pending struct {
	in       NewEntry
	journal  domain.Journal
	metadata json.RawMessage
	entry    []tags.KeyValue
	lines    [][]tags.KeyValue
	accounts []domain.Account
	ids      []uuid.UUID
}

// PostEntries posts many entries as PostEntry does each, set-based: one
// query resolves the accounts of all of them, multi-row statements insert
// the entries and their lines (a source version posted before is found
// by the unique indexes and answered as a replay or a 409), and one
// Publish sends their events (the outbox writes them at the commit). An
// import of a thousand transactions thus costs a handful of round trips,
// not thousands. The result is in the order of ins; any error leaves the
// caller's unit of work to be rolled back.
func (l *Ledger) PostEntries(ctx context.Context, businessID uuid.UUID, ins []NewEntry) ([]domain.Entry, error) {
	ps := make([]pending, len(ins))
	var refs []domain.AccountRef
	for i, in := range ins {
		p, err := prepare(in)
		if err != nil {
			return nil, err
		}
		for _, line := range p.journal.Lines() {
			if !slices.Contains(refs, line.Account) {
				refs = append(refs, line.Account)
			}
		}
		ps[i] = p
	}
	found, err := l.store.FindAccountsByRefs(ctx, businessID, refs, LockShare)
	if err != nil {
		return nil, fmt.Errorf("resolve accounts: %w", err)
	}
	for i := range ps {
		if ps[i].accounts, err = resolveLines(found, ps[i].journal); err != nil {
			return nil, err
		}
		ps[i].ids = make([]uuid.UUID, len(ps[i].accounts))
		for k, a := range ps[i].accounts {
			ps[i].ids[k] = a.ID
		}
	}

	// No lookup first: a source version posted before (a replay) or a
	// source with another live entry is rare, and the unique indexes find
	// it on insert (ON CONFLICT DO NOTHING); conflict then answers it.
	now := l.clock()
	out := make([]domain.Entry, len(ps))
	fresh := make([]*domain.Entry, len(ps))
	for i, p := range ps {
		out[i] = p.build(businessID, now)
		fresh[i] = &out[i]
	}
	inserted, err := l.store.InsertEntryRows(ctx, fresh)
	if err != nil {
		return nil, fmt.Errorf("insert entries: %w", err)
	}
	var published []domain.Entry
	var withLines []*domain.Entry
	for i, e := range fresh {
		if inserted[e.ID] {
			withLines = append(withLines, e)
			// A replay stands even if an account was archived since; a
			// new entry on an archived account fails (and the unit of work with it).
			if err := checkLive(ps[i].accounts); err != nil {
				return nil, err
			}
			published = append(published, *e)
			continue
		}
		if out[i], err = l.conflict(ctx, *e, ps[i].journal, ps[i].ids); err != nil {
			return nil, err
		}
	}
	if err := l.store.InsertLines(ctx, withLines); err != nil {
		return nil, fmt.Errorf("insert lines: %w", err)
	}
	if err := l.publish(ctx, businessID, published, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// prepare checks everything of in that needs no database.
func prepare(in NewEntry) (pending, error) {
	p := pending{in: in}
	if !in.EntryType.Valid() {
		return p, fmt.Errorf("post entry: unknown entry type %q", in.EntryType)
	}
	if !in.Agent.Valid() {
		return p, fmt.Errorf("post entry: unknown agent %q", in.Agent)
	}
	if err := in.Source.Validate(); err != nil {
		return p, err
	}
	if in.EntryAt.IsZero() {
		return p, fmt.Errorf("post entry: no entry_at")
	}
	var err error
	if p.journal, err = domain.NewJournal(in.Lines); err != nil {
		return p, err
	}
	if p.metadata, err = domain.CheckMetadata("metadata", in.Metadata); err != nil {
		return p, err
	}
	if p.entry, err = tags.NormalizeList("tags", in.Tags); err != nil {
		return p, err
	}
	p.lines = make([][]tags.KeyValue, len(in.Lines))
	for i, line := range in.Lines {
		if p.lines[i], err = tags.NormalizeList(fmt.Sprintf("line_items[%d].tags", i), line.Tags); err != nil {
			return p, err
		}
	}
	return p, nil
}

// build makes the entry of p, posted now.
func (p pending) build(businessID uuid.UUID, now time.Time) domain.Entry {
	entryAt := clock.DB(p.in.EntryAt)
	date := entryAt
	if p.in.Date != nil {
		date = clock.DB(*p.in.Date)
	}
	e := domain.Entry{
		ID: newID(), BusinessID: businessID, EntryType: p.in.EntryType, Agent: p.in.Agent, Date: date, EntryAt: entryAt,
		Source: p.in.Source, Memo: p.in.Memo, Reference: p.in.Reference, Metadata: p.metadata, CreatedAt: now,
	}
	e.Tags = makeTags(businessID, e.ID, p.entry, now)
	for i, jl := range p.journal.Lines() {
		lineID := newID()
		e.Lines = append(e.Lines, domain.Line{
			ID: lineID, EntryID: e.ID, Number: i + 1, Account: p.accounts[i], Amount: jl.Amount, Direction: jl.Direction,
			Memo: jl.Memo, Tags: makeTags(businessID, lineID, p.lines[i], now), EntryAt: entryAt, CreatedAt: now,
		})
	}
	return e
}

// conflict is the answer for e, which the unique indexes kept out: a
// reversal of an entry already reversed is 409 AlreadyReversed; the same
// source version posted concurrently is a replay; another live entry of
// the source is 409 LiveEntryExists.
func (l *Ledger) conflict(ctx context.Context, e domain.Entry, journal domain.Journal, ids []uuid.UUID) (domain.Entry, error) {
	if e.ReversalOfID != nil {
		return domain.Entry{}, apperr.New(apperr.Conflict, "the entry is already reversed").WithEnum(domain.EnumAlreadyReversed)
	}
	existing, ok, err := l.store.FindEntryBySource(ctx, e.BusinessID, e.Source)
	if err != nil {
		return domain.Entry{}, fmt.Errorf("find entry of source %+v: %w", e.Source, err)
	}
	if ok {
		return replayed(existing, journal, ids)
	}
	live, _, err := l.store.FindLiveEntry(ctx, e.BusinessID, e.Source.Type, e.Source.ID)
	if err != nil {
		return domain.Entry{}, fmt.Errorf("find live entry of source %+v: %w", e.Source, err)
	}
	return domain.Entry{}, apperr.Newf(apperr.Conflict,
		"source %s %s already has a live entry; reverse it before posting another", e.Source.Type, e.Source.ID).
		WithEnum(domain.EnumLiveEntryExists).WithMeta("entry_id", live.ID.String())
}

// publish publishes the events of the posted entries, with the ancestry
// of every account they touch, in one Publish. known may hold accounts
// read in the unit of work with their ancestors (LiveEntryAndAccounts):
// when it holds every account of the lines and all accounts above them,
// the ancestry costs no query.
func (l *Ledger) publish(ctx context.Context, businessID uuid.UUID, es []domain.Entry, known []domain.Account) error {
	if len(es) == 0 {
		return nil
	}
	byID := make(map[uuid.UUID]domain.Account, len(known))
	for _, a := range known {
		byID[a.ID] = a
	}
	var ids []uuid.UUID
	complete := true
	for _, e := range es {
		for _, line := range e.Lines {
			if !slices.Contains(ids, line.Account.ID) {
				ids = append(ids, line.Account.ID)
				complete = complete && chainKnown(byID, line.Account.ID)
			}
		}
	}
	if !complete {
		all, err := l.store.AccountsWithAncestors(ctx, businessID, ids)
		if err != nil {
			return fmt.Errorf("ancestors of entry accounts: %w", err)
		}
		for _, a := range all {
			byID[a.ID] = a
		}
	}
	evts, err := entryEvents(es, byID)
	if err == nil {
		err = l.pub.Publish(ctx, evts...)
	}
	if err != nil {
		return fmt.Errorf("publish %d entries: %w", len(es), err)
	}
	return nil
}

// chainKnown reports whether byID holds id and every account above it.
func chainKnown(byID map[uuid.UUID]domain.Account, id uuid.UUID) bool {
	for range len(byID) + 1 {
		a, ok := byID[id]
		if !ok {
			return false
		}
		if a.ParentID == nil {
			return true
		}
		id = *a.ParentID
	}
	return false // a cycle: let the database answer
}

func replayed(existing domain.Entry, j domain.Journal, ids []uuid.UUID) (domain.Entry, error) {
	if !existing.SameLines(j, ids) {
		return domain.Entry{}, apperr.Newf(apperr.Conflict,
			"source %s %s version %q was posted with other lines", existing.Source.Type, existing.Source.ID, existing.Source.Version).
			WithEnum(domain.EnumSourceConflict).WithMeta("entry_id", existing.ID.String())
	}
	return existing, nil
}

// resolveLines picks, in line order, the account of every line of j among
// found (the accounts its references resolved to).
func resolveLines(found []domain.Account, j domain.Journal) ([]domain.Account, error) {
	lines := j.Lines()
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
	// KeepArchived lets Repost reverse and post lines on archived accounts.
	// Only for a repost whose new entry moves exactly the reversed lines
	// (a change of tags): the balances stay as they were.
	KeepArchived bool
}

// ReverseEntry posts, in the caller's unit of work, the mirror of entry id
// (every line on the other side, reversal_of_id set) and records it as the
// entry's reversal_id. An unknown entry is 404; an entry already reversed,
// or itself a reversal, is 409.
func (l *Ledger) ReverseEntry(ctx context.Context, businessID, id uuid.UUID, opts ReverseOptions) (domain.Entry, error) {
	orig, ok, err := l.store.FindEntry(ctx, businessID, id, LockUpdate)
	if err != nil {
		return domain.Entry{}, fmt.Errorf("find entry %s: %w", id, err)
	}
	if !ok {
		return domain.Entry{}, domain.ErrEntryNotFound()
	}
	return l.reverse(ctx, orig, opts)
}

// reverse posts the mirror entry of orig, which the caller has just read
// in its unit of work (a concurrent reversal of it loses on the unique
// index: 409).
func (l *Ledger) reverse(ctx context.Context, orig domain.Entry, opts ReverseOptions) (domain.Entry, error) {
	out, _, err := l.Repost(ctx, orig.BusinessID, &orig, opts, nil, nil)
	return out, err
}

// Repost replaces a source's live entry in the caller's unit of work: it
// reverses live (when not nil; the caller has just read it there) and
// posts in (when not nil), as ReverseEntry and PostEntry would one after
// the other, but with one account lookup for both (none for the accounts
// in known, which the caller has share-locked in its unit of work) and
// one Publish for both events. It returns the reversal and the new entry (zero values
// for the parts not asked).
func (l *Ledger) Repost(ctx context.Context, businessID uuid.UUID, live *domain.Entry, opts ReverseOptions, in *NewEntry, known []domain.Account) (reversal, posted domain.Entry, err error) {
	var rj domain.Journal
	if live != nil {
		if err := live.Reversible(); err != nil {
			return reversal, posted, err
		}
		j, err := live.Journal()
		if err != nil {
			return reversal, posted, fmt.Errorf("entry %s: %w", live.ID, err)
		}
		rj = j.Reversed()
		if opts.Agent != "" && !opts.Agent.Valid() {
			return reversal, posted, fmt.Errorf("reverse entry: unknown agent %q", opts.Agent)
		}
	}
	var p pending
	if in != nil {
		if p, err = prepare(*in); err != nil {
			return reversal, posted, err
		}
	}
	found := known
	var missing []domain.AccountRef
	for _, j := range []domain.Journal{rj, p.journal} {
		for _, line := range j.Lines() {
			if !covers(found, line.Account) && !slices.Contains(missing, line.Account) {
				missing = append(missing, line.Account)
			}
		}
	}
	if len(missing) > 0 {
		more, err := l.store.FindAccountsByRefs(ctx, businessID, missing, LockShare)
		if err != nil {
			return reversal, posted, fmt.Errorf("resolve accounts: %w", err)
		}
		found = append(slices.Clone(known), more...)
	}

	now := l.clock()
	var published []domain.Entry
	var withLines []*domain.Entry
	if live != nil {
		accounts, err := resolveLines(found, rj)
		if err != nil {
			return reversal, posted, err
		}
		if err := checkLive(accounts); err != nil && !opts.KeepArchived {
			// An account of the entry was archived since: the reversal would
			// leave a balance on it.
			return reversal, posted, apperr.Wrap(apperr.Conflict, err, "an account of the entry is archived").
				WithEnum(domain.EnumAccountArchived)
		}
		reversal = reversalOf(*live, rj, accounts, opts, now)
		inserted, err := l.store.InsertReversal(ctx, &reversal)
		if err != nil {
			return reversal, posted, fmt.Errorf("insert reversal: %w", err)
		}
		if !inserted {
			_, err := l.conflict(ctx, reversal, rj, nil)
			return domain.Entry{}, posted, err
		}
		published = append(published, reversal)
		withLines = append(withLines, &reversal)
	}
	if in != nil {
		if p.accounts, err = resolveLines(found, p.journal); err != nil {
			return reversal, posted, err
		}
		p.ids = make([]uuid.UUID, len(p.accounts))
		for k, a := range p.accounts {
			p.ids[k] = a.ID
		}
		posted = p.build(businessID, now)
		inserted, err := l.store.InsertEntryRows(ctx, []*domain.Entry{&posted})
		if err != nil {
			return reversal, posted, fmt.Errorf("insert entry: %w", err)
		}
		if !inserted[posted.ID] {
			if posted, err = l.conflict(ctx, posted, p.journal, p.ids); err != nil {
				return reversal, posted, err
			}
		} else {
			if err := checkLive(p.accounts); err != nil && !opts.KeepArchived {
				return reversal, posted, err
			}
			published = append(published, posted)
			withLines = append(withLines, &posted)
		}
	}
	// The lines of both entries in one statement (the balance is checked
	// at commit).
	if err := l.store.InsertLines(ctx, withLines); err != nil {
		return reversal, posted, fmt.Errorf("insert lines: %w", err)
	}
	return reversal, posted, l.publish(ctx, businessID, published, found)
}

// covers reports whether accounts holds the account ref names.
func covers(accounts []domain.Account, ref domain.AccountRef) bool {
	return slices.ContainsFunc(accounts, func(a domain.Account) bool {
		if ref.IsStableName() {
			return a.StableName != nil && *a.StableName == ref.StableName
		}
		return a.ID == ref.ID
	})
}

// reversalOf is the mirror entry of orig (journal rj, on accounts) posted
// now.
func reversalOf(orig domain.Entry, rj domain.Journal, accounts []domain.Account, opts ReverseOptions, now time.Time) domain.Entry {
	businessID := orig.BusinessID
	e := domain.Entry{
		ID: newID(), BusinessID: businessID, EntryType: orig.EntryType, Agent: orig.Agent, Date: orig.Date,
		EntryAt: orig.EntryAt, Source: orig.Source, ReversalOfID: &orig.ID, Memo: orig.Memo, Reference: orig.Reference,
		Metadata: orig.Metadata, CreatedAt: now,
	}
	if opts.Agent != "" {
		e.Agent = opts.Agent
	}
	if opts.EntryAt != nil {
		e.EntryAt = clock.DB(*opts.EntryAt)
		e.Date = e.EntryAt
	}
	if opts.Memo != nil {
		e.Memo = opts.Memo
	}
	e.Tags = retag(businessID, e.ID, orig.Tags, now)
	for i, jl := range rj.Lines() {
		lineID := newID()
		e.Lines = append(e.Lines, domain.Line{
			ID: lineID, EntryID: e.ID, Number: i + 1, Account: accounts[i], Amount: jl.Amount, Direction: jl.Direction,
			Memo: jl.Memo, Tags: retag(businessID, lineID, orig.Lines[i].Tags, now), EntryAt: e.EntryAt, CreatedAt: now,
		})
	}
	return e
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
	err := l.uow.Do(ctx, func(ctx context.Context) error {
		orig, ok, err := l.store.FindEntry(ctx, businessID, id, NoLock)
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
		out, err = l.ReverseEntry(ctx, businessID, id, ReverseOptions{Agent: domain.AgentAPI})
		return err
	})
	return out, err
}

// LiveEntryAndAccounts is what a repost of the source's entry needs, in
// one read: the source's live entry (ok false when it has none), the
// accounts refs name and those of the live entry's lines, share-locked
// until the caller's unit of work ends, and every account above them (not
// locked). Pass the accounts to Repost as known.
func (l *Ledger) LiveEntryAndAccounts(ctx context.Context, businessID uuid.UUID, sourceType, sourceID string, refs []domain.AccountRef) (domain.Entry, bool, []domain.Account, error) {
	return l.store.LiveEntryAndAccounts(ctx, businessID, sourceType, sourceID, refs, LockShare)
}

// LockAccounts resolves refs (ids or stable names) to the business's
// accounts, share-locked until the caller's unit of work ends (none is
// archived or re-parented meanwhile); refs that name no account are
// absent from the result.
func (l *Ledger) LockAccounts(ctx context.Context, businessID uuid.UUID, refs []domain.AccountRef) ([]domain.Account, error) {
	return l.store.FindAccountsByRefs(ctx, businessID, refs, LockShare)
}

// LiveEntryForSource returns the source's entry that is not reversed.
func (l *Ledger) LiveEntryForSource(ctx context.Context, businessID uuid.UUID, sourceType, sourceID string) (domain.Entry, bool, error) {
	e, ok, err := l.store.FindLiveEntry(ctx, businessID, sourceType, sourceID)
	if err != nil {
		return domain.Entry{}, false, fmt.Errorf("find live entry of %s %s: %w", sourceType, sourceID, err)
	}
	return e, ok, nil
}

// GetEntry is GET /ledger/entries/{id}.
func (l *Ledger) GetEntry(ctx context.Context, businessID, id uuid.UUID) (domain.Entry, error) {
	e, ok, err := l.store.FindEntry(ctx, businessID, id, NoLock)
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
		accounts, err := l.store.ListAccounts(ctx, businessID, true)
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
	entries, meta, err := l.store.FindEntries(ctx, f, p)
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("list entries of %s: %w", businessID, err)
	}
	return entries, meta, nil
}

// Balances is GET /ledger/balances: the chart with every account's balance
// over the period.
func (l *Ledger) Balances(ctx context.Context, businessID uuid.UUID, f PeriodFilter) ([]domain.BalanceNode, error) {
	accounts, err := l.store.ListAccounts(ctx, businessID, true)
	if err != nil {
		return nil, fmt.Errorf("list accounts of %s: %w", businessID, err)
	}
	totals, err := l.store.AccountTotals(ctx, businessID, f)
	if err != nil {
		return nil, fmt.Errorf("totals of %s: %w", businessID, err)
	}
	nodes, err := domain.BuildBalances(domain.BuildTree(accounts), totals)
	if err != nil {
		return nil, fmt.Errorf("balances of %s: %w", businessID, err)
	}
	return nodes, nil
}

// Retag replaces the live entry live (read by the caller in its unit of
// work) with the same lines under entry tags kvs, as source version
// version: the entry is reversed and posted again, so the journal stays
// append-only and every report filtered by tags sees the amounts move from
// the old tags to the new ones on the entry's date. The lines keep their own tags; accounts
// archived since are allowed (the balances do not change).
func (l *Ledger) Retag(ctx context.Context, live domain.Entry, version string, kvs []tags.KeyValue, agent domain.Agent) (domain.Entry, error) {
	j, err := live.Journal()
	if err != nil {
		return domain.Entry{}, fmt.Errorf("entry %s: %w", live.ID, err)
	}
	date := live.Date
	in := NewEntry{
		EntryType: live.EntryType, Agent: agent, EntryAt: live.EntryAt, Date: &date,
		Source: domain.Source{Type: live.Source.Type, ID: live.Source.ID, Version: version},
		Memo:   live.Memo, Reference: live.Reference, Metadata: live.Metadata, Tags: kvs, Lines: j.Lines(),
	}
	_, posted, err := l.Repost(ctx, live.BusinessID, &live, ReverseOptions{Agent: agent, KeepArchived: true}, &in, nil)
	return posted, err
}
