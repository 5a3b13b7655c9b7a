package postgres

import (
	"context"
	"slices"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/party/partyapp"
	"github.com/acctsuite/acct/pkg/party/partybun"
	"github.com/acctsuite/acct/pkg/pgdb"
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

// VendorParty is app.VendorParty on db: pkg/party/partyapp's vendor use
// cases over store. partyapp runs each write in its own transaction on db
// and hands every store function the connection to run on (that
// transaction, or db for reads); each one here carries that connection in
// the context (pgdb.WithTx) to store and to the upserted publication, as
// a unit of work does.
func VendorParty(db *bun.DB, store app.VendorStore) app.VendorParty {
	return func(upserted func(ctx context.Context, v domain.Vendor) error) *partyapp.UseCases[domain.Vendor] {
		return partyapp.New(db, partyapp.Ports[domain.Vendor]{
			Noun: "vendor", New: domain.NewVendor,
			Insert: func(ctx context.Context, conn bun.IDB, v domain.Vendor) (bool, error) {
				return store.InsertVendor(withConn(ctx, conn), v)
			},
			Find: func(ctx context.Context, conn bun.IDB, businessID, id uuid.UUID, forUpdate bool) (domain.Vendor, bool, error) {
				return store.FindVendor(withConn(ctx, conn), businessID, id, forUpdate)
			},
			FindByExternalID: func(ctx context.Context, conn bun.IDB, businessID uuid.UUID, externalID string) (domain.Vendor, bool, error) {
				return store.FindVendorByExternalID(withConn(ctx, conn), businessID, externalID)
			},
			Update: func(ctx context.Context, conn bun.IDB, v domain.Vendor) error {
				return store.UpdateVendor(withConn(ctx, conn), v)
			},
			List: func(ctx context.Context, conn bun.IDB, businessID uuid.UUID, f domain.VendorFilter, p page.Params) ([]domain.Vendor, page.Meta, error) {
				return store.FindVendors(withConn(ctx, conn), businessID, f, p)
			},
			Upserted: func(ctx context.Context, conn bun.IDB, v domain.Vendor) error {
				return upserted(withConn(ctx, conn), v)
			},
			NotFound: domain.ErrVendorNotFound, DuplicateExternalID: domain.ErrDuplicateExternalID,
		})
	}
}

// withConn is ctx carrying conn when conn is a transaction; the pool
// needs no carrying (pgdb.Conn falls back to it).
func withConn(ctx context.Context, conn bun.IDB) context.Context {
	if tx, ok := conn.(bun.Tx); ok {
		return pgdb.WithTx(ctx, tx)
	}
	return ctx
}
