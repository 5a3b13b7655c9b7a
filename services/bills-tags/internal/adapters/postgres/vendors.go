package postgres

import (
	"context"
	"slices"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/party/partybun"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
)

var _ app.VendorStore = (*Store)(nil)

// externalIDIndex is the unique index of (business_id, external_id).
const externalIDIndex = "vendors_external_id_key"

// vendorRow is a row of vendors.
type vendorRow struct {
	bun.BaseModel `bun:"table:vendors,alias:c"`
	partybun.Row
	MergedIntoID *uuid.UUID `bun:"merged_into_id,type:uuid"`
}

func toVendorRow(v domain.Vendor) vendorRow {
	return vendorRow{Row: partybun.RowOf(v.Party), MergedIntoID: v.MergedIntoID}
}

func (r vendorRow) vendor() domain.Vendor {
	return domain.Vendor{Party: partybun.PartyOf[domain.VendorKind](r.Row), MergedIntoID: r.MergedIntoID}
}

// vendors is the vendors' table.
var vendors = partybun.Table[vendorRow, domain.Vendor]{
	Noun: "vendor", ExternalIDIndex: externalIDIndex, Columns: append(slices.Clone(partybun.UpdateColumns), "merged_into_id"),
	ToRow: toVendorRow, FromRow: vendorRow.vendor, DuplicateExternalID: domain.ErrDuplicateExternalID,
}

// InsertVendor implements app.VendorStore: INSERT ... ON CONFLICT DO
// NOTHING on the external id's unique index, so a concurrent create of the
// same external id waits for the first and then inserts nothing.
func (s *Store) InsertVendor(ctx context.Context, v domain.Vendor) (bool, error) {
	db := s.conn(ctx)
	return vendors.Insert(ctx, db, v)
}

// FindVendor implements app.VendorStore.
func (s *Store) FindVendor(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (domain.Vendor, bool, error) {
	db := s.conn(ctx)
	return vendors.Find(ctx, db, businessID, id, forUpdate)
}

// FindVendorByExternalID implements app.VendorStore.
func (s *Store) FindVendorByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (domain.Vendor, bool, error) {
	db := s.conn(ctx)
	return vendors.FindByExternalID(ctx, db, businessID, externalID)
}

// FindVendorsByIDs implements app.VendorStore: one query for them all.
func (s *Store) FindVendorsByIDs(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]domain.Vendor, error) {
	db := s.conn(ctx)
	return vendors.FindByIDs(ctx, db, businessID, ids)
}

// UpdateVendor implements app.VendorStore.
func (s *Store) UpdateVendor(ctx context.Context, v domain.Vendor) error {
	db := s.conn(ctx)
	return vendors.Update(ctx, db, v)
}

// FindVendors implements app.VendorStore: one keyset page
// (partybun.Table.List).
func (s *Store) FindVendors(ctx context.Context, businessID uuid.UUID, f domain.VendorFilter, p page.Params) ([]domain.Vendor, page.Meta, error) {
	db := s.conn(ctx)
	return vendors.List(ctx, db, businessID, f, p)
}
