package pgdb

import (
	"context"
	"fmt"
	"reflect"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// IDsByExternalID maps the external ids among externalIDs that rows of
// table (a business-owned table with business_id, id and external_id
// columns) of the business carry to their ids; external ids no row has
// are absent.
func IDsByExternalID(ctx context.Context, db bun.IDB, table string, businessID uuid.UUID, externalIDs []string) (map[string]uuid.UUID, error) {
	out := make(map[string]uuid.UUID, len(externalIDs))
	if len(externalIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		ID         uuid.UUID `bun:"id,type:uuid"`
		ExternalID string    `bun:"external_id"`
	}
	if err := db.NewRaw(`SELECT id, external_id FROM ? WHERE business_id = ? AND external_id = ANY(?::text[])`,
		bun.Ident(table), businessID, pgdialect.Array(externalIDs)).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("find %s by external id: %w", table, err)
	}
	for _, r := range rows {
		out[r.ExternalID] = r.ID
	}
	return out, nil
}

// ReplaceChildren replaces the rows of a child table that belong to one
// parent of the business (its allocations, say): every row whose
// business_id is businessID and whose parentColumn is parentID is deleted,
// then rows (a pointer to a slice of the table's Bun models, possibly
// empty) are inserted, in the caller's transaction.
func ReplaceChildren(ctx context.Context, db bun.IDB, model any, parentColumn string, businessID, parentID uuid.UUID, rows any) error {
	n, err := sliceLen(rows)
	if err != nil {
		return err
	}
	if _, err := db.NewDelete().Model(model).Where("business_id = ? AND ? = ?", businessID, bun.Ident(parentColumn), parentID).Exec(ctx); err != nil {
		return fmt.Errorf("delete the rows of %s %s: %w", parentColumn, parentID, err)
	}
	if n == 0 {
		return nil
	}
	if _, err := db.NewInsert().Model(rows).Exec(ctx); err != nil {
		return fmt.Errorf("insert the rows of %s %s: %w", parentColumn, parentID, err)
	}
	return nil
}

// sliceLen is the length of the slice rows points to.
func sliceLen(rows any) (int, error) {
	v := reflect.ValueOf(rows)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Slice {
		return 0, fmt.Errorf("pgdb: rows must be a pointer to a slice, not %T", rows)
	}
	return v.Elem().Len(), nil
}
