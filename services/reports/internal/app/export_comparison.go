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
	if err := x.storageOn(); err != nil {
		return Download{}, err
	}
	r, err := x.reports.Comparison(ctx, bid, c)
	if err != nil {
		return Download{}, err
	}
	cols := make([]domain.ComparisonColumn, len(r.Items))
	first, last := c.Periods[0].Start, c.Periods[0].End
	for i, it := range r.Items {
		cols[i] = domain.ComparisonColumn{Period: it.Period, Filter: it.Filter, PnL: it.PnL}
		if it.Period.Start.Before(first) {
			first = it.Period.Start
		}
		if it.Period.End.After(last) {
			last = it.Period.End
		}
	}
	var buf bytes.Buffer
	if err := csvexport.NewWriter(&buf).WriteAll(domain.ComparisonCSV(cols, f)); err != nil {
		return Download{}, fmt.Errorf("write comparison csv: %w", err)
	}
	now := x.clk.Now()
	d := Download{ID: uuid.Must(uuid.NewV7()), FileType: "csv", CreatedAt: now,
		FileName: fmt.Sprintf("profit_and_loss_comparison_%s_%s.csv", first.Format(domain.DateLayout), last.Format(domain.DateLayout))}
	key := fmt.Sprintf("reports/%s/pnl/%s.csv", bid, d.ID)
	if err := x.files.Put(ctx, key, bytes.NewReader(buf.Bytes()), int64(buf.Len()), "text/csv"); err != nil {
		return Download{}, fmt.Errorf("store export: %w", err)
	}
	return x.presign(ctx, key, d)
}
