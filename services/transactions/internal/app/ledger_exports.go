package app

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/csvexport"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// ExportURLExpiry is how long an export's pre-signed URL is valid.
const ExportURLExpiry = storage.DefaultPresignExpiry

// ErrExportStorageNotConfigured is the 503 of an export while the service
// runs without storage.
func ErrExportStorageNotConfigured() *apperr.Error {
	return apperr.New(apperr.Unavailable, "export storage is not configured").WithEnum(EnumStorageNotConfigured)
}

// Download is a stored export and its pre-signed URL.
type Download struct {
	ID        uuid.UUID
	URL       string
	FileName  string
	FileType  string
	CreatedAt time.Time
}

// UseExportStore turns the ledger's CSV exports on: files go to s. Without
// it every export is the 503 ErrExportStorageNotConfigured.
func (l *Ledger) UseExportStore(s storage.Store) { l.files = s }

// EntriesCSV writes the journal's lines over the period (entry_at in
// [From, Until)), one CSV row per line in chronological order, to storage
// and returns its download. Rows go from the database cursor through the
// CSV writer into storage: memory stays bounded whatever the size.
func (l *Ledger) EntriesCSV(ctx context.Context, businessID uuid.UUID, f PeriodFilter) (Download, error) {
	return l.export(ctx, businessID, "entries", f, func(ctx context.Context, w *csvexport.Writer) error {
		if err := w.Write(domain.EntriesExportHeader); err != nil {
			return err
		}
		rec := make([]string, 0, len(domain.EntriesExportHeader))
		return l.store.StreamExportLines(ctx, businessID, f, func(r domain.ExportLine) error {
			rec = r.Record(rec)
			return w.Write(rec)
		})
	})
}

// BalancesCSV writes the balances of GET /ledger/balances over the period,
// one CSV row per account of the chart, to storage and returns its
// download.
func (l *Ledger) BalancesCSV(ctx context.Context, businessID uuid.UUID, f PeriodFilter) (Download, error) {
	return l.export(ctx, businessID, "balances", f, func(ctx context.Context, w *csvexport.Writer) error {
		nodes, err := l.Balances(ctx, businessID, f)
		if err != nil {
			return err
		}
		if err := w.Write(domain.BalancesExportHeader); err != nil {
			return err
		}
		return domain.WalkBalanceRecords(nodes, w.Write)
	})
}

// export stores what write writes as the business's export of kind over
// the period and presigns it (503 without storage).
func (l *Ledger) export(ctx context.Context, businessID uuid.UUID, kind string, f PeriodFilter, write func(context.Context, *csvexport.Writer) error) (Download, error) {
	if l.files == nil {
		return Download{}, ErrExportStorageNotConfigured()
	}
	d := Download{ID: newID(), FileType: "csv", CreatedAt: l.clock(), FileName: exportFileName("ledger_"+kind, f)}
	key := fmt.Sprintf("transactions/%s/ledger-%s/%s.csv", businessID, kind, d.ID)
	if err := csvexport.Put(ctx, l.files, key, func(w *csvexport.Writer) error { return write(ctx, w) }); err != nil {
		return Download{}, fmt.Errorf("export ledger %s of %s: %w", kind, businessID, err)
	}
	var err error
	if d.URL, err = l.files.PresignGet(ctx, key, ExportURLExpiry, storage.PresignOptions{Filename: d.FileName, ContentType: csvexport.ContentType}); err != nil {
		return Download{}, fmt.Errorf("presign ledger %s export: %w", kind, err)
	}
	return d, nil
}

// exportFileName names an export over the period by its first and last
// UTC days: ledger_entries_2026-01-01_2026-12-31.csv, or with "start" and
// "end" for an open bound.
func exportFileName(prefix string, f PeriodFilter) string {
	from, until := "start", "end"
	if f.From != nil {
		from = f.From.UTC().Format(domain.ExportDateLayout)
	}
	if f.Until != nil {
		until = f.Until.Add(-time.Microsecond).UTC().Format(domain.ExportDateLayout)
	}
	return fmt.Sprintf("%s_%s_%s.csv", prefix, from, until)
}
