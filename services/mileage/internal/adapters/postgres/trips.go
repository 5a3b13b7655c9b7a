package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/mileage/internal/app"
	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

var _ app.TripStore = (*Store)(nil)

const tripExternalIDIndex = "trips_external_id_key"

type tripRow struct {
	bun.BaseModel `bun:"table:trips,alias:t"`

	BusinessID   uuid.UUID  `bun:"business_id,pk,type:uuid"`
	ID           uuid.UUID  `bun:"id,pk,type:uuid"`
	VehicleID    uuid.UUID  `bun:"vehicle_id,type:uuid"`
	ExternalID   *string    `bun:"external_id"`
	Distance     int64      `bun:"distance"`
	TripDate     time.Time  `bun:"trip_date,type:date"`
	Purpose      string     `bun:"purpose"`
	StartAddress *string    `bun:"start_address"`
	EndAddress   *string    `bun:"end_address"`
	Description  *string    `bun:"description"`
	Tags         []tags.Tag `bun:"tags,type:jsonb"`
	Version      int        `bun:"version"`
	CreatedAt    time.Time  `bun:"created_at"`
	UpdatedAt    time.Time  `bun:"updated_at"`
	DeletedAt    *time.Time `bun:"deleted_at"`
}

func toTripRow(t domain.Trip) tripRow {
	ts := t.Tags
	if ts == nil {
		ts = []tags.Tag{}
	}
	return tripRow{
		BusinessID: t.BusinessID, ID: t.ID, VehicleID: t.VehicleID, ExternalID: t.ExternalID, Distance: int64(t.Distance),
		TripDate: t.TripDate.Time(), Purpose: string(t.Purpose), StartAddress: t.StartAddress, EndAddress: t.EndAddress,
		Description: t.Description, Tags: ts, Version: t.Version, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
		DeletedAt: t.DeletedAt,
	}
}

func (r tripRow) trip() domain.Trip {
	t := domain.Trip{
		ID: r.ID, BusinessID: r.BusinessID, VehicleID: r.VehicleID, ExternalID: r.ExternalID, Distance: domain.Miles(r.Distance),
		TripDate: domain.DateOf(r.TripDate), Purpose: domain.Purpose(r.Purpose), StartAddress: r.StartAddress,
		EndAddress: r.EndAddress, Description: r.Description, Tags: make([]tags.Tag, len(r.Tags)), Version: r.Version,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), DeletedAt: utcPtr(r.DeletedAt),
	}
	for i, tg := range r.Tags {
		tg.CreatedAt, tg.UpdatedAt = tg.CreatedAt.UTC(), tg.UpdatedAt.UTC()
		t.Tags[i] = tg
	}
	return t
}

// InsertTrip implements app.TripStore (ON CONFLICT DO NOTHING on the
// external id).
func (s *Store) InsertTrip(ctx context.Context, t domain.Trip) (bool, error) {
	db := s.conn(ctx)
	if err := lockTrips(ctx, db, t.BusinessID); err != nil {
		return false, err
	}
	r := toTripRow(t)
	res, err := db.NewInsert().Model(&r).
		On("CONFLICT (business_id, external_id) WHERE external_id IS NOT NULL DO NOTHING").Exec(ctx)
	if err != nil {
		return false, wrap("insert trip", err)
	}
	n, err := res.RowsAffected()
	if err != nil || n != 1 {
		return false, wrap("insert trip", err)
	}
	return true, addTripDays(ctx, db, dayDelta{}.add(t, 1))
}

func (s *Store) findTrip(ctx context.Context, q *bun.SelectQuery) (domain.Trip, bool, error) {
	var r tripRow
	err := q.Model(&r).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Trip{}, false, nil
	}
	if err != nil {
		return domain.Trip{}, false, wrap("find trip", err)
	}
	return r.trip(), true, nil
}

// FindTrip implements app.TripStore.
func (s *Store) FindTrip(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (domain.Trip, bool, error) {
	db := s.conn(ctx)
	q := db.NewSelect().Where("t.business_id = ? AND t.id = ?", businessID, id)
	if forUpdate {
		q = q.For("UPDATE")
	}
	return s.findTrip(ctx, q)
}

// FindTripByExternalID implements app.TripStore.
func (s *Store) FindTripByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (domain.Trip, bool, error) {
	db := s.conn(ctx)
	return s.findTrip(ctx, db.NewSelect().Where("t.business_id = ? AND t.external_id = ?", businessID, externalID))
}

// UpdateTrip implements app.TripStore.
func (s *Store) UpdateTrip(ctx context.Context, t domain.Trip) error {
	db := s.conn(ctx)
	if err := lockTrips(ctx, db, t.BusinessID); err != nil {
		return err
	}
	var old tripRow
	if err := db.NewSelect().Model(&old).Where("t.business_id = ? AND t.id = ?", t.BusinessID, t.ID).For("UPDATE").Scan(ctx); err != nil {
		return wrap("update trip", err)
	}
	r := toTripRow(t)
	_, err := db.NewUpdate().Model(&r).
		Column("vehicle_id", "external_id", "distance", "trip_date", "purpose", "start_address", "end_address",
			"description", "tags", "version", "updated_at", "deleted_at").
		WherePK().Exec(ctx)
	if pgdb.IsUniqueViolation(err) && pgdb.Constraint(err) == tripExternalIDIndex && t.ExternalID != nil {
		return domain.ErrDuplicateExternalID("trip", *t.ExternalID)
	}
	if err != nil {
		return wrap("update trip", err)
	}
	return addTripDays(ctx, db, dayDelta{}.add(old.trip(), -1).add(t, 1))
}

// lockTrips serialises, until the transaction ends, the trip writes of a
// business: trip_days rows are then only ever locked by the holder of this
// lock, taken before any of them (and before the trip's own insert), so two
// writes cannot deadlock on them.
func lockTrips(ctx context.Context, db bun.IDB, businessID uuid.UUID) error {
	_, err := db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", "mileage.trips/"+businessID.String())
	return wrap("lock trips", err)
}

// dayKey is a row of trip_days.
type dayKey struct {
	businessID, vehicleID uuid.UUID
	purpose               domain.Purpose
	deleted               bool
	date                  string
}

// daySums are what trip_days adds up.
type daySums struct{ miles, trips, deduction int64 }

// dayDelta are changes to trip_days, merged by row.
type dayDelta map[dayKey]daySums

// add adds sign × trip t (its day, vehicle, purpose and deletion) to d.
func (d dayDelta) add(t domain.Trip, sign int64) dayDelta {
	if d == nil {
		d = dayDelta{}
	}
	k := dayKey{t.BusinessID, t.VehicleID, t.Purpose, t.DeletedAt != nil, t.TripDate.String()}
	s := d[k]
	s.miles += sign * int64(t.Distance)
	s.trips += sign
	s.deduction += sign * t.EstimatedDeduction()
	d[k] = s
	return d
}

// addTripDays applies d to trip_days (one statement; rows that cancel out,
// as an update that changes nothing the summary sees, are left alone).
// Rows whose trips fall to 0 stay: the summary skips them (HAVING).
func addTripDays(ctx context.Context, db bun.IDB, d dayDelta) error {
	var vals []string
	var args []any
	for k, s := range d {
		if s == (daySums{}) {
			continue
		}
		vals = append(vals, "(?::uuid, ?::uuid, ?, ?::boolean, ?::date, ?::bigint, ?::bigint, ?::bigint)")
		args = append(args, k.businessID, k.vehicleID, string(k.purpose), k.deleted, k.date, s.miles, s.trips, s.deduction)
	}
	if len(vals) == 0 {
		return nil
	}
	_, err := db.ExecContext(ctx, `INSERT INTO trip_days AS d (business_id, vehicle_id, purpose, deleted, trip_date, miles, trips, deduction)
VALUES `+strings.Join(vals, ", ")+`
ON CONFLICT ON CONSTRAINT trip_days_pkey DO UPDATE
SET miles = d.miles + excluded.miles, trips = d.trips + excluded.trips, deduction = d.deduction + excluded.deduction`, args...)
	return wrap("add to trip_days", err)
}

// filterTrips adds f's conditions on alias t.
func filterTrips(q *bun.SelectQuery, businessID uuid.UUID, f domain.TripFilter) *bun.SelectQuery {
	q = q.Where("t.business_id = ?", businessID)
	if !f.IncludeDeleted {
		q = q.Where("t.deleted_at IS NULL")
	}
	if len(f.Purposes) > 0 {
		ps := make([]string, len(f.Purposes))
		for i, p := range f.Purposes {
			ps[i] = string(p)
		}
		q = q.Where("t.purpose IN (?)", bun.In(ps))
	}
	if len(f.VehicleIDs) > 0 {
		q = q.Where("t.vehicle_id IN (?)", bun.In(f.VehicleIDs))
	}
	if !f.From.IsZero() {
		q = q.Where("t.trip_date >= ?::date", f.From.String())
	}
	if !f.To.IsZero() {
		q = q.Where("t.trip_date <= ?::date", f.To.String())
	}
	if f.Query != "" {
		pat := likePattern(f.Query)
		q = q.Where("(t.description ILIKE ? OR t.start_address ILIKE ? OR t.end_address ILIKE ? OR t.external_id ILIKE ?)", pat, pat, pat, pat)
	}
	return q
}

// FindTrips implements app.TripStore: one keyset page.
func (s *Store) FindTrips(ctx context.Context, businessID uuid.UUID, f domain.TripFilter, p page.Params) ([]domain.Trip, page.Meta, error) {
	db := s.conn(ctx)
	q := filterTrips(db.NewSelect().Model((*tripRow)(nil)), businessID, f)
	rows, meta, err := pagebun.Fetch(ctx, q, p, "t.id", func(r tripRow) (any, uuid.UUID) {
		switch p.SortBy {
		case "created_at":
			return r.CreatedAt, r.ID
		case "updated_at":
			return r.UpdatedAt, r.ID
		}
		return domain.DateOf(r.TripDate).String(), r.ID
	})
	if err != nil {
		return nil, page.Meta{}, wrap("list trips", err)
	}
	out := make([]domain.Trip, len(rows))
	for i, r := range rows {
		out[i] = r.trip()
	}
	return out, meta, nil
}

// RateCase is the SQL expression of the rate (tenths of a cent per mile)
// in force on column's date, built from domain.Rates so the table stays
// the one source. Dates before the table never occur (trips are refused).
func RateCase(column string) string {
	var b strings.Builder
	b.WriteString("CASE")
	for i := len(domain.Rates) - 1; i >= 0; i-- {
		p := domain.Rates[i]
		fmt.Fprintf(&b, " WHEN %s >= DATE '%s' THEN %d", column, p.Effective, int64(p.Rate))
	}
	b.WriteString(" END")
	return b.String()
}

// summaryColumns are the per-month sums: miles by purpose, trips by
// purpose, and the business deduction rounded half up once per trip
// (distance in hundredths × rate in tenths of a cent = thousandths of a
// cent).
var summaryColumns = `extract(year FROM t.trip_date)::int AS year,
	extract(month FROM t.trip_date)::int AS month,
	coalesce(sum(t.distance), 0)::bigint AS miles,
	coalesce(sum(t.distance) FILTER (WHERE t.purpose = 'BUSINESS'), 0)::bigint AS business_miles,
	coalesce(sum(t.distance) FILTER (WHERE t.purpose = 'PERSONAL'), 0)::bigint AS personal_miles,
	coalesce(sum(t.distance) FILTER (WHERE t.purpose = 'UNREVIEWED'), 0)::bigint AS uncategorized_miles,
	count(*) AS trips,
	count(*) FILTER (WHERE t.purpose = 'BUSINESS') AS business_trips,
	count(*) FILTER (WHERE t.purpose = 'PERSONAL') AS personal_trips,
	count(*) FILTER (WHERE t.purpose = 'UNREVIEWED') AS uncategorized_trips,
	coalesce(sum((t.distance * (` + RateCase("t.trip_date") + `) + 500) / 1000) FILTER (WHERE t.purpose = 'BUSINESS'), 0)::bigint AS estimated_deduction`

type monthRow struct {
	Year               int   `bun:"year"`
	Month              int   `bun:"month"`
	Miles              int64 `bun:"miles"`
	BusinessMiles      int64 `bun:"business_miles"`
	PersonalMiles      int64 `bun:"personal_miles"`
	UncategorizedMiles int64 `bun:"uncategorized_miles"`
	Trips              int64 `bun:"trips"`
	BusinessTrips      int64 `bun:"business_trips"`
	PersonalTrips      int64 `bun:"personal_trips"`
	UncategorizedTrips int64 `bun:"uncategorized_trips"`
	EstimatedDeduction int64 `bun:"estimated_deduction"`
}

// SummaryQuery is the summary as one GROUP BY year, month over the trips
// themselves (the (business_id, trip_date) index): the raw query the
// benchmark compares the service with, and the tests' second reference.
func SummaryQuery(db bun.IDB, businessID uuid.UUID, f domain.TripFilter) *bun.SelectQuery {
	q := db.NewSelect().TableExpr("trips AS t").ColumnExpr(summaryColumns)
	return filterTrips(q, businessID, f).GroupExpr("1, 2").OrderExpr("1, 2")
}

// dayColumns are summaryColumns over trip_days (deductions already
// rounded per trip).
const dayColumns = `extract(year FROM d.trip_date)::int AS year,
	extract(month FROM d.trip_date)::int AS month,
	coalesce(sum(d.miles), 0)::bigint AS miles,
	coalesce(sum(d.miles) FILTER (WHERE d.purpose = 'BUSINESS'), 0)::bigint AS business_miles,
	coalesce(sum(d.miles) FILTER (WHERE d.purpose = 'PERSONAL'), 0)::bigint AS personal_miles,
	coalesce(sum(d.miles) FILTER (WHERE d.purpose = 'UNREVIEWED'), 0)::bigint AS uncategorized_miles,
	coalesce(sum(d.trips), 0)::bigint AS trips,
	coalesce(sum(d.trips) FILTER (WHERE d.purpose = 'BUSINESS'), 0)::bigint AS business_trips,
	coalesce(sum(d.trips) FILTER (WHERE d.purpose = 'PERSONAL'), 0)::bigint AS personal_trips,
	coalesce(sum(d.trips) FILTER (WHERE d.purpose = 'UNREVIEWED'), 0)::bigint AS uncategorized_trips,
	coalesce(sum(d.deduction), 0)::bigint AS estimated_deduction`

// DaySummaryQuery is the summary the service runs: the same figures as
// SummaryQuery, summed from the trip_days read model (one row per
// vehicle, purpose, deleted or not and day) by an index-only scan of its
// key. f's Query is not a summary filter and is ignored.
func DaySummaryQuery(db bun.IDB, businessID uuid.UUID, f domain.TripFilter) *bun.SelectQuery {
	q := db.NewSelect().TableExpr("trip_days AS d").ColumnExpr(dayColumns).Where("d.business_id = ?", businessID)
	if !f.IncludeDeleted {
		q = q.Where("NOT d.deleted")
	}
	if len(f.VehicleIDs) > 0 {
		q = q.Where("d.vehicle_id IN (?)", bun.In(f.VehicleIDs))
	}
	if len(f.Purposes) > 0 {
		ps := make([]string, len(f.Purposes))
		for i, p := range f.Purposes {
			ps[i] = string(p)
		}
		q = q.Where("d.purpose IN (?)", bun.In(ps))
	}
	if !f.From.IsZero() {
		q = q.Where("d.trip_date >= ?::date", f.From.String())
	}
	if !f.To.IsZero() {
		q = q.Where("d.trip_date <= ?::date", f.To.String())
	}
	return q.GroupExpr("1, 2").Having("sum(d.trips) > 0").OrderExpr("1, 2")
}

// SummarizeTrips implements app.TripStore: one GROUP BY year, month over
// trip_days (DaySummaryQuery).
func (s *Store) SummarizeTrips(ctx context.Context, businessID uuid.UUID, f domain.TripFilter) ([]domain.MonthKey, error) {
	db := s.conn(ctx)
	return scanMonths(ctx, DaySummaryQuery(db, businessID, f))
}

// SummarizeTripsRaw is SummarizeTrips by SummaryQuery, over the trips
// themselves (the tests check trip_days against it).
func (s *Store) SummarizeTripsRaw(ctx context.Context, businessID uuid.UUID, f domain.TripFilter) ([]domain.MonthKey, error) {
	db := s.conn(ctx)
	return scanMonths(ctx, SummaryQuery(db, businessID, f))
}

func scanMonths(ctx context.Context, q *bun.SelectQuery) ([]domain.MonthKey, error) {
	var rows []monthRow
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, wrap("summarize trips", err)
	}
	out := make([]domain.MonthKey, len(rows))
	for i, r := range rows {
		out[i] = domain.MonthKey{Year: r.Year, Month: r.Month, Totals: domain.Totals{
			Miles: domain.Miles(r.Miles), BusinessMiles: domain.Miles(r.BusinessMiles), PersonalMiles: domain.Miles(r.PersonalMiles),
			UncategorizedMiles: domain.Miles(r.UncategorizedMiles), Trips: r.Trips, BusinessTrips: r.BusinessTrips,
			PersonalTrips: r.PersonalTrips, UncategorizedTrips: r.UncategorizedTrips, EstimatedDeduction: r.EstimatedDeduction,
		}}
	}
	return out, nil
}
