// Package owners answers "which platform client owns this business?" for the
// gateway's tenancy checks, by asking auth-tokens' internal endpoint
// (GET /internal/v1/businesses/{id}/owner) and caching the answers: positive
// ones in a bounded LRU for good (a business never changes owner), negative
// ones briefly (the business may be created a moment later).
package owners

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/hashicorp/golang-lru/v2/expirable"
	"golang.org/x/sync/singleflight"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Options tunes a Directory; zero values take the defaults.
type Options struct {
	Service     string        // upstream name used in error messages; default "auth-tokens"
	Size        int           // positive cache entries; default 100000
	NegativeTTL time.Duration // how long "no such business" is remembered; default 5s
	Timeout     time.Duration // one lookup; default 5s
	Client      *http.Client  // default: an http.Client with Timeout
}

// Directory implements tenancy.OwnerLookup over HTTP with caches.
type Directory struct {
	base     string
	service  string
	client   *http.Client
	owners   *lru.Cache[uuid.UUID, string]
	missing  *expirable.LRU[uuid.UUID, struct{}]
	inflight singleflight.Group
}

// New makes a directory asking the service at baseURL (e.g. http://auth-tokens:8080).
func New(baseURL string, opts Options) *Directory {
	if opts.Service == "" {
		opts.Service = "auth-tokens"
	}
	if opts.Size <= 0 {
		opts.Size = 100000
	}
	if opts.NegativeTTL <= 0 {
		opts.NegativeTTL = 5 * time.Second
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: opts.Timeout}
	}
	owners, _ := lru.New[uuid.UUID, string](opts.Size) // size is positive
	return &Directory{
		base:    strings.TrimRight(baseURL, "/"),
		service: opts.Service,
		client:  opts.Client,
		owners:  owners,
		missing: expirable.NewLRU[uuid.UUID, struct{}](opts.Size/10+1, nil, opts.NegativeTTL),
	}
}

// callerTokenKey carries the caller's bearer token in a context.
type callerTokenKey struct{}

// WithCallerToken is ctx carrying the bearer token of the request whose
// tenancy is being checked: auth-tokens answers owner lookups only to a
// holder of a valid token, and the gateway has no credential of its own.
func WithCallerToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, callerTokenKey{}, token)
}

type ownerBody struct {
	ClientID string `json:"client_id"`
}

// OwnerOf returns the client id owning businessID; found is false when the
// business does not exist. Transport failures are 503 Unavailable errors.
func (d *Directory) OwnerOf(ctx context.Context, businessID uuid.UUID) (string, bool, error) {
	if owner, ok := d.owners.Get(businessID); ok {
		return owner, true, nil
	}
	if _, ok := d.missing.Get(businessID); ok {
		return "", false, nil
	}
	// Concurrent first requests for one business share one lookup.
	v, err, _ := d.inflight.Do(businessID.String(), func() (any, error) {
		return d.fetch(context.WithoutCancel(ctx), businessID)
	})
	if err != nil {
		return "", false, err
	}
	owner := v.(string)
	return owner, owner != "", nil
}

func (d *Directory) fetch(ctx context.Context, id uuid.UUID) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, d.client.Timeout+time.Second)
	defer cancel()
	url := d.base + "/internal/v1/businesses/" + id.String() + "/owner"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", apperr.Wrap(apperr.Internal, err, "owner lookup request")
	}
	req.Header.Set("Accept", "application/json")
	if token, _ := ctx.Value(callerTokenKey{}).(string); token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return "", d.unavailable(err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		var body ownerBody
		if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&body); err != nil || body.ClientID == "" {
			return "", d.unavailable(fmt.Errorf("owner lookup %s: bad body: %v", id, err))
		}
		d.owners.Add(id, body.ClientID)
		return body.ClientID, nil
	case http.StatusNotFound:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		d.missing.Add(id, struct{}{})
		return "", nil
	default:
		return "", d.unavailable(fmt.Errorf("owner lookup %s: status %d", id, resp.StatusCode))
	}
}

func (d *Directory) unavailable(cause error) error {
	return apperr.Wrap(apperr.Unavailable, cause, d.service+" is unavailable")
}
