package postgres

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// MarkChanged implements app.Store: the businesses' export versions move
// on, in the transaction ctx carries (the change's), in one statement,
// their rows locked in business order (two writers never cross).
func (s *Store) MarkChanged(ctx context.Context, businesses []uuid.UUID) error {
	if len(businesses) == 0 {
		return nil
	}
	_, err := s.conn(ctx).NewRaw(`INSERT INTO export_versions AS v (business_id, version)
		SELECT DISTINCT b, 1 FROM unnest(?::uuid[]) AS b ORDER BY 1
		ON CONFLICT (business_id) DO UPDATE SET version = v.version + 1`, pgdialect.Array(businesses)).Exec(ctx)
	return wrap("mark export version", err)
}

// ExportVersion implements app.ExportStore: business bid's export version
// (0 before any change).
func (s *Store) ExportVersion(ctx context.Context, bid uuid.UUID) (int64, error) {
	var v []int64
	if err := s.conn(ctx).NewRaw("SELECT version FROM export_versions WHERE business_id = ?", bid).Scan(ctx, &v); err != nil {
		return 0, wrap("read export version", err)
	}
	if len(v) == 0 {
		return 0, nil
	}
	return v[0], nil
}
