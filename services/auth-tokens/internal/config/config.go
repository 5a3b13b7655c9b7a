// Package config is the auth-tokens configuration, read from the
// environment (see docs/internals.md for every variable).
package config

import (
	"errors"
	"fmt"
	"os"
	"time"

	pkgconfig "github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/services/auth-tokens/internal/credentials"
	"github.com/acctsuite/acct/services/auth-tokens/internal/domain"
	"github.com/acctsuite/acct/services/auth-tokens/internal/signing"
)

// ServiceName names the service in logs, traces and metrics.
const ServiceName = "auth-tokens"

// DefaultSchema is the service's PostgreSQL schema.
const DefaultSchema = "auth"

// Config is the whole service configuration.
type Config struct {
	// The kit's blocks: listener, logs, telemetry, database, broker,
	// cursor secret.
	Base servicekit.Base
	Data servicekit.Data

	SigningKeyEncryptionKey     string        `env:"SIGNING_KEY_ENCRYPTION_KEY"`
	SigningKeyEncryptionKeyFile string        `env:"SIGNING_KEY_ENCRYPTION_KEY_FILE"`
	SigningKeyRotation          time.Duration `env:"SIGNING_KEY_ROTATION" envDefault:"720h"`
	// SigningKeyPublishLead: a new key is in the JWKS this long before it
	// signs; keep it above the verifiers' JWKS refresh (gateway: 5m).
	SigningKeyPublishLead time.Duration `env:"SIGNING_KEY_PUBLISH_LEAD" envDefault:"10m"`

	// Token endpoint secret checks (argon2id, ~19 MiB each): at most
	// CLIENT_SECRET_CHECK_CONCURRENCY at once (0: the number of CPUs); a
	// request waits at most CLIENT_SECRET_CHECK_WAIT for a slot, then gets
	// 503 with Retry-After. Verified secrets are remembered (HMAC, in
	// memory) for CLIENT_SECRET_CACHE_TTL; a negative TTL disables that.
	SecretCheckConcurrency int           `env:"CLIENT_SECRET_CHECK_CONCURRENCY" envDefault:"0"`
	SecretCheckWait        time.Duration `env:"CLIENT_SECRET_CHECK_WAIT" envDefault:"250ms"`
	SecretCacheTTL         time.Duration `env:"CLIENT_SECRET_CACHE_TTL" envDefault:"5m"`

	TokenIssuer             string `env:"TOKEN_ISSUER" envDefault:"acct-auth-tokens"`
	BusinessTokenMaxSeconds int    `env:"BUSINESS_TOKEN_MAX_SECONDS" envDefault:"86400"`

	BootstrapClientID     string `env:"BOOTSTRAP_CLIENT_ID"`
	BootstrapClientSecret string `env:"BOOTSTRAP_CLIENT_SECRET"`
	BootstrapClientName   string `env:"BOOTSTRAP_CLIENT_NAME"`

	encryptionKey []byte
}

// Load reads and validates the configuration from the environment.
func Load() (Config, error) { return pkgconfig.Read[Config]() }

// LoadFrom is Load reading the given variables (tests).
func LoadFrom(env map[string]string) (Config, error) { return pkgconfig.ReadFrom[Config](env) }

// Validate checks the settings and resolves the signing key encryption key
// (inline or from the mounted file); a missing or short key is an error.
func (c *Config) Validate() error {
	if c.Data.DB.Schema == "" {
		c.Data.DB.Schema = DefaultSchema
	}
	if c.BootstrapClientName == "" && c.BootstrapClientID != "" {
		c.BootstrapClientName = c.BootstrapClientID
	}
	var errs []error
	raw := c.SigningKeyEncryptionKey
	switch {
	case raw != "" && c.SigningKeyEncryptionKeyFile != "":
		errs = append(errs, errors.New("set SIGNING_KEY_ENCRYPTION_KEY or SIGNING_KEY_ENCRYPTION_KEY_FILE, not both"))
	case c.SigningKeyEncryptionKeyFile != "":
		b, err := os.ReadFile(c.SigningKeyEncryptionKeyFile)
		if err != nil {
			errs = append(errs, fmt.Errorf("SIGNING_KEY_ENCRYPTION_KEY_FILE: %w", err))
		}
		raw = string(b)
	case raw == "":
		errs = append(errs, errors.New("SIGNING_KEY_ENCRYPTION_KEY (base64 of 32 bytes) or SIGNING_KEY_ENCRYPTION_KEY_FILE is required"))
	}
	if raw != "" {
		k, err := signing.ParseEncryptionKey(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("SIGNING_KEY_ENCRYPTION_KEY: %w", err))
		}
		c.encryptionKey = k
	}
	if c.SigningKeyRotation < time.Hour {
		errs = append(errs, fmt.Errorf("SIGNING_KEY_ROTATION must be at least 1h, got %s", c.SigningKeyRotation))
	}
	if c.SigningKeyPublishLead <= 0 || c.SigningKeyPublishLead > c.SigningKeyRotation/2 {
		errs = append(errs, fmt.Errorf("SIGNING_KEY_PUBLISH_LEAD must be positive and at most half of SIGNING_KEY_ROTATION, got %s", c.SigningKeyPublishLead))
	}
	if c.SecretCheckConcurrency < 0 {
		errs = append(errs, fmt.Errorf("CLIENT_SECRET_CHECK_CONCURRENCY must not be negative, got %d", c.SecretCheckConcurrency))
	}
	if c.SecretCheckWait <= 0 || c.SecretCheckWait > 10*time.Second {
		errs = append(errs, fmt.Errorf("CLIENT_SECRET_CHECK_WAIT must be between 1ns and 10s, got %s", c.SecretCheckWait))
	}
	if c.SecretCacheTTL > time.Hour {
		errs = append(errs, fmt.Errorf("CLIENT_SECRET_CACHE_TTL must be at most 1h, got %s", c.SecretCacheTTL))
	}
	if c.TokenIssuer == "" {
		errs = append(errs, errors.New("TOKEN_ISSUER must not be empty"))
	}
	if c.BusinessTokenMaxSeconds < 60 || c.BusinessTokenMaxSeconds > 30*24*3600 {
		errs = append(errs, fmt.Errorf("BUSINESS_TOKEN_MAX_SECONDS must be between 60 and 2592000, got %d", c.BusinessTokenMaxSeconds))
	}
	if c.BootstrapClientID != "" || c.BootstrapClientSecret != "" {
		if !domain.ValidClientID(c.BootstrapClientID) {
			errs = append(errs, errors.New("BOOTSTRAP_CLIENT_ID must be 1 to 64 characters of A-Z a-z 0-9 . _ -"))
		}
		if c.BootstrapClientSecret == "" {
			errs = append(errs, errors.New("BOOTSTRAP_CLIENT_SECRET is required with BOOTSTRAP_CLIENT_ID"))
		}
	}
	return errors.Join(errs...)
}

// EncryptionKey is the resolved 32-byte signing key encryption key.
func (c Config) EncryptionKey() []byte { return c.encryptionKey }

// SecretChecks are the token endpoint's argon2id bound and verified-secret
// cache, for app.Config.SecretChecks.
func (c Config) SecretChecks() credentials.CheckerOptions {
	return credentials.CheckerOptions{
		MaxConcurrent: c.SecretCheckConcurrency,
		MaxWait:       c.SecretCheckWait,
		CacheTTL:      c.SecretCacheTTL,
	}
}
