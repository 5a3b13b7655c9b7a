// Package config is the transactions service's configuration, read from
// the environment: the kit's blocks (listener, logs, telemetry, database,
// broker, cursor secret, token verification), the external accounting
// connection, the receipt storage and how long the ledger's export files
// are kept and reused (EXPORT_*).
package config

import (
	"fmt"
	"time"

	pkgconfig "github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/exportfiles"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
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

	// Exports is how long the ledger's export files are kept (EXPORT_TTL)
	// and reused for identical requests (EXPORT_REUSE_WINDOW). Receipts and
	// documents are never expired.
	Exports exportfiles.Policy

	// ReceiptSpoolBytes bounds the receipts all record requests hold on
	// local disk at once while they are read (below the pod's /tmp size:
	// the chart's 64Mi); ReceiptSpoolWait is how long a request waits for
	// room before a 503 with Retry-After.
	ReceiptSpoolBytes int64         `env:"RECEIPT_SPOOL_BYTES" envDefault:"50331648"`
	ReceiptSpoolWait  time.Duration `env:"RECEIPT_SPOOL_WAIT" envDefault:"5s"`
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
	if c.ReceiptSpoolBytes < banking.DefaultMaxReceiptBytes {
		return fmt.Errorf("RECEIPT_SPOOL_BYTES %d: must hold at least one receipt (%d bytes)", c.ReceiptSpoolBytes, banking.DefaultMaxReceiptBytes)
	}
	if c.ReceiptSpoolWait < 0 {
		return fmt.Errorf("RECEIPT_SPOOL_WAIT %s: must not be negative", c.ReceiptSpoolWait)
	}
	return nil
}
