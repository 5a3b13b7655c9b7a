package app

import (
	"context"
	"fmt"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tenancy"
	"github.com/acctsuite/acct/services/auth-tokens/internal/domain"
	"github.com/google/uuid"
)

// BusinessPageSpec lists the sort keys of GET /v1/businesses.
var BusinessPageSpec = page.Spec{
	Keys: map[string]page.Key{
		"created_at": {Column: "created_at", Kind: page.KindTime},
		"legal_name": {Column: "legal_name", Kind: page.KindString},
	},
	Default: "created_at",
}

// CreateBusinessResult is a created or previously imported business.
type CreateBusinessResult struct {
	Business           domain.Business
	PreviouslyImported bool
}

// CreateBusiness creates a business owned by the calling platform client, or
// returns the one it already created with the same external id.
func (a *App) CreateBusiness(ctx context.Context, caller authn.Identity, in domain.BusinessInput) (CreateBusinessResult, error) {
	if !caller.IsPlatform() {
		return CreateBusinessResult{}, apperr.New(apperr.Forbidden, "business tokens cannot create businesses").WithEnum("PlatformTokenRequired")
	}
	id, err := newID()
	if err != nil {
		return CreateBusinessResult{}, err
	}
	b, err := domain.NewBusiness(id, caller.ClientID, in, a.now())
	if err != nil {
		return CreateBusinessResult{}, err
	}
	got, created, err := a.businesses.CreateBusiness(ctx, b, func(b domain.Business) (events.Event, error) {
		return businessEvent(events.TypeBusinessCreated, b)
	})
	if err != nil {
		return CreateBusinessResult{}, fmt.Errorf("create business: %w", err)
	}
	return CreateBusinessResult{Business: got, PreviouslyImported: !created}, nil
}

// GetBusiness returns a business the caller may see (404 otherwise).
func (a *App) GetBusiness(ctx context.Context, caller authn.Identity, id uuid.UUID) (domain.Business, error) {
	b, found, err := a.businesses.FindBusiness(ctx, id)
	if err != nil {
		return domain.Business{}, fmt.Errorf("find business %s: %w", id, err)
	}
	if !found || !canSee(caller, b) {
		return domain.Business{}, tenancy.NotFound()
	}
	return b, nil
}

// ListBusinesses lists the businesses the caller may see, one page at a time.
func (a *App) ListBusinesses(ctx context.Context, caller authn.Identity, p page.Params) ([]domain.Business, page.Meta, error) {
	f := BusinessFilter{ClientID: caller.ClientID}
	if caller.IsBusiness() {
		bid := caller.BusinessID
		f.BusinessID = &bid
	}
	bs, meta, err := a.businesses.FindBusinesses(ctx, f, p)
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("list businesses: %w", err)
	}
	return bs, meta, nil
}

// UpdateBusiness applies a partial update by the owning platform client.
func (a *App) UpdateBusiness(ctx context.Context, caller authn.Identity, id uuid.UUID, in domain.BusinessInput) (domain.Business, error) {
	if !caller.IsPlatform() {
		return domain.Business{}, apperr.New(apperr.Forbidden, "business tokens cannot update businesses").WithEnum("PlatformTokenRequired")
	}
	b, err := a.businesses.UpdateBusiness(ctx, id, func(b *domain.Business) ([]events.Event, error) {
		if !canSee(caller, *b) {
			return nil, tenancy.NotFound()
		}
		if err := b.Update(in, a.now()); err != nil {
			return nil, err
		}
		evt, err := businessEvent(events.TypeBusinessUpdated, *b)
		if err != nil {
			return nil, err
		}
		return []events.Event{evt}, nil
	})
	if err != nil {
		return domain.Business{}, fmt.Errorf("update business %s: %w", id, err)
	}
	return b, nil
}

// OwnerOf tells which client owns a business (the gateway's internal lookup).
func (a *App) OwnerOf(ctx context.Context, id uuid.UUID) (string, bool, error) {
	return a.businesses.OwnerOf(ctx, id)
}

func canSee(caller authn.Identity, b domain.Business) bool {
	switch caller.Scope {
	case authn.ScopePlatform:
		return b.ClientID == caller.ClientID
	case authn.ScopeBusiness:
		return b.ID == caller.BusinessID
	}
	return false
}

// businessEvent is the published form of b (no TIN: see events.Business).
func businessEvent(eventType string, b domain.Business) (events.Event, error) {
	var et *string
	if b.EntityType != nil {
		s := string(*b.EntityType)
		et = &s
	}
	activation := b.ActivationTime()
	payload := events.Business{
		ID: b.ID, ClientID: b.ClientID, ExternalID: b.ExternalID, LegalName: b.LegalName,
		USState: b.USState, Country: b.Country, EntityType: et, PhoneNumber: b.PhoneNumber,
		ActivationAt: &activation, NAICSCode: b.NAICSCode,
		DefaultReportingBasis: string(b.DefaultReportingBasis), CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt,
		IsDemo: b.IsDemo, FiscalYearStartMonth: b.FiscalYearStartMonth,
	}
	return events.New(events.TopicBusiness, eventType, EventSource, b.ID, payload)
}
