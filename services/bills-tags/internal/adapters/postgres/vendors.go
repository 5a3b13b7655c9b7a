package postgres

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/pkg/party/partybun"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
)

var _ app.VendorStore = (*Store)(nil)

// VendorPageSpec is the pagination of GET /vendors (partybun.PageSpec).
var VendorPageSpec = partybun.PageSpec

// externalIDIndex is the unique index of (business_id, external_id).
const externalIDIndex = "vendors_external_id_key"

// vendorRow is a row of vendors.
type vendorRow struct {
	bun.BaseModel `bun:"table:vendors,alias:c"`
	partybun.Row
	MergedIntoID *uuid.UUID `bun:"merged_into_id,type:uuid"`
}

// vendorColumns are the columns an update writes.
var vendorColumns = append(slices.Clone(partybun.UpdateColumns), "merged_into_id")

func toVendorRow(v domain.Vendor) vendorRow {
	return vendorRow{Row: partybun.RowOf(v.Party), MergedIntoID: v.MergedIntoID}
}

func (r vendorRow) vendor() domain.Vendor {
	return domain.Vendor{Party: partybun.PartyOf[domain.VendorKind](r.Row), MergedIntoID: r.MergedIntoID}
}

// InsertVendor implements app.VendorStore: INSERT ... ON CONFLICT DO
// NOTHING on the external id's unique index, so a concurrent create of the
// same external id waits for the first and then inserts nothing.
func (s *Store) InsertVendor(ctx context.Context, db bun.IDB, c domain.Vendor) (bool, error) {
	r := toVendorRow(c)
	res, err := db.NewInsert().Model(&r).
		On("CONFLICT (business_id, external_id) WHERE external_id IS NOT NULL DO NOTHING").
		Exec(ctx)
	if err != nil {
		return false, wrap("insert vendor", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, wrap("insert vendor", err)
	}
	return n == 1, nil
}

func (s *Store) findVendor(ctx context.Context, q *bun.SelectQuery) (domain.Vendor, bool, error) {
	var r vendorRow
	err := q.Model(&r).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Vendor{}, false, nil
	}
	if err != nil {
		return domain.Vendor{}, false, wrap("find vendor", err)
	}
	return r.vendor(), true, nil
}

// FindVendor implements app.VendorStore.
func (s *Store) FindVendor(ctx context.Context, db bun.IDB, businessID, id uuid.UUID, forUpdate bool) (domain.Vendor, bool, error) {
	q := db.NewSelect().Where("c.business_id = ? AND c.id = ?", businessID, id)
	if forUpdate {
		q = q.For("UPDATE")
	}
	return s.findVendor(ctx, q)
}

// FindVendorByExternalID implements app.VendorStore.
func (s *Store) FindVendorByExternalID(ctx context.Context, db bun.IDB, businessID uuid.UUID, externalID string) (domain.Vendor, bool, error) {
	return s.findVendor(ctx, db.NewSelect().Where("c.business_id = ? AND c.external_id = ?", businessID, externalID))
}

// FindVendorsByIDs implements app.VendorStore: one query for them all.
func (s *Store) FindVendorsByIDs(ctx context.Context, db bun.IDB, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]domain.Vendor, error) {
	out := make(map[uuid.UUID]domain.Vendor, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []vendorRow
	if err := db.NewSelect().Model(&rows).Where("c.business_id = ? AND c.id IN (?)", businessID, bun.In(ids)).Scan(ctx); err != nil {
		return nil, wrap("find vendors", err)
	}
	for _, r := range rows {
		out[r.ID] = r.vendor()
	}
	return out, nil
}

// UpdateVendor implements app.VendorStore.
func (s *Store) UpdateVendor(ctx context.Context, db bun.IDB, c domain.Vendor) error {
	r := toVendorRow(c)
	_, err := db.NewUpdate().Model(&r).
		Column(vendorColumns...).
		WherePK().Exec(ctx)
	if pgdb.IsUniqueViolation(err) && pgdb.Constraint(err) == externalIDIndex && c.ExternalID != nil {
		return domain.ErrDuplicateExternalID(*c.ExternalID)
	}
	return wrap("update vendor", err)
}

// FindVendors implements app.VendorStore: one keyset page. Every value,
// the cursor's included, is bound into the query, so PostgreSQL seeks the
// (business_id, key, id) index.
func (s *Store) FindVendors(ctx context.Context, db bun.IDB, businessID uuid.UUID, f domain.VendorFilter, p page.Params) ([]domain.Vendor, page.Meta, error) {
	// c.*: the generated sort_name is scan-only, so not among the model's
	// columns; the page's cursor needs it.
	q := partybun.Where(db.NewSelect().Model((*vendorRow)(nil)).ColumnExpr("c.*"), businessID, f)
	rows, meta, err := pagebun.Fetch(ctx, q, p, "c.id", func(r vendorRow) (any, uuid.UUID) { return partybun.PageKey(p.SortBy, r.Row) })
	if err != nil {
		return nil, page.Meta{}, wrap("list vendors", err)
	}
	out := make([]domain.Vendor, len(rows))
	for i, r := range rows {
		out[i] = r.vendor()
	}
	return out, meta, nil
}
