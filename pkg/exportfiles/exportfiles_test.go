package exportfiles_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/exportfiles"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/pkg/storage/storagetest"
)

func TestPolicyFromEnvironment(t *testing.T) {
	type cfg struct{ Exports exportfiles.Policy }
	c, err := config.ReadFrom[cfg](map[string]string{})
	if err != nil || c.Exports.TTL != 24*time.Hour || c.Exports.ReuseWindow != 5*time.Minute {
		t.Fatalf("defaults = %+v, %v; want 24h and 5m", c.Exports, err)
	}
	cases := []struct {
		env     map[string]string
		wantErr string
	}{
		{map[string]string{"EXPORT_TTL": "0", "EXPORT_REUSE_WINDOW": "0"}, ""},
		{map[string]string{"EXPORT_TTL": "0", "EXPORT_REUSE_WINDOW": "48h"}, ""}, // kept forever: any window
		{map[string]string{"EXPORT_TTL": "1h", "EXPORT_REUSE_WINDOW": "10m"}, ""},
		{map[string]string{"EXPORT_TTL": "-1s"}, "EXPORT_TTL"},
		{map[string]string{"EXPORT_REUSE_WINDOW": "-5m"}, "EXPORT_REUSE_WINDOW"},
		{map[string]string{"EXPORT_TTL": "1m"}, "at least 5m"},
		{map[string]string{"EXPORT_TTL": "10m", "EXPORT_REUSE_WINDOW": "10m"}, "shorter than EXPORT_TTL"},
		{map[string]string{"EXPORT_TTL": "a day"}, "EXPORT_TTL"},
	}
	for _, tc := range cases {
		_, err := config.ReadFrom[cfg](tc.env)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%v: %v, want error containing %q", tc.env, err, tc.wantErr)
		}
	}
}

type fixture struct {
	dir   string
	store *storagetest.CountingPuts
	now   atomic.Int64 // offset from the real time, ns
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	key := make([]byte, storage.MinSigningKeyLength)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fs, err := storage.NewFS(storage.FSOptions{Dir: dir, PublicBaseURL: "http://127.0.0.1:1", SigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{dir: dir, store: &storagetest.CountingPuts{Store: fs}}
}

// clock is the files' clock: the real time moved by advance.
func (f *fixture) clock() time.Time { return time.Now().Add(time.Duration(f.now.Load())) }

func (f *fixture) advance(d time.Duration) { f.now.Add(int64(d)) }

func (f *fixture) files(p exportfiles.Policy, legacy ...exportfiles.Legacy) *exportfiles.Files {
	return exportfiles.New(f.store, exportfiles.Options{Service: "svc", Policy: p, Legacy: legacy, Now: f.clock})
}

// age sets the modification time of the object under key to d ago.
func (f *fixture) age(t *testing.T, key string, d time.Duration) {
	t.Helper()
	at := time.Now().Add(-d)
	if err := os.Chtimes(filepath.Join(f.dir, "objects", filepath.FromSlash(key)), at, at); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) put(t *testing.T, key string) {
	t.Helper()
	if err := f.store.Store.Put(context.Background(), key, strings.NewReader("x"), 1, "text/csv"); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) exists(t *testing.T, key string) bool {
	t.Helper()
	_, err := f.store.Stat(context.Background(), key)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// urlExpiry is the expiry, from now, a pre-signed URL of the filesystem
// backend carries.
func urlExpiry(t *testing.T, raw string) time.Duration {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	sec, err := strconv.ParseInt(u.Query().Get("expires"), 10, 64)
	if err != nil {
		t.Fatalf("URL %s: expires: %v", raw, err)
	}
	return time.Until(time.Unix(sec, 0))
}

func TestServeReusesWithinTheWindow(t *testing.T) {
	f := newFixture(t)
	files := f.files(exportfiles.Policy{TTL: 24 * time.Hour, ReuseWindow: 5 * time.Minute})
	bid := uuid.New()
	req := exportfiles.Request{BusinessID: bid, Kind: "ledger-entries", Ext: "csv", Query: map[string]string{"from": "2026-01-01"},
		Version: 7, FileName: "x.csv", ContentType: "text/csv"}
	ctx := context.Background()
	serve := func(r exportfiles.Request) exportfiles.File {
		t.Helper()
		out, err := files.Serve(ctx, r, func(ctx context.Context, key string) error {
			return f.store.Put(ctx, key, strings.NewReader("a,b\n"), 4, "text/csv")
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	first := serve(req)
	if first.Reused || f.store.Puts() != 1 || !strings.HasPrefix(first.Key, "exports/svc/"+bid.String()+"/ledger-entries/") ||
		!strings.HasSuffix(first.Key, ".csv") || first.ID == uuid.Nil {
		t.Fatalf("first = %+v after %d puts", first, f.store.Puts())
	}
	f.advance(4 * time.Minute)
	second := serve(req)
	if !second.Reused || second.Key != first.Key || second.ID != first.ID || f.store.Puts() != 1 {
		t.Fatalf("second = %+v after %d puts; want the first file reused", second, f.store.Puts())
	}
	if second.Created.Sub(first.Created).Abs() > 2*time.Second || second.URL == "" {
		t.Fatalf("second = %+v, want the first file's creation time and a URL", second)
	}
	// Another data version or query: another file.
	other := req
	other.Version = 8
	if o := serve(other); o.Reused || o.Key == first.Key || f.store.Puts() != 2 {
		t.Fatalf("another version = %+v after %d puts", o, f.store.Puts())
	}
	other = req
	other.Query = map[string]string{"from": "2026-01-02"}
	if o := serve(other); o.Reused || o.Key == first.Key || f.store.Puts() != 3 {
		t.Fatalf("another query = %+v after %d puts", o, f.store.Puts())
	}
	// Past the window: made again, same key.
	f.advance(2 * time.Minute)
	if again := serve(req); again.Reused || again.Key != first.Key || f.store.Puts() != 4 {
		t.Fatalf("past the window = %+v after %d puts", again, f.store.Puts())
	}

	// A window of 0 never reuses.
	never := f.files(exportfiles.Policy{TTL: 24 * time.Hour})
	for range 2 {
		if _, err := never.Serve(ctx, req, func(ctx context.Context, key string) error {
			return f.store.Put(ctx, key, strings.NewReader("a"), 1, "text/csv")
		}); err != nil {
			t.Fatal(err)
		}
	}
	if f.store.Puts() != 6 {
		t.Fatalf("%d puts, want 6", f.store.Puts())
	}
	// A failed put is the answer.
	boom := errors.New("boom")
	other.Version = 9
	if _, err := files.Serve(ctx, other, func(context.Context, string) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("failed put: %v", err)
	}
}

func TestURLsNeverOutliveTheFile(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	req := exportfiles.Request{BusinessID: uuid.New(), Kind: "k", Ext: "csv", Version: 1, ContentType: "text/csv"}
	put := func(ctx context.Context, key string) error {
		return f.store.Put(ctx, key, strings.NewReader("a"), 1, "text/csv")
	}
	// A long TTL: the full hour.
	long := f.files(exportfiles.Policy{TTL: 24 * time.Hour, ReuseWindow: 5 * time.Minute})
	out, err := long.Serve(ctx, req, put)
	if err != nil {
		t.Fatal(err)
	}
	if d := urlExpiry(t, out.URL); d < 59*time.Minute || d > time.Hour+2*time.Second {
		t.Fatalf("URL expiry %s with a 24h TTL, want an hour", d)
	}
	// A 30-minute TTL: a new file's URL ends a margin before the TTL.
	short := f.files(exportfiles.Policy{TTL: 30 * time.Minute, ReuseWindow: 20 * time.Minute})
	req.Version = 2
	if out, err = short.Serve(ctx, req, put); err != nil {
		t.Fatal(err)
	}
	if d := urlExpiry(t, out.URL); d > 29*time.Minute+2*time.Second || d < 28*time.Minute {
		t.Fatalf("URL expiry %s with a 30m TTL, want 29m", d)
	}
	// Reused 15 minutes later: what is left of the TTL, less the margin.
	f.advance(15 * time.Minute)
	if out, err = short.Serve(ctx, req, put); err != nil || !out.Reused {
		t.Fatalf("reuse: %+v, %v", out, err)
	}
	if d := urlExpiry(t, out.URL) + 15*time.Minute; d > 29*time.Minute+2*time.Second || d < 28*time.Minute {
		t.Fatalf("reused URL expiry %s from the file's creation, want 29m", d)
	}
	// 25 minutes in, within the window but with too little life left: made again.
	f.advance(10 * time.Minute)
	if out, err = short.Serve(ctx, req, put); err != nil || out.Reused {
		t.Fatalf("near expiry: %+v, %v; want a new file", out, err)
	}
	// Kept forever: the full hour.
	forever := f.files(exportfiles.Policy{ReuseWindow: 5 * time.Minute})
	req.Version = 3
	if out, err = forever.Serve(ctx, req, put); err != nil {
		t.Fatal(err)
	}
	if d := urlExpiry(t, out.URL); d < 59*time.Minute {
		t.Fatalf("URL expiry %s without a TTL, want an hour", d)
	}
}

// TestSweep: the service's export files and the legacy ones older than the
// TTL go; newer ones, other services' files, receipts of any age and
// legacy-prefix keys Match refuses stay.
func TestSweep(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	bid := uuid.New().String()
	ledger := func(key string) bool { return strings.Contains(key, "/ledger-") }
	files := f.files(exportfiles.Policy{TTL: 24 * time.Hour, ReuseWindow: 5 * time.Minute},
		exportfiles.Legacy{Prefix: "svc-old/", Match: ledger})
	old, young := 25*time.Hour, 23*time.Hour
	keys := map[string]struct {
		age  time.Duration
		gone bool
	}{
		"exports/svc/" + bid + "/k/old.csv":        {old, true},
		"exports/svc/" + bid + "/k/young.csv":      {young, false},
		"exports/other/" + bid + "/k/old.csv":      {old, false},
		"svc-old/" + bid + "/ledger-entries/1.csv": {old, true},
		"svc-old/" + bid + "/ledger-entries/2.csv": {young, false},
		"svc-old/" + bid + "/notes/1.csv":          {old, false},
		bid + "/receipts/t/r1":                     {old, false},
	}
	for k, v := range keys {
		f.put(t, k)
		f.age(t, k, v.age)
	}
	if n, err := f.files(exportfiles.Policy{TTL: 0}).Sweep(ctx); err != nil || n != 0 {
		t.Fatalf("sweep with TTL 0: %d, %v", n, err)
	}
	n, err := files.Sweep(ctx)
	if err != nil || n != 2 {
		t.Fatalf("Sweep = %d, %v; want 2", n, err)
	}
	for k, v := range keys {
		if f.exists(t, k) == v.gone {
			t.Errorf("%s (age %s): exists %v, want gone %v", k, v.age, !v.gone, v.gone)
		}
	}
}

func TestFingerprint(t *testing.T) {
	a, _ := exportfiles.Fingerprint("k", map[string]any{"b": 1, "a": []string{"x", "y"}}, 3)
	b, _ := exportfiles.Fingerprint("k", map[string]any{"a": []string{"x", "y"}, "b": 1}, 3)
	c, _ := exportfiles.Fingerprint("k", map[string]any{"a": []string{"y", "x"}, "b": 1}, 3)
	d, _ := exportfiles.Fingerprint("k", map[string]any{"a": []string{"x", "y"}, "b": 1}, 4)
	if a != b || a == c || a == d || len(a) != 64 {
		t.Fatalf("fingerprints %s %s %s %s", a, b, c, d)
	}
	if _, err := exportfiles.Fingerprint(func() {}); err == nil {
		t.Fatalf("a function has a fingerprint")
	}
}

// rulingStore is a store that expires objects by itself (as S3 with
// lifecycle rules), recording the rules asked for.
type rulingStore struct {
	storage.Store
	rules map[string]string // id -> "prefix after N days"
}

func (s *rulingStore) EnsureExpiry(_ context.Context, id, prefix string, days int32) error {
	s.rules[id] = fmt.Sprintf("%s after %d days", prefix, days)
	return nil
}

// TestLifecycleRule: with EXPORT_LIFECYCLE_RULE a store that can expire
// objects (S3) gets a rule on the service's export prefix after the TTL
// in whole days, rounded up (never before the TTL and its URLs end); the
// filesystem backend and a TTL of 0 are refused, saying why.
func TestLifecycleRule(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		ttl  time.Duration
		want string
	}{
		{24 * time.Hour, "exports/svc/ after 1 days"},
		{25 * time.Hour, "exports/svc/ after 2 days"},
		{30 * time.Minute, "exports/svc/ after 1 days"},
		{7 * 24 * time.Hour, "exports/svc/ after 7 days"},
	} {
		store := &rulingStore{Store: newFixture(t).store, rules: map[string]string{}}
		files := exportfiles.New(store, exportfiles.Options{Service: "svc", Policy: exportfiles.Policy{TTL: tc.ttl, LifecycleRule: true}})
		if _, err := files.EnsureLifecycleRule(ctx); err != nil {
			t.Fatalf("TTL %s: %v", tc.ttl, err)
		}
		if got := store.rules["acct-exports-svc"]; got != tc.want || len(store.rules) != 1 {
			t.Errorf("TTL %s: rules %v, want acct-exports-svc: %s", tc.ttl, store.rules, tc.want)
		}
	}
	fx := newFixture(t)
	if _, err := fx.files(exportfiles.Policy{TTL: time.Hour, LifecycleRule: true}).EnsureLifecycleRule(ctx); err == nil ||
		!strings.Contains(err.Error(), "STORAGE_BACKEND=s3") {
		t.Errorf("filesystem backend: %v, want a refusal naming S3", err)
	}
	store := &rulingStore{Store: fx.store, rules: map[string]string{}}
	files := exportfiles.New(store, exportfiles.Options{Service: "svc", Policy: exportfiles.Policy{TTL: 0, LifecycleRule: true}})
	if _, err := files.EnsureLifecycleRule(ctx); err == nil || len(store.rules) != 0 {
		t.Errorf("TTL 0: %v, rules %v; want a refusal and no rule", err, store.rules)
	}
}
