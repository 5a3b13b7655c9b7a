package tenancy

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/authn"
)

func TestAuthorize(t *testing.T) {
	owned, foreign, missing, broken := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	owners := OwnerLookupFunc(func(_ context.Context, id uuid.UUID) (string, bool, error) {
		switch id {
		case owned:
			return "client-a", true, nil
		case foreign:
			return "client-b", true, nil
		case broken:
			return "", false, errors.New("database down")
		}
		return "", false, nil
	})
	platform := authn.Identity{ClientID: "client-a", Scope: authn.ScopePlatform}
	business := authn.Identity{ClientID: "client-a", Scope: authn.ScopeBusiness, BusinessID: owned}
	tests := []struct {
		name     string
		id       authn.Identity
		bid      uuid.UUID
		notFound bool
		fails    bool
	}{
		{"platform owns it", platform, owned, false, false},
		{"platform of another client", platform, foreign, true, true},
		{"unknown business", platform, missing, true, true},
		{"lookup fails", platform, broken, false, true},
		{"business token, own business", business, owned, false, false},
		{"business token, another business", business, foreign, true, true},
		// Regression (tenancy matrix): a validly signed business token for a
		// business that does not exist (deleted, or never created) reached
		// its "own" business and wrote to it.
		{"business token, unknown business", authn.Identity{ClientID: "client-a", Scope: authn.ScopeBusiness, BusinessID: missing}, missing, true, true},
		{"business token, business of another client", authn.Identity{ClientID: "client-a", Scope: authn.ScopeBusiness, BusinessID: foreign}, foreign, true, true},
		{"business token, lookup fails", authn.Identity{ClientID: "client-a", Scope: authn.ScopeBusiness, BusinessID: broken}, broken, false, true},
		{"no scope", authn.Identity{ClientID: "client-a"}, owned, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Authorize(context.Background(), tt.id, tt.bid, owners)
			if (err != nil) != tt.fails {
				t.Fatalf("Authorize = %v, want failure %v", err, tt.fails)
			}
			if got := apperr.Is(err, apperr.NotFound); got != tt.notFound {
				t.Fatalf("404 = %v, want %v (%v)", got, tt.notFound, err)
			}
		})
	}
}
