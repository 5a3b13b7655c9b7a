// Package storage is the suite's object storage for receipts and CSV exports:
// one small Store interface (put a stream, get, stat, list, delete,
// pre-signed GET URL) with two backends that pass the same conformance
// suite (storagetest):
//
//   - S3Store, any S3-compatible service through aws-sdk-go-v2, for
//     deployments;
//   - FSStore, a local directory, for local runs. Its pre-signed URLs are real
//     HMAC-signed, expiring URLs that the gateway serves without a bearer
//     token on DownloadRoute through NewDownloadHandler.
//
// Services pick the backend from Config (STORAGE_BACKEND and friends) with
// Open, so nothing above this package knows which one it talks to.
package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Store is object storage. Keys are validated by ValidateKey; a key that
// fails it is rejected by every method with an error matching ErrInvalidKey.
type Store interface {
	// Put stores the object read from r under key, replacing any object
	// already there. size is the exact length when known, or -1; a reader
	// that yields more or fewer bytes than a known size fails the Put.
	// Objects are streamed: memory stays bounded whatever the size. A failed
	// Put leaves the previous object (or none) in place, never a partial one.
	// An empty contentType stores application/octet-stream.
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// Get opens the object for reading; the caller closes the reader. A
	// missing object is an error matching ErrNotFound.
	Get(ctx context.Context, key string) (io.ReadCloser, Object, error)
	// Delete removes the object. Deleting a missing object is not an error
	// (as in S3), so deletes can be retried.
	Delete(ctx context.Context, key string) error
	// PresignGet returns a URL that downloads the object with a plain HTTP
	// GET (or HEAD), with no other credentials, until expiry has passed.
	// expiry 0 means DefaultPresignExpiry; it may not exceed
	// MaxPresignExpiry. The URL is made without checking that the object
	// exists: fetching it then answers 404.
	PresignGet(ctx context.Context, key string, expiry time.Duration, opts PresignOptions) (string, error)
	// Stat describes the object without reading its content (Get's
	// Object). A missing object is an error matching ErrNotFound.
	Stat(ctx context.Context, key string) (Object, error)
	// List calls fn with every object whose key starts with prefix, in
	// ascending bytewise key order (as S3 lists them). The Objects carry
	// Key, Size and Modified only (Stat has the rest). An error returned
	// by fn stops the listing and is returned as is. Objects put or
	// deleted while the listing runs may or may not be seen. prefix ""
	// lists everything; any other prefix must pass ValidatePrefix.
	List(ctx context.Context, prefix string, fn func(Object) error) error
}

// Object describes a stored object.
type Object struct {
	Key         string
	Size        int64
	ContentType string
	// ETag identifies the content version; opaque (it is not always an MD5
	// of the content: S3 multipart uploads have a different form).
	ETag     string
	Modified time.Time
}

// PresignOptions tunes a pre-signed URL.
type PresignOptions struct {
	// Filename, when set, makes the download answer with
	// `Content-Disposition: attachment` and this file name (CSV exports,
	// receipts "save as"). It is part of the signature.
	Filename string
	// ContentType is the object's stored content type as the caller
	// recorded it. S3 serves the object with ServedContentType of it (a
	// signed response-content-type: an object is never served with a type
	// its uploader chose unless that type is harmless), and as an
	// attachment unless InlineSafe. The filesystem backend decides the
	// same from the type it stored.
	ContentType string
}

// servedTypes are the content types a download keeps: raster images and
// PDF (which a browser only displays) and plain data. Anything else (HTML,
// SVG, XML, scripts, unknown types) is served as DefaultContentType, so
// stored content an API client uploaded never runs as a page.
var servedTypes = map[string]bool{
	"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true,
	"image/heic": true, "image/heif": true, "image/tiff": true, "image/bmp": true,
	"application/pdf": true,
	"text/csv":        true, "text/plain": true, "application/json": true,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": true,
}

// ServedContentType is the content type a download of an object stored
// with stored is served with: stored itself when its media type is one of
// servedTypes, DefaultContentType otherwise.
func ServedContentType(stored string) string {
	mediaType, _, err := mime.ParseMediaType(stored)
	if err != nil || !servedTypes[mediaType] {
		return DefaultContentType
	}
	return stored
}

// InlineSafe reports whether a download served with content type served
// may be shown in the browser rather than saved: raster images and PDF.
func InlineSafe(served string) bool {
	mediaType, _, err := mime.ParseMediaType(served)
	return err == nil && servedTypes[mediaType] && (strings.HasPrefix(mediaType, "image/") || mediaType == "application/pdf")
}

// servedDisposition is the Content-Disposition of a download: an
// attachment named filename when it is set, a nameless attachment when
// the served type is not InlineSafe, and none (inline) otherwise.
func servedDisposition(served, filename string) string {
	switch {
	case filename != "":
		return contentDisposition(filename)
	case !InlineSafe(served):
		return "attachment"
	}
	return ""
}

// Expiry bounds of pre-signed URLs: the default is what DESIGN.md promises
// clients (3600 s); the maximum is S3's limit for SigV4 pre-signed URLs,
// applied to both backends so they behave alike.
const (
	DefaultPresignExpiry = time.Hour
	MaxPresignExpiry     = 7 * 24 * time.Hour
)

// Limits of keys, content types and download file names.
const (
	MaxKeyLength         = 1024 // bytes; S3's limit
	MaxKeySegmentLength  = 255  // bytes; a file name on common filesystems
	MaxContentTypeLength = 200
	MaxFilenameLength    = 255
)

// DefaultContentType is stored when Put is given no content type.
const DefaultContentType = "application/octet-stream"

var (
	// ErrNotFound is matched (errors.Is) by errors about a missing object.
	ErrNotFound = errors.New("storage: object not found")
	// ErrInvalidKey is matched by errors about a key ValidateKey rejects.
	ErrInvalidKey = errors.New("storage: invalid object key")
	// ErrKeyConflict is matched by an FSStore Put whose key would need a
	// directory where an object is stored, or the reverse ("a" and "a/b"
	// cannot both exist on a filesystem; S3 allows it).
	ErrKeyConflict = errors.New("storage: key conflicts with another object's key")
)

// ValidateKey accepts keys made of '/'-separated segments of ASCII letters,
// digits and "._=-", where no segment is empty or starts with '.', at most
// MaxKeySegmentLength bytes per segment and MaxKeyLength in all. So a key
// never escapes the filesystem backend's directory ("..", leading '/'),
// never needs escaping in a URL path and means the same on both backends.
// The error is a 400 apperr error (enum InvalidObjectKey) matching
// ErrInvalidKey.
func ValidateKey(key string) error {
	reason := keyProblem(key)
	if reason == "" {
		return nil
	}
	return apperr.Wrap(apperr.InvalidParameters, ErrInvalidKey, "key: "+reason).
		WithEnum("InvalidObjectKey").
		WithMeta("fields", map[string]string{"key": reason})
}

// ValidatePrefix accepts the prefixes List takes: "" or the start of a
// valid key (a key, possibly ending with '/' or in the middle of a
// segment), so that a listing means the same on both backends. The error
// is ValidateKey's.
func ValidatePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	return ValidateKey(strings.TrimSuffix(prefix, "/"))
}

func keyProblem(key string) string {
	if key == "" {
		return "must not be empty"
	}
	if len(key) > MaxKeyLength {
		return fmt.Sprintf("must be at most %d bytes", MaxKeyLength)
	}
	for seg := range strings.SplitSeq(key, "/") {
		switch {
		case seg == "":
			return "must not start or end with '/' nor contain '//'"
		case seg[0] == '.':
			return "segments must not start with '.'"
		case len(seg) > MaxKeySegmentLength:
			return fmt.Sprintf("segments must be at most %d bytes", MaxKeySegmentLength)
		}
		for i := 0; i < len(seg); i++ {
			if !keyByte(seg[i]) {
				return fmt.Sprintf("invalid character %q: use letters, digits, '.', '_', '=', '-' and '/'", seg[i])
			}
		}
	}
	return ""
}

func keyByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
		b == '.' || b == '_' || b == '=' || b == '-'
}

// normalizeContentType checks a content type and returns its canonical form
// (DefaultContentType when empty).
func normalizeContentType(ct string) (string, error) {
	if strings.TrimSpace(ct) == "" {
		return DefaultContentType, nil
	}
	bad := func(reason string) error {
		return apperr.Field("content_type", reason).WithEnum("InvalidContentType")
	}
	mediaType, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", bad("not a media type: " + err.Error())
	}
	out := mime.FormatMediaType(mediaType, params)
	if out == "" {
		return "", bad("not a media type")
	}
	if len(out) > MaxContentTypeLength {
		return "", bad(fmt.Sprintf("must be at most %d bytes", MaxContentTypeLength))
	}
	for i := 0; i < len(out); i++ {
		if out[i] < 0x20 || out[i] > 0x7e {
			return "", bad("must be printable ASCII")
		}
	}
	return out, nil
}

// validateFilename checks a download file name: it ends up in a response
// header, so no control characters, and no path separators so that a
// browser saves exactly that name.
func validateFilename(name string) error {
	bad := func(reason string) error {
		return apperr.Field("filename", reason).WithEnum("InvalidFilename")
	}
	switch {
	case len(name) > MaxFilenameLength:
		return bad(fmt.Sprintf("must be at most %d bytes", MaxFilenameLength))
	case strings.ContainsAny(name, `/\`):
		return bad("must not contain path separators")
	case name == "." || name == "..":
		return bad("must be a file name")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || r == '\uFFFD' {
			return bad("must be valid UTF-8 without control characters")
		}
	}
	return nil
}

// contentDisposition is the attachment header for filename (RFC 6266, with
// the RFC 2231 encoding for non-ASCII names done by mime).
func contentDisposition(filename string) string {
	return mime.FormatMediaType("attachment", map[string]string{"filename": filename})
}

// presignExpiry applies the default and the bounds of PresignGet's expiry.
func presignExpiry(expiry time.Duration) (time.Duration, error) {
	if expiry == 0 {
		return DefaultPresignExpiry, nil
	}
	if expiry < time.Second || expiry > MaxPresignExpiry {
		return 0, apperr.Field("expiry", fmt.Sprintf("must be between 1s and %s", MaxPresignExpiry)).
			WithEnum("InvalidExpiry")
	}
	return expiry, nil
}

// sizedReader enforces a declared size: reading past it or ending before it
// is an error, so a Put never stores a truncated or overlong object.
type sizedReader struct {
	r         io.Reader
	remaining int64
}

func newSizedReader(r io.Reader, size int64) io.Reader {
	if size < 0 {
		return r
	}
	return &sizedReader{r: r, remaining: size}
}

// errSizeMismatch reports a reader whose length differs from the declared size.
var errSizeMismatch = errors.New("storage: content length differs from the declared size")

func (s *sizedReader) Read(p []byte) (int, error) {
	if s.remaining == 0 {
		// Check that the source is exhausted too.
		var one [1]byte
		n, err := s.r.Read(one[:])
		if n > 0 {
			return 0, errSizeMismatch
		}
		if err == nil {
			return 0, nil
		}
		if errors.Is(err, io.EOF) {
			return 0, io.EOF
		}
		return 0, err
	}
	if int64(len(p)) > s.remaining {
		p = p[:s.remaining]
	}
	n, err := s.r.Read(p)
	s.remaining -= int64(n)
	if errors.Is(err, io.EOF) && s.remaining > 0 {
		return n, fmt.Errorf("%w: %d bytes missing", errSizeMismatch, s.remaining)
	}
	if errors.Is(err, io.EOF) {
		// Defer EOF to the exhaustion check above.
		err = nil
	}
	return n, err
}

// ctxReader stops a long copy when the context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
