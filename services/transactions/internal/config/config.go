// Package config is the transactions service's configuration, read from
// the environment: the kit's blocks (listener, logs, telemetry, database,
// broker, cursor secret, token verification), the external accounting
// connection and the receipt storage.
package config

import (
	pkgconfig "github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
)

// ServiceName names the service in logs, traces, metrics, event sources
// and its consumer group.
const ServiceName = "transactions"

// DefaultSchema is the service's PostgreSQL schema.
const DefaultSchema = "transactions"

// Config is the whole service configuration.
type Config struct {
	Base servicekit.Base
	Data servicekit.Data
	Auth servicekit.Auth

	// Acctsync is the external accounting software connection (ACCTSYNC_*).
	Acctsync acctsync.Config

	// Storage is where receipts and the ledger's CSV exports go
	// (STORAGE_*). It is optional: see storage.Optional.
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
