package acctsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// The sync from the connected company (POST .../acctsync/sync-from) runs in
// the background, page by page, with its state in the store:
//
//   - StartSync records the request (QUEUED) and wakes the worker; a sync
//     already queued or running is left alone, so the request is
//     idempotent.
//   - The worker (RunSyncWorker, one per process) claims queued syncs, and
//     running ones whose lease expired because their process died, and runs
//     them. Each page read is staged and the cursor advanced in one
//     transaction, fenced by the run's claim; the last page replaces the
//     imported chart in one transaction.
//   - A run that fails keeps its cursor and staged pages: the next sync
//     asked for within ResumeWindow continues from there. A run stopped by
//     a shutdown gives its claim back so that the next worker resumes it at
//     once.

// SyncView is what the status endpoints show of a business's connection
// and sync.
type SyncView struct {
	Connected   bool
	RealmID     string
	ConnectedAt *time.Time
	// Syncing: a sync is queued or running (or was interrupted and will be
	// resumed by a worker).
	Syncing bool
	// State is the sync's SyncStatus (SyncIdle when none was asked for).
	State SyncStatus
	// LastSyncedAt is when the last sync ended, either way (the import of
	// the authorization counts as a successful sync); LastSyncOK says how
	// it ended, LastSyncError why it failed.
	LastSyncedAt  *time.Time
	LastSyncOK    bool
	LastSyncError string
	// LastSuccessAt is when the chart was last imported in full.
	LastSuccessAt *time.Time
	// StartedAt and AccountsRead describe the current (or last) sync.
	StartedAt    *time.Time
	AccountsRead int
	Attempts     int
}

// SyncStarted is the answer of StartSync.
type SyncStarted struct {
	Request
	View SyncView
}

// StartSync asks for a sync of the business's chart from the connected
// company. It is idempotent: while a sync is queued or running, it changes
// nothing and says so (Started false).
func (s *Service) StartSync(ctx context.Context, businessID uuid.UUID) (SyncStarted, error) {
	if s.provider == nil {
		return SyncStarted{}, notConfigured()
	}
	var req Request
	now := s.clock()
	_, found, err := s.store.UpdateSync(ctx, businessID, func(c Connection, st *SyncState) (SyncChange, error) {
		var next SyncState
		next, req = RequestSync(*st, c.RealmID, now)
		*st = next
		return SyncChange{ResetStaging: req.ResetStaging}, nil
	})
	if err != nil {
		return SyncStarted{}, fmt.Errorf("start sync %s: %w", businessID, err)
	}
	if !found {
		return SyncStarted{}, notConnected()
	}
	if req.Started {
		select {
		case s.kick <- struct{}{}:
		default: // the worker is already woken
		}
	}
	view, err := s.SyncStatus(ctx, businessID)
	if err != nil {
		return SyncStarted{}, err
	}
	return SyncStarted{Request: req, View: view}, nil
}

// SyncStatus reads the business's connection and sync.
func (s *Service) SyncStatus(ctx context.Context, businessID uuid.UUID) (SyncView, error) {
	conn, found, err := s.store.Connection(ctx, businessID)
	if err != nil {
		return SyncView{}, fmt.Errorf("sync status %s: %w", businessID, err)
	}
	if !found {
		return SyncView{State: SyncIdle}, nil
	}
	st, found, err := s.store.SyncState(ctx, businessID)
	if err != nil {
		return SyncView{}, fmt.Errorf("sync status %s: %w", businessID, err)
	}
	if !found {
		st = SyncState{Status: SyncIdle}
	}
	return syncView(conn, st), nil
}

func syncView(conn Connection, st SyncState) SyncView {
	connectedAt := conn.ConnectedAt
	v := SyncView{
		Connected: true, RealmID: conn.RealmID, ConnectedAt: &connectedAt,
		Syncing: st.Syncing(), State: st.Status, StartedAt: st.StartedAt, AccountsRead: st.Fetched, Attempts: st.Attempts,
		LastSuccessAt: conn.LastSyncedAt, LastSyncedAt: conn.LastSyncedAt, LastSyncOK: conn.LastSyncedAt != nil,
	}
	// A failure later than the last import is the last outcome.
	if st.LastError != "" && st.FinishedAt != nil && (conn.LastSyncedAt == nil || st.FinishedAt.After(*conn.LastSyncedAt)) {
		v.LastSyncedAt, v.LastSyncOK, v.LastSyncError = st.FinishedAt, false, st.LastError
	}
	return v
}

// RunSyncWorker runs the business syncs of this process until ctx ends:
// at once, whenever StartSync asks, and every SyncPoll (which picks up
// the syncs of processes that died). On return every run it started has
// stopped and given its claim back.
func (s *Service) RunSyncWorker(ctx context.Context) {
	if s.provider == nil {
		return
	}
	done := make(chan struct{})
	runs := 0
	tick := time.NewTicker(s.syncPoll)
	defer tick.Stop()
	for {
		runs += s.ResumeSyncs(ctx, done)
		select {
		case <-ctx.Done():
			for ; runs > 0; runs-- {
				<-done
			}
			return
		case <-s.kick:
		case <-tick.C:
		case <-done:
			runs--
		}
	}
}

// ResumeSyncs claims the syncs waiting for a worker, as many as this
// process has free slots for, and starts their runs; each run sends on
// done when it stops. It returns the number of runs started.
func (s *Service) ResumeSyncs(ctx context.Context, done chan<- struct{}) int {
	free := cap(s.slots) - len(s.slots)
	if free <= 0 || ctx.Err() != nil {
		return 0
	}
	ids, err := s.store.ClaimableSyncs(ctx, s.clock(), free)
	if err != nil {
		s.log.LogAttrs(ctx, slog.LevelError, "acctsync: list claimable syncs", slog.String("error", err.Error()))
		return 0
	}
	started := 0
	for _, bid := range ids {
		select {
		case s.slots <- struct{}{}:
		default:
			return started
		}
		st, err := s.claim(ctx, bid)
		if err != nil {
			<-s.slots
			if !errors.Is(err, errNotClaimable) {
				s.log.LogAttrs(ctx, slog.LevelError, "acctsync: claim sync",
					slog.String("business_id", bid.String()), slog.String("error", err.Error()))
			}
			continue
		}
		started++
		go func() {
			defer func() { <-s.slots; done <- struct{}{} }()
			s.runSync(ctx, st)
		}()
	}
	return started
}

func (s *Service) claim(ctx context.Context, businessID uuid.UUID) (SyncState, error) {
	runID := uuid.New()
	now := s.clock()
	st, found, err := s.store.UpdateSync(ctx, businessID, func(_ Connection, st *SyncState) (SyncChange, error) {
		next, err := Claim(*st, runID, now, s.syncLease)
		*st = next
		return SyncChange{}, err
	})
	if err == nil && !found {
		err = errNotClaimable
	}
	return st, err
}

// runSync carries the claimed sync st to its end.
func (s *Service) runSync(ctx context.Context, st SyncState) {
	bid, runID := st.BusinessID, st.RunID
	log := s.log.With(slog.String("business_id", bid.String()), slog.String("run_id", runID.String()))
	err := s.readPages(ctx, &st)
	restart := false
	if err == nil {
		restart, err = s.finishSync(ctx, st)
	}
	switch {
	case err == nil:
		log.LogAttrs(ctx, slog.LevelInfo, "acctsync: sync done", slog.Int("accounts", st.Fetched), slog.Int("attempts", st.Attempts))
		return
	case errors.Is(err, ErrLostLease):
		log.LogAttrs(ctx, slog.LevelWarn, "acctsync: sync run stopped: its claim was taken over or the connection removed")
		return
	case ctx.Err() != nil:
		// Shutting down: hand the sync to the next worker at once.
		s.endRun(context.WithoutCancel(ctx), log, bid, func(st SyncState) (SyncState, error) {
			return Release(st, runID, s.clock())
		})
		return
	}
	reason := syncFailure(err)
	log.LogAttrs(ctx, slog.LevelWarn, "acctsync: sync failed", slog.String("error", err.Error()))
	s.endRun(context.WithoutCancel(ctx), log, bid, func(st SyncState) (SyncState, error) {
		next, err := Fail(st, runID, reason, s.clock())
		if err == nil && restart {
			next.Cursor, next.Fetched = FirstCursor, 0
		}
		return next, err
	})
}

func (s *Service) endRun(ctx context.Context, log *slog.Logger, businessID uuid.UUID, fn func(SyncState) (SyncState, error)) {
	_, _, err := s.store.UpdateSync(ctx, businessID, func(_ Connection, st *SyncState) (SyncChange, error) {
		next, err := fn(*st)
		*st = next
		return SyncChange{}, err
	})
	if err != nil && !errors.Is(err, ErrLostLease) {
		log.LogAttrs(ctx, slog.LevelError, "acctsync: end sync run", slog.String("error", err.Error()))
	}
}

// readPages reads the chart from st's cursor to its last page, staging
// each page and advancing the cursor in one fenced write.
func (s *Service) readPages(ctx context.Context, st *SyncState) error {
	conn, found, err := s.store.Connection(ctx, st.BusinessID)
	if err != nil {
		return fmt.Errorf("read connection: %w", err)
	}
	if !found {
		return ErrLostLease
	}
	if conn.RealmID != st.RealmID {
		return connectionChanged()
	}
	access, conn, err := s.accessToken(ctx, conn, false)
	if err != nil {
		return err
	}
	runID := st.RunID
	for {
		accounts, next, done, err := s.provider.AccountsPage(ctx, access, conn.RealmID, st.Cursor)
		if errors.Is(err, ErrAccessDenied) {
			// Expired during a long sync, or revoked early: one refresh,
			// one retry.
			if access, conn, err = s.accessToken(ctx, conn, true); err != nil {
				return err
			}
			accounts, next, done, err = s.provider.AccountsPage(ctx, access, conn.RealmID, st.Cursor)
		}
		if err != nil {
			return err
		}
		now := s.clock()
		stored, found, err := s.store.UpdateSync(ctx, st.BusinessID, func(c Connection, cur *SyncState) (SyncChange, error) {
			if c.RealmID != st.RealmID {
				return SyncChange{}, connectionChanged()
			}
			adv, err := Advance(*cur, runID, len(accounts), next, now, s.syncLease)
			*cur = adv
			return SyncChange{Stage: accounts}, err
		})
		if err != nil {
			return err
		}
		if !found {
			return ErrLostLease
		}
		*st = stored
		if done {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// finishSync imports the staged chart; restart reports a failure that
// reading the same pages again would not cure (an unreadable chart).
func (s *Service) finishSync(ctx context.Context, st SyncState) (restart bool, err error) {
	accounts, err := s.store.StagedAccounts(ctx, st.BusinessID)
	if err != nil {
		return false, fmt.Errorf("read staged accounts: %w", err)
	}
	if err := checkChart(accounts); err != nil {
		return true, err
	}
	mappings, err := s.mapAccounts(ctx, st.BusinessID, accounts)
	if err != nil {
		return false, err
	}
	now := s.clock()
	imp := Import{BusinessID: st.BusinessID, RealmID: st.RealmID, Accounts: accounts, Mappings: mappings, At: now}
	_, found, err := s.store.UpdateSync(ctx, st.BusinessID, func(c Connection, cur *SyncState) (SyncChange, error) {
		if c.RealmID != st.RealmID {
			return SyncChange{}, connectionChanged()
		}
		next, err := Succeed(*cur, st.RunID, now)
		*cur = next
		return SyncChange{Import: &imp}, err
	})
	if err == nil && !found {
		err = ErrLostLease
	}
	return false, err
}

// syncFailure is the reason a failed sync shows (last_sync_error).
func syncFailure(err error) string {
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Enum == EnumConnectionChanged {
		return "the acctsync connection changed during the sync"
	}
	switch {
	case errors.Is(err, ErrGrantRejected), errors.Is(err, ErrAccessDenied):
		return "the accounting provider no longer accepts this connection's tokens; authorize it again"
	case errors.Is(err, ErrClientRejected):
		return "the accounting provider rejected this server's acctsync client credentials"
	case errors.Is(err, ErrProviderBadAnswer):
		return "the accounting provider answered with data that could not be read; the previous import is kept"
	case errors.Is(err, ErrProviderUnavailable):
		return "the accounting provider was unavailable; the next sync continues where this one stopped"
	}
	return "the sync stopped on an internal error; the next sync continues where this one stopped"
}
