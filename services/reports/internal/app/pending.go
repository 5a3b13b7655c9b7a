package app

import (
	"context"
	"time"
)

// pendingRetry is how long RebuildPending waits after a failure.
const pendingRetry = 30 * time.Second

// RebuildPending rebuilds, one by one, the businesses a migration queued
// for a rebuild (their read model predates a rule it changed), until none
// is left or ctx ends: a failure is logged and retried later. A rebuild
// clears its business's mark in its own transaction, so a business is
// rebuilt once however many replicas run this, and a manual
// `reports rebuild` counts too. It returns how many it rebuilt.
func (r *Reports) RebuildPending(ctx context.Context) int {
	done := 0
	for ctx.Err() == nil {
		ids, err := r.store.PendingRebuilds(ctx)
		if err == nil && len(ids) == 0 {
			return done
		}
		for _, id := range ids {
			if err != nil {
				break
			}
			var n int
			if n, err = r.Rebuild(ctx, id); err == nil {
				done++
				r.logger.Info("rebuilt a business queued by a migration", "business_id", id, "entries", n)
			}
		}
		if err != nil && ctx.Err() == nil {
			r.logger.Error("rebuild of a queued business failed; retrying", "error", err)
			select {
			case <-ctx.Done():
			case <-time.After(pendingRetry):
			}
		}
	}
	return done
}
