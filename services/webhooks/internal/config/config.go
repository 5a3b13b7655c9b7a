// Package config is the webhooks service's configuration, read from the
// environment: the kit's blocks (listener, logs, telemetry, database,
// broker, cursor secret, token verification) and the delivery settings
// (WEBHOOKS_*).
package config

import (
	"errors"
	"fmt"
	"time"

	pkgconfig "github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/secretbox"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/services/webhooks/internal/domain"
)

// ServiceName names the service in logs, traces, metrics, event sources
// and its consumer group.
const ServiceName = "webhooks"

// DefaultSchema is the service's PostgreSQL schema.
const DefaultSchema = "webhooks"

// Config is the whole service configuration.
type Config struct {
	Base     servicekit.Base
	Data     servicekit.Data
	Auth     servicekit.Auth
	Webhooks Webhooks
}

// Webhooks is the delivery block.
type Webhooks struct {
	// SecretKey is base64 of 32 random bytes: the AES-256-GCM key that
	// seals the endpoints' signing secrets at rest. Required; changing it
	// makes the stored secrets unreadable.
	SecretKey string `env:"WEBHOOKS_SECRET_KEY"`
	// AllowPrivate lets endpoints point at loopback and private addresses
	// (development and tests only; cloud-metadata addresses stay refused).
	AllowPrivate bool `env:"WEBHOOKS_ALLOW_PRIVATE" envDefault:"false"`
	// AllowHTTP accepts http:// endpoints (otherwise https only).
	AllowHTTP bool `env:"WEBHOOKS_ALLOW_HTTP" envDefault:"false"`
	// Timeout bounds one attempt (connect, send, answer).
	Timeout time.Duration `env:"WEBHOOKS_TIMEOUT" envDefault:"15s"`
	// Concurrency is how many deliveries one replica sends at once;
	// PerEndpoint how many of one endpoint's all replicas send at once.
	Concurrency int `env:"WEBHOOKS_CONCURRENCY" envDefault:"64"`
	PerEndpoint int `env:"WEBHOOKS_PER_ENDPOINT" envDefault:"8"`
	// RetrySchedule is the waits before each retry, comma-separated (the
	// default: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). Shorter ones
	// serve tests and the short soak.
	RetrySchedule string `env:"WEBHOOKS_RETRY_SCHEDULE" envDefault:"5s,5m,30m,2h,5h,10h,10h"`
	// Lease is how long a dispatcher holds a claimed delivery: one killed
	// mid-delivery loses it after this, and another sends it again (the
	// same webhook-id). It must exceed WEBHOOKS_TIMEOUT.
	Lease time.Duration `env:"WEBHOOKS_LEASE" envDefault:"2m"`
	// Dispatch turns the dispatcher off on a replica (false: it only
	// serves the API and consumes).
	Dispatch bool `env:"WEBHOOKS_DISPATCH" envDefault:"true"`

	key      []byte
	schedule domain.Schedule
}

// Schedule is the parsed WEBHOOKS_RETRY_SCHEDULE (after Validate).
func (w Webhooks) Schedule() domain.Schedule { return w.schedule }

// Key is the decoded WEBHOOKS_SECRET_KEY (after Validate).
func (w Webhooks) Key() []byte { return w.key }

// Validate decodes the key and checks the bounds.
func (w *Webhooks) Validate() error {
	var errs []error
	if w.SecretKey == "" {
		errs = append(errs, errors.New("WEBHOOKS_SECRET_KEY is required: base64 of 32 random bytes (openssl rand -base64 32)"))
	} else if k, err := secretbox.ParseKey("WEBHOOKS_SECRET_KEY", w.SecretKey); err != nil {
		errs = append(errs, err)
	} else {
		w.key = k
	}
	if s, err := domain.ParseSchedule(w.RetrySchedule); err != nil {
		errs = append(errs, fmt.Errorf("WEBHOOKS_RETRY_SCHEDULE: %w", err))
	} else {
		w.schedule = s
	}
	if w.Timeout <= 0 || w.Timeout > time.Minute {
		errs = append(errs, fmt.Errorf("WEBHOOKS_TIMEOUT must be between 0 and 1m, not %s", w.Timeout))
	}
	if w.Lease < w.Timeout+5*time.Second {
		errs = append(errs, fmt.Errorf("WEBHOOKS_LEASE (%s) must exceed WEBHOOKS_TIMEOUT (%s) by 5 s at least", w.Lease, w.Timeout))
	}
	if w.Concurrency < 1 || w.Concurrency > 4096 {
		errs = append(errs, fmt.Errorf("WEBHOOKS_CONCURRENCY must be between 1 and 4096, not %d", w.Concurrency))
	}
	if w.PerEndpoint < 1 || w.PerEndpoint > w.Concurrency {
		errs = append(errs, fmt.Errorf("WEBHOOKS_PER_ENDPOINT must be between 1 and WEBHOOKS_CONCURRENCY, not %d", w.PerEndpoint))
	}
	return errors.Join(errs...)
}

// Load reads and validates the configuration from the environment.
func Load() (Config, error) { return pkgconfig.Read[Config]() }

// LoadFrom is Load reading the given variables (tests).
func LoadFrom(env map[string]string) (Config, error) { return pkgconfig.ReadFrom[Config](env) }

// Validate defaults DB_SCHEMA to the service's schema.
func (c *Config) Validate() error {
	if c.Data.DB.Schema == "" {
		c.Data.DB.Schema = DefaultSchema
	}
	return nil
}
