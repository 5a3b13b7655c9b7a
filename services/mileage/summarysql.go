package mileage

import (
	"net/url"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/services/mileage/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

// RawSummarySQL is the summary of GET /mileage/summary?query as one raw
// GROUP BY year, month over the trips themselves (postgres.SummaryQuery,
// table names unqualified: run it with search_path mileage). The service
// answers the same figures from its trip_days read model; `make bench`
// runs this text as the summary's baseline and checks both agree.
func RawSummarySQL(businessID uuid.UUID, query url.Values) (string, error) {
	f, err := domain.ParseTripFilter(query, false)
	if err != nil {
		return "", err
	}
	return postgres.SummaryQuery(bun.NewDB(nil, pgdialect.New()), businessID, f).String(), nil
}
