package postgres

import (
	"context"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

var _ app.AccountStore = (*Store)(nil)

// CheckAccounts implements app.AccountStore: chart.Check's rules (400
// UnknownAccount naming each unknown or archived account's field, 503
// before the business's chart has arrived) on the local chart.
func (s *Store) CheckAccounts(ctx context.Context, businessID uuid.UUID, fields []invoice.AccountField) error {
	named := make([]chart.Field, len(fields))
	for i, f := range fields {
		named[i] = chart.Field{Name: f.Field, Ref: chart.Ref(f.Ref)}
	}
	return chart.Check(ctx, s.conn(ctx), s.Table, businessID, named, nil)
}
