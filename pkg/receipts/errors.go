package receipts

import (
	"errors"
	"fmt"
)

// The error kinds of Extract. Every error it returns wraps exactly one of
// them, so a caller maps them with errors.Is: ErrTooLarge → 413,
// ErrUnsupportedType → 415, ErrBadInput → 400, ErrBusy → 503 with
// Retry-After, ErrUnreadable → the receipt's FAILED status with the reason
// (Reason(err)).
var (
	// ErrTooLarge: the file is over Config.MaxBytes.
	ErrTooLarge = errors.New("receipt file too large")
	// ErrUnsupportedType: the content is none of PDF, PNG or JPEG (whatever
	// its name or declared type says).
	ErrUnsupportedType = errors.New("unsupported receipt file type")
	// ErrBadInput: a PDF, PNG or JPEG that is corrupt, or too big to be read
	// safely (image dimensions, PDF pages, decompressed content).
	ErrBadInput = errors.New("bad receipt file")
	// ErrUnreadable: a well-formed file whose text could not be read (no
	// text layer and no OCR, OCR failed or timed out, no text found).
	ErrUnreadable = errors.New("receipt unreadable")
	// ErrBusy: every reader is taken and Config.MaxQueued reads wait
	// already, or none freed within Config.MaxWait: nothing was read, try
	// again shortly.
	ErrBusy = errors.New("receipt readers busy")
)

// Error is the error Extract returns: one of the kinds above and a reason
// fit to show a user (and to store as a FAILED receipt's reason).
type Error struct {
	Kind   error  // ErrTooLarge, ErrUnsupportedType, ErrBadInput, ErrBusy or ErrUnreadable
	Reason string // what was wrong, in a few words
	Err    error  // the underlying cause, if any
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%v: %s: %v", e.Kind, e.Reason, e.Err)
	}
	return fmt.Sprintf("%v: %s", e.Kind, e.Reason)
}

// Is makes errors.Is(err, ErrBadInput) and the like work.
func (e *Error) Is(target error) bool { return target == e.Kind }

func (e *Error) Unwrap() error { return e.Err }

// Reason returns the short reason of an error of this package (without the
// underlying cause, which may name temp files), or err.Error() otherwise.
func Reason(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

func newErr(kind error, cause error, format string, args ...any) *Error {
	return &Error{Kind: kind, Reason: fmt.Sprintf(format, args...), Err: cause}
}
