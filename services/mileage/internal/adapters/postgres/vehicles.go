package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/mileage/internal/app"
	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

var _ app.VehicleStore = (*Store)(nil)

const vehicleExternalIDIndex = "vehicles_external_id_key"

type vehicleRow struct {
	bun.BaseModel `bun:"table:vehicles,alias:v"`

	BusinessID   uuid.UUID  `bun:"business_id,pk,type:uuid"`
	ID           uuid.UUID  `bun:"id,pk,type:uuid"`
	ExternalID   *string    `bun:"external_id"`
	MakeAndModel string     `bun:"make_and_model"`
	Year         *int       `bun:"year"`
	LicensePlate *string    `bun:"license_plate"`
	VIN          *string    `bun:"vin"`
	Description  *string    `bun:"description"`
	IsPrimary    bool       `bun:"is_primary"`
	Version      int        `bun:"version"`
	CreatedAt    time.Time  `bun:"created_at"`
	UpdatedAt    time.Time  `bun:"updated_at"`
	ArchivedAt   *time.Time `bun:"archived_at"`
	DeletedAt    *time.Time `bun:"deleted_at"`
	HasTrips     bool       `bun:"has_trips,scanonly"`
}

// hasTrips is the has_trips column: whether undeleted trips use the vehicle.
const hasTrips = "EXISTS (SELECT 1 FROM trips t WHERE t.business_id = v.business_id AND t.vehicle_id = v.id AND t.deleted_at IS NULL) AS has_trips"

func toVehicleRow(v domain.Vehicle) vehicleRow {
	return vehicleRow{
		BusinessID: v.BusinessID, ID: v.ID, ExternalID: v.ExternalID, MakeAndModel: v.MakeAndModel, Year: v.Year,
		LicensePlate: v.LicensePlate, VIN: v.VIN, Description: v.Description, IsPrimary: v.IsPrimary, Version: v.Version,
		CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, ArchivedAt: v.ArchivedAt, DeletedAt: v.DeletedAt,
	}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func (r vehicleRow) vehicle() domain.Vehicle {
	return domain.Vehicle{
		ID: r.ID, BusinessID: r.BusinessID, ExternalID: r.ExternalID, MakeAndModel: r.MakeAndModel, Year: r.Year,
		LicensePlate: r.LicensePlate, VIN: r.VIN, Description: r.Description, IsPrimary: r.IsPrimary, Version: r.Version,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), ArchivedAt: utcPtr(r.ArchivedAt),
		DeletedAt: utcPtr(r.DeletedAt), HasTrips: r.HasTrips,
	}
}

// LockVehicles implements app.VehicleStore: a transaction lock per
// business that serialises the changes of its primary vehicle.
func (s *Store) LockVehicles(ctx context.Context, businessID uuid.UUID) error {
	db := s.conn(ctx)
	_, err := db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", "mileage.vehicles/"+businessID.String())
	return wrap("lock vehicles", err)
}

// InsertVehicle implements app.VehicleStore (ON CONFLICT DO NOTHING on the
// external id).
func (s *Store) InsertVehicle(ctx context.Context, v domain.Vehicle) (bool, error) {
	db := s.conn(ctx)
	r := toVehicleRow(v)
	res, err := db.NewInsert().Model(&r).
		On("CONFLICT (business_id, external_id) WHERE external_id IS NOT NULL DO NOTHING").Exec(ctx)
	if err != nil {
		return false, wrap("insert vehicle", err)
	}
	n, err := res.RowsAffected()
	return n == 1, wrap("insert vehicle", err)
}

func (s *Store) findVehicle(ctx context.Context, q *bun.SelectQuery) (domain.Vehicle, bool, error) {
	var r vehicleRow
	err := q.Model(&r).ColumnExpr("v.*").ColumnExpr(hasTrips).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Vehicle{}, false, nil
	}
	if err != nil {
		return domain.Vehicle{}, false, wrap("find vehicle", err)
	}
	return r.vehicle(), true, nil
}

// FindVehicle implements app.VehicleStore.
func (s *Store) FindVehicle(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (domain.Vehicle, bool, error) {
	db := s.conn(ctx)
	q := db.NewSelect().Where("v.business_id = ? AND v.id = ?", businessID, id)
	if forUpdate {
		q = q.For("UPDATE OF v")
	}
	return s.findVehicle(ctx, q)
}

// FindVehicleByExternalID implements app.VehicleStore.
func (s *Store) FindVehicleByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (domain.Vehicle, bool, error) {
	db := s.conn(ctx)
	return s.findVehicle(ctx, db.NewSelect().Where("v.business_id = ? AND v.external_id = ?", businessID, externalID))
}

// FindPrimaryVehicle implements app.VehicleStore.
func (s *Store) FindPrimaryVehicle(ctx context.Context, businessID uuid.UUID) (domain.Vehicle, bool, error) {
	db := s.conn(ctx)
	return s.findVehicle(ctx, db.NewSelect().Where("v.business_id = ? AND v.is_primary", businessID).For("UPDATE OF v"))
}

// FindVehiclesByIDs implements app.VehicleStore.
func (s *Store) FindVehiclesByIDs(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]domain.Vehicle, error) {
	db := s.conn(ctx)
	out := map[uuid.UUID]domain.Vehicle{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []vehicleRow
	err := db.NewSelect().Model(&rows).ColumnExpr("v.*").ColumnExpr(hasTrips).
		Where("v.business_id = ? AND v.id IN (?)", businessID, bun.In(ids)).Scan(ctx)
	if err != nil {
		return nil, wrap("find vehicles", err)
	}
	for _, r := range rows {
		out[r.ID] = r.vehicle()
	}
	return out, nil
}

// UpdateVehicle implements app.VehicleStore.
func (s *Store) UpdateVehicle(ctx context.Context, v domain.Vehicle) error {
	db := s.conn(ctx)
	r := toVehicleRow(v)
	_, err := db.NewUpdate().Model(&r).
		Column("external_id", "make_and_model", "year", "license_plate", "vin", "description", "is_primary", "version",
			"updated_at", "archived_at", "deleted_at").
		WherePK().Exec(ctx)
	if pgdb.IsUniqueViolation(err) && pgdb.Constraint(err) == vehicleExternalIDIndex && v.ExternalID != nil {
		return domain.ErrDuplicateExternalID("vehicle", *v.ExternalID)
	}
	return wrap("update vehicle", err)
}

// FindVehicles implements app.VehicleStore: every vehicle f selects,
// primary first, then by creation.
func (s *Store) FindVehicles(ctx context.Context, businessID uuid.UUID, f domain.VehicleFilter) ([]domain.Vehicle, error) {
	db := s.conn(ctx)
	var rows []vehicleRow
	q := db.NewSelect().Model(&rows).ColumnExpr("v.*").ColumnExpr(hasTrips).Where("v.business_id = ?", businessID)
	if !f.IncludeArchived {
		q = q.Where("v.archived_at IS NULL")
	}
	if !f.IncludeDeleted {
		q = q.Where("v.deleted_at IS NULL")
	}
	if err := q.OrderExpr("v.is_primary DESC, v.created_at, v.id").Scan(ctx); err != nil {
		return nil, wrap("list vehicles", err)
	}
	out := make([]domain.Vehicle, len(rows))
	for i, r := range rows {
		out[i] = r.vehicle()
	}
	return out, nil
}
