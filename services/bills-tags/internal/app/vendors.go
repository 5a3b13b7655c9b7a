package app

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/party"
	"github.com/acctsuite/acct/pkg/party/partyapp"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
)

// VendorPageSpec is the pagination of GET /vendors: pkg/party's listing
// of counterparties (sort_by name, created_at or updated_at).
var VendorPageSpec = party.PageSpec

// VendorStore is the vendors' persistence. Every method runs in the unit
// of work ctx carries (else on the pool) and filters by business.
type VendorStore interface {
	// InsertVendor inserts c unless the business already has a vendor
	// with c's external id; inserted reports which. Concurrent inserts of
	// one external id insert one vendor (the unique index decides).
	InsertVendor(ctx context.Context, c domain.Vendor) (inserted bool, err error)
	// FindVendor reads the business's vendor id; forUpdate locks it
	// until the transaction ends.
	FindVendor(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (domain.Vendor, bool, error)
	FindVendorByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (domain.Vendor, bool, error)
	// FindVendorsByIDs reads the business's vendors among ids (the
	// unknown ones are left out), by id.
	FindVendorsByIDs(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]domain.Vendor, error)
	// UpdateVendor writes every field of c; an external id another
	// vendor of the business has is domain.ErrDuplicateExternalID.
	UpdateVendor(ctx context.Context, c domain.Vendor) error
	// FindVendors is one keyset page of the business's vendors
	// matching f.
	FindVendors(ctx context.Context, businessID uuid.UUID, f domain.VendorFilter, p page.Params) ([]domain.Vendor, page.Meta, error)
}

// Vendors holds the vendor use cases (pkg/party/partyapp's: Create,
// Update, Archive; and Merge).
type Vendors struct {
	*partyapp.UseCases[domain.Vendor]
	uow   UnitOfWork
	store VendorStore
	pub   Publisher
	mover VendorMover
	clk   clock.Clock
}

// NewVendors assembles the vendor use cases: pkg/party/partyapp's on the
// VendorStore, each change publishing its vendor.upserted in its unit of
// work, and Merge.
func NewVendors(uow UnitOfWork, store VendorStore, pub Publisher, _ *slog.Logger) *Vendors {
	a := &Vendors{uow: uow, store: store, pub: pub, clk: clock.System}
	a.UseCases = partyapp.New(uow, partyapp.Ports[domain.Vendor]{
		Noun: "vendor", New: domain.NewVendor,
		Insert: store.InsertVendor, Find: store.FindVendor, FindByExternalID: store.FindVendorByExternalID,
		Update: store.UpdateVendor, List: store.FindVendors, Upserted: a.upserted,
		NotFound: domain.ErrVendorNotFound, DuplicateExternalID: domain.ErrDuplicateExternalID,
	})
	return a
}

// upserted publishes v's vendor.upserted in the unit of work of ctx.
func (a *Vendors) upserted(ctx context.Context, v domain.Vendor) error {
	return publish(ctx, a.pub, vendorEvent(v))
}

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
// inside the merge's unit of work (the bills and vendor credits of the
// vendor merged away), publishing what their snapshots need.
type VendorMover interface {
	MoveVendorDocuments(ctx context.Context, businessID, from, to uuid.UUID) error
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
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		first, second := keep, archiveID
		if second.String() < first.String() {
			first, second = second, first
		}
		locked := map[uuid.UUID]domain.Vendor{}
		for _, id := range []uuid.UUID{first, second} {
			v, ok, err := a.store.FindVendor(ctx, businessID, id, true)
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
		next, changed := gone.MergeInto(keep, a.clk.Now())
		if !changed {
			return nil
		}
		if a.mover != nil {
			if err := a.mover.MoveVendorDocuments(ctx, businessID, archiveID, keep); err != nil {
				return fmt.Errorf("move documents of vendor %s: %w", archiveID, err)
			}
		}
		if err := a.store.UpdateVendor(ctx, next); err != nil {
			return err
		}
		return publish(ctx, a.pub, vendorEvent(next))
	})
	if err != nil {
		return domain.Vendor{}, err
	}
	return out, nil
}

// vendorResolver finds or creates the vendor a document names: the one
// resolution bills and vendor credits share (vendor_id or
// vendor_external_id), and the new vendor of a bill made from a receipt.
type vendorResolver struct {
	store VendorStore
	pub   Publisher
	clk   clock.Clock
}

// resolve is the vendor a bill or vendor credit names, in the unit of
// work of ctx: vendor_id must be the business's (otherwise a 400 naming
// vendor_id, with enum); an unknown vendor_external_id creates a vendor
// with that external id and no name (and its vendor.upserted), or finds
// the one a concurrent request created.
func (r vendorResolver) resolve(ctx context.Context, businessID uuid.UUID, id *uuid.UUID, externalID *string, enum string) (domain.Vendor, error) {
	if id != nil {
		v, ok, err := r.store.FindVendor(ctx, businessID, *id, false)
		if err != nil {
			return domain.Vendor{}, fmt.Errorf("find vendor: %w", err)
		}
		if !ok {
			return domain.Vendor{}, apperr.PayloadField("vendor_id", "no such vendor in the business").WithEnum(enum)
		}
		return v, nil
	}
	v, ok, err := r.store.FindVendorByExternalID(ctx, businessID, *externalID)
	if err != nil || ok {
		return v, err
	}
	v, inserted, err := r.create(ctx, businessID, domain.VendorInput{ExternalID: externalID})
	if err != nil || inserted {
		return v, err
	}
	// Created concurrently.
	v, _, err = r.store.FindVendorByExternalID(ctx, businessID, *externalID)
	return v, err
}

// create inserts a new vendor from in and publishes its vendor.upserted,
// in the unit of work of ctx; inserted is false (nothing published) when
// the business has a vendor with in's external id already.
func (r vendorResolver) create(ctx context.Context, businessID uuid.UUID, in domain.VendorInput) (domain.Vendor, bool, error) {
	v := domain.NewVendor(businessID, newID(), in, r.clk.Now())
	inserted, err := r.store.InsertVendor(ctx, v)
	if err != nil {
		return domain.Vendor{}, false, fmt.Errorf("insert vendor: %w", err)
	}
	if !inserted {
		return v, false, nil
	}
	return v, true, publish(ctx, r.pub, vendorEvent(v))
}

// of is the vendor vendorID of a stored document (owner names it in the
// error, "bill <id>"): a document's vendor always exists, so a missing
// one is an internal error.
func (r vendorResolver) of(ctx context.Context, businessID, vendorID uuid.UUID, owner string) (domain.Vendor, error) {
	v, ok, err := r.store.FindVendor(ctx, businessID, vendorID, false)
	if err != nil {
		return domain.Vendor{}, fmt.Errorf("find vendor of %s: %w", owner, err)
	}
	if !ok {
		return domain.Vendor{}, fmt.Errorf("%s: vendor %s missing", owner, vendorID)
	}
	return v, nil
}
