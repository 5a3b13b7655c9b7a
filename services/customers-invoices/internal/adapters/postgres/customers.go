package postgres

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/pkg/party/partybun"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain"
)

var _ app.CustomerStore = (*Store)(nil)

// CustomerPageSpec is the pagination of GET /customers (partybun.PageSpec).
var CustomerPageSpec = partybun.PageSpec

// externalIDIndex is the unique index of (business_id, external_id).
const externalIDIndex = "customers_external_id_key"

// customerRow is a row of customers.
type customerRow struct {
	bun.BaseModel `bun:"table:customers,alias:c"`
	partybun.Row
}

func toCustomerRow(c domain.Customer) customerRow { return customerRow{Row: partybun.RowOf(c)} }

func (r customerRow) customer() domain.Customer { return partybun.PartyOf[domain.CustomerKind](r.Row) }

// InsertCustomer implements app.CustomerStore: INSERT ... ON CONFLICT DO
// NOTHING on the external id's unique index, so a concurrent create of the
// same external id waits for the first and then inserts nothing.
func (s *Store) InsertCustomer(ctx context.Context, db bun.IDB, c domain.Customer) (bool, error) {
	r := toCustomerRow(c)
	res, err := db.NewInsert().Model(&r).
		On("CONFLICT (business_id, external_id) WHERE external_id IS NOT NULL DO NOTHING").
		Exec(ctx)
	if err != nil {
		return false, wrap("insert customer", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, wrap("insert customer", err)
	}
	return n == 1, nil
}

func (s *Store) findCustomer(ctx context.Context, q *bun.SelectQuery) (domain.Customer, bool, error) {
	var r customerRow
	err := q.Model(&r).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Customer{}, false, nil
	}
	if err != nil {
		return domain.Customer{}, false, wrap("find customer", err)
	}
	return r.customer(), true, nil
}

// FindCustomer implements app.CustomerStore.
func (s *Store) FindCustomer(ctx context.Context, db bun.IDB, businessID, id uuid.UUID, forUpdate bool) (domain.Customer, bool, error) {
	q := db.NewSelect().Where("c.business_id = ? AND c.id = ?", businessID, id)
	if forUpdate {
		q = q.For("UPDATE")
	}
	return s.findCustomer(ctx, q)
}

// FindCustomerByExternalID implements app.CustomerStore.
func (s *Store) FindCustomerByExternalID(ctx context.Context, db bun.IDB, businessID uuid.UUID, externalID string) (domain.Customer, bool, error) {
	return s.findCustomer(ctx, db.NewSelect().Where("c.business_id = ? AND c.external_id = ?", businessID, externalID))
}

// FindCustomersByIDs implements app.CustomerStore: one query for them all.
func (s *Store) FindCustomersByIDs(ctx context.Context, db bun.IDB, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]domain.Customer, error) {
	out := make(map[uuid.UUID]domain.Customer, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []customerRow
	if err := db.NewSelect().Model(&rows).Where("c.business_id = ? AND c.id IN (?)", businessID, bun.In(ids)).Scan(ctx); err != nil {
		return nil, wrap("find customers", err)
	}
	for _, r := range rows {
		out[r.ID] = r.customer()
	}
	return out, nil
}

// UpdateCustomer implements app.CustomerStore.
func (s *Store) UpdateCustomer(ctx context.Context, db bun.IDB, c domain.Customer) error {
	r := toCustomerRow(c)
	_, err := db.NewUpdate().Model(&r).
		Column(partybun.UpdateColumns...).
		WherePK().Exec(ctx)
	if pgdb.IsUniqueViolation(err) && pgdb.Constraint(err) == externalIDIndex && c.ExternalID != nil {
		return domain.ErrDuplicateExternalID(*c.ExternalID)
	}
	return wrap("update customer", err)
}

// FindCustomers implements app.CustomerStore: one keyset page. Every value,
// the cursor's included, is bound into the query, so PostgreSQL seeks the
// (business_id, key, id) index.
func (s *Store) FindCustomers(ctx context.Context, db bun.IDB, businessID uuid.UUID, f domain.CustomerFilter, p page.Params) ([]domain.Customer, page.Meta, error) {
	// c.*: the generated sort_name is scan-only, so not among the model's
	// columns; the page's cursor needs it.
	q := partybun.Where(db.NewSelect().Model((*customerRow)(nil)).ColumnExpr("c.*"), businessID, f)
	rows, meta, err := pagebun.Fetch(ctx, q, p, "c.id", func(r customerRow) (any, uuid.UUID) { return partybun.PageKey(p.SortBy, r.Row) })
	if err != nil {
		return nil, page.Meta{}, wrap("list customers", err)
	}
	out := make([]domain.Customer, len(rows))
	for i, r := range rows {
		out[i] = r.customer()
	}
	return out, meta, nil
}
