package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/tenancy"
	"github.com/acctsuite/acct/services/auth-tokens/internal/app"
	"github.com/acctsuite/acct/services/auth-tokens/internal/domain"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

type businessRow struct {
	bun.BaseModel `bun:"table:businesses"`

	ID                    uuid.UUID `bun:"id,pk,type:uuid"`
	ClientID              string    `bun:"client_id"`
	ExternalID            *string   `bun:"external_id"`
	LegalName             string    `bun:"legal_name"`
	TIN                   *string   `bun:"tin"`
	USState               *string   `bun:"us_state"`
	Country               string    `bun:"country"`
	EntityType            *string   `bun:"entity_type"`
	PhoneNumber           *string   `bun:"phone_number"`
	ActivationAt          time.Time `bun:"activation_at"`
	NAICSCode             *string   `bun:"naics_code"`
	DefaultReportingBasis string    `bun:"default_reporting_basis"`
	FiscalYearStartMonth  int       `bun:"fiscal_year_start_month"`
	IsDemo                bool      `bun:"is_demo"`
	CreatedAt             time.Time `bun:"created_at"`
	UpdatedAt             time.Time `bun:"updated_at"`
}

func toBusinessRow(b domain.Business) businessRow {
	var et *string
	if b.EntityType != nil {
		s := string(*b.EntityType)
		et = &s
	}
	return businessRow{
		ID: b.ID, ClientID: b.ClientID, ExternalID: b.ExternalID, LegalName: b.LegalName, TIN: b.TIN,
		USState: b.USState, Country: b.Country, EntityType: et, PhoneNumber: b.PhoneNumber,
		ActivationAt: b.ActivationAt, NAICSCode: b.NAICSCode, IsDemo: b.IsDemo,
		DefaultReportingBasis: string(b.DefaultReportingBasis), FiscalYearStartMonth: b.FiscalYearStartMonth,
		CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt,
	}
}

func (r businessRow) domain() (domain.Business, error) {
	b := domain.Business{
		ID: r.ID, ClientID: r.ClientID, ExternalID: r.ExternalID, LegalName: r.LegalName, TIN: r.TIN,
		USState: r.USState, Country: r.Country, PhoneNumber: r.PhoneNumber, NAICSCode: r.NAICSCode,
		DefaultReportingBasis: domain.ReportingBasis(r.DefaultReportingBasis), IsDemo: r.IsDemo,
		FiscalYearStartMonth: r.FiscalYearStartMonth,
		ActivationAt:         r.ActivationAt.UTC(), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
	if r.EntityType != nil {
		et := domain.EntityType(*r.EntityType)
		b.EntityType = &et
	}
	return b, nil
}

// CreateBusiness implements app.BusinessStore.
func (s *Store) CreateBusiness(ctx context.Context, b domain.Business, evt func(domain.Business) (events.Event, error)) (domain.Business, bool, error) {
	var (
		out     domain.Business
		created bool
	)
	err := inTx(ctx, s.db, func(ctx context.Context, tx bun.Tx) error {
		r := toBusinessRow(b)
		res, err := tx.NewInsert().Model(&r).On("CONFLICT (client_id, external_id) DO NOTHING").Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			// The client imported this external id before: answer with that business.
			var existing businessRow
			if err := tx.NewSelect().Model(&existing).
				Where("client_id = ? AND external_id = ?", b.ClientID, b.ExternalID).Scan(ctx); err != nil {
				return fmt.Errorf("find imported business: %w", err)
			}
			out, err = existing.domain()
			return err
		}
		e, err := evt(b)
		if err != nil {
			return err
		}
		if err := outbox.Enqueue(ctx, tx, e); err != nil {
			return err
		}
		out, created = b, true
		return nil
	})
	if err != nil {
		return domain.Business{}, false, err
	}
	return out, created, nil
}

// FindBusiness implements app.BusinessStore.
func (s *Store) FindBusiness(ctx context.Context, id uuid.UUID) (domain.Business, bool, error) {
	var r businessRow
	err := pgdb.Conn(ctx, s.db).NewSelect().Model(&r).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Business{}, false, nil
	}
	if err != nil {
		return domain.Business{}, false, err
	}
	b, err := r.domain()
	return b, err == nil, err
}

// FindBusinesses implements app.BusinessStore.
func (s *Store) FindBusinesses(ctx context.Context, f app.BusinessFilter, p page.Params) ([]domain.Business, page.Meta, error) {
	q := pgdb.Conn(ctx, s.db).NewSelect().Model((*businessRow)(nil)).Where("client_id = ?", f.ClientID)
	if f.BusinessID != nil {
		q = q.Where("id = ?", *f.BusinessID)
	}
	rows, meta, err := pagebun.Fetch(ctx, q, p, "id", func(r businessRow) (any, uuid.UUID) {
		if p.SortBy == "legal_name" {
			return r.LegalName, r.ID
		}
		return r.CreatedAt, r.ID
	})
	if err != nil {
		return nil, page.Meta{}, err
	}
	out := make([]domain.Business, 0, len(rows))
	for _, r := range rows {
		b, err := r.domain()
		if err != nil {
			return nil, page.Meta{}, err
		}
		out = append(out, b)
	}
	return out, meta, nil
}

// UpdateBusiness implements app.BusinessStore.
func (s *Store) UpdateBusiness(ctx context.Context, id uuid.UUID, fn func(*domain.Business) ([]events.Event, error)) (domain.Business, error) {
	var out domain.Business
	err := inTx(ctx, s.db, func(ctx context.Context, tx bun.Tx) error {
		var r businessRow
		err := tx.NewSelect().Model(&r).Where("id = ?", id).For("UPDATE").Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return tenancy.NotFound()
		}
		if err != nil {
			return err
		}
		b, err := r.domain()
		if err != nil {
			return err
		}
		evts, err := fn(&b)
		if err != nil {
			return err
		}
		nr := toBusinessRow(b)
		if _, err := tx.NewUpdate().Model(&nr).WherePK().Exec(ctx); err != nil {
			return err
		}
		if err := outbox.Enqueue(ctx, tx, evts...); err != nil {
			return err
		}
		out = b
		return nil
	})
	return out, err
}

// OwnerOf implements app.BusinessStore and tenancy.OwnerLookup.
func (s *Store) OwnerOf(ctx context.Context, id uuid.UUID) (string, bool, error) {
	var owner string
	err := pgdb.Conn(ctx, s.db).NewSelect().Model((*businessRow)(nil)).Column("client_id").Where("id = ?", id).Scan(ctx, &owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return owner, true, nil
}
