package app

import (
	"context"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// PostingResult says what ApplyPosting did.
type PostingResult string

// The outcomes of ApplyPosting.
const (
	PostingPosted   PostingResult = "posted"   // a new entry (after reversing the live one, if any)
	PostingReversed PostingResult = "reversed" // the live entry reversed, nothing posted (void, deletion)
	PostingSkipped  PostingResult = "skipped"  // not newer than the live entry: a redelivery or stale
)

// ApplyPosting makes the ledger hold the entry a document service asks
// for (see events.LedgerPosting), in the caller's unit of work (the inbox
// transaction of the event that carried it): at most one live entry per
// source, replaced only by a newer version, reversed by a posting without
// lines. Tax-name accounts are created under SALES_TAXES_PAYABLE on first
// use. A business whose chart is not seeded yet (its business.created not
// consumed yet) is consumer.ErrNotYet, so the consumer waits instead of
// dead-lettering.
func (l *Ledger) ApplyPosting(ctx context.Context, businessID uuid.UUID, p events.LedgerPosting) (PostingResult, error) {
	if err := p.Check(); err != nil {
		return "", err
	}
	et := domain.EntryType(p.EntryType)
	if !et.Valid() {
		return "", fmt.Errorf("posting %s: unknown entry type %q", p.SourceID, p.EntryType)
	}
	if _, ok, err := l.store.FindAccountByStableName(ctx, businessID, domain.StableAssets, NoLock); err != nil {
		return "", fmt.Errorf("find the chart of %s: %w", businessID, err)
	} else if !ok {
		return "", fmt.Errorf("business %s has no chart of accounts yet: %w", businessID, consumer.ErrNotYet)
	}
	live, hasLive, err := l.store.FindLiveEntry(ctx, businessID, p.SourceType, p.SourceID)
	if err != nil {
		return "", fmt.Errorf("find the live entry of %s %s: %w", p.SourceType, p.SourceID, err)
	}
	if hasLive {
		v, err := strconv.ParseInt(live.Source.Version, 10, 64)
		if err != nil {
			return "", fmt.Errorf("live entry %s of %s %s: version %q is not a number", live.ID, p.SourceType, p.SourceID, live.Source.Version)
		}
		if v >= p.Version {
			return PostingSkipped, nil
		}
	}
	version := strconv.FormatInt(p.Version, 10)
	if !hasLive && len(p.Lines) > 0 {
		// Posted before and reversed since (a redelivery after a void).
		_, posted, err := l.store.FindEntryBySource(ctx, businessID, domain.Source{Type: p.SourceType, ID: p.SourceID, Version: version})
		if err != nil {
			return "", fmt.Errorf("find %s %s version %d: %w", p.SourceType, p.SourceID, p.Version, err)
		}
		if posted {
			return PostingSkipped, nil
		}
	}
	var in *NewEntry
	if len(p.Lines) > 0 {
		lines, err := l.postingLines(ctx, businessID, p)
		if err != nil {
			return "", err
		}
		in = &NewEntry{
			EntryType: et, Agent: domain.AgentServiceAuto, EntryAt: p.EntryAt, Memo: p.Memo, Lines: lines,
			Source: domain.Source{Type: p.SourceType, ID: p.SourceID, Version: version},
		}
	}
	var livePtr *domain.Entry
	if hasLive {
		livePtr = &live
	}
	if livePtr == nil && in == nil {
		return PostingSkipped, nil // nothing live, nothing to post: a deletion of a document that never posted
	}
	if _, _, err := l.Repost(ctx, businessID, livePtr, ReverseOptions{Agent: domain.AgentServiceAuto}, in, nil); err != nil {
		return "", err
	}
	if in == nil {
		return PostingReversed, nil
	}
	return PostingPosted, nil
}

// postingLines turns the posting's lines into journal lines, creating the
// tax accounts it names that the business does not have yet.
func (l *Ledger) postingLines(ctx context.Context, businessID uuid.UUID, p events.LedgerPosting) ([]domain.JournalLine, error) {
	out := make([]domain.JournalLine, len(p.Lines))
	for i, pl := range p.Lines {
		var ref domain.AccountRef
		switch pl.Account.Type {
		case events.PostingAccountID:
			ref = domain.ByID(*pl.Account.ID)
		case events.PostingStableName:
			ref = domain.ByStableName(pl.Account.StableName)
		case events.PostingTaxName:
			name, _ := events.NormalizeTaxName(pl.Account.Name) // checked by Check
			a, err := l.taxAccount(ctx, businessID, name)
			if err != nil {
				return nil, err
			}
			ref = domain.ByID(a.ID)
		}
		out[i] = domain.JournalLine{Account: ref, Amount: money.Cents(pl.Amount), Direction: domain.Direction(pl.Direction), Tags: pl.Tags}
	}
	return out, nil
}

// taxAccount returns the business's account for tax name, creating it
// under SALES_TAXES_PAYABLE (a liability, "Sales tax: NAME") when missing.
func (l *Ledger) taxAccount(ctx context.Context, businessID uuid.UUID, name string) (domain.Account, error) {
	stable := events.TaxAccountStableName(name)
	a, ok, err := l.store.FindAccountByStableName(ctx, businessID, stable, LockShare)
	if err != nil {
		return domain.Account{}, fmt.Errorf("find tax account %s: %w", stable, err)
	}
	if ok {
		return a, nil
	}
	parent := domain.ByStableName(events.TaxAccountParent)
	return l.createAccount(ctx, businessID, NewAccountInput{
		Draft:  domain.AccountDraft{Name: "Sales tax: " + name, StableName: &stable, Type: domain.Liability},
		Parent: &parent,
	})
}
