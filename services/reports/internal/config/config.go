// Package config is the reports service's configuration, read from the
// environment: the kit's blocks (listener, logs, telemetry, database,
// broker, token verification) and the export storage (STORAGE_*).
package config

import (
	"strings"

	pkgconfig "github.com/acctsuite/acct/pkg/config"
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
	// ExportStorage.
	Storage ExportStorage
}

// ExportStorage is storage.Config read from the same variables but
// optional, as the transactions service's receipt storage: with
// STORAGE_BACKEND=fs (the default) and no STORAGE_DIR, exports are off
// (Enabled is false) and the export endpoints answer 503; any other setting
// is checked as storage.Config checks it. (A defined type: pkg/config runs
// the Validate of every nested block, and storage.Config's would refuse the
// empty directory at load.)
type ExportStorage storage.Config

// Enabled reports whether export storage is configured.
func (s ExportStorage) Enabled() bool {
	return s.Backend != storage.BackendFS || strings.TrimSpace(s.Dir) != ""
}

// Config is the block as the storage package takes it.
func (s ExportStorage) Config() storage.Config { return storage.Config(s) }

// Validate accepts the "exports off" setting and otherwise runs
// storage.Config's checks.
func (s ExportStorage) Validate() error {
	if !s.Enabled() {
		return nil
	}
	return storage.Config(s).Validate()
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
