// Package config is the bills-tags service's configuration, read
// from the environment: the kit's blocks (listener, logs, telemetry,
// database, broker, cursor secret, token verification), the internal
// calls generic tagging makes (TRANSACTIONS_URL, TRANSACTIONS_TIMEOUT,
// CUSTOMERS_INVOICES_URL, CUSTOMERS_INVOICES_TIMEOUT) and
// the receipt file storage.
package config

import (
	"fmt"
	"net/url"
	"time"

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
	// Transactions is the transactions service, which POST /tags reaches
	// for bank transactions.
	TransactionsURL     string        `env:"TRANSACTIONS_URL" envDefault:"http://127.0.0.1:8082"`
	TransactionsTimeout time.Duration `env:"TRANSACTIONS_TIMEOUT" envDefault:"10s"`
	// CustomersInvoices is the customers-invoices service, which POST
	// /tags reaches for invoices and invoice payments.
	CustomersInvoicesURL     string        `env:"CUSTOMERS_INVOICES_URL" envDefault:"http://127.0.0.1:8083"`
	CustomersInvoicesTimeout time.Duration `env:"CUSTOMERS_INVOICES_TIMEOUT" envDefault:"10s"`

	// Storage is where imported receipts go (STORAGE_*). It is optional:
	// see storage.Optional (without it the receipt endpoints answer 503).
	Storage storage.Optional
}

// Load reads and validates the configuration from the environment.
func Load() (Config, error) { return pkgconfig.Read[Config]() }

// LoadFrom is Load reading the given variables (tests).
func LoadFrom(env map[string]string) (Config, error) { return pkgconfig.ReadFrom[Config](env) }

// Validate defaults DB_SCHEMA to the service's schema and checks the
// URLs and timeouts of the services generic tagging calls.
func (c *Config) Validate() error {
	if c.Data.DB.Schema == "" {
		c.Data.DB.Schema = DefaultSchema
	}
	if err := checkUpstream("TRANSACTIONS", c.TransactionsURL, c.TransactionsTimeout); err != nil {
		return err
	}
	return checkUpstream("CUSTOMERS_INVOICES", c.CustomersInvoicesURL, c.CustomersInvoicesTimeout)
}

// checkUpstream checks prefix_URL (http or https with a host) and
// prefix_TIMEOUT (up to 2 minutes).
func checkUpstream(prefix, rawURL string, timeout time.Duration) error {
	if u, err := url.Parse(rawURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s_URL must be an http(s) URL, got %q", prefix, rawURL)
	}
	if timeout <= 0 || timeout > 2*time.Minute {
		return fmt.Errorf("%s_TIMEOUT must be between 1ns and 2m, got %s", prefix, timeout)
	}
	return nil
}
