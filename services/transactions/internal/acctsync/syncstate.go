package acctsync

import (
	"errors"
	"time"

	"github.com/google/uuid"
)

// SyncStatus is where a business's sync from the connected company stands.
type SyncStatus string

// The sync statuses. QUEUED and RUNNING are "syncing": a sync is asked
// for or under way, and the worker will carry it to SUCCEEDED or FAILED.
const (
	// SyncIdle: no sync was ever asked for (the import made when the
	// connection was authorized is the last success).
	SyncIdle SyncStatus = "IDLE"
	// SyncQueued: asked for, waiting for a worker to claim it.
	SyncQueued SyncStatus = "QUEUED"
	// SyncRunning: claimed by a worker holding a lease. A RUNNING sync
	// whose lease has expired was interrupted (its process died) and is
	// claimed again, from its cursor.
	SyncRunning SyncStatus = "RUNNING"
	// SyncSucceeded: the last sync imported the whole chart.
	SyncSucceeded SyncStatus = "SUCCEEDED"
	// SyncFailed: the last sync stopped on an error; the pages it read
	// are kept, and the next sync asked for within ResumeWindow continues
	// from its cursor.
	SyncFailed SyncStatus = "FAILED"
)

// FirstCursor is the provider position of the first page (QuickBooks
// Online's startposition is 1-based).
const FirstCursor = 1

// ResumeWindow is how long the pages read by a failed sync stay usable: a
// sync asked for later starts over, so an import never mixes pages read
// too far apart.
const ResumeWindow = 24 * time.Hour

// SyncState is a business's sync, as the store keeps it.
type SyncState struct {
	BusinessID uuid.UUID
	// RealmID is the company the sync reads.
	RealmID string
	Status  SyncStatus
	// RunID identifies the worker's claim: every write of a run is fenced
	// by it, so a run whose lease was taken over writes nothing more.
	RunID      uuid.UUID
	LeaseUntil *time.Time
	// Cursor is the provider position of the next page to read; Fetched
	// the number of accounts read (staged) by this sync so far.
	Cursor  int
	Fetched int
	// Attempts counts the runs of this sync (1, plus one per resumption).
	Attempts    int
	RequestedAt *time.Time
	// StartedAt is when this sync (with its resumptions) started reading
	// from the first page.
	StartedAt *time.Time
	// FinishedAt is when the last sync ended (either way); LastError is
	// why it failed ("" after a success).
	FinishedAt      *time.Time
	LastSucceededAt *time.Time
	LastError       string
}

// Syncing reports whether a sync is asked for or under way.
func (st SyncState) Syncing() bool { return st.Status == SyncQueued || st.Status == SyncRunning }

// Request is the outcome of asking for a sync.
type Request struct {
	// Started is false when a sync was already asked for or running: the
	// request changed nothing.
	Started bool
	// Resumed is true when the new sync continues a failed one from its
	// cursor; ResetStaging when it starts over and the pages staged by an
	// earlier sync must go.
	Resumed      bool
	ResetStaging bool
}

// RequestSync asks for a sync of realm at now. A sync already asked for or
// running is left alone (idempotent); a failed one of the same company
// started less than ResumeWindow ago resumes from its cursor; anything
// else starts over from the first page.
func RequestSync(st SyncState, realm string, now time.Time) (SyncState, Request) {
	if st.Syncing() {
		return st, Request{}
	}
	resume := st.Status == SyncFailed && st.RealmID == realm && st.Cursor > FirstCursor &&
		st.StartedAt != nil && now.Sub(*st.StartedAt) < ResumeWindow
	next := st
	next.Status, next.RunID, next.LeaseUntil, next.RequestedAt = SyncQueued, uuid.Nil, nil, &now
	if resume {
		return next, Request{Started: true, Resumed: true}
	}
	next.RealmID, next.Cursor, next.Fetched, next.Attempts, next.StartedAt = realm, FirstCursor, 0, 0, &now
	return next, Request{Started: true, ResetStaging: true}
}

// errNotClaimable: the sync is not waiting for a worker (another holds a
// live lease, or it is not syncing).
var errNotClaimable = errors.New("acctsync: sync not claimable")

// ErrLostLease: a run's claim is no longer the sync's (its lease expired
// and another worker took the sync over, or the connection was removed).
var ErrLostLease = errors.New("acctsync: sync run lost its lease")

// Claimable reports whether a worker may claim st at now: it is queued, or
// running under a lease that has expired.
func (st SyncState) Claimable(now time.Time) bool {
	return st.Status == SyncQueued || (st.Status == SyncRunning && (st.LeaseUntil == nil || !now.Before(*st.LeaseUntil)))
}

// Claim hands st to the run runID for lease.
func Claim(st SyncState, runID uuid.UUID, now time.Time, lease time.Duration) (SyncState, error) {
	if !st.Claimable(now) {
		return st, errNotClaimable
	}
	until := now.Add(lease)
	st.Status, st.RunID, st.LeaseUntil = SyncRunning, runID, &until
	st.Attempts++
	return st, nil
}

func (st SyncState) heldBy(runID uuid.UUID) error {
	if st.Status != SyncRunning || st.RunID != runID {
		return ErrLostLease
	}
	return nil
}

// Advance records a page of n accounts read by runID: the cursor moves to
// next and the lease is renewed.
func Advance(st SyncState, runID uuid.UUID, n, next int, now time.Time, lease time.Duration) (SyncState, error) {
	if err := st.heldBy(runID); err != nil {
		return st, err
	}
	if next <= st.Cursor {
		return st, errors.New("acctsync: a sync cursor only moves forward")
	}
	until := now.Add(lease)
	st.Cursor, st.Fetched, st.LeaseUntil = next, st.Fetched+n, &until
	return st, nil
}

// Succeed ends runID's sync with the whole chart imported.
func Succeed(st SyncState, runID uuid.UUID, now time.Time) (SyncState, error) {
	if err := st.heldBy(runID); err != nil {
		return st, err
	}
	st.Status, st.RunID, st.LeaseUntil = SyncSucceeded, uuid.Nil, nil
	st.Cursor, st.FinishedAt, st.LastSucceededAt, st.LastError = FirstCursor, &now, &now, ""
	return st, nil
}

// Fail ends runID's sync on an error; its cursor and staged pages stay for
// a resumption.
func Fail(st SyncState, runID uuid.UUID, reason string, now time.Time) (SyncState, error) {
	if err := st.heldBy(runID); err != nil {
		return st, err
	}
	st.Status, st.RunID, st.LeaseUntil = SyncFailed, uuid.Nil, nil
	st.FinishedAt, st.LastError = &now, reason
	return st, nil
}

// Release gives runID's sync back at once (its process is shutting down):
// it stays RUNNING with an expired lease, so the next worker claims it
// without waiting for the lease to run out.
func Release(st SyncState, runID uuid.UUID, now time.Time) (SyncState, error) {
	if err := st.heldBy(runID); err != nil {
		return st, err
	}
	st.LeaseUntil = &now
	return st, nil
}
