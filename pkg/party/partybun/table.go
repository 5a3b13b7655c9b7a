package partybun

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/pkg/party"
	"github.com/acctsuite/acct/pkg/pgdb"
)

// Base is r itself: a service's row embedding Row has it as a method, the
// constraint of Table's rows.
func (r Row) Base() Row { return r }

// Table is the store of one kind of counterparty P on its table (alias c)
// whose rows are R (a struct embedding Row after its bun.BaseModel). Every
// method runs on the db it is given and filters by business.
type Table[R interface{ Base() Row }, P interface {
	Identity() (uuid.UUID, *string)
}] struct {
	// Noun names P in errors' context ("customer").
	Noun string
	// ExternalIDIndex is the unique index of (business_id, external_id).
	ExternalIDIndex string
	// Columns are those Update writes (UpdateColumns and the service's).
	Columns []string
	ToRow   func(P) R
	FromRow func(R) P
	// DuplicateExternalID is the error of an update giving c an external
	// id another one of the business has.
	DuplicateExternalID func(externalID string) *apperr.Error
}

func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Insert is INSERT ... ON CONFLICT DO NOTHING on the external id's unique
// index, so a concurrent create of the same external id waits for the
// first and then inserts nothing; inserted reports which.
func (t Table[R, P]) Insert(ctx context.Context, db bun.IDB, c P) (bool, error) {
	r := t.ToRow(c)
	res, err := db.NewInsert().Model(&r).
		On("CONFLICT (business_id, external_id) WHERE external_id IS NOT NULL DO NOTHING").
		Exec(ctx)
	if err != nil {
		return false, wrap("insert "+t.Noun, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, wrap("insert "+t.Noun, err)
	}
	return n == 1, nil
}

func (t Table[R, P]) find(ctx context.Context, q *bun.SelectQuery) (P, bool, error) {
	var (
		r    R
		zero P
	)
	err := q.Model(&r).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return zero, false, nil
	}
	if err != nil {
		return zero, false, wrap("find "+t.Noun, err)
	}
	return t.FromRow(r), true, nil
}

// Find reads the business's counterparty id; forUpdate locks it until the
// transaction ends.
func (t Table[R, P]) Find(ctx context.Context, db bun.IDB, businessID, id uuid.UUID, forUpdate bool) (P, bool, error) {
	q := db.NewSelect().Where("c.business_id = ? AND c.id = ?", businessID, id)
	if forUpdate {
		q = q.For("UPDATE")
	}
	return t.find(ctx, q)
}

// FindByExternalID reads the business's counterparty of that external id.
func (t Table[R, P]) FindByExternalID(ctx context.Context, db bun.IDB, businessID uuid.UUID, externalID string) (P, bool, error) {
	return t.find(ctx, db.NewSelect().Where("c.business_id = ? AND c.external_id = ?", businessID, externalID))
}

// FindByIDs reads the business's counterparties among ids (the unknown
// ones left out), by id, in one query.
func (t Table[R, P]) FindByIDs(ctx context.Context, db bun.IDB, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]P, error) {
	out := make(map[uuid.UUID]P, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []R
	if err := db.NewSelect().Model(&rows).Where("c.business_id = ? AND c.id IN (?)", businessID, bun.In(ids)).Scan(ctx); err != nil {
		return nil, wrap("find "+t.Noun+"s", err)
	}
	for _, r := range rows {
		out[r.Base().ID] = t.FromRow(r)
	}
	return out, nil
}

// Update writes the columns of c; an external id another one of the
// business has is DuplicateExternalID.
func (t Table[R, P]) Update(ctx context.Context, db bun.IDB, c P) error {
	r := t.ToRow(c)
	_, err := db.NewUpdate().Model(&r).Column(t.Columns...).WherePK().Exec(ctx)
	if _, x := c.Identity(); pgdb.IsUniqueViolation(err) && pgdb.Constraint(err) == t.ExternalIDIndex && x != nil {
		return t.DuplicateExternalID(*x)
	}
	return wrap("update "+t.Noun, err)
}

// List is one keyset page of the business's counterparties matching f.
// Every value, the cursor's included, is bound into the query, so
// PostgreSQL seeks the (business_id, key, id) index.
func (t Table[R, P]) List(ctx context.Context, db bun.IDB, businessID uuid.UUID, f party.Filter, p page.Params) ([]P, page.Meta, error) {
	// c.*: the generated sort_name is scan-only, so not among the model's
	// columns; the page's cursor needs it.
	q := Where(db.NewSelect().Model((*R)(nil)).ColumnExpr("c.*"), businessID, f)
	rows, meta, err := pagebun.Fetch(ctx, q, p, "c.id", func(r R) (any, uuid.UUID) { return PageKey(p.SortBy, r.Base()) })
	if err != nil {
		return nil, page.Meta{}, wrap("list "+t.Noun+"s", err)
	}
	out := make([]P, len(rows))
	for i, r := range rows {
		out[i] = t.FromRow(r)
	}
	return out, meta, nil
}
