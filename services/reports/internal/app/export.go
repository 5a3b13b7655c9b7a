package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/csvexport"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/exportfiles"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// EnumStorageNotConfigured is the error enum of an export while the
// service runs without storage.
const EnumStorageNotConfigured = "StorageNotConfigured"

// ExportURLExpiry is how long an export's pre-signed URL is valid at most:
// a URL to a file close to its expiry (EXPORT_TTL) ends with the file.
const ExportURLExpiry = storage.DefaultPresignExpiry

// ExportStore streams the bank transactions of an export (postgres.Store)
// in the transaction ctx carries, and tells the version of a business's
// read model.
type ExportStore interface {
	StreamBankTransactions(ctx context.Context, bid uuid.UUID, q domain.ExportQuery, fn func(domain.ExportRow) error) error
	// ExportVersion is business bid's export version: it moves on with
	// every change of the business's read model (Store.MarkChanged).
	ExportVersion(ctx context.Context, bid uuid.UUID) (int64, error)
}

// ExportService names the service in its export files' keys
// (exports/reports/...).
const ExportService = "reports"

// LegacyExportPrefix holds the export files of the former key layout
// (reports/<business>/<kind>/<id>.<ext>): nothing but exports was ever
// stored under it, and the sweep expires them like the others.
const LegacyExportPrefix = "reports/"

// BusinessFinder is the kit's business projection.
type BusinessFinder interface {
	Find(ctx context.Context, businessID uuid.UUID) (events.Business, bool, error)
}

// Comparer computes a comparison (Reports.Comparison): the comparison's
// CSV export answers from the same code as the comparison.
type Comparer interface {
	Comparison(ctx context.Context, bid uuid.UUID, c domain.Comparison) (ComparisonReport, error)
}

// Exports are the export use cases (CSV and XLSX files in storage). Each
// file is stored under a key made from the export's kind, its normalised
// query and the version of the data it reads (exportfiles): an identical
// request within the reuse window is answered with the stored file.
type Exports struct {
	snapshot   Snapshot
	store      ExportStore
	reports    Comparer
	statements Statements
	businesses BusinessFinder
	files      storage.Store      // nil: exports answer 503
	exports    *exportfiles.Files // over files
	clk        clock.Clock
}

// NewExports makes the export use cases: the rows of an export are read
// in snapshot; the statements come from reports; files may be nil
// (storage not configured). Until UsePolicy, files are kept forever and
// never reused.
func NewExports(snapshot Snapshot, store ExportStore, reports interface {
	Comparer
	Statements
}, businesses BusinessFinder, files storage.Store) *Exports {
	x := &Exports{snapshot: snapshot, store: store, reports: reports, statements: reports, businesses: businesses, files: files, clk: clock.System}
	x.UsePolicy(exportfiles.Policy{})
	return x
}

// UsePolicy sets how long export files are kept and reused
// (EXPORT_TTL, EXPORT_REUSE_WINDOW).
func (x *Exports) UsePolicy(p exportfiles.Policy) {
	if x.files == nil {
		return
	}
	x.exports = exportfiles.New(x.files, exportfiles.Options{Service: ExportService, Policy: p, URLExpiry: ExportURLExpiry,
		Legacy: []exportfiles.Legacy{{Prefix: LegacyExportPrefix}}, Now: func() time.Time { return x.clk.Now() }})
}

// SweepFiles deletes the export files older than EXPORT_TTL (the former
// layout's too) and returns how many (exportfiles.Files.Sweep).
func (x *Exports) SweepFiles(ctx context.Context) (int, error) {
	if x.exports == nil {
		return 0, nil
	}
	return x.exports.Sweep(ctx)
}

// RunSweeper sweeps the export files shortly after start, then hourly,
// until ctx ends (nothing without storage or with EXPORT_TTL=0).
func (x *Exports) RunSweeper(ctx context.Context, log *slog.Logger) {
	if x.exports != nil {
		x.exports.RunSweeper(ctx, log)
	}
}

// Download is a stored export and its pre-signed URL.
type Download struct {
	ID        uuid.UUID
	URL       string
	FileName  string
	FileType  string
	CreatedAt time.Time
}

// TransactionsCSV writes the CSV of the bank transactions of business bid
// that the query parameters select to storage and returns its download.
// The rows go from the database cursor through a CSV writer into a pipe
// that storage's Put reads: memory stays constant whatever the size.
func (x *Exports) TransactionsCSV(ctx context.Context, bid uuid.UUID, params url.Values) (Download, error) {
	q, f, err := x.transactionsQuery(ctx, bid, params, "csv")
	if err != nil {
		return Download{}, err
	}
	return x.serve(ctx, f, func(ctx context.Context, key string) error {
		return x.put(ctx, key, "text/csv", func(w io.Writer) error { return x.writeTransactions(ctx, w, bid, q) })
	})
}

// transactionsQuery is the query of a transactions export of business bid
// (its defaults need the business's activation date) and its file, of file
// type ext: 404 for an unknown business, 400 for bad parameters, then 503
// without storage.
func (x *Exports) transactionsQuery(ctx context.Context, bid uuid.UUID, params url.Values, ext string) (domain.ExportQuery, exportFile, error) {
	v, found, err := x.version(ctx, bid)
	if err != nil {
		return domain.ExportQuery{}, exportFile{}, err
	}
	if !found {
		return domain.ExportQuery{}, exportFile{}, apperr.New(apperr.NotFound, "business not found")
	}
	q, err := domain.ParseExportQuery(params, v.Business.CreatedAt, x.clk.Now())
	if err != nil {
		return domain.ExportQuery{}, exportFile{}, err
	}
	if err := x.storageOn(); err != nil {
		return domain.ExportQuery{}, exportFile{}, err
	}
	return q, exportFile{bid: bid, version: v, kind: "transactions", ext: ext, query: q,
		name: fmt.Sprintf("transactions_%s_%s.%s", q.Start.Format(domain.DateLayout), q.End.Format(domain.DateLayout), ext)}, nil
}

// exportVersion is the version of what an export of a business reads:
// its read model (ExportVersion), its business record (default basis,
// activation date, fiscal year) and the day (defaults meaning "today").
// It is read before the export's own reads, so a file is never older than
// the version it is stored under.
type exportVersion struct {
	ReadModel int64           `json:"read_model"`
	Business  events.Business `json:"business"`
	Day       string          `json:"day"`
}

// version is business bid's exportVersion, and whether the business is
// known.
func (x *Exports) version(ctx context.Context, bid uuid.UUID) (exportVersion, bool, error) {
	n, err := x.store.ExportVersion(ctx, bid)
	if err != nil {
		return exportVersion{}, false, fmt.Errorf("export version: %w", err)
	}
	b, found, err := x.businesses.Find(ctx, bid)
	if err != nil {
		return exportVersion{}, false, err
	}
	return exportVersion{ReadModel: n, Business: b, Day: x.clk.Now().Format(domain.DateLayout)}, found, nil
}

// basis is the reporting basis of an export asking for basis asked.
func (v exportVersion) basis(asked string) string {
	if asked != "" {
		return asked
	}
	return defaultBasis(v.Business, v.Business.ID != uuid.Nil)
}

// exportFile is one export of business bid: its kind (a key segment),
// normalised query, download name and file type, and the version of the
// data it reads.
type exportFile struct {
	bid       uuid.UUID
	version   exportVersion
	kind, ext string
	query     any
	name      string
}

// serve answers export f: the stored file when an identical one was made
// within the reuse window, else the file put stores under key.
func (x *Exports) serve(ctx context.Context, f exportFile, put func(ctx context.Context, key string) error) (Download, error) {
	file, err := x.exports.Serve(ctx, exportfiles.Request{BusinessID: f.bid, Kind: f.kind, Ext: f.ext, Query: f.query,
		Version: f.version, FileName: f.name, ContentType: exportContentTypes[f.ext]}, put)
	if err != nil {
		return Download{}, err
	}
	return Download{ID: file.ID, URL: file.URL, FileName: f.name, FileType: f.ext, CreatedAt: file.Created}, nil
}

// statementFile is the file of a statement export of business bid
// (storage checked first: 503): its version read first.
func (x *Exports) statementFile(ctx context.Context, bid uuid.UUID, kind, ext string, query any) (exportFile, error) {
	if err := x.storageOn(); err != nil {
		return exportFile{}, err
	}
	v, _, err := x.version(ctx, bid)
	if err != nil {
		return exportFile{}, err
	}
	return exportFile{bid: bid, version: v, kind: kind, ext: ext, query: query}, nil
}

// storageOn is nil, or the 503 of a service running without storage.
func (x *Exports) storageOn() error {
	if x.files == nil {
		return apperr.New(apperr.Unavailable, "export storage is not configured").WithEnum(EnumStorageNotConfigured)
	}
	return nil
}

// exportContentTypes are the stored content types of the export file types.
var exportContentTypes = map[string]string{"csv": "text/csv", "xlsx": XLSXContentType}

// put stores under key what write writes, streamed (storage.PutStream).
func (x *Exports) put(ctx context.Context, key, contentType string, write func(io.Writer) error) error {
	if err := storage.PutStream(ctx, x.files, key, contentType, write); err != nil {
		return fmt.Errorf("store export: %w", err)
	}
	return nil
}

// putBytes stores buf (a small file rendered in memory) under key.
func (x *Exports) putBytes(ctx context.Context, key, contentType string, buf *bytes.Buffer) error {
	if err := x.files.Put(ctx, key, bytes.NewReader(buf.Bytes()), int64(buf.Len()), contentType); err != nil {
		return fmt.Errorf("store export: %w", err)
	}
	return nil
}

// writeTransactions writes the header and one row per transaction.
func (x *Exports) writeTransactions(ctx context.Context, w io.Writer, bid uuid.UUID, q domain.ExportQuery) error {
	// Buffered in chunks to the pipe: fewer hand-offs to storage's
	// reader, still a bounded amount in flight.
	cw := csvexport.NewWriter(w)
	if err := cw.Write(domain.ExportHeader); err != nil {
		return err
	}
	rec := make([]string, 0, len(domain.ExportHeader))
	err := x.snapshot.Do(ctx, func(ctx context.Context) error {
		return x.store.StreamBankTransactions(ctx, bid, q, func(r domain.ExportRow) error {
			rec = r.Record(rec)
			return cw.Write(rec) // buffered, then written to the pipe in chunks
		})
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
