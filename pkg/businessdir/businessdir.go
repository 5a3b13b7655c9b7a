// Package businessdir is the business directory every service keeps from
// acct.business.v1: a local businesses table (Migrations), the consumer
// handler that maintains it (Handle) and the lookups services need without
// calling auth-tokens, chiefly who owns a business (Directory.OwnerOf, the
// tenancy.OwnerLookup of every service but auth-tokens).
package businessdir

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/golang-lru/v2/expirable"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/pgdb"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations creates the businesses table in the consuming service's schema.
var Migrations = pgdb.Embedded("businessdir", migrationFiles, "migrations")

type businessRow struct {
	bun.BaseModel `bun:"table:businesses"`

	ID                    uuid.UUID `bun:"id,pk,type:uuid"`
	ClientID              string    `bun:"client_id"`
	ExternalID            *string   `bun:"external_id"`
	LegalName             string    `bun:"legal_name"`
	Country               string    `bun:"country"`
	USState               *string   `bun:"us_state"`
	EntityType            *string   `bun:"entity_type"`
	PhoneNumber           *string   `bun:"phone_number"`
	ActivationAt          *string   `bun:"activation_at"`
	NAICSCode             *string   `bun:"naics_code"`
	DefaultReportingBasis string    `bun:"default_reporting_basis"`
	FiscalYearStartMonth  int       `bun:"fiscal_year_start_month"`
	CreatedAt             time.Time `bun:"created_at"`
	UpdatedAt             time.Time `bun:"updated_at"`
	LastEventTime         time.Time `bun:"last_event_time"`
}

func (r businessRow) business() events.Business {
	return events.Business{
		ID: r.ID, ClientID: r.ClientID, ExternalID: r.ExternalID, LegalName: r.LegalName,
		USState: r.USState, Country: r.Country, EntityType: r.EntityType, PhoneNumber: r.PhoneNumber,
		ActivationAt: r.ActivationAt, NAICSCode: r.NAICSCode, DefaultReportingBasis: r.DefaultReportingBasis,
		FiscalYearStartMonth: r.FiscalYearStartMonth, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

// Handle is a consumer.Handler applying business.created and
// business.updated; other event types are ignored. An event older than the
// stored state (by the payload's updated_at, then the event time) changes
// nothing, so replays and out-of-order deliveries cannot regress the row.
func Handle(ctx context.Context, tx bun.Tx, e events.Event) error {
	if e.Type != events.TypeBusinessCreated && e.Type != events.TypeBusinessUpdated {
		return nil
	}
	var b events.Business
	if err := e.Decode(&b); err != nil {
		return fmt.Errorf("businessdir: %w", err)
	}
	if err := validate(b, e); err != nil {
		return fmt.Errorf("businessdir: event %s: %w", e.ID, err)
	}
	eventTime := e.Time
	if eventTime.IsZero() {
		eventTime = b.UpdatedAt
	}
	r := &businessRow{
		ID: b.ID, ClientID: b.ClientID, ExternalID: b.ExternalID, LegalName: b.LegalName,
		Country: b.Country, USState: b.USState, EntityType: b.EntityType, PhoneNumber: b.PhoneNumber,
		ActivationAt: b.ActivationAt, NAICSCode: b.NAICSCode, DefaultReportingBasis: b.DefaultReportingBasis,
		FiscalYearStartMonth: b.FiscalYearStart(), CreatedAt: b.CreatedAt.UTC(), UpdatedAt: b.UpdatedAt.UTC(), LastEventTime: eventTime.UTC(),
	}
	_, err := tx.NewInsert().Model(r).
		On("CONFLICT (id) DO UPDATE").
		Set("client_id = EXCLUDED.client_id").
		Set("external_id = EXCLUDED.external_id").
		Set("legal_name = EXCLUDED.legal_name").
		Set("country = EXCLUDED.country").
		Set("us_state = EXCLUDED.us_state").
		Set("entity_type = EXCLUDED.entity_type").
		Set("phone_number = EXCLUDED.phone_number").
		Set("activation_at = EXCLUDED.activation_at").
		Set("naics_code = EXCLUDED.naics_code").
		Set("default_reporting_basis = EXCLUDED.default_reporting_basis").
		Set("fiscal_year_start_month = EXCLUDED.fiscal_year_start_month").
		Set("created_at = EXCLUDED.created_at").
		Set("updated_at = EXCLUDED.updated_at").
		Set("last_event_time = EXCLUDED.last_event_time").
		Where("(?TableAlias.updated_at, ?TableAlias.last_event_time) < (EXCLUDED.updated_at, EXCLUDED.last_event_time)").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("businessdir: upsert %s: %w", b.ID, err)
	}
	return nil
}

func validate(b events.Business, e events.Event) error {
	switch {
	case b.ID == uuid.Nil:
		return errors.New("payload has no id")
	case e.Subject != "" && e.Subject != b.ID.String():
		return fmt.Errorf("subject %q differs from payload id %s", e.Subject, b.ID)
	case b.ClientID == "":
		return errors.New("payload has no client_id")
	case b.LegalName == "":
		return errors.New("payload has no legal_name")
	case b.Country == "":
		return errors.New("payload has no country")
	case b.DefaultReportingBasis == "":
		return errors.New("payload has no default_reporting_basis")
	case b.CreatedAt.IsZero() || b.UpdatedAt.IsZero():
		return errors.New("payload lacks created_at or updated_at")
	}
	return nil
}

// Directory answers questions about businesses from the projection.
type Directory struct {
	db    bun.IDB
	cache *expirable.LRU[uuid.UUID, events.Business] // nil: every answer read from db
}

// New makes a directory reading through db; every answer is read from the
// table, so it reflects the last event applied.
func New(db bun.IDB) *Directory { return &Directory{db: db} }

// Cached returns a directory over the same table that keeps each business
// it found for ttl (at most size of them). A request then costs no query
// for the business it names: the tenancy check (OwnerOf) and the business's
// settings (Find) are answered from memory. The owner of a business never
// changes; its other fields may lag a business.updated by up to ttl on a
// replica. An unknown business is never kept: it is read again next time,
// so a business is found as soon as its creation is projected.
func (d *Directory) Cached(size int, ttl time.Duration) *Directory {
	return &Directory{db: d.db, cache: expirable.NewLRU[uuid.UUID, events.Business](size, nil, ttl)}
}

// OwnerOf returns the platform client that created the business; found is
// false when the business is unknown (not created, or not yet projected).
func (d *Directory) OwnerOf(ctx context.Context, businessID uuid.UUID) (clientID string, found bool, err error) {
	if d.cache != nil {
		b, found, err := d.Find(ctx, businessID)
		return b.ClientID, found, err
	}
	err = d.db.NewSelect().Model((*businessRow)(nil)).Column("client_id").
		Where("id = ?", businessID).Scan(ctx, &clientID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("businessdir: owner of %s: %w", businessID, err)
	}
	return clientID, true, nil
}

// Find returns the projected business.
func (d *Directory) Find(ctx context.Context, businessID uuid.UUID) (events.Business, bool, error) {
	if d.cache != nil {
		if b, ok := d.cache.Get(businessID); ok {
			return b, true, nil
		}
	}
	var r businessRow
	err := d.db.NewSelect().Model(&r).Where("id = ?", businessID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return events.Business{}, false, nil
	}
	if err != nil {
		return events.Business{}, false, fmt.Errorf("businessdir: find %s: %w", businessID, err)
	}
	b := r.business()
	if d.cache != nil {
		d.cache.Add(businessID, b)
	}
	return b, true, nil
}
