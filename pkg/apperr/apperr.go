// Package apperr is the one error model of the suite: a typed error with a
// category (the error object's `type`), a stable machine-readable enum
// (`error_enum`) and optional meta, plus the single mapping from category to
// HTTP status. Handlers return *Error values (or wrap them); the HTTP layer
// turns them into the spec's error object in exactly one place.
package apperr

import (
	"errors"
	"fmt"
	"net/http"
)

// Type is the error category, rendered as the error object's `type`.
type Type string

// The categories. Each maps to exactly one HTTP status (see Status).
const (
	InvalidParameters    Type = "InvalidParameters"    // 400: bad query/path parameters
	InvalidPayload       Type = "InvalidPayload"       // 400: bad request body
	Unauthenticated      Type = "Unauthenticated"      // 401
	Forbidden            Type = "Forbidden"            // 403
	NotFound             Type = "NotFound"             // 404
	MethodNotAllowed     Type = "MethodNotAllowed"     // 405
	RequestTimeout       Type = "RequestTimeout"       // 408
	Conflict             Type = "Conflict"             // 409
	PayloadTooLarge      Type = "PayloadTooLarge"      // 413
	UnsupportedMediaType Type = "UnsupportedMediaType" // 415
	RateLimited          Type = "RateLimited"          // 429
	Internal             Type = "Internal"             // 500
	Unavailable          Type = "Unavailable"          // 503
)

var statusByType = map[Type]int{
	InvalidParameters:    http.StatusBadRequest,
	InvalidPayload:       http.StatusBadRequest,
	Unauthenticated:      http.StatusUnauthorized,
	Forbidden:            http.StatusForbidden,
	NotFound:             http.StatusNotFound,
	MethodNotAllowed:     http.StatusMethodNotAllowed,
	RequestTimeout:       http.StatusRequestTimeout,
	Conflict:             http.StatusConflict,
	PayloadTooLarge:      http.StatusRequestEntityTooLarge,
	UnsupportedMediaType: http.StatusUnsupportedMediaType,
	RateLimited:          http.StatusTooManyRequests,
	Internal:             http.StatusInternalServerError,
	Unavailable:          http.StatusServiceUnavailable,
}

// Status is the HTTP status of a category; unknown categories are 500.
func Status(t Type) int {
	if s, ok := statusByType[t]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// TypeForStatus maps an HTTP status back to its category (used when a
// framework error such as fiber's 405 or 413 must become an error object).
func TypeForStatus(status int) Type {
	switch status {
	case http.StatusBadRequest:
		return InvalidParameters
	case http.StatusUnauthorized:
		return Unauthenticated
	case http.StatusForbidden:
		return Forbidden
	case http.StatusNotFound:
		return NotFound
	case http.StatusMethodNotAllowed:
		return MethodNotAllowed
	case http.StatusRequestTimeout:
		return RequestTimeout
	case http.StatusConflict:
		return Conflict
	case http.StatusRequestEntityTooLarge:
		return PayloadTooLarge
	case http.StatusUnsupportedMediaType:
		return UnsupportedMediaType
	case http.StatusTooManyRequests:
		return RateLimited
	case http.StatusServiceUnavailable, http.StatusBadGateway, http.StatusGatewayTimeout:
		return Unavailable
	}
	if status >= 400 && status < 500 {
		return InvalidParameters
	}
	return Internal
}

// Error is an API error. Enum defaults to the Type when empty.
type Error struct {
	Type    Type
	Enum    string
	Message string
	Meta    map[string]any
	Err     error // cause; never rendered
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Type, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Type, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Status is the HTTP status of the error.
func (e *Error) Status() int { return Status(e.Type) }

// New makes an error of the category with a human-readable description.
func New(t Type, msg string) *Error { return &Error{Type: t, Message: msg} }

// Newf is New with formatting.
func Newf(t Type, format string, args ...any) *Error {
	return &Error{Type: t, Message: fmt.Sprintf(format, args...)}
}

// Wrap makes an error of the category that keeps cause for logs only.
func Wrap(t Type, cause error, msg string) *Error {
	return &Error{Type: t, Message: msg, Err: cause}
}

// WithEnum sets the stable machine-readable identifier.
func (e *Error) WithEnum(enum string) *Error { e.Enum = enum; return e }

// RetryAfterMeta is the meta entry (whole seconds, an int) a 503's
// Retry-After header takes (pkg/httpx); without it a 503 says 1.
const RetryAfterMeta = "retry_after_seconds"

// WithMeta adds one meta entry.
func (e *Error) WithMeta(key string, value any) *Error {
	if e.Meta == nil {
		e.Meta = map[string]any{}
	}
	e.Meta[key] = value
	return e
}

// Field is a 400 InvalidParameters error naming one offending field;
// meta.fields maps field names to reasons.
func Field(field, reason string) *Error {
	return FieldErrors(InvalidParameters, map[string]string{field: reason})
}

// PayloadField is Field for request-body fields (InvalidPayload).
func PayloadField(field, reason string) *Error {
	return FieldErrors(InvalidPayload, map[string]string{field: reason})
}

// FieldErrors is a 400 error naming several fields.
func FieldErrors(t Type, fields map[string]string) *Error {
	e := &Error{Type: t, Message: "invalid request"}
	if len(fields) == 1 {
		for f, r := range fields {
			e.Message = fmt.Sprintf("%s: %s", f, r)
		}
	}
	return e.WithMeta("fields", fields)
}

// From returns err as *Error, or an Internal error wrapping it.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	return Wrap(Internal, err, "internal error")
}

// Is reports whether err is an *Error of category t.
func Is(err error, t Type) bool {
	var ae *Error
	return errors.As(err, &ae) && ae.Type == t
}

// Body is the wire form of the error object.
type Body struct {
	Type        string         `json:"type"`
	Description string         `json:"description"`
	ErrorEnum   string         `json:"error_enum,omitempty"`
	Meta        map[string]any `json:"meta,omitempty"`
}

// Body renders the error object. 5xx errors carry no enum, no meta and a
// generic description, so internals never leak.
func (e *Error) Body() Body {
	st := e.Status()
	if st >= 500 {
		desc := "internal error"
		if e.Type == Unavailable {
			desc = "service temporarily unavailable"
			if e.Message != "" {
				desc = e.Message
			}
		}
		return Body{Type: string(e.Type), Description: desc}
	}
	enum := e.Enum
	if enum == "" {
		enum = string(e.Type)
	}
	return Body{Type: string(e.Type), Description: e.Message, ErrorEnum: enum, Meta: e.Meta}
}
