package owners

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

func TestOwnerOf(t *testing.T) {
	owned, missing, broken := uuid.New(), uuid.New(), uuid.New()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("Authorization") != "Bearer caller-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/internal/v1/businesses/" + owned.String() + "/owner":
			_, _ = w.Write([]byte(`{"client_id":"client-a"}`))
		case "/internal/v1/businesses/" + broken.String() + "/owner":
			w.WriteHeader(http.StatusInternalServerError)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	d := New(srv.URL+"/", Options{NegativeTTL: 50 * time.Millisecond})
	ctx := WithCallerToken(context.Background(), "caller-token")

	tests := []struct {
		name      string
		id        uuid.UUID
		wantOwner string
		wantFound bool
		wantErr   apperr.Type
		wantHits  int32 // cumulative
	}{
		{"owned", owned, "client-a", true, "", 1},
		{"owned again is cached", owned, "client-a", true, "", 1},
		{"missing", missing, "", false, "", 2},
		{"missing again is cached", missing, "", false, "", 2},
		{"upstream error", broken, "", false, apperr.Unavailable, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			owner, found, err := d.OwnerOf(ctx, tt.id)
			if tt.wantErr != "" {
				if !apperr.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %s", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if owner != tt.wantOwner || found != tt.wantFound {
				t.Fatalf("OwnerOf = %q, %v; want %q, %v", owner, found, tt.wantOwner, tt.wantFound)
			}
			if h := hits.Load(); h != tt.wantHits {
				t.Fatalf("upstream hits = %d, want %d", h, tt.wantHits)
			}
		})
	}

	// Negative answers expire: the business may have been created since.
	time.Sleep(80 * time.Millisecond)
	if _, _, err := d.OwnerOf(ctx, missing); err != nil {
		t.Fatal(err)
	}
	if h := hits.Load(); h != 4 {
		t.Fatalf("negative cache did not expire: hits = %d", h)
	}

	// Positive answers survive the upstream going away.
	srv.Close()
	if owner, found, err := d.OwnerOf(ctx, owned); err != nil || !found || owner != "client-a" {
		t.Fatalf("cached owner after upstream down = %q, %v, %v", owner, found, err)
	}
	_, _, err := d.OwnerOf(ctx, uuid.New())
	if !apperr.Is(err, apperr.Unavailable) || !strings.Contains(apperr.From(err).Body().Description, "auth-tokens is unavailable") {
		t.Fatalf("down upstream err = %v", err)
	}
}
