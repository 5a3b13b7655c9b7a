package service

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/services/reports/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/reports/internal/app"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// countingStore counts the rows the database cursor has handed over.
type countingStore struct {
	*postgres.Store
	rows atomic.Int64
}

func (s *countingStore) StreamBankTransactions(ctx context.Context, bid uuid.UUID, q domain.ExportQuery, fn func(domain.ExportRow) error) error {
	return s.Store.StreamBankTransactions(ctx, bid, q, func(r domain.ExportRow) error {
		s.rows.Add(1)
		return fn(r)
	})
}

// probeFiles is storage whose Put notes how many rows were produced when
// the first bytes arrived, then reads the rest slowly, counting lines.
type probeFiles struct {
	storage.Store
	produced    *atomic.Int64
	atFirstRead int64
	lines       int
	size        int64
}

func (f *probeFiles) Put(_ context.Context, _ string, r io.Reader, _ int64, _ string) error {
	buf := make([]byte, 4096)
	n, err := io.ReadFull(r, buf)
	if err != nil {
		return err
	}
	time.Sleep(200 * time.Millisecond) // the producer must wait for us
	f.atFirstRead = f.produced.Load()
	f.size, f.lines = int64(n), bytes.Count(buf[:n], []byte("\n"))
	for {
		n, err := r.Read(buf)
		f.size += int64(n)
		f.lines += bytes.Count(buf[:n], []byte("\n"))
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (f *probeFiles) PresignGet(context.Context, string, time.Duration, storage.PresignOptions) (string, error) {
	return "http://example.invalid/x", nil
}

// TestTransactionsCSVStreams: 50,000 transactions go from the database
// cursor through the CSV writer into storage's reader as it reads: when
// storage has read its first 4 KiB (and waited), only a few rows have
// been produced (the pipe holds the producer back), so the file is never
// held in memory; all rows arrive in the end.
func TestTransactionsCSVStreams(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	const n = 50000
	if _, err := e.DB.NewRaw(`INSERT INTO bank_transactions (business_id, transaction_id, version, day, date_time, description,
			counterparty, account_name, ledger_account_id, direction, amount, categorization_status, categorized, event_time)
		SELECT ?, gen_random_uuid(), 1, DATE '2026-01-01' + (i % 300), now(), 'Transaction ' || i, 'Acme', 'Checking',
			gen_random_uuid(), 'DEBIT', i, 'CATEGORIZED', true, now()
		FROM generate_series(1, ?) AS i`, bid, n).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	store := &countingStore{Store: postgres.New(e.DB)}
	files := &probeFiles{produced: &store.rows}
	x := app.NewExports(postgres.Snapshot{DB: e.DB}, store, e.S.Reports, e.Svc.Kit.Businesses(), files)
	if _, err := x.TransactionsCSV(t.Context(), bid, url.Values{"start_date": {"2026-01-01"}, "end_date": {"2026-12-31"}}); err != nil {
		t.Fatal(err)
	}
	if files.lines != n+1 || store.rows.Load() != n {
		t.Fatalf("%d lines, %d rows produced, want %d rows and a header", files.lines, store.rows.Load(), n)
	}
	// A row is ~60 bytes: 4 KiB read plus the CSV writer's 4 KiB buffer is
	// about 140 rows; the whole file is ~3 MB.
	if files.atFirstRead > 1000 {
		t.Fatalf("%d of %d rows produced before storage read past its first 4 KiB: not streamed", files.atFirstRead, n)
	}
	t.Logf("%d bytes; %d rows produced when storage had read 4 KiB", files.size, files.atFirstRead)
}
