package storage

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Backends Config.Backend names.
const (
	BackendFS = "fs"
	BackendS3 = "s3"
)

// Config is the storage block a service embeds in its configuration
// (pkg/config reads it and runs Validate). The gateway embeds it too, for
// the filesystem backend's download route (it needs STORAGE_DIR and
// STORAGE_SIGNING_KEY). S3 credentials are not here: the SDK's default
// chain finds them (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, a web
// identity token, instance metadata...).
type Config struct {
	Backend string `env:"STORAGE_BACKEND" envDefault:"fs"`

	// Filesystem backend.
	Dir           string `env:"STORAGE_DIR"`
	PublicBaseURL string `env:"STORAGE_PUBLIC_BASE_URL" envDefault:"http://127.0.0.1:8080"`
	// SigningKey is base64 (standard or URL alphabet, padded or not) of at
	// least MinSigningKeyLength bytes, the same for services and gateway.
	SigningKey string `env:"STORAGE_SIGNING_KEY"`

	// S3 backend.
	S3Bucket         string `env:"S3_BUCKET"`
	S3Region         string `env:"S3_REGION" envDefault:"us-east-1"`
	S3Endpoint       string `env:"S3_ENDPOINT"`
	S3ForcePathStyle bool   `env:"S3_FORCE_PATH_STYLE" envDefault:"false"`
}

// Validate checks the variables the chosen backend needs.
func (c Config) Validate() error {
	switch c.Backend {
	case BackendFS:
		if strings.TrimSpace(c.Dir) == "" {
			return errors.New("STORAGE_DIR is required when STORAGE_BACKEND=fs")
		}
		if _, err := parseBaseURL(c.PublicBaseURL); err != nil {
			return fmt.Errorf("STORAGE_PUBLIC_BASE_URL: %w", err)
		}
		if _, err := c.SigningKeyBytes(); err != nil {
			return err
		}
	case BackendS3:
		if strings.TrimSpace(c.S3Bucket) == "" {
			return errors.New("S3_BUCKET is required when STORAGE_BACKEND=s3")
		}
		if strings.TrimSpace(c.S3Region) == "" {
			return errors.New("S3_REGION must not be empty")
		}
		if c.S3Endpoint != "" {
			if _, err := parseBaseURL(c.S3Endpoint); err != nil {
				return fmt.Errorf("S3_ENDPOINT: %w", err)
			}
		}
	default:
		return fmt.Errorf("STORAGE_BACKEND must be %q or %q, got %q", BackendFS, BackendS3, c.Backend)
	}
	return nil
}

// SigningKeyBytes decodes STORAGE_SIGNING_KEY.
func (c Config) SigningKeyBytes() ([]byte, error) {
	raw := strings.TrimSpace(c.SigningKey)
	if raw == "" {
		return nil, fmt.Errorf("STORAGE_SIGNING_KEY is required when STORAGE_BACKEND=fs (base64 of at least %d random bytes, e.g. `openssl rand -base64 32`)", MinSigningKeyLength)
	}
	var key []byte
	var err error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if key, err = enc.DecodeString(raw); err == nil {
			break
		}
	}
	if err != nil {
		return nil, errors.New("STORAGE_SIGNING_KEY is not valid base64")
	}
	if len(key) < MinSigningKeyLength {
		return nil, fmt.Errorf("STORAGE_SIGNING_KEY must decode to at least %d bytes, got %d", MinSigningKeyLength, len(key))
	}
	return key, nil
}

// Open makes the configured store.
func Open(ctx context.Context, c Config) (Store, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	switch c.Backend {
	case BackendS3:
		return NewS3(ctx, S3Options{
			Bucket:         c.S3Bucket,
			Region:         c.S3Region,
			Endpoint:       c.S3Endpoint,
			ForcePathStyle: c.S3ForcePathStyle,
		})
	default:
		key, _ := c.SigningKeyBytes() // checked by Validate
		return NewFS(FSOptions{Dir: c.Dir, PublicBaseURL: c.PublicBaseURL, SigningKey: key})
	}
}

// DownloadHandler is the gateway's handler for DownloadRoute when the
// backend is fs. With the s3 backend clients download from S3 directly, so
// it returns (nil, nil) and the gateway mounts nothing.
func (c Config) DownloadHandler() (fiber.Handler, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	if c.Backend != BackendFS {
		return nil, nil
	}
	key, _ := c.SigningKeyBytes()
	return NewDownloadHandler(DownloadOptions{Dir: c.Dir, SigningKey: key})
}

// Optional is Config read from the same variables for a service whose
// storage may be off: with STORAGE_BACKEND=fs (the default) and no
// STORAGE_DIR it is disabled (Enabled is false: the endpoints that need
// it answer 503); any other setting is checked as Config checks it. (A
// defined type: pkg/config runs the Validate of every nested block, and
// Config's would refuse the empty directory at load.)
type Optional Config

// Enabled reports whether storage is configured.
func (s Optional) Enabled() bool {
	return s.Backend != BackendFS || strings.TrimSpace(s.Dir) != ""
}

// Config is the block as Open takes it.
func (s Optional) Config() Config { return Config(s) }

// Validate accepts the "storage off" setting and otherwise runs Config's
// checks.
func (s Optional) Validate() error {
	if !s.Enabled() {
		return nil
	}
	return Config(s).Validate()
}
