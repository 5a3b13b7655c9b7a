// Package csvexport writes CSV exports into object storage: the caller's
// rows go through a CSV writer and a pipe straight into storage's Put,
// so memory stays bounded whatever the number of rows, and text cells are
// defused against spreadsheet formula injection (SafeCell).
package csvexport

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"github.com/acctsuite/acct/pkg/storage"
)

// ContentType is the content type of a stored CSV export.
const ContentType = "text/csv"

// chunk is how much of the CSV is buffered before it goes to storage
// through the pipe: fewer hand-offs to storage's reader, a bounded amount
// in flight.
const chunk = 32 << 10

// Putter is the part of storage.Store an export needs.
type Putter = storage.Putter

// Put stores under key the CSV that write writes (header and rows) through
// w, streamed (storage.PutStream): nothing is stored when write or the
// upload fails, and an *apperr.Error returned by write is returned as is,
// so a limit the writer enforces reaches the client as its own answer.
func Put(ctx context.Context, files Putter, key string, write func(w *csv.Writer) error) error {
	err := storage.PutStream(ctx, files, key, ContentType, func(w io.Writer) error { return writeAll(w, write) })
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

func writeAll(w io.Writer, write func(w *csv.Writer) error) error {
	cw := csv.NewWriter(bufio.NewWriterSize(w, chunk))
	if err := write(cw); err != nil {
		return err
	}
	cw.Flush() // flushes the bufio.Writer too
	return cw.Error()
}

// SafeCell defuses CSV injection (OWASP): a text cell starting with =, +,
// -, @, a tab or a carriage return is prefixed with an apostrophe, which
// spreadsheets show as text instead of evaluating it. Use it on text that
// users or other systems wrote, not on numbers (a negative amount would
// read as text).
func SafeCell(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}
