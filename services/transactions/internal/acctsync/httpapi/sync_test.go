package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync/qbo/qbofake"
)

// pausingProvider holds every account page read at or after position from
// until release is closed (or the run's context ends).
type pausingProvider struct {
	acctsync.Provider
	from    int
	reached chan struct{}
	release chan struct{}
	once    sync.Once
}

func pauseAt(from int) *pausingProvider {
	return &pausingProvider{from: from, reached: make(chan struct{}), release: make(chan struct{})}
}

func (p *pausingProvider) wrap(inner acctsync.Provider) acctsync.Provider {
	p.Provider = inner
	return p
}

func (p *pausingProvider) AccountsPage(ctx context.Context, token, realm string, start int) ([]acctsync.ExternalAccount, int, bool, error) {
	if start >= p.from {
		p.once.Do(func() { close(p.reached) })
		select {
		case <-p.release:
		case <-ctx.Done():
			return nil, 0, false, ctx.Err()
		}
	}
	return p.Provider.AccountsPage(ctx, token, realm, start)
}

func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

type syncStatus struct {
	Type                 string  `json:"type"`
	IsConnected          bool    `json:"is_connected"`
	IsSyncing            bool    `json:"is_syncing"`
	State                string  `json:"state"`
	LastSyncedAt         *string `json:"last_synced_at"`
	LastSyncStatus       *string `json:"last_sync_status"`
	LastSyncError        *string `json:"last_sync_error"`
	LastSuccessfulSyncAt *string `json:"last_successful_sync_at"`
	StartedAt            *string `json:"started_at"`
	AccountsRead         int     `json:"accounts_read"`
	Attempts             int     `json:"attempts"`
}

type connectionStatus struct {
	Type                 string  `json:"type"`
	IsConnected          bool    `json:"is_connected"`
	IsSyncing            bool    `json:"is_syncing"`
	RealmID              *string `json:"realm_id"`
	ConnectedAt          *string `json:"connected_at"`
	LastSyncedAt         *string `json:"last_synced_at"`
	LastSyncStatus       *string `json:"last_sync_status"`
	LastSyncError        *string `json:"last_sync_error"`
	LastSuccessfulSyncAt *string `json:"last_successful_sync_at"`
}

type syncRequest struct {
	Type    string     `json:"type"`
	Started bool       `json:"started"`
	Resumed bool       `json:"resumed"`
	Sync    syncStatus `json:"sync"`
}

func (e *env) acctsyncPath(bid uuid.UUID, rest string) string {
	return "/v1/businesses/" + bid.String() + "/acctsync/" + rest
}

// syncFrom calls POST .../sync-from as client-a and expects 202.
func (e *env) syncFrom(bid uuid.UUID) syncRequest {
	e.t.Helper()
	resp, body := e.do(http.MethodPost, e.acctsyncPath(bid, "sync-from"), e.platform(clientA))
	if resp.StatusCode != http.StatusAccepted {
		e.t.Fatalf("sync-from = %d %s", resp.StatusCode, body)
	}
	var out struct{ Data syncRequest }
	decode(e.t, body, &out)
	return out.Data
}

func (e *env) syncStatus(bid uuid.UUID) syncStatus {
	e.t.Helper()
	resp, body := e.do(http.MethodGet, e.acctsyncPath(bid, "sync-from/status"), e.platform(clientA))
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("sync-from/status = %d %s", resp.StatusCode, body)
	}
	var out struct{ Data syncStatus }
	decode(e.t, body, &out)
	return out.Data
}

func (e *env) connectionStatus(bid uuid.UUID) connectionStatus {
	e.t.Helper()
	resp, body := e.do(http.MethodGet, e.acctsyncPath(bid, "connection-status"), e.platform(clientA))
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("connection-status = %d %s", resp.StatusCode, body)
	}
	var out struct{ Data connectionStatus }
	decode(e.t, body, &out)
	return out.Data
}

// waitSynced polls the sync status until it is not syncing any more.
func (e *env) waitSynced(bid uuid.UUID) syncStatus {
	e.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		st := e.syncStatus(bid)
		if !st.IsSyncing {
			return st
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("still syncing: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func str(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

func TestSyncFromImportsTheChart(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.fake.SetAccounts(realm, chart()...)

	// Before any connection.
	if cs := e.connectionStatus(e.bizA); cs.IsConnected || cs.IsSyncing || cs.RealmID != nil || cs.LastSyncedAt != nil || cs.LastSyncStatus != nil {
		t.Fatalf("status before connecting = %+v", cs)
	}
	e.connect(e.bizA, clientA)
	cs := e.connectionStatus(e.bizA)
	if !cs.IsConnected || cs.IsSyncing || str(cs.RealmID) != realm || cs.ConnectedAt == nil ||
		str(cs.LastSyncStatus) != "SYNC_SUCCESS" || cs.LastSyncedAt == nil || cs.LastSyncError != nil {
		t.Fatalf("status after connecting = %+v", cs)
	}
	if st := e.syncStatus(e.bizA); st.State != "IDLE" || st.IsSyncing || !st.IsConnected {
		t.Fatalf("sync status after connecting = %+v", st)
	}
	checking := e.accountID(e.bizA, "35")

	// The company changes: a balance, a new account, one gone.
	e.clock.Advance(time.Hour)
	next := chart()[:6]
	next[0] = qbofake.Account(qbofake.AccountSpec{ID: "35", Name: "Business Checking", AccountType: "Bank", AccountSubType: "Checking", Classification: "Asset", Balance: "10.01"})
	next = append(next, qbofake.Account(qbofake.AccountSpec{ID: "95", Name: "Loan", AccountType: "Long Term Liability", AccountSubType: "NotesPayable", Classification: "Liability", Balance: "500"}))
	e.fake.SetAccounts(realm, next...)
	queriesBefore := len(e.fake.QueryStarts())

	req := e.syncFrom(e.bizA)
	if req.Type != "Acctsync_Sync_Request" || !req.Started || req.Resumed || !req.Sync.IsSyncing {
		t.Fatalf("sync-from = %+v", req)
	}
	st := e.waitSynced(e.bizA)
	if st.State != "SUCCEEDED" || str(st.LastSyncStatus) != "SYNC_SUCCESS" || st.LastSyncError != nil || st.AccountsRead != 7 || st.Attempts != 1 {
		t.Fatalf("after sync = %+v", st)
	}
	if got := e.fake.QueryStarts()[queriesBefore:]; !slices.Equal(got, []int{1, 3, 5, 7}) {
		t.Fatalf("pages read = %v", got)
	}
	if got := e.accountID(e.bizA, "35"); got != checking {
		t.Fatal("the sync changed an account's id")
	}
	if a := e.readAccount(e.bizA, checking); a.Balance != "1001" {
		t.Fatalf("balance after sync = %s", a.Balance)
	}
	if n := e.count("acctsync_accounts", "business_id = ?", e.bizA); n != 7 {
		t.Fatalf("accounts = %d, want 7", n)
	}
	if n := e.count("acctsync_accounts", "business_id = ? AND external_id = '90'", e.bizA); n != 0 {
		t.Fatal("an account the company no longer has was kept")
	}
	if n := e.count("acctsync_sync_staged_accounts", ""); n != 0 {
		t.Fatalf("%d staged rows left", n)
	}
	cs2 := e.connectionStatus(e.bizA)
	if str(cs2.LastSyncedAt) == str(cs.LastSyncedAt) || str(cs2.LastSuccessfulSyncAt) != str(cs2.LastSyncedAt) {
		t.Fatalf("connection status after sync = %+v (before %+v)", cs2, cs)
	}
}

func TestSyncFromIsIdempotent(t *testing.T) {
	p := pauseAt(1)
	e := newEnv(t, envOptions{wrap: p.wrap})
	e.fake.SetAccounts(realm, chart()...)
	e.connect(e.bizA, clientA)
	queriesBefore := len(e.fake.QueryStarts())

	// Two concurrent requests: exactly one starts a sync.
	const n = 2
	answers := make([]syncRequest, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			answers[i] = e.syncFrom(e.bizA)
		}()
	}
	close(start)
	wg.Wait()
	started := 0
	for _, a := range answers {
		if !a.Sync.IsSyncing {
			t.Fatalf("an answer says no sync is running: %+v", a)
		}
		if a.Started {
			started++
		}
	}
	if started != 1 {
		t.Fatalf("%d of %d concurrent requests started a sync", started, n)
	}
	waitFor(t, p.reached, "the sync's first page")

	// A third one while it runs changes nothing either.
	if a := e.syncFrom(e.bizA); a.Started || a.Sync.State != "RUNNING" || !a.Sync.IsSyncing {
		t.Fatalf("request during the sync = %+v", a)
	}
	if cs := e.connectionStatus(e.bizA); !cs.IsSyncing {
		t.Fatalf("connection status during the sync = %+v", cs)
	}
	close(p.release)
	st := e.waitSynced(e.bizA)
	if st.State != "SUCCEEDED" || st.Attempts != 1 {
		t.Fatalf("after sync = %+v", st)
	}
	if got := e.fake.QueryStarts()[queriesBefore:]; !slices.Equal(got, []int{1, 3, 5, 7}) {
		t.Fatalf("pages read = %v: the chart was read more than once", got)
	}
}

func TestSyncFromResumesAfterAFailureMidway(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.fake.SetAccounts(realm, chart()...)
	e.connect(e.bizA, clientA)
	goodwill := e.accountID(e.bizA, "90")

	// The provider fails on the third page.
	e.clock.Advance(time.Hour)
	next := chart()[:6]
	next = append(next, qbofake.Account(qbofake.AccountSpec{ID: "95", Name: "Loan", AccountType: "Long Term Liability", Classification: "Liability", Balance: "500"}))
	e.fake.SetAccounts(realm, next...)
	e.fake.FailQueriesFrom(1 + 2*testPageSize)
	queriesBefore := len(e.fake.QueryStarts())
	e.syncFrom(e.bizA)
	st := e.waitSynced(e.bizA)
	if st.State != "FAILED" || str(st.LastSyncStatus) != "SYNC_FAILURE" || !strings.Contains(str(st.LastSyncError), "unavailable") ||
		st.AccountsRead != 4 || st.LastSuccessfulSyncAt == nil {
		t.Fatalf("after the failure = %+v", st)
	}
	if cs := e.connectionStatus(e.bizA); !cs.IsConnected || str(cs.LastSyncStatus) != "SYNC_FAILURE" || cs.LastSyncError == nil {
		t.Fatalf("connection status after the failure = %+v", cs)
	}
	// The previous import is untouched; the pages read are staged.
	if n := e.count("acctsync_accounts", "business_id = ?", e.bizA); n != 7 {
		t.Fatalf("accounts after the failure = %d, want the 7 of the previous import", n)
	}
	if e.accountID(e.bizA, "90") != goodwill {
		t.Fatal("the failed sync changed the import")
	}
	if n := e.count("acctsync_sync_staged_accounts", "business_id = ?", e.bizA); n != 4 {
		t.Fatalf("staged = %d, want 4", n)
	}

	// The provider is back: the next request continues at the third page.
	e.fake.FailQueriesFrom(0)
	mid := len(e.fake.QueryStarts())
	if got := e.fake.QueryStarts()[queriesBefore:]; !slices.Equal(got, []int{1, 3}) {
		t.Fatalf("pages read before the failure = %v", got)
	}
	req := e.syncFrom(e.bizA)
	if !req.Started || !req.Resumed {
		t.Fatalf("second request = %+v", req)
	}
	st = e.waitSynced(e.bizA)
	if st.State != "SUCCEEDED" || str(st.LastSyncStatus) != "SYNC_SUCCESS" || st.LastSyncError != nil || st.AccountsRead != 7 || st.Attempts != 2 {
		t.Fatalf("after the resumption = %+v", st)
	}
	if got := e.fake.QueryStarts()[mid:]; !slices.Equal(got, []int{5, 7}) {
		t.Fatalf("pages read by the resumption = %v, want [5 7]", got)
	}
	if n := e.count("acctsync_accounts", "business_id = ?", e.bizA); n != 7 {
		t.Fatalf("accounts = %d", n)
	}
	if n := e.count("acctsync_accounts", "business_id = ? AND external_id IN ('90')", e.bizA); n != 0 {
		t.Fatal("Goodwill, gone from the company, is still imported")
	}
	if n := e.count("acctsync_accounts", "business_id = ? AND external_id = '95'", e.bizA); n != 1 {
		t.Fatal("the new account was not imported")
	}
}

// A process that dies midway: its lease runs out, another process resumes
// the sync from its cursor, and the dead run's late writes are refused.
func TestSyncSurvivesTheDeathOfItsProcess(t *testing.T) {
	p := pauseAt(1 + testPageSize)
	e := newEnv(t, envOptions{wrap: p.wrap, noWorker: true})
	e.fake.SetAccounts(realm, chart()...)
	e.connect(e.bizA, clientA)
	e.clock.Advance(time.Hour)
	queriesBefore := len(e.fake.QueryStarts())

	e.syncFrom(e.bizA)
	ctxA, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	doneA := make(chan struct{}, 4)
	if n := e.svc.ResumeSyncs(ctxA, doneA); n != 1 {
		t.Fatalf("process A started %d runs", n)
	}
	waitFor(t, p.reached, "the second page")
	if st := e.syncStatus(e.bizA); st.State != "RUNNING" || st.AccountsRead != testPageSize || !st.IsSyncing {
		t.Fatalf("during the run = %+v", st)
	}

	// Process B, started meanwhile, leaves the sync alone while A's lease
	// holds; once it has run out, B takes the sync over.
	b, err := acctsync.New(withProvider(e.opts, e.client))
	if err != nil {
		t.Fatal(err)
	}
	doneB := make(chan struct{}, 4)
	if n := b.ResumeSyncs(context.Background(), doneB); n != 0 {
		t.Fatalf("B claimed a sync under a live lease")
	}
	e.clock.Advance(acctsync.DefaultSyncLease)
	if n := b.ResumeSyncs(context.Background(), doneB); n != 1 {
		t.Fatalf("B started %d runs after the lease ran out", n)
	}
	waitFor(t, doneB, "B's run")
	st := e.syncStatus(e.bizA)
	if st.State != "SUCCEEDED" || st.Attempts != 2 || st.AccountsRead != 7 {
		t.Fatalf("after B = %+v", st)
	}
	if got := e.fake.QueryStarts()[queriesBefore:]; !slices.Equal(got, []int{1, 3, 5, 7}) {
		t.Fatalf("pages read = %v: B should have continued at 3", got)
	}

	// A wakes up: its next write is refused, nothing changes.
	close(p.release)
	waitFor(t, doneA, "A's run")
	after := e.syncStatus(e.bizA)
	if after.State != st.State || after.Attempts != st.Attempts || after.AccountsRead != st.AccountsRead ||
		str(after.LastSyncedAt) != str(st.LastSyncedAt) || str(after.StartedAt) != str(st.StartedAt) {
		t.Fatalf("the dead run changed the sync: %+v → %+v", st, after)
	}
	if n := e.count("acctsync_sync_staged_accounts", ""); n != 0 {
		t.Fatalf("the dead run staged %d rows", n)
	}
}

// A graceful stop gives the sync back at once: the next process resumes
// it without waiting for the lease.
func TestSyncStoppedByShutdownIsResumedAtOnce(t *testing.T) {
	p := pauseAt(1 + testPageSize)
	e := newEnv(t, envOptions{wrap: p.wrap, noWorker: true})
	e.fake.SetAccounts(realm, chart()...)
	e.connect(e.bizA, clientA)
	queriesBefore := len(e.fake.QueryStarts())
	e.syncFrom(e.bizA)
	ctxA, cancelA := context.WithCancel(context.Background())
	doneA := make(chan struct{}, 4)
	e.svc.ResumeSyncs(ctxA, doneA)
	waitFor(t, p.reached, "the second page")
	cancelA()
	waitFor(t, doneA, "A's run")
	if st := e.syncStatus(e.bizA); !st.IsSyncing || st.State != "RUNNING" {
		t.Fatalf("after the shutdown = %+v", st)
	}

	// The restarted process's worker picks it up by itself.
	b, err := acctsync.New(withProvider(e.opts, e.client))
	if err != nil {
		t.Fatal(err)
	}
	ctxB, cancelB := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { b.RunSyncWorker(ctxB); close(stopped) }()
	defer func() { cancelB(); <-stopped }()
	st := e.waitSynced(e.bizA)
	if st.State != "SUCCEEDED" || st.Attempts != 2 {
		t.Fatalf("after the restart = %+v", st)
	}
	if got := e.fake.QueryStarts()[queriesBefore:]; !slices.Equal(got, []int{1, 3, 5, 7}) {
		t.Fatalf("pages read = %v", got)
	}
}

func withProvider(o acctsync.Options, p acctsync.Provider) acctsync.Options {
	o.Provider = p
	return o
}

func TestUnlink(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.fake.SetAccounts(realm, chart()...)
	e.connect(e.bizA, clientA)
	e.connect(e.bizB, clientB) // another business on the same company keeps its grant
	_, refreshB := e.fake.LastIssued()
	var refreshEnc []byte
	if err := e.db.QueryRowContext(context.Background(),
		"SELECT refresh_token_enc FROM acctsync_connections WHERE business_id = ?", e.bizA).Scan(&refreshEnc); err != nil {
		t.Fatal(err)
	}
	refreshA, err := e.cipher.Open(refreshEnc, "acctsync/"+e.bizA.String()+"/"+realm+"/refresh")
	if err != nil {
		t.Fatal(err)
	}
	// A failed sync leaves a state and staged pages behind.
	e.fake.FailQueriesFrom(1 + testPageSize)
	e.syncFrom(e.bizA)
	e.waitSynced(e.bizA)
	e.fake.FailQueriesFrom(0)

	unlink := func(bid uuid.UUID, token string) (bool, bool) {
		t.Helper()
		resp, body := e.do(http.MethodPost, e.acctsyncPath(bid, "unlink"), token)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("unlink = %d %s", resp.StatusCode, body)
		}
		var out struct {
			Data struct {
				Type         string `json:"type"`
				IsConnected  bool   `json:"is_connected"`
				Unlinked     bool   `json:"unlinked"`
				TokenRevoked bool   `json:"token_revoked"`
			}
		}
		decode(t, body, &out)
		if out.Data.Type != "Acctsync_Unlink" || out.Data.IsConnected {
			t.Fatalf("unlink = %s", body)
		}
		return out.Data.Unlinked, out.Data.TokenRevoked
	}
	if removed, revoked := unlink(e.bizA, e.platform(clientA)); !removed || !revoked {
		t.Fatalf("unlink = removed %t, revoked %t", removed, revoked)
	}
	if e.fake.RefreshTokenValid(refreshA) || e.fake.Revocations() != 1 {
		t.Fatalf("the provider still accepts the refresh token (revocations %d)", e.fake.Revocations())
	}
	if !e.fake.RefreshTokenValid(refreshB) {
		t.Fatal("unlinking A revoked B's grant")
	}
	for _, tb := range []string{"acctsync_connections", "acctsync_accounts", "acctsync_account_map", "acctsync_syncs", "acctsync_sync_staged_accounts"} {
		if n := e.count(tb, "business_id = ?", e.bizA); n != 0 {
			t.Errorf("%s keeps %d rows of the unlinked business", tb, n)
		}
	}
	if n := e.count("acctsync_accounts", "business_id = ?", e.bizB); n != 7 {
		t.Fatalf("B's accounts = %d", n)
	}
	if cs := e.connectionStatus(e.bizA); cs.IsConnected || cs.IsSyncing || cs.RealmID != nil || cs.LastSyncStatus != nil {
		t.Fatalf("status after unlink = %+v", cs)
	}
	if st := e.syncStatus(e.bizA); st.IsConnected || st.IsSyncing || st.State != "IDLE" {
		t.Fatalf("sync status after unlink = %+v", st)
	}
	resp, body := e.do(http.MethodPost, e.acctsyncPath(e.bizA, "sync-from"), e.platform(clientA))
	e.expectError(resp, body, http.StatusNotFound, acctsync.EnumNotConnected)
	resp, body = e.do(http.MethodGet, e.acctsyncPath(e.bizA, "ledger/accounts"), e.platform(clientA))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"data":[]`) {
		t.Fatalf("list after unlink = %d %s", resp.StatusCode, body)
	}

	// Idempotent.
	if removed, revoked := unlink(e.bizA, e.platform(clientA)); removed || revoked {
		t.Fatalf("second unlink = removed %t, revoked %t", removed, revoked)
	}

	// The provider down: the connection goes all the same.
	e.fake.SetDown(true)
	if removed, revoked := unlink(e.bizB, e.tokens.Business(t, clientB, e.bizB)); !removed || revoked {
		t.Fatalf("unlink with the provider down = removed %t, revoked %t", removed, revoked)
	}
	if n := e.count("acctsync_connections", ""); n != 0 {
		t.Fatalf("%d connections left", n)
	}

	// Connecting again works as the first time.
	e.fake.SetDown(false)
	e.connect(e.bizA, clientA)
	if cs := e.connectionStatus(e.bizA); !cs.IsConnected {
		t.Fatalf("status after reconnecting = %+v", cs)
	}
}

func TestListLedgerAccounts(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.fake.SetAccounts(realm, chart()...)
	e.connect(e.bizA, clientA)
	type listAnswer struct {
		Data []accountJSON `json:"data"`
		Meta struct {
			Type       string `json:"type"`
			Pagination struct {
				SortBy     string  `json:"sort_by"`
				SortOrder  string  `json:"sort_order"`
				Cursor     *string `json:"cursor"`
				HasMore    bool    `json:"has_more"`
				TotalCount *int    `json:"total_count"`
			} `json:"pagination"`
		} `json:"meta"`
	}
	list := func(bid uuid.UUID, query string) listAnswer {
		t.Helper()
		resp, body := e.do(http.MethodGet, e.acctsyncPath(bid, "ledger/accounts")+query, e.platform(clientA))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("list%s = %d %s", query, resp.StatusCode, body)
		}
		var out listAnswer
		decode(t, body, &out)
		return out
	}

	// Walk every page: the top-level accounts by name, ties by id.
	var names, exts []string
	query := "?limit=2&show_total_count=true"
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("too many pages")
		}
		got := list(e.bizA, query)
		if got.Meta.Type != "request_metadata" || got.Meta.Pagination.SortBy != "name" || got.Meta.Pagination.TotalCount == nil ||
			*got.Meta.Pagination.TotalCount != 5 {
			t.Fatalf("meta = %+v", got.Meta)
		}
		for _, a := range got.Data {
			names, exts = append(names, a.Name), append(exts, a.ExternalID)
			if a.ExternalID == "35" {
				// The same shape as GET .../ledger/accounts/{id}.
				one := e.readAccount(e.bizA, e.accountID(e.bizA, "35"))
				if a.ID != one.ID || len(a.Kids) != 1 || a.Kids[0].ExternalID != "36" || len(a.Kids[0].Kids) != 1 ||
					a.Balance != one.Balance || string(a.Local) != string(one.Local) {
					t.Fatalf("listed checking = %+v, fetched %+v", a, one)
				}
			}
		}
		if !got.Meta.Pagination.HasMore {
			break
		}
		query = "?limit=2&show_total_count=true&cursor=" + *got.Meta.Pagination.Cursor
	}
	if want := []string{"Business Checking", "Goodwill", "Sales", "Sales", "Visa"}; !slices.Equal(names, want) {
		t.Fatalf("names = %v, want %v", names, want)
	}
	if slices.Contains(exts, "36") || slices.Contains(exts, "37") {
		t.Fatalf("sub-accounts listed at the top: %v", exts)
	}

	if got := list(e.bizA, "?sort_by=external_id&sort_order=DESC&limit=1"); len(got.Data) != 1 || got.Data[0].ExternalID != "90" {
		t.Fatalf("by external_id DESC = %+v", got.Data)
	}
	// Another business sees none of them.
	resp, body := e.do(http.MethodGet, e.acctsyncPath(e.bizB, "ledger/accounts"), e.platform(clientB))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"data":[]`) {
		t.Fatalf("B's list = %d %s", resp.StatusCode, body)
	}
	// A cursor only works where it was issued.
	first := list(e.bizA, "?limit=1")
	resp, body = e.do(http.MethodGet, e.acctsyncPath(e.bizA, "ledger/accounts")+"?limit=1&sort_by=external_id&cursor="+*first.Meta.Pagination.Cursor, e.platform(clientA))
	e.expectError(resp, body, http.StatusBadRequest, "InvalidParameters")
	resp, body = e.do(http.MethodGet, e.acctsyncPath(e.bizA, "ledger/accounts")+"?cursor=forged", e.platform(clientA))
	e.expectError(resp, body, http.StatusBadRequest, "InvalidParameters")
	// Parameters the document itself rules out, sent past its validator.
	for _, q := range []string{"?limit=0", "?limit=1001", "?sort_by=balance", "?sort_order=UP"} {
		req, err := http.NewRequest(http.MethodGet, e.url+e.acctsyncPath(e.bizA, "ledger/accounts")+q, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+e.platform(clientA))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		e.expectError(resp, body, http.StatusBadRequest, "InvalidParameters")
	}
}

func TestSyncRoutesRequestRules(t *testing.T) {
	e := newEnv(t, envOptions{})
	routes := []struct{ method, rest string }{
		{http.MethodGet, "connection-status"},
		{http.MethodPost, "sync-from"},
		{http.MethodGet, "sync-from/status"},
		{http.MethodPost, "unlink"},
		{http.MethodGet, "ledger/accounts"},
	}
	for _, r := range routes {
		t.Run(r.method+" "+r.rest, func(t *testing.T) {
			resp, body := e.do(r.method, e.acctsyncPath(e.bizA, r.rest), e.platform(clientB))
			e.expectError(resp, body, http.StatusNotFound, "BusinessNotFound")
			resp, body = e.do(r.method, e.acctsyncPath(e.bizA, r.rest), "")
			e.expectError(resp, body, http.StatusUnauthorized, "MissingToken")
			resp, body = e.do(r.method, "/v1/businesses/nope/acctsync/"+r.rest, e.platform(clientA))
			e.expectError(resp, body, http.StatusBadRequest, "InvalidParameters")
		})
	}
	// Never connected: sync-from is refused, the rest answers.
	resp, body := e.do(http.MethodPost, e.acctsyncPath(e.bizA, "sync-from"), e.platform(clientA))
	e.expectError(resp, body, http.StatusNotFound, acctsync.EnumNotConnected)
	if n := e.count("acctsync_syncs", ""); n != 0 {
		t.Fatalf("%d sync rows written for an unconnected business", n)
	}
	// A business token works on its own business.
	resp, body = e.do(http.MethodGet, e.acctsyncPath(e.bizB, "connection-status"), e.tokens.Business(t, clientB, e.bizB))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("business token = %d %s", resp.StatusCode, body)
	}
}

func TestSyncRoutesWithoutProvider(t *testing.T) {
	e := newEnv(t, envOptions{noProvider: true})
	resp, body := e.do(http.MethodPost, e.acctsyncPath(e.bizA, "sync-from"), e.platform(clientA))
	e.expectError(resp, body, http.StatusServiceUnavailable, "")
	if cs := e.connectionStatus(e.bizA); cs.IsConnected {
		t.Fatalf("status = %+v", cs)
	}
	if st := e.syncStatus(e.bizA); st.IsSyncing || st.State != "IDLE" {
		t.Fatalf("sync status = %+v", st)
	}
	resp, body = e.do(http.MethodPost, e.acctsyncPath(e.bizA, "unlink"), e.platform(clientA))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("unlink = %d %s", resp.StatusCode, body)
	}
}
