// Package config is the customers-invoices service's configuration, read
// from the environment: the kit's blocks (listener, logs, telemetry,
// database, broker, cursor secret, token verification), and the object
// storage of the invoices' PDFs (STORAGE_*, EXPORT_*).
package config

import (
	pkgconfig "github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/exportfiles"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/storage"
)

// ServiceName names the service in logs, traces, metrics, event sources
// and its consumer group.
const ServiceName = "customers-invoices"

// DefaultSchema is the service's PostgreSQL schema.
const DefaultSchema = "invoicing"

// Config is the whole service configuration.
type Config struct {
	Base servicekit.Base
	Data servicekit.Data
	Auth servicekit.Auth

	// Storage is where the invoices' PDFs go (STORAGE_*). Optional: without
	// it GET /invoices/{id}/pdf answers 503 (see storage.Optional).
	Storage storage.Optional

	// Exports is how long a PDF is kept (EXPORT_TTL) and answered again for
	// an unchanged invoice (EXPORT_REUSE_WINDOW).
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
