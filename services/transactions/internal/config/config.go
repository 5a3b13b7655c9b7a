// Package config is the transactions service's configuration, read from
// the environment: the kit's blocks (listener, logs, telemetry, database,
// broker, cursor secret, token verification), the external accounting
// connection and the receipt storage.
package config

import (
	"strings"

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

	// Storage is where receipts go (STORAGE_*). It is optional: see
	// ReceiptStorage.
	Storage ReceiptStorage
}

// ReceiptStorage is storage.Config read from the same variables but
// optional: the chart and the e2e suite do not configure storage yet, and
// the service must start without it. With STORAGE_BACKEND=fs (the default)
// and no STORAGE_DIR, receipts are off (Enabled is false) and the receipt
// endpoints answer 503; any other setting is checked as storage.Config
// checks it. It is a defined type rather than a field of type
// storage.Config because pkg/config runs the Validate of every nested
// block, and storage.Config's would refuse the empty directory at load.
type ReceiptStorage storage.Config

// Enabled reports whether receipts are configured.
func (s ReceiptStorage) Enabled() bool {
	return s.Backend != storage.BackendFS || strings.TrimSpace(s.Dir) != ""
}

// Config is the block as the storage package takes it.
func (s ReceiptStorage) Config() storage.Config { return storage.Config(s) }

// Validate accepts the "receipts off" setting and otherwise runs
// storage.Config's checks.
func (s ReceiptStorage) Validate() error {
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
