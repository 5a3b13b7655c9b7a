package storage

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultSweepLimit is how many objects one SweepExpired run deletes at most
// when SweepOptions.Limit is 0.
const DefaultSweepLimit = 10000

// SweepOptions tunes SweepExpired.
type SweepOptions struct {
	// Match, when set, is asked about every listed key: only the keys it
	// accepts are deleted (a prefix shared with objects that must stay).
	Match func(key string) bool
	// Limit is the most objects one run deletes (DefaultSweepLimit when
	// 0), so a run over a large backlog stays bounded in time and memory;
	// the next run goes on where it stopped.
	Limit int
}

// errSweepFull stops a listing once a run has found its limit of objects.
var errSweepFull = errors.New("storage: sweep limit reached")

// SweepExpired deletes the objects under prefix last modified before
// olderThan (and accepted by opts.Match), at most opts.Limit of them, and
// returns how many it deleted. It lists first, then deletes; each object
// is looked at again (Stat) just before its Delete, so one rewritten since
// the listing (a fresh export under the same key) is kept. The prefix may
// not be empty: a sweep never ranges over the whole store. On an error it
// returns what it deleted so far with the error.
func SweepExpired(ctx context.Context, s Store, prefix string, olderThan time.Time, opts SweepOptions) (int, error) {
	if prefix == "" {
		return 0, errors.New("storage: sweep: a prefix is required")
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultSweepLimit
	}
	var expired []string
	err := s.List(ctx, prefix, func(o Object) error {
		if !o.Modified.Before(olderThan) || (opts.Match != nil && !opts.Match(o.Key)) {
			return nil
		}
		expired = append(expired, o.Key)
		if len(expired) == limit {
			return errSweepFull
		}
		return nil
	})
	if err != nil && !errors.Is(err, errSweepFull) {
		return 0, fmt.Errorf("storage: sweep %s: %w", prefix, err)
	}
	deleted := 0
	for _, key := range expired {
		o, err := s.Stat(ctx, key)
		if errors.Is(err, ErrNotFound) {
			continue // gone meanwhile
		}
		if err != nil {
			return deleted, fmt.Errorf("storage: sweep %s: %w", prefix, err)
		}
		if !o.Modified.Before(olderThan) {
			continue // rewritten since the listing
		}
		if err := s.Delete(ctx, key); err != nil {
			return deleted, fmt.Errorf("storage: sweep %s: %w", prefix, err)
		}
		deleted++
	}
	return deleted, nil
}
