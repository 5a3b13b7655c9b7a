package app

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/csvexport"
	"github.com/acctsuite/acct/pkg/exportfiles"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// ExportURLExpiry is how long an export's pre-signed URL is valid at most:
// a URL to a file close to its expiry (EXPORT_TTL) ends with the file.
const ExportURLExpiry = storage.DefaultPresignExpiry

// ExportService names the service in its export files' keys
// (exports/transactions/...).
const ExportService = "transactions"

// legacyExportKey matches the export files of the former key layout,
// transactions/<business>/ledger-<kind>/<id>.csv: the sweep expires them
// like the others. Nothing else is stored under transactions/ (receipts and
// documents live under <business>/receipts/), and the pattern keeps the
// sweep to exports even so.
var legacyExportKey = regexp.MustCompile(`^transactions/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/ledger-[a-z]+/[^/]+\.csv$`)

// LegacyExportPrefix is where legacyExportKey's files are.
const LegacyExportPrefix = "transactions/"

// LedgerVersions tells the version of the journal and chart of accounts a
// ledger export reads (postgres.Store).
type LedgerVersions interface {
	LedgerVersion(ctx context.Context, businessID uuid.UUID) (LedgerVersion, error)
}

// LedgerVersion identifies the state of a business's journal and chart of
// accounts: it changes whenever an entry is posted (a reversal too) or an
// account is added or changed.
type LedgerVersion struct {
	Entries         int64  `json:"entries"`
	LastEntryNumber int64  `json:"last_entry_number"`
	Accounts        int64  `json:"accounts"`
	AccountsUpdated string `json:"accounts_updated"`
}

// ledgerExports are the ledger's export files and the version they are
// keyed by.
type ledgerExports struct {
	store    storage.Store
	files    *exportfiles.Files // over store
	versions LedgerVersions
}

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

// UseExportStore turns the ledger's CSV exports on: files go to s, keyed by
// their query and versions' LedgerVersion, kept and reused as p says
// (EXPORT_TTL, EXPORT_REUSE_WINDOW). Without it every export is the 503
// ErrExportStorageNotConfigured.
func (l *Ledger) UseExportStore(s storage.Store, versions LedgerVersions, p exportfiles.Policy) {
	l.exports = &ledgerExports{store: s, versions: versions, files: exportfiles.New(s, exportfiles.Options{
		Service: ExportService, Policy: p, URLExpiry: ExportURLExpiry, Now: func() time.Time { return l.clock() },
		Legacy: []exportfiles.Legacy{{Prefix: LegacyExportPrefix, Match: legacyExportKey.MatchString}},
	})}
}

// SweepExports deletes the export files older than EXPORT_TTL (the former
// layout's too) and returns how many (exportfiles.Files.Sweep).
func (l *Ledger) SweepExports(ctx context.Context) (int, error) {
	if l.exports == nil {
		return 0, nil
	}
	return l.exports.files.Sweep(ctx)
}

// RunExportSweeper sweeps the export files shortly after start, then
// hourly, until ctx ends (nothing without storage or with EXPORT_TTL=0).
func (l *Ledger) RunExportSweeper(ctx context.Context, log *slog.Logger) {
	if l.exports != nil {
		l.exports.files.RunSweeper(ctx, log)
	}
}

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

// export answers the business's export of kind over the period (503
// without storage): the file stored for the same period and ledger version
// when it was made within the reuse window, else what write writes,
// stored. The version is read before write reads anything, so a file is
// never older than the version it is stored under.
func (l *Ledger) export(ctx context.Context, businessID uuid.UUID, kind string, f PeriodFilter, write func(context.Context, *csvexport.Writer) error) (Download, error) {
	if l.exports == nil {
		return Download{}, ErrExportStorageNotConfigured()
	}
	v, err := l.exports.versions.LedgerVersion(ctx, businessID)
	if err != nil {
		return Download{}, fmt.Errorf("export ledger %s of %s: %w", kind, businessID, err)
	}
	name := exportFileName("ledger_"+kind, f)
	file, err := l.exports.files.Serve(ctx, exportfiles.Request{BusinessID: businessID, Kind: "ledger-" + kind, Ext: "csv",
		Query: f, Version: v, FileName: name, ContentType: csvexport.ContentType}, func(ctx context.Context, key string) error {
		return csvexport.Put(ctx, l.exports.store, key, func(w *csvexport.Writer) error { return write(ctx, w) })
	})
	if err != nil {
		return Download{}, fmt.Errorf("export ledger %s of %s: %w", kind, businessID, err)
	}
	return Download{ID: file.ID, URL: file.URL, FileType: "csv", CreatedAt: file.Created, FileName: name}, nil
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
