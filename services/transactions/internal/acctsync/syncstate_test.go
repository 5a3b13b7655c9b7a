package acctsync

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

const lease = 2 * time.Minute

// A sync goes QUEUED → RUNNING → (pages) → SUCCEEDED, and a new request
// after a success starts over from the first page.
func TestSyncStateHappyPath(t *testing.T) {
	st, req := RequestSync(SyncState{Status: SyncIdle}, "1", t0)
	if !req.Started || req.Resumed || !req.ResetStaging || st.Status != SyncQueued || !st.Syncing() ||
		st.Cursor != FirstCursor || st.RealmID != "1" || !st.StartedAt.Equal(t0) {
		t.Fatalf("request: %+v %+v", st, req)
	}
	run := uuid.New()
	st, err := Claim(st, run, t0, lease)
	if err != nil || st.Status != SyncRunning || st.RunID != run || st.Attempts != 1 || !st.LeaseUntil.Equal(t0.Add(lease)) {
		t.Fatalf("claim: %+v %v", st, err)
	}
	st, err = Advance(st, run, 1000, 1001, t0.Add(time.Minute), lease)
	if err != nil || st.Cursor != 1001 || st.Fetched != 1000 || !st.LeaseUntil.Equal(t0.Add(time.Minute+lease)) {
		t.Fatalf("advance: %+v %v", st, err)
	}
	if _, err := Advance(st, run, 0, 1001, t0, lease); err == nil {
		t.Fatal("the cursor moved backwards")
	}
	done := t0.Add(2 * time.Minute)
	st, err = Succeed(st, run, done)
	if err != nil || st.Status != SyncSucceeded || st.Syncing() || st.RunID != uuid.Nil || st.LeaseUntil != nil ||
		!st.LastSucceededAt.Equal(done) || !st.FinishedAt.Equal(done) || st.LastError != "" || st.Fetched != 1000 {
		t.Fatalf("succeed: %+v %v", st, err)
	}
	next, req := RequestSync(st, "1", done.Add(time.Hour))
	if !req.Started || req.Resumed || !req.ResetStaging || next.Cursor != FirstCursor || next.Fetched != 0 || next.Attempts != 0 {
		t.Fatalf("request after success: %+v %+v", next, req)
	}
}

// A second request while a sync is queued or running changes nothing.
func TestSyncRequestIsIdempotent(t *testing.T) {
	queued, _ := RequestSync(SyncState{Status: SyncIdle}, "1", t0)
	again, req := RequestSync(queued, "1", t0.Add(time.Second))
	if req.Started || req.ResetStaging || again != queued {
		t.Fatalf("second request on a queued sync: %+v %+v", again, req)
	}
	running, _ := Claim(queued, uuid.New(), t0, lease)
	// Even long after its lease expired: the sync is still the worker's
	// to resume, not the client's to restart.
	again, req = RequestSync(running, "1", t0.Add(time.Hour))
	if req.Started || again != running {
		t.Fatalf("request on a running sync: %+v %+v", again, req)
	}
}

// A failed sync keeps its cursor; a request within ResumeWindow resumes
// from it, a later one (or one for another company) starts over.
func TestSyncResumesAfterFailure(t *testing.T) {
	st, _ := RequestSync(SyncState{Status: SyncIdle}, "1", t0)
	run := uuid.New()
	st, _ = Claim(st, run, t0, lease)
	st, _ = Advance(st, run, 2, 3, t0, lease)
	failedAt := t0.Add(time.Minute)
	st, err := Fail(st, run, "provider down", failedAt)
	if err != nil || st.Status != SyncFailed || st.Syncing() || st.Cursor != 3 || st.Fetched != 2 ||
		st.LastError != "provider down" || !st.FinishedAt.Equal(failedAt) || st.LastSucceededAt != nil {
		t.Fatalf("fail: %+v %v", st, err)
	}

	resumed, req := RequestSync(st, "1", t0.Add(time.Hour))
	if !req.Started || !req.Resumed || req.ResetStaging || resumed.Cursor != 3 || resumed.Fetched != 2 ||
		!resumed.StartedAt.Equal(t0) || resumed.Status != SyncQueued {
		t.Fatalf("resume: %+v %+v", resumed, req)
	}
	run2 := uuid.New()
	resumed, _ = Claim(resumed, run2, t0.Add(time.Hour), lease)
	if resumed.Attempts != 2 {
		t.Fatalf("attempts = %d, want 2", resumed.Attempts)
	}

	for name, tc := range map[string]struct {
		realm string
		at    time.Time
	}{
		"too late":        {"1", t0.Add(ResumeWindow)},
		"another company": {"2", t0.Add(time.Hour)},
	} {
		fresh, req := RequestSync(st, tc.realm, tc.at)
		if !req.Started || req.Resumed || !req.ResetStaging || fresh.Cursor != FirstCursor || fresh.Fetched != 0 || fresh.RealmID != tc.realm {
			t.Errorf("%s: %+v %+v", name, fresh, req)
		}
	}
}

// Only a queued sync, or a running one whose lease has expired, can be
// claimed; once another run holds it, the old run's writes are refused.
func TestSyncClaimAndFencing(t *testing.T) {
	st, _ := RequestSync(SyncState{Status: SyncIdle}, "1", t0)
	a, b := uuid.New(), uuid.New()
	st, _ = Claim(st, a, t0, lease)
	if _, err := Claim(st, b, t0.Add(lease-time.Second), lease); !errors.Is(err, errNotClaimable) {
		t.Fatalf("claimed under a live lease: %v", err)
	}
	// a's process dies: its lease runs out and b takes over at a's cursor.
	st, _ = Advance(st, a, 2, 3, t0, lease)
	takeover := t0.Add(lease)
	st, err := Claim(st, b, takeover, lease)
	if err != nil || st.RunID != b || st.Cursor != 3 || st.Attempts != 2 {
		t.Fatalf("takeover: %+v %v", st, err)
	}
	for name, f := range map[string]func() error{
		"advance": func() error { _, err := Advance(st, a, 1, 5, takeover, lease); return err },
		"succeed": func() error { _, err := Succeed(st, a, takeover); return err },
		"fail":    func() error { _, err := Fail(st, a, "x", takeover); return err },
		"release": func() error { _, err := Release(st, a, takeover); return err },
	} {
		if err := f(); !errors.Is(err, ErrLostLease) {
			t.Errorf("%s by the old run: %v", name, err)
		}
	}
	// A graceful stop hands the sync back at once.
	rel, err := Release(st, b, takeover.Add(time.Second))
	if err != nil || rel.Status != SyncRunning || !rel.Claimable(takeover.Add(time.Second)) {
		t.Fatalf("release: %+v %v", rel, err)
	}
	for _, s := range []SyncStatus{SyncIdle, SyncSucceeded, SyncFailed} {
		if (SyncState{Status: s}).Claimable(t0) {
			t.Errorf("%s is claimable", s)
		}
	}
}
