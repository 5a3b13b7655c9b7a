package apidocs

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func docServer(t *testing.T, title, path string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/openapi.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"openapi":"3.0.3","info":{"title":"` + title + `","version":"1"},"paths":{"` + path + `":{"get":{"responses":{"200":{"description":"ok"}}}}}}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestMergesUpstreamsAndKeepsLastGoodCopy(t *testing.T) {
	a := docServer(t, "auth-tokens", "/whoami")
	b := docServer(t, "transactions", "/v1/bank-transactions")
	agg := New(map[string]string{"auth-tokens": a.URL, "transactions": b.URL + "/"}, time.Minute, slog.New(slog.DiscardHandler))

	if got := string(agg.Document()); !strings.Contains(got, `"paths":{}`) {
		t.Fatalf("before any fetch: %s", got)
	}
	if err := agg.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		before  func()
		wantErr bool
	}{
		{"both up", func() {}, false},
		{"one down keeps its last copy", b.Close, true},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.before()
			err := agg.Refresh(t.Context())
			if (err != nil) != s.wantErr {
				t.Fatalf("Refresh() = %v, wantErr %v", err, s.wantErr)
			}
			doc := string(agg.Document())
			var parsed struct {
				Info struct{ Title string } `json:"info"`
			}
			if err := json.Unmarshal(agg.Document(), &parsed); err != nil || parsed.Info.Title != Title {
				t.Fatalf("merged title = %q (%v), want %q", parsed.Info.Title, err, Title)
			}
			for _, p := range []string{`"/whoami"`, `"/v1/bank-transactions"`} {
				if !strings.Contains(doc, p) {
					t.Fatalf("merged document lacks %s: %s", p, doc)
				}
			}
		})
	}
}

func TestNothingReachableServesEmptyDocument(t *testing.T) {
	agg := New(map[string]string{"x": "http://127.0.0.1:1"}, time.Minute, slog.New(slog.DiscardHandler))
	if err := agg.Refresh(t.Context()); err == nil {
		t.Fatal("Refresh succeeded with no upstream")
	}
	if !strings.Contains(string(agg.Document()), `"openapi":"3.0.3"`) || !strings.Contains(string(agg.Document()), Title) {
		t.Fatalf("document = %s", agg.Document())
	}
}
