// Package app holds the bills-tags use cases and the interfaces
// they need from persistence and event publishing. Each write runs in one
// database transaction through outbox.RunInTx: the change and its
// acct.bills.v1 event commit together or not at all.
package app

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/party/partyapp"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
)

// VendorStore is the vendors' persistence. Every method runs on the db
// it is given (the use case's transaction, or the pool for reads) and
// filters by business.
type VendorStore interface {
	// InsertVendor inserts c unless the business already has a vendor
	// with c's external id; inserted reports which. Concurrent inserts of
	// one external id insert one vendor (the unique index decides).
	InsertVendor(ctx context.Context, db bun.IDB, c domain.Vendor) (inserted bool, err error)
	// FindVendor reads the business's vendor id; forUpdate locks it
	// until the transaction ends.
	FindVendor(ctx context.Context, db bun.IDB, businessID, id uuid.UUID, forUpdate bool) (domain.Vendor, bool, error)
	FindVendorByExternalID(ctx context.Context, db bun.IDB, businessID uuid.UUID, externalID string) (domain.Vendor, bool, error)
	// FindVendorsByIDs reads the business's vendors among ids (the
	// unknown ones are left out), by id.
	FindVendorsByIDs(ctx context.Context, db bun.IDB, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]domain.Vendor, error)
	// UpdateVendor writes every field of c; an external id another
	// vendor of the business has is domain.ErrDuplicateExternalID.
	UpdateVendor(ctx context.Context, db bun.IDB, c domain.Vendor) error
	// FindVendors is one keyset page of the business's vendors
	// matching f.
	FindVendors(ctx context.Context, db bun.IDB, businessID uuid.UUID, f domain.VendorFilter, p page.Params) ([]domain.Vendor, page.Meta, error)
}

// VendorPublisher enqueues vendor events in the caller's transaction
// (the outbox).
type VendorPublisher interface {
	VendorUpserted(ctx context.Context, db bun.IDB, c domain.Vendor) error
}

// Vendors holds the vendor use cases (pkg/party/partyapp's: Create,
// Update, Archive; and Merge).
type Vendors struct {
	*partyapp.UseCases[domain.Vendor]
	db    *bun.DB
	store VendorStore
	pub   VendorPublisher
	mover VendorMover
}

// NewVendors assembles the vendor use cases on db.
func NewVendors(db *bun.DB, store VendorStore, pub VendorPublisher, _ *slog.Logger) *Vendors {
	return &Vendors{partyapp.New(db, partyapp.Ports[domain.Vendor]{
		Noun: "vendor", New: domain.NewVendor,
		Insert: store.InsertVendor, Find: store.FindVendor, FindByExternalID: store.FindVendorByExternalID,
		Update: store.UpdateVendor, List: store.FindVendors, Upserted: pub.VendorUpserted,
		NotFound: domain.ErrVendorNotFound, DuplicateExternalID: domain.ErrDuplicateExternalID,
	}), db, store, pub, nil}
}

func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// Vendor is GET /vendors/{id} (archived vendors included), or the
// 404 domain.ErrVendorNotFound.
func (a *Vendors) Vendor(ctx context.Context, businessID, id uuid.UUID) (domain.Vendor, error) {
	return a.Get(ctx, businessID, id)
}

// Vendors is GET /vendors: one page.
func (a *Vendors) Vendors(ctx context.Context, businessID uuid.UUID, f domain.VendorFilter, p page.Params) ([]domain.Vendor, page.Meta, error) {
	return a.List(ctx, businessID, f, p)
}

// VendorMover moves a business's documents from one vendor to another
// inside the merge's transaction (the bills and vendor credits of the
// vendor merged away), publishing what their snapshots need.
type VendorMover interface {
	MoveVendorDocuments(ctx context.Context, tx bun.Tx, businessID, from, to uuid.UUID) error
}

// SetMover plugs the documents' move into Merge (the bills use cases, once
// they exist).
func (a *Vendors) SetMover(m VendorMover) { a.mover = m }

// Merge is POST /vendors/{keep}/merge: the vendor archiveID merged into
// keep in one transaction (both locked in id order): archiveID's documents
// move to keep, archiveID becomes ARCHIVED with merged_into_id = keep and
// its vendor.upserted event is written. keep must be ACTIVE (409
// VendorArchived); either unknown is 404. Answers keep. Merging again a
// vendor already merged into keep changes nothing.
func (a *Vendors) Merge(ctx context.Context, businessID, keep, archiveID uuid.UUID) (domain.Vendor, error) {
	var out domain.Vendor
	err := outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		first, second := keep, archiveID
		if second.String() < first.String() {
			first, second = second, first
		}
		locked := map[uuid.UUID]domain.Vendor{}
		for _, id := range []uuid.UUID{first, second} {
			v, ok, err := a.store.FindVendor(ctx, tx, businessID, id, true)
			if err != nil {
				return fmt.Errorf("lock vendor %s: %w", id, err)
			}
			if !ok {
				e := domain.ErrVendorNotFound()
				if id == archiveID {
					e = e.WithMeta("fields", map[string]string{"vendor_to_archive_id": "no such vendor in the business"})
				}
				return e
			}
			locked[id] = v
		}
		kept, gone := locked[keep], locked[archiveID]
		if kept.Status != domain.StatusActive {
			return domain.ErrVendorArchived()
		}
		out = kept
		next, changed := gone.MergeInto(keep, a.Clock())
		if !changed {
			return nil
		}
		if a.mover != nil {
			if err := a.mover.MoveVendorDocuments(ctx, tx, businessID, archiveID, keep); err != nil {
				return fmt.Errorf("move documents of vendor %s: %w", archiveID, err)
			}
		}
		if err := a.store.UpdateVendor(ctx, tx, next); err != nil {
			return err
		}
		return a.pub.VendorUpserted(ctx, tx, next)
	})
	if err != nil {
		return domain.Vendor{}, err
	}
	return out, nil
}
