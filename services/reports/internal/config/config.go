// Package config is the reports service's configuration, read from the
// environment: the kit's blocks (listener, logs, telemetry, database,
// broker, token verification), the export storage (STORAGE_*) and how long
// export files are kept and reused (EXPORT_*).
package config

import (
	pkgconfig "github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/exportfiles"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/storage"
)

// ServiceName names the service in logs, traces, metrics, event sources
// and its consumer group.
const ServiceName = "reports"

// DefaultSchema is the service's PostgreSQL schema.
const DefaultSchema = "reports"

// Config is the whole service configuration.
type Config struct {
	Base servicekit.Base
	Data servicekit.Data
	Auth servicekit.Auth

	// Storage is where CSV exports go (STORAGE_*). It is optional: see
	// storage.Optional.
	Storage storage.Optional

	// Exports is how long export files are kept (EXPORT_TTL) and reused
	// for identical requests (EXPORT_REUSE_WINDOW).
	Exports exportfiles.Policy
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
