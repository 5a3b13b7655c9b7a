// Package csvexport writes CSV exports into object storage: the caller's
// rows go through a CSV writer and a pipe straight into storage's Put,
// so memory stays bounded whatever the number of rows, and text cells are
// defused against spreadsheet formula injection: SafeCell neutralises what
// a spreadsheet would evaluate, and Writer quotes every cell that is not a
// plain number, so a spreadsheet splitting on another separator (a
// semicolon or tab locale) still reads each cell whole.
package csvexport

import (
	"bufio"
	"context"
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
func Put(ctx context.Context, files Putter, key string, write func(w *Writer) error) error {
	err := storage.PutStream(ctx, files, key, ContentType, func(w io.Writer) error { return writeAll(w, write) })
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

func writeAll(w io.Writer, write func(w *Writer) error) error {
	cw := NewWriter(w)
	if err := write(cw); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// formulaStart holds what makes a spreadsheet evaluate a cell (or a piece
// of one it split off) when it comes first: =, +, -, @, and the tab,
// carriage return and full-width equals some of them accept too.
const formulaStart = "=+-@\t\r\uFF1D\uFF0B\uFF0D\uFF20"

// separators are what a spreadsheet may split a line on, depending on its
// locale and import settings, when it ignores the quoting.
const separators = ",;\t|"

// SafeCell defuses CSV injection (OWASP) in a text cell: an apostrophe,
// which spreadsheets show as text instead of evaluating what follows, goes
// before a formula character that starts the cell (after any leading
// spaces) and before one that follows a separator (after any spaces), as
// a spreadsheet splitting on that separator would start a cell there.
// Use it on text that users or other systems wrote, not on numbers (a
// negative amount would read as text); Writer quotes the cell.
func SafeCell(v string) string {
	if !defuse(v, nil) {
		return v
	}
	var b strings.Builder
	b.Grow(len(v) + 4)
	defuse(v, &b)
	return b.String()
}

// defuse walks v and reports whether it holds a formula start to defuse;
// with b, it writes v defused to b.
func defuse(v string, b *strings.Builder) bool {
	found := false
	start := true // at the start of the cell or after a separator (and spaces)
	for _, r := range v {
		switch {
		case start && strings.ContainsRune(formulaStart, r):
			if b == nil {
				return true
			}
			found = true
			b.WriteByte('\'')
			start = false
		case start && r == ' ':
		default:
			start = strings.ContainsRune(separators, r)
		}
		if b != nil {
			b.WriteRune(r)
		}
	}
	return found
}

// Writer writes CSV records like encoding/csv's Writer (comma separated,
// "\n" line ends, quotes doubled inside quoted cells) but quotes every
// cell other than an empty one or a plain number ("-12.50", "3"): a
// spreadsheet that splits lines on a separator of its locale instead of
// the comma still keeps a quoted cell whole.
type Writer struct {
	w   *bufio.Writer
	err error
}

// NewWriter is a Writer on w, buffered in chunks.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, chunk)}
}

// Write writes one record.
func (w *Writer) Write(record []string) error {
	if w.err != nil {
		return w.err
	}
	for i, cell := range record {
		if i > 0 {
			w.w.WriteByte(',')
		}
		if !needsQuotes(cell) {
			w.w.WriteString(cell)
			continue
		}
		w.w.WriteByte('"')
		for {
			j := strings.IndexByte(cell, '"')
			if j < 0 {
				break
			}
			w.w.WriteString(cell[:j+1])
			w.w.WriteByte('"')
			cell = cell[j+1:]
		}
		w.w.WriteString(cell)
		w.w.WriteByte('"')
	}
	_, w.err = w.w.WriteString("\n")
	return w.err
}

// WriteAll writes records and flushes.
func (w *Writer) WriteAll(records [][]string) error {
	for _, r := range records {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	w.Flush()
	return w.err
}

// Flush writes what is buffered to the underlying writer.
func (w *Writer) Flush() {
	if err := w.w.Flush(); err != nil && w.err == nil {
		w.err = err
	}
}

// Error is the first error a Write or Flush met.
func (w *Writer) Error() error { return w.err }

// needsQuotes: every cell but an empty one and a plain decimal number.
func needsQuotes(cell string) bool {
	if cell == "" {
		return false
	}
	digits, dot := 0, false
	for i := 0; i < len(cell); i++ {
		switch c := cell[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '-' && i == 0:
		case c == '.' && !dot && digits > 0:
			dot = true
		default:
			return true
		}
	}
	return digits == 0 || cell[len(cell)-1] == '.'
}
