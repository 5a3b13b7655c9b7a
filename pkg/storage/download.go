package storage

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Error enums of the download route's 403 answers.
const (
	EnumInvalidSignature = "InvalidSignature"
	EnumURLExpired       = "UrlExpired"
)

// DownloadOptions configures NewDownloadHandler.
type DownloadOptions struct {
	// Dir is the FSStore's directory (STORAGE_DIR).
	Dir string
	// SigningKey is the FSStore's signing key (STORAGE_SIGNING_KEY).
	SigningKey []byte
	// Now is the clock (time.Now when nil); tests move it.
	Now func() time.Time
}

// NewDownloadHandler serves the filesystem backend's pre-signed URLs. Mount
// it on DownloadRoute with app.Get (Fiber registers HEAD with it), outside
// bearer-token authentication: the signature is the credential.
//
// It answers 403 InvalidSignature for a missing, malformed or wrong
// signature (a tampered key, expiry or file name, or another signing key),
// 403 UrlExpired for a genuine URL past its expiry, 404 NotFound for a
// missing object, and otherwise streams the object from disk (sendfile where
// the platform has it) with Content-Type, Content-Length, ETag,
// Last-Modified and, when the URL names a file, Content-Disposition. Errors
// are returned to the app's error handler (httpx.ErrorHandler renders them
// as the error object).
//
// Stored content is served with `X-Content-Type-Options: nosniff`,
// `Content-Security-Policy: sandbox`, ServedContentType of its stored type
// and as an attachment unless that type is InlineSafe: it was uploaded by
// API clients and must never run as a page of the gateway's origin.
func NewDownloadHandler(opts DownloadOptions) (fiber.Handler, error) {
	if opts.Dir == "" {
		return nil, errors.New("storage: download handler: directory is required")
	}
	signer, err := newURLSigner(opts.SigningKey)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("storage: download handler: %w", err)
	}
	files := fsObjects{root: filepath.Join(dir, "objects")}
	now := opts.Now
	if now == nil {
		now = time.Now
	}

	return func(c *fiber.Ctx) error {
		key := c.Params("*")
		filename := c.Query(paramFilename)
		switch signer.verify(key, c.Query(paramExpires), filename, c.Query(paramSig), now()) {
		case signatureInvalid:
			return apperr.New(apperr.Forbidden, "the download URL's signature is invalid").WithEnum(EnumInvalidSignature)
		case signatureExpired:
			return apperr.New(apperr.Forbidden, "the download URL has expired").WithEnum(EnumURLExpired)
		}
		// Only valid keys are ever signed; checked again so that no path
		// outside the store is opened even with a leaked signing key.
		if ValidateKey(key) != nil {
			return apperr.New(apperr.NotFound, "object not found")
		}
		f, obj, err := files.open(key)
		if errors.Is(err, ErrNotFound) {
			return apperr.New(apperr.NotFound, "object not found")
		}
		if err != nil {
			return fmt.Errorf("storage: download %s: %w", key, err)
		}
		served := ServedContentType(obj.ContentType)
		c.Set(fiber.HeaderContentType, served)
		if d := servedDisposition(served, filename); d != "" {
			c.Set(fiber.HeaderContentDisposition, d)
		}
		c.Set(fiber.HeaderETag, `"`+obj.ETag+`"`)
		c.Set(fiber.HeaderLastModified, obj.Modified.Format(http.TimeFormat))
		c.Set(fiber.HeaderCacheControl, "private, no-store")
		c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
		c.Set(fiber.HeaderContentSecurityPolicy, "sandbox")
		// fasthttp closes the file once the body is written (or skipped,
		// for HEAD).
		return c.Status(fiber.StatusOK).SendStream(f, int(obj.Size))
	}, nil
}
