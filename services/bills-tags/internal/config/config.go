// Package config is the bills-tags service's configuration, read
// from the environment: the kit's blocks (listener, logs, telemetry,
// database, broker, cursor secret, token verification) and the receipt
// file storage.
package config

import (
	pkgconfig "github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/storage"
)

// ServiceName names the service in logs, traces, metrics, event sources
// and its consumer group.
const ServiceName = "bills-tags"

// DefaultSchema is the service's PostgreSQL schema.
const DefaultSchema = "bills"

// Config is the whole service configuration.
type Config struct {
	Base servicekit.Base
	Data servicekit.Data
	Auth servicekit.Auth

	// Storage is where imported receipts go (STORAGE_*). It is optional:
	// see storage.Optional (without it the receipt endpoints answer 503).
	Storage storage.Optional
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
