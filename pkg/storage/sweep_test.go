package storage_test

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/storage"
)

// clockStore is a Store of object keys and modification times only (what
// a sweep looks at), recording its deletes.
type clockStore struct {
	storage.Store
	modified  map[string]time.Time
	deleted   []string
	failOn    string            // Delete of this key fails
	onListed  func(*clockStore) // runs after the listing, before any delete
	listError error
}

func (s *clockStore) List(_ context.Context, prefix string, fn func(storage.Object) error) error {
	if s.listError != nil {
		return s.listError
	}
	keys := make([]string, 0, len(s.modified))
	for k := range s.modified {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := fn(storage.Object{Key: k, Modified: s.modified[k]}); err != nil {
			return err
		}
	}
	if s.onListed != nil {
		s.onListed(s)
	}
	return nil
}

func (s *clockStore) Stat(_ context.Context, key string) (storage.Object, error) {
	m, ok := s.modified[key]
	if !ok {
		return storage.Object{}, storage.ErrNotFound
	}
	return storage.Object{Key: key, Modified: m}, nil
}

func (s *clockStore) Delete(_ context.Context, key string) error {
	if key == s.failOn {
		return errors.New("disk on fire")
	}
	delete(s.modified, key)
	s.deleted = append(s.deleted, key)
	return nil
}

// TestSweepExpired: strictly older than the cut-off, under the prefix and
// accepted by Match; bounded by Limit; an object rewritten or gone since
// the listing is left alone; errors stop the run with what it deleted.
func TestSweepExpired(t *testing.T) {
	ctx := context.Background()
	cut := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	newStore := func() *clockStore {
		return &clockStore{modified: map[string]time.Time{
			"exports/a/old1.csv":     cut.Add(-48 * time.Hour),
			"exports/a/old2.csv":     cut.Add(-time.Second),
			"exports/a/edge.csv":     cut, // not older than the cut-off
			"exports/a/new.csv":      cut.Add(time.Minute),
			"exports/b/keep/old.csv": cut.Add(-72 * time.Hour),
			"receipts/old.pdf":       cut.Add(-72 * time.Hour),
		}}
	}
	notKept := storage.SweepOptions{Match: func(k string) bool { return !strings.Contains(k, "/keep/") }}

	t.Run("older, under the prefix, matched", func(t *testing.T) {
		s := newStore()
		n, err := storage.SweepExpired(ctx, s, "exports/", cut, notKept)
		if err != nil || n != 2 || !slices.Equal(s.deleted, []string{"exports/a/old1.csv", "exports/a/old2.csv"}) {
			t.Fatalf("SweepExpired = %d, %v; deleted %q", n, err, s.deleted)
		}
	})
	t.Run("without Match", func(t *testing.T) {
		s := newStore()
		if n, err := storage.SweepExpired(ctx, s, "exports/", cut, storage.SweepOptions{}); err != nil || n != 3 {
			t.Fatalf("SweepExpired = %d, %v; deleted %q", n, err, s.deleted)
		}
		if _, ok := s.modified["receipts/old.pdf"]; !ok {
			t.Fatalf("an object outside the prefix was deleted")
		}
	})
	t.Run("bounded per run", func(t *testing.T) {
		s := newStore()
		opts := storage.SweepOptions{Limit: 2}
		if n, err := storage.SweepExpired(ctx, s, "exports/", cut, opts); err != nil || n != 2 {
			t.Fatalf("first run = %d, %v", n, err)
		}
		if n, err := storage.SweepExpired(ctx, s, "exports/", cut, opts); err != nil || n != 1 {
			t.Fatalf("second run = %d, %v", n, err)
		}
		if n, err := storage.SweepExpired(ctx, s, "exports/", cut, opts); err != nil || n != 0 {
			t.Fatalf("third run = %d, %v", n, err)
		}
	})
	t.Run("rewritten or gone since the listing", func(t *testing.T) {
		s := newStore()
		s.onListed = func(s *clockStore) {
			s.modified["exports/a/old1.csv"] = cut.Add(time.Hour) // a fresh export under the same key
			delete(s.modified, "exports/a/old2.csv")              // another sweeper was quicker
		}
		n, err := storage.SweepExpired(ctx, s, "exports/", cut, notKept)
		if err != nil || n != 0 || len(s.deleted) != 0 {
			t.Fatalf("SweepExpired = %d, %v; deleted %q", n, err, s.deleted)
		}
	})
	t.Run("delete error", func(t *testing.T) {
		s := newStore()
		s.failOn = "exports/a/old2.csv"
		n, err := storage.SweepExpired(ctx, s, "exports/", cut, notKept)
		if err == nil || n != 1 {
			t.Fatalf("SweepExpired = %d, %v; want 1 deleted and the error", n, err)
		}
	})
	t.Run("list error", func(t *testing.T) {
		s := newStore()
		s.listError = errors.New("bucket gone")
		if n, err := storage.SweepExpired(ctx, s, "exports/", cut, notKept); err == nil || n != 0 {
			t.Fatalf("SweepExpired = %d, %v", n, err)
		}
	})
	t.Run("a prefix is required", func(t *testing.T) {
		s := newStore()
		if _, err := storage.SweepExpired(ctx, s, "", cut.Add(time.Hour), storage.SweepOptions{}); err == nil || len(s.deleted) != 0 {
			t.Fatalf("SweepExpired without a prefix = %v; deleted %q", err, s.deleted)
		}
	})
}
