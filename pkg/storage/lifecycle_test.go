package storage_test

import (
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/acctsuite/acct/pkg/storage"
)

type lcRule struct {
	ID     string `xml:"ID"`
	Status string `xml:"Status"`
	Filter struct {
		Prefix string `xml:"Prefix"`
	} `xml:"Filter"`
	Expiration struct {
		Days int `xml:"Days"`
	} `xml:"Expiration"`
}

type lcConfig struct {
	XMLName xml.Name `xml:"LifecycleConfiguration"`
	Rules   []lcRule `xml:"Rule"`
}

// fakeLifecycle is the lifecycle part of an S3 bucket: GET and PUT of
// ?lifecycle, counting the PUTs; onPut may rewrite what a PUT stored (a
// concurrent writer), denied refuses everything.
type fakeLifecycle struct {
	mu     sync.Mutex
	cfg    *lcConfig
	puts   int
	onPut  func(n int, c *lcConfig)
	denied bool
}

func (f *fakeLifecycle) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := r.URL.Query()["lifecycle"]; !ok || !strings.HasPrefix(r.URL.Path, "/bucket") {
		http.Error(w, "unexpected request "+r.Method+" "+r.URL.String(), http.StatusBadRequest)
		return
	}
	if f.denied {
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
		return
	}
	switch r.Method {
	case http.MethodGet:
		if f.cfg == nil {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `<Error><Code>NoSuchLifecycleConfiguration</Code><Message>none</Message></Error>`)
			return
		}
		_ = xml.NewEncoder(w).Encode(f.cfg)
	case http.MethodPut:
		var c lcConfig
		if err := xml.NewDecoder(r.Body).Decode(&c); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.puts++
		if f.onPut != nil {
			f.onPut(f.puts, &c)
		}
		f.cfg = &c
	default:
		http.Error(w, "unexpected method", http.StatusMethodNotAllowed)
	}
}

func (f *fakeLifecycle) rules() map[string]lcRule {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]lcRule{}
	if f.cfg != nil {
		for _, r := range f.cfg.Rules {
			out[r.ID] = r
		}
	}
	return out
}

func lifecycleStore(t *testing.T, f *fakeLifecycle) *storage.S3Store {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	s, err := storage.NewS3(context.Background(), storage.S3Options{Bucket: "bucket", Endpoint: srv.URL, ForcePathStyle: true,
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider("id", "secret", ""))})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestEnsureExpiry: the rule is added to a bucket's lifecycle rules,
// keeping the others; written only when it changes; put back when a
// concurrent writer dropped it; and a refusal is an error.
func TestEnsureExpiry(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, f *fakeLifecycle, days int) {
		t.Helper()
		r, ok := f.rules()["acct-exports-reports"]
		if !ok || r.Status != "Enabled" || r.Filter.Prefix != "exports/reports/" || r.Expiration.Days != days {
			t.Fatalf("rule = %+v (present %v), want Enabled on exports/reports/ after %d days", r, ok, days)
		}
	}

	t.Run("added beside the bucket's other rules, once", func(t *testing.T) {
		f := &fakeLifecycle{cfg: &lcConfig{Rules: []lcRule{{ID: "keep-me", Status: "Enabled"}}}}
		f.cfg.Rules[0].Filter.Prefix, f.cfg.Rules[0].Expiration.Days = "logs/", 30
		s := lifecycleStore(t, f)
		if err := s.EnsureExpiry(ctx, "acct-exports-reports", "exports/reports/", 1); err != nil {
			t.Fatal(err)
		}
		check(t, f, 1)
		if other := f.rules()["keep-me"]; other.Filter.Prefix != "logs/" || other.Expiration.Days != 30 {
			t.Fatalf("the bucket's own rule became %+v", other)
		}
		if err := s.EnsureExpiry(ctx, "acct-exports-reports", "exports/reports/", 1); err != nil {
			t.Fatal(err)
		}
		if f.puts != 1 {
			t.Fatalf("%d writes, want 1 (nothing changed the second time)", f.puts)
		}
		// A new TTL replaces the rule.
		if err := s.EnsureExpiry(ctx, "acct-exports-reports", "exports/reports/", 3); err != nil {
			t.Fatal(err)
		}
		check(t, f, 3)
		if n := len(f.rules()); n != 2 || f.puts != 2 {
			t.Fatalf("%d rules after %d writes, want 2 after 2", n, f.puts)
		}
	})

	t.Run("a bucket without rules", func(t *testing.T) {
		f := &fakeLifecycle{}
		if err := lifecycleStore(t, f).EnsureExpiry(ctx, "acct-exports-reports", "exports/reports/", 2); err != nil {
			t.Fatal(err)
		}
		check(t, f, 2)
	})

	t.Run("put back after a concurrent writer dropped it", func(t *testing.T) {
		f := &fakeLifecycle{onPut: func(n int, c *lcConfig) {
			if n == 1 { // another service's read-merge-write, from before ours
				c.Rules = []lcRule{{ID: "acct-exports-transactions", Status: "Enabled"}}
			}
		}}
		if err := lifecycleStore(t, f).EnsureExpiry(ctx, "acct-exports-reports", "exports/reports/", 1); err != nil {
			t.Fatal(err)
		}
		check(t, f, 1)
		if _, ok := f.rules()["acct-exports-transactions"]; !ok || f.puts != 2 {
			t.Fatalf("rules %v after %d writes, want both after 2", f.rules(), f.puts)
		}
	})

	t.Run("refused", func(t *testing.T) {
		f := &fakeLifecycle{denied: true}
		err := lifecycleStore(t, f).EnsureExpiry(ctx, "acct-exports-reports", "exports/reports/", 1)
		if err == nil || !strings.Contains(err.Error(), "AccessDenied") {
			t.Fatalf("err = %v, want AccessDenied", err)
		}
	})
}
