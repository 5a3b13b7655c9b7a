package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/tagreg"
)

type tagDimensionRow struct {
	bun.BaseModel `bun:"table:tag_dimensions,alias:td"`

	BusinessID  uuid.UUID  `bun:"business_id,pk,type:uuid"`
	ID          uuid.UUID  `bun:"id,pk,type:uuid"`
	Key         string     `bun:"key"`
	DisplayName string     `bun:"display_name"`
	Strictness  string     `bun:"strictness"`
	UserVisible bool       `bun:"user_visible"`
	CreatedAt   time.Time  `bun:"created_at"`
	UpdatedAt   time.Time  `bun:"updated_at"`
	DeletedAt   *time.Time `bun:"deleted_at"`
}

type tagValueRow struct {
	bun.BaseModel `bun:"table:tag_values,alias:tv"`

	BusinessID  uuid.UUID  `bun:"business_id,pk,type:uuid"`
	ID          uuid.UUID  `bun:"id,pk,type:uuid"`
	DimensionID uuid.UUID  `bun:"dimension_id,type:uuid"`
	Value       string     `bun:"value"`
	DisplayName string     `bun:"display_name"`
	ArchivedAt  *time.Time `bun:"archived_at"`
	CreatedAt   time.Time  `bun:"created_at"`
	UpdatedAt   time.Time  `bun:"updated_at"`
}

func toDimensionRow(d tagreg.Dimension) tagDimensionRow {
	return tagDimensionRow{
		BusinessID: d.BusinessID, ID: d.ID, Key: d.Key, DisplayName: d.DisplayName, Strictness: string(d.Strictness),
		UserVisible: d.UserVisible, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, DeletedAt: d.DeletedAt,
	}
}

func (r tagDimensionRow) dimension() tagreg.Dimension {
	return tagreg.Dimension{
		ID: r.ID, BusinessID: r.BusinessID, Key: r.Key, DisplayName: r.DisplayName, Strictness: tags.Strictness(r.Strictness),
		UserVisible: r.UserVisible, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), DeletedAt: utc(r.DeletedAt),
	}
}

func toValueRows(businessID uuid.UUID, vs []tagreg.Value) []tagValueRow {
	out := make([]tagValueRow, len(vs))
	for i, v := range vs {
		out[i] = tagValueRow{
			BusinessID: businessID, ID: v.ID, DimensionID: v.DimensionID, Value: v.Value, DisplayName: v.DisplayName,
			ArchivedAt: v.ArchivedAt, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt,
		}
	}
	return out
}

func (r tagValueRow) value() tagreg.Value {
	return tagreg.Value{
		ID: r.ID, DimensionID: r.DimensionID, Value: r.Value, DisplayName: r.DisplayName, ArchivedAt: utc(r.ArchivedAt),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

// withValues reads the values of the dimensions rows and assembles them.
func withValues(ctx context.Context, db bun.IDB, businessID uuid.UUID, rows []tagDimensionRow) ([]tagreg.Dimension, error) {
	if len(rows) == 0 {
		return []tagreg.Dimension{}, nil
	}
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	var vals []tagValueRow
	if err := db.NewSelect().Model(&vals).Where("tv.business_id = ?", businessID).
		Where("tv.dimension_id IN (?)", bun.In(ids)).OrderExpr("tv.value, tv.id").Scan(ctx); err != nil {
		return nil, wrap("select tag values", err)
	}
	byDim := map[uuid.UUID][]tagreg.Value{}
	for _, v := range vals {
		byDim[v.DimensionID] = append(byDim[v.DimensionID], v.value())
	}
	out := make([]tagreg.Dimension, len(rows))
	for i, r := range rows {
		out[i] = r.dimension()
		out[i].Values = byDim[r.ID]
	}
	return out, nil
}

// FindDimensions is the business's dimensions by key, with their values
// by value; deleted ones only with includeDeleted.
func (s *Store) FindDimensions(ctx context.Context, businessID uuid.UUID, includeDeleted bool) ([]tagreg.Dimension, error) {
	db := s.conn(ctx)
	var rows []tagDimensionRow
	q := db.NewSelect().Model(&rows).Where("td.business_id = ?", businessID).OrderExpr("td.key, td.id")
	if !includeDeleted {
		q = q.Where("td.deleted_at IS NULL")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, wrap("select tag dimensions", err)
	}
	return withValues(ctx, db, businessID, rows)
}

// FindDimension is the business's dimension id with its values (locked
// FOR UPDATE with forUpdate, the values' rows included).
func (s *Store) FindDimension(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (tagreg.Dimension, bool, error) {
	db := s.conn(ctx)
	var r tagDimensionRow
	q := db.NewSelect().Model(&r).Where("td.business_id = ? AND td.id = ?", businessID, id)
	if forUpdate {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return tagreg.Dimension{}, false, nil
		}
		return tagreg.Dimension{}, false, wrap("select tag dimension", err)
	}
	ds, err := withValues(ctx, db, businessID, []tagDimensionRow{r})
	if err != nil {
		return tagreg.Dimension{}, false, err
	}
	return ds[0], true, nil
}

// InsertDimension writes a new dimension with its values; false when the
// business has the dimension already (nothing written).
func (s *Store) InsertDimension(ctx context.Context, d tagreg.Dimension) (bool, error) {
	db := s.conn(ctx)
	r := toDimensionRow(d)
	res, err := db.NewInsert().Model(&r).On("CONFLICT DO NOTHING").Exec(ctx)
	if err != nil {
		return false, wrap("insert tag dimension", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	return true, s.InsertValues(ctx, d.BusinessID, d.Values)
}

// UpdateDimension writes the dimension's own fields (not its values).
func (s *Store) UpdateDimension(ctx context.Context, d tagreg.Dimension) error {
	db := s.conn(ctx)
	r := toDimensionRow(d)
	_, err := db.NewUpdate().Model(&r).Column("display_name", "strictness", "user_visible", "updated_at", "deleted_at").
		WherePK().Exec(ctx)
	return wrap("update tag dimension", err)
}

// InsertValues writes value definitions the business does not have yet
// (existing ones are left as they are).
func (s *Store) InsertValues(ctx context.Context, businessID uuid.UUID, vs []tagreg.Value) error {
	db := s.conn(ctx)
	if len(vs) == 0 {
		return nil
	}
	rows := toValueRows(businessID, vs)
	_, err := db.NewInsert().Model(&rows).On("CONFLICT DO NOTHING").Exec(ctx)
	return wrap("insert tag values", err)
}

// UpdateValue writes a value definition's display name and archive state.
func (s *Store) UpdateValue(ctx context.Context, businessID uuid.UUID, v tagreg.Value) error {
	db := s.conn(ctx)
	r := toValueRows(businessID, []tagreg.Value{v})[0]
	_, err := db.NewUpdate().Model(&r).Column("display_name", "archived_at", "updated_at").WherePK().Exec(ctx)
	return wrap("update tag value", err)
}

// LearnTags records the dimensions and values of entries the registry
// lacks, in two multi-row statements (existing rows, and so their display
// names, are kept). entries come sorted by id, so concurrent consumers lock
// rows in one order.
func (s *Store) LearnTags(ctx context.Context, entries []tagreg.Dimension) error {
	db := s.conn(ctx)
	if len(entries) == 0 {
		return nil
	}
	dims := make([]tagDimensionRow, len(entries))
	var vals []tagValueRow
	for i, d := range entries {
		dims[i] = toDimensionRow(d)
		vals = append(vals, toValueRows(d.BusinessID, d.Values)...)
	}
	if _, err := db.NewInsert().Model(&dims).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
		return wrap("learn tag dimensions", err)
	}
	if len(vals) == 0 {
		return nil
	}
	_, err := db.NewInsert().Model(&vals).On("CONFLICT DO NOTHING").Exec(ctx)
	return wrap("learn tag values", err)
}
