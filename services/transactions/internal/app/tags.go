package app

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// MaxTagTransactions bounds the transactions one tag request changes.
const MaxTagTransactions = 500

// TagStore is the persistence of transaction tags (part of BankStore).
type TagStore interface {
	// LockBankTransactions returns the business's transactions among ids,
	// locked FOR UPDATE, in id order (so concurrent requests lock in the
	// same order).
	LockBankTransactions(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) ([]banking.BankTransaction, error)
	// InsertTags adds tags to the transaction (existing tag ids are kept).
	InsertTags(ctx context.Context, businessID, transactionID uuid.UUID, ts []tags.Tag) error
	// DeleteTags removes the business's tags with these ids and returns
	// them with their transaction ids.
	DeleteTags(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID][]tags.Tag, error)
	// TaggedTransactions lists, by business, the ids of the transactions
	// that have tags (of businessID only unless it is uuid.Nil).
	TaggedTransactions(ctx context.Context, businessID uuid.UUID) (map[uuid.UUID][]uuid.UUID, error)
}

// TagTransactions is POST /bank-transactions/tags: every tag of kvs on
// every transaction (a transaction that has a tag already keeps it). An
// id the business does not have is the 404 ErrBankTransactionNotFound and
// nothing changes. It returns the tags added, and publishes the changed
// transactions; each one's live journal entry is reposted with the new
// tags (retagLive).
func (b *Banking) TagTransactions(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error) {
	if len(ids) == 0 || len(ids) > MaxTagTransactions {
		return nil, apperr.PayloadField("transaction_ids", fmt.Sprintf("must hold 1 to %d ids", MaxTagTransactions))
	}
	kvs, err := tags.NormalizeList("key_values", kvs)
	if err != nil {
		return nil, err
	}
	if len(kvs) == 0 {
		return nil, apperr.PayloadField("key_values", "must hold at least one tag")
	}
	ids = uniqueIDs(ids)
	var out []tags.Tag
	err = b.uow.Do(ctx, func(ctx context.Context) error {
		txns, err := b.store.LockBankTransactions(ctx, businessID, ids)
		if err != nil {
			return fmt.Errorf("lock transactions: %w", err)
		}
		if len(txns) != len(ids) {
			return ErrBankTransactionNotFound().WithMeta("field", "transaction_ids")
		}
		now := b.clock()
		for i, t := range txns {
			var added []tags.Tag
			for _, kv := range kvs {
				tg := tags.NewTag(businessID, t.ID, kv, now)
				if slices.ContainsFunc(t.Tags, func(x tags.Tag) bool { return x.ID == tg.ID }) {
					continue
				}
				added = append(added, tg)
			}
			if err := b.store.InsertTags(ctx, businessID, t.ID, added); err != nil {
				return fmt.Errorf("insert tags: %w", err)
			}
			out = append(out, added...)
			t.Tags = append(t.Tags, added...)
			if len(added) > 0 {
				t.Version++
				t.UpdatedAt = now
				if err := b.store.UpdateBankTransaction(ctx, t); err != nil {
					return fmt.Errorf("update transaction %s: %w", t.ID, err)
				}
				if err := b.retagLive(ctx, t); err != nil {
					return err
				}
			}
			txns[i] = t
		}
		return b.publishChanged(ctx, txns, func(t banking.BankTransaction) bool { return t.UpdatedAt.Equal(now) })
	})
	if out == nil {
		out = []tags.Tag{}
	}
	return out, err
}

// UntagTransactions is DELETE /bank-transactions/tags: the business's tags
// with these ids are removed (ids it does not have are ignored, so a
// repeated call succeeds). It returns the removed tags and publishes the
// changed transactions, whose live entries are reposted without the tags.
func (b *Banking) UntagTransactions(ctx context.Context, businessID uuid.UUID, tagIDs []uuid.UUID) ([]tags.Tag, error) {
	if len(tagIDs) == 0 || len(tagIDs) > MaxTagTransactions {
		return nil, apperr.PayloadField("tag_ids", fmt.Sprintf("must hold 1 to %d ids", MaxTagTransactions))
	}
	out := []tags.Tag{}
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		removed, err := b.store.DeleteTags(ctx, businessID, uniqueIDs(tagIDs))
		if err != nil {
			return fmt.Errorf("delete tags: %w", err)
		}
		ids := make([]uuid.UUID, 0, len(removed))
		for id, ts := range removed {
			ids = append(ids, id)
			out = append(out, ts...)
		}
		txns, err := b.store.LockBankTransactions(ctx, businessID, uniqueIDs(ids))
		if err != nil {
			return fmt.Errorf("lock transactions: %w", err)
		}
		now := b.clock()
		for i := range txns {
			txns[i].Version++
			txns[i].UpdatedAt = now
			if err := b.store.UpdateBankTransaction(ctx, txns[i]); err != nil {
				return fmt.Errorf("update transaction %s: %w", txns[i].ID, err)
			}
			if err := b.retagLive(ctx, txns[i]); err != nil {
				return err
			}
		}
		return b.publishChanged(ctx, txns, func(banking.BankTransaction) bool { return true })
	})
	return out, err
}

func (b *Banking) publishChanged(ctx context.Context, txns []banking.BankTransaction, changed func(banking.BankTransaction) bool) error {
	var pub []banking.BankTransaction
	for _, t := range txns {
		if changed(t) {
			pub = append(pub, t)
		}
	}
	if len(pub) == 0 {
		return nil
	}
	if err := b.publishTransactions(ctx, pub...); err != nil {
		return fmt.Errorf("publish transactions: %w", err)
	}
	return nil
}

// uniqueIDs is ids sorted without duplicates.
func uniqueIDs(ids []uuid.UUID) []uuid.UUID {
	out := slices.Clone(ids)
	slices.SortFunc(out, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	return slices.Compact(out)
}

// sameTagSet reports whether a and b hold the same key/value pairs.
func sameTagSet(a, b []tags.Tag) bool {
	key := func(t tags.Tag) string { return t.Key + "\x1f" + t.Value }
	ka, kb := make([]string, len(a)), make([]string, len(b))
	for i, t := range a {
		ka[i] = key(t)
	}
	for i, t := range b {
		kb[i] = key(t)
	}
	slices.Sort(ka)
	slices.Sort(kb)
	return slices.Equal(slices.Compact(ka), slices.Compact(kb))
}

// retagLive gives t's live journal entry t's tags, after a change of
// them: unless the entry carries them already, it is reversed and posted
// again with the same lines under t's (new) version, so the books never
// edit a posted line. A transaction without a live entry (a duplicate)
// has nothing to retag.
func (b *Banking) retagLive(ctx context.Context, t banking.BankTransaction) error {
	live, ok, err := b.ledger.LiveEntryForSource(ctx, t.BusinessID, SourceBankTransaction, t.ID.String())
	if err != nil {
		return fmt.Errorf("live entry of %s: %w", t.ID, err)
	}
	if !ok || sameTagSet(live.Tags, t.Tags) {
		return nil
	}
	if _, err := b.ledger.Retag(ctx, live, strconv.Itoa(t.Version), t.EntryTags(), domain.AgentAPI); err != nil {
		return fmt.Errorf("retag entry %s of %s: %w", live.ID, t.ID, err)
	}
	return nil
}

// RepairEntryTags gives every tagged transaction's live journal entry the
// transaction's tags where it lacks them (books journaled before entries
// carried their transaction's tags): each such entry is reversed and
// posted again with them under the transaction's next version, which is
// published. businessID uuid.Nil repairs every business. It returns the
// number of entries reposted; a repeated run reposts none.
func (b *Banking) RepairEntryTags(ctx context.Context, businessID uuid.UUID) (int, error) {
	byBusiness, err := b.store.TaggedTransactions(ctx, businessID)
	if err != nil {
		return 0, fmt.Errorf("tagged transactions: %w", err)
	}
	repaired := 0
	for bid, ids := range byBusiness {
		for chunk := range slices.Chunk(uniqueIDs(ids), 200) {
			err := b.uow.Do(ctx, func(ctx context.Context) error {
				txns, err := b.store.LockBankTransactions(ctx, bid, chunk)
				if err != nil {
					return fmt.Errorf("lock transactions: %w", err)
				}
				var changed []banking.BankTransaction
				for _, t := range txns {
					live, ok, err := b.ledger.LiveEntryForSource(ctx, bid, SourceBankTransaction, t.ID.String())
					if err != nil {
						return fmt.Errorf("live entry of %s: %w", t.ID, err)
					}
					if !ok || sameTagSet(live.Tags, t.Tags) {
						continue
					}
					t.Version++
					t.UpdatedAt = b.clock()
					if err := b.store.UpdateBankTransaction(ctx, t); err != nil {
						return fmt.Errorf("update transaction %s: %w", t.ID, err)
					}
					if _, err := b.ledger.Retag(ctx, live, strconv.Itoa(t.Version), t.EntryTags(), domain.AgentServiceAuto); err != nil {
						return fmt.Errorf("retag entry %s of %s: %w", live.ID, t.ID, err)
					}
					changed = append(changed, t)
				}
				repaired += len(changed)
				return b.publishChanged(ctx, changed, func(banking.BankTransaction) bool { return true })
			})
			if err != nil {
				return repaired, fmt.Errorf("business %s: %w", bid, err)
			}
		}
	}
	return repaired, nil
}
