package app

import (
	"bytes"
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/csvexport"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// ComparisonCSV writes the CSV of comparison c of business bid (the
// figures of Comparison, the same code as the comparison's answer), its
// amounts in format f, to storage and returns its download. The file is
// small (a row per section and account, a column per period × filter, at
// most 360): it is rendered in memory, then stored.
func (x *Exports) ComparisonCSV(ctx context.Context, bid uuid.UUID, c domain.Comparison, f domain.MoneyFormat) (Download, error) {
	file, err := x.statementFile(ctx, bid, "pnl-comparison", "csv", struct {
		Comparison domain.Comparison
		Format     domain.MoneyFormat
	}{c, f})
	if err != nil {
		return Download{}, err
	}
	// The file covers the comparison's periods (its columns).
	first, last := c.Periods[0].Start, c.Periods[0].End
	for _, p := range c.Periods {
		if p.Start.Before(first) {
			first = p.Start
		}
		if p.End.After(last) {
			last = p.End
		}
	}
	file.name = fmt.Sprintf("profit_and_loss_comparison_%s_%s.csv", first.Format(domain.DateLayout), last.Format(domain.DateLayout))
	return x.serve(ctx, file, func(ctx context.Context, key string) error {
		r, err := x.reports.Comparison(ctx, bid, c)
		if err != nil {
			return err
		}
		cols := make([]domain.ComparisonColumn, len(r.Items))
		for i, it := range r.Items {
			cols[i] = domain.ComparisonColumn{Period: it.Period, Filter: it.Filter, PnL: it.PnL}
		}
		var buf bytes.Buffer
		if err := csvexport.NewWriter(&buf).WriteAll(domain.ComparisonCSV(cols, f)); err != nil {
			return fmt.Errorf("write comparison csv: %w", err)
		}
		return x.putBytes(ctx, key, "text/csv", &buf)
	})
}
