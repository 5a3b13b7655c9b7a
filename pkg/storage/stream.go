package storage

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Putter is the part of a Store that writes: what PutStream needs.
type Putter interface {
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
}

// PutStream stores under key, as contentType, what write writes, through a
// pipe: the object streams into Put while it is written, so memory stays
// bounded whatever its size, and nothing is stored when write or the
// upload fails (Put never keeps a partial object). An *apperr.Error
// returned by write is returned as is (wrapped), so a limit the writer
// enforces reaches the client as its own answer rather than as the upload
// it broke.
func PutStream(ctx context.Context, files Putter, key, contentType string, write func(io.Writer) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := write(pw)
		pw.CloseWithError(err) // nil: EOF for the reader
		done <- err
	}()
	err := files.Put(ctx, key, pr, -1, contentType)
	// A failed Put stops reading: unblock and stop the writer.
	pr.CloseWithError(io.ErrClosedPipe)
	cancel()
	werr := <-done
	var typed *apperr.Error
	if werr != nil && (err == nil || errors.As(werr, &typed)) {
		err = werr // the writer's own error is the cause, not the Put it broke
	}
	if err != nil {
		return fmt.Errorf("store %s: %w", key, err)
	}
	return nil
}
