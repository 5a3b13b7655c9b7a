package app

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/csvexport"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// EnumStorageNotConfigured is the error enum of an export while the
// service runs without storage.
const EnumStorageNotConfigured = "StorageNotConfigured"

// ExportURLExpiry is how long an export's pre-signed URL is valid.
const ExportURLExpiry = storage.DefaultPresignExpiry

// ExportStore streams the bank transactions of an export (postgres.Store)
// in the transaction ctx carries.
type ExportStore interface {
	StreamBankTransactions(ctx context.Context, bid uuid.UUID, q domain.ExportQuery, fn func(domain.ExportRow) error) error
}

// BusinessFinder is the kit's business projection.
type BusinessFinder interface {
	Find(ctx context.Context, businessID uuid.UUID) (events.Business, bool, error)
}

// Comparer computes a comparison (Reports.Comparison): the comparison's
// CSV export answers from the same code as the comparison.
type Comparer interface {
	Comparison(ctx context.Context, bid uuid.UUID, c domain.Comparison) (ComparisonReport, error)
}

// Exports are the export use cases (CSV and XLSX files in storage).
type Exports struct {
	snapshot   Snapshot
	store      ExportStore
	reports    Comparer
	statements Statements
	businesses BusinessFinder
	files      storage.Store // nil: exports answer 503
	clk        clock.Clock
}

// NewExports makes the export use cases: the rows of an export are read
// in snapshot; the statements come from reports; files may be nil
// (storage not configured).
func NewExports(snapshot Snapshot, store ExportStore, reports interface {
	Comparer
	Statements
}, businesses BusinessFinder, files storage.Store) *Exports {
	return &Exports{snapshot: snapshot, store: store, reports: reports, statements: reports, businesses: businesses, files: files, clk: clock.System}
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
	q, d, err := x.transactionsQuery(ctx, bid, params, "csv")
	if err != nil {
		return Download{}, err
	}
	key := fmt.Sprintf("reports/%s/transactions/%s.csv", bid, d.ID)
	if err := x.put(ctx, key, "text/csv", func(w io.Writer) error { return x.writeTransactions(ctx, w, bid, q) }); err != nil {
		return Download{}, err
	}
	return x.presign(ctx, key, d)
}

// transactionsQuery is the query of a transactions export of business bid
// (its defaults need the business's activation date) and its download,
// of file type ext, still without URL: 404 for an unknown business, 400
// for bad parameters, then 503 without storage.
func (x *Exports) transactionsQuery(ctx context.Context, bid uuid.UUID, params url.Values, ext string) (domain.ExportQuery, Download, error) {
	b, found, err := x.businesses.Find(ctx, bid)
	if err != nil {
		return domain.ExportQuery{}, Download{}, err
	}
	if !found {
		return domain.ExportQuery{}, Download{}, apperr.New(apperr.NotFound, "business not found")
	}
	now := x.clk.Now()
	q, err := domain.ParseExportQuery(params, b.CreatedAt, now)
	if err != nil {
		return domain.ExportQuery{}, Download{}, err
	}
	if err := x.storageOn(); err != nil {
		return domain.ExportQuery{}, Download{}, err
	}
	return q, Download{ID: uuid.Must(uuid.NewV7()), FileType: ext, CreatedAt: now,
		FileName: fmt.Sprintf("transactions_%s_%s.%s", q.Start.Format(domain.DateLayout), q.End.Format(domain.DateLayout), ext)}, nil
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

// presign is d, stored under key, with its pre-signed URL (downloading
// as d.FileName, served with the content type of d.FileType).
func (x *Exports) presign(ctx context.Context, key string, d Download) (Download, error) {
	var err error
	opts := storage.PresignOptions{Filename: d.FileName, ContentType: exportContentTypes[d.FileType]}
	if d.URL, err = x.files.PresignGet(ctx, key, ExportURLExpiry, opts); err != nil {
		return Download{}, fmt.Errorf("presign export: %w", err)
	}
	return d, nil
}

// put stores under key what write writes, streamed (storage.PutStream).
func (x *Exports) put(ctx context.Context, key, contentType string, write func(io.Writer) error) error {
	if err := storage.PutStream(ctx, x.files, key, contentType, write); err != nil {
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
