package postgres

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/services/webhooks/internal/app"
	"github.com/acctsuite/acct/services/webhooks/internal/domain"
)

type endpointRow struct {
	bun.BaseModel `bun:"table:endpoints,alias:e"`

	ID                      uuid.UUID   `bun:"id,pk"`
	ClientID                string      `bun:"client_id"`
	URL                     string      `bun:"url"`
	Description             string      `bun:"description"`
	EventTypes              []string    `bun:"event_types,array"`
	BusinessIDs             []uuid.UUID `bun:"business_ids,array"`
	Disabled                bool        `bun:"disabled"`
	DisabledReason          *string     `bun:"disabled_reason"`
	Ordering                string      `bun:"ordering"`
	Secret                  []byte      `bun:"secret"`
	PreviousSecret          []byte      `bun:"previous_secret"`
	PreviousSecretExpiresAt *time.Time  `bun:"previous_secret_expires_at"`
	FailingSince            *time.Time  `bun:"failing_since"`
	CreatedAt               time.Time   `bun:"created_at"`
	UpdatedAt               time.Time   `bun:"updated_at"`
}

func (s *Store) endpointRow(e domain.Endpoint) (endpointRow, error) {
	r := endpointRow{ID: e.ID, ClientID: e.ClientID, URL: e.URL, Description: e.Description, EventTypes: e.EventTypes,
		BusinessIDs: e.BusinessIDs, Disabled: e.Disabled, DisabledReason: e.DisabledReason, Ordering: e.Ordering,
		PreviousSecretExpiresAt: e.PreviousSecretExpiresAt, FailingSince: e.FailingSince, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
	if r.EventTypes == nil {
		r.EventTypes = []string{}
	}
	if r.BusinessIDs == nil {
		r.BusinessIDs = []uuid.UUID{}
	}
	var err error
	if r.Secret, err = s.seal(e.ID, "secret", e.Secret); err != nil {
		return r, err
	}
	if e.PreviousSecret != nil {
		if r.PreviousSecret, err = s.seal(e.ID, "previous", *e.PreviousSecret); err != nil {
			return r, err
		}
	}
	return r, nil
}

func (s *Store) endpoint(r endpointRow) (domain.Endpoint, error) {
	e := domain.Endpoint{ID: r.ID, ClientID: r.ClientID, URL: r.URL, Description: r.Description, EventTypes: r.EventTypes,
		BusinessIDs: r.BusinessIDs, Disabled: r.Disabled, DisabledReason: r.DisabledReason, Ordering: r.Ordering,
		PreviousSecretExpiresAt: r.PreviousSecretExpiresAt, FailingSince: r.FailingSince,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if e.EventTypes == nil {
		e.EventTypes = []string{}
	}
	if e.BusinessIDs == nil {
		e.BusinessIDs = []uuid.UUID{}
	}
	var err error
	if e.Secret, err = s.open(r.ID, "secret", r.Secret); err != nil {
		return e, err
	}
	if len(r.PreviousSecret) > 0 {
		prev, err := s.open(r.ID, "previous", r.PreviousSecret)
		if err != nil {
			return e, err
		}
		e.PreviousSecret = &prev
	}
	return e, nil
}

// LockClient takes a transaction-scoped advisory lock on the platform.
func (s *Store) LockClient(ctx context.Context, clientID string) error {
	_, err := s.conn(ctx).ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended('webhooks/client/' || ?, 0))", clientID)
	return wrap("lock platform", err)
}

// CountEndpoints is how many endpoints the platform has.
func (s *Store) CountEndpoints(ctx context.Context, clientID string) (int, error) {
	n, err := s.conn(ctx).NewSelect().Model((*endpointRow)(nil)).Where("client_id = ?", clientID).Count(ctx)
	return int(n), wrap("count endpoints", err)
}

// InsertEndpoint stores e with its secret sealed.
func (s *Store) InsertEndpoint(ctx context.Context, e domain.Endpoint) error {
	r, err := s.endpointRow(e)
	if err != nil {
		return err
	}
	_, err = s.conn(ctx).NewInsert().Model(&r).Exec(ctx)
	return wrap("insert endpoint", err)
}

func (s *Store) findEndpoint(ctx context.Context, q *bun.SelectQuery, forUpdate bool) (domain.Endpoint, bool, error) {
	var r endpointRow
	if forUpdate {
		q = q.For("UPDATE")
	}
	if err := q.Model(&r).Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return domain.Endpoint{}, false, nil
		}
		return domain.Endpoint{}, false, wrap("find endpoint", err)
	}
	e, err := s.endpoint(r)
	return e, err == nil, err
}

// endpointCache keeps the endpoints the dispatcher sends to, each with
// its row version (xmin): a claim reads the versions and only an
// endpoint changed since (or not seen yet) is read and its secrets
// opened again.
type endpointCache struct {
	mu sync.Mutex
	m  map[uuid.UUID]cachedEndpoint
}

type cachedEndpoint struct {
	version string
	e       domain.Endpoint
}

// maxCachedEndpoints bounds the cache (it starts over beyond it).
const maxCachedEndpoints = 10_000

// get returns the endpoints of versions (id: row version) as they are at
// those versions; an endpoint deleted meanwhile is left out.
func (c *endpointCache) get(ctx context.Context, s *Store, versions map[uuid.UUID]string) (map[uuid.UUID]domain.Endpoint, error) {
	out := make(map[uuid.UUID]domain.Endpoint, len(versions))
	var stale []uuid.UUID
	c.mu.Lock()
	for id, v := range versions {
		if ce, ok := c.m[id]; ok && ce.version == v {
			out[id] = ce.e
		} else {
			stale = append(stale, id)
		}
	}
	c.mu.Unlock()
	if len(stale) == 0 {
		return out, nil
	}
	fresh, err := s.endpointsByID(ctx, s.db, stale)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedEndpoints {
		c.m = map[uuid.UUID]cachedEndpoint{}
	}
	for id, fe := range fresh {
		out[id] = fe.e
		c.m[id] = fe
	}
	return out, nil
}

// endpointsByID are the endpoints of ids that exist, with their row
// versions, by id.
func (s *Store) endpointsByID(ctx context.Context, db bun.IDB, ids []uuid.UUID) (map[uuid.UUID]cachedEndpoint, error) {
	var rows []struct {
		endpointRow
		Version string `bun:"version"`
	}
	if err := db.NewRaw("SELECT e.*, e.xmin::text AS version FROM endpoints e WHERE e.id = ANY(?::uuid[])", pgArray(ids)).
		Scan(ctx, &rows); err != nil {
		return nil, wrap("find endpoints", err)
	}
	out := make(map[uuid.UUID]cachedEndpoint, len(rows))
	for _, r := range rows {
		e, err := s.endpoint(r.endpointRow)
		if err != nil {
			return nil, err
		}
		out[e.ID] = cachedEndpoint{version: r.Version, e: e}
	}
	return out, nil
}

// FindEndpoint is the platform's endpoint id.
func (s *Store) FindEndpoint(ctx context.Context, clientID string, id uuid.UUID, forUpdate bool) (domain.Endpoint, bool, error) {
	return s.findEndpoint(ctx, s.conn(ctx).NewSelect().Where("e.id = ? AND e.client_id = ?", id, clientID), forUpdate)
}

// EndpointByID is endpoint id, whoever's.
func (s *Store) EndpointByID(ctx context.Context, id uuid.UUID, forUpdate bool) (domain.Endpoint, bool, error) {
	return s.findEndpoint(ctx, s.conn(ctx).NewSelect().Where("e.id = ?", id), forUpdate)
}

// ListEndpoints is a page of the platform's endpoints.
func (s *Store) ListEndpoints(ctx context.Context, clientID string, p page.Params) ([]domain.Endpoint, page.Meta, error) {
	q := s.conn(ctx).NewSelect().Model((*endpointRow)(nil)).Where("e.client_id = ?", clientID)
	rows, meta, err := pagebun.Fetch(ctx, q, p, "e.id", func(r endpointRow) (any, uuid.UUID) {
		if p.SortBy == "updated_at" {
			return r.UpdatedAt, r.ID
		}
		return r.CreatedAt, r.ID
	})
	if err != nil {
		return nil, page.Meta{}, wrap("list endpoints", err)
	}
	out := make([]domain.Endpoint, len(rows))
	for i, r := range rows {
		if out[i], err = s.endpoint(r); err != nil {
			return nil, page.Meta{}, err
		}
	}
	return out, meta, nil
}

// UpdateEndpoint stores e's fields (its secrets sealed again).
func (s *Store) UpdateEndpoint(ctx context.Context, e domain.Endpoint) error {
	r, err := s.endpointRow(e)
	if err != nil {
		return err
	}
	_, err = s.conn(ctx).NewUpdate().Model(&r).WherePK().ExcludeColumn("id", "client_id", "created_at").Exec(ctx)
	return wrap("update endpoint", err)
}

// DeleteEndpoint deletes the platform's endpoint id (its deliveries,
// attempts and lanes with it).
func (s *Store) DeleteEndpoint(ctx context.Context, clientID string, id uuid.UUID) (bool, error) {
	res, err := s.conn(ctx).NewDelete().Model((*endpointRow)(nil)).Where("id = ? AND client_id = ?", id, clientID).Exec(ctx)
	if err != nil {
		return false, wrap("delete endpoint", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// EndpointSucceeded clears failing_since.
func (s *Store) EndpointSucceeded(ctx context.Context, id uuid.UUID) error {
	_, err := s.conn(ctx).NewUpdate().Model((*endpointRow)(nil)).Set("failing_since = NULL").
		Where("id = ? AND failing_since IS NOT NULL", id).Exec(ctx)
	return wrap("endpoint succeeded", err)
}

// ClientEndpoints are the enabled endpoints of each platform, their
// subscriptions only (no secrets).
func (s *Store) ClientEndpoints(ctx context.Context, clientIDs []string) (map[string][]domain.Endpoint, error) {
	out := map[string][]domain.Endpoint{}
	if len(clientIDs) == 0 {
		return out, nil
	}
	var rows []endpointRow
	if err := s.conn(ctx).NewSelect().Model(&rows).Column("id", "client_id", "ordering", "event_types", "business_ids", "disabled").
		Where("e.client_id = ANY(?::text[]) AND NOT e.disabled", pgArray(clientIDs)).OrderExpr("e.created_at, e.id").Scan(ctx); err != nil {
		return nil, wrap("platforms' endpoints", err)
	}
	for _, r := range rows {
		out[r.ClientID] = append(out[r.ClientID], domain.Endpoint{ID: r.ID, ClientID: r.ClientID, Ordering: r.Ordering,
			EventTypes: r.EventTypes, BusinessIDs: r.BusinessIDs})
	}
	return out, nil
}

// FindBusinesses reads the kit's projection of acct.business.v1: those of
// ids it holds.
func (s *Store) FindBusinesses(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]app.Business, error) {
	out := map[uuid.UUID]app.Business{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ID         uuid.UUID `bun:"id"`
		ClientID   string    `bun:"client_id"`
		ExternalID *string   `bun:"external_id"`
	}
	if err := s.conn(ctx).NewRaw("SELECT id, client_id, external_id FROM businesses WHERE id = ANY(?::uuid[])", pgArray(ids)).Scan(ctx, &rows); err != nil {
		return nil, wrap("find businesses", err)
	}
	for _, r := range rows {
		out[r.ID] = app.Business{ID: r.ID, ClientID: r.ClientID, ExternalID: r.ExternalID}
	}
	return out, nil
}

// OwnedBusinesses are those of ids that belong to clientID.
func (s *Store) OwnedBusinesses(ctx context.Context, clientID string, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	var found []uuid.UUID
	if err := s.conn(ctx).NewRaw("SELECT id FROM businesses WHERE client_id = ? AND id = ANY(?::uuid[])", clientID, pgArray(ids)).
		Scan(ctx, &found); err != nil {
		return nil, wrap("owned businesses", err)
	}
	out := make(map[uuid.UUID]bool, len(found))
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}
