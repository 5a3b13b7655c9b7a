package config

import (
	"strings"
	"testing"
	"time"
)

// TestTransactionsConfig: the transactions service's URL and timeout,
// which POST /tags uses for bank transactions.
func TestTransactionsConfig(t *testing.T) {
	env := func(kv ...string) map[string]string {
		m := map[string]string{"DATABASE_URL": "postgres://u@127.0.0.1:5432/db?sslmode=disable"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	c, err := LoadFrom(env())
	if err != nil || c.TransactionsURL != "http://127.0.0.1:8082" || c.TransactionsTimeout != 10*time.Second {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	c, err = LoadFrom(env("TRANSACTIONS_URL", "http://acct-transactions", "TRANSACTIONS_TIMEOUT", "3s"))
	if err != nil || c.TransactionsURL != "http://acct-transactions" || c.TransactionsTimeout != 3*time.Second {
		t.Fatalf("set: %+v %v", c, err)
	}
	for _, kv := range [][2]string{
		{"TRANSACTIONS_URL", "not a url"}, {"TRANSACTIONS_URL", "ftp://x"}, {"TRANSACTIONS_URL", "http://"},
		{"TRANSACTIONS_TIMEOUT", "0s"}, {"TRANSACTIONS_TIMEOUT", "1h"},
	} {
		if _, err := LoadFrom(env(kv[0], kv[1])); err == nil || !strings.Contains(err.Error(), kv[0]) {
			t.Errorf("%s=%s: error %v, want one naming it", kv[0], kv[1], err)
		}
	}
}

// TestCustomersInvoicesConfig: the customers-invoices service's URL and
// timeout, which POST /tags uses for invoices and invoice payments.
func TestCustomersInvoicesConfig(t *testing.T) {
	env := func(kv ...string) map[string]string {
		m := map[string]string{"DATABASE_URL": "postgres://u@127.0.0.1:5432/db?sslmode=disable"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	c, err := LoadFrom(env())
	if err != nil || c.CustomersInvoicesURL != "http://127.0.0.1:8083" || c.CustomersInvoicesTimeout != 10*time.Second {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	c, err = LoadFrom(env("CUSTOMERS_INVOICES_URL", "http://acct-customers-invoices", "CUSTOMERS_INVOICES_TIMEOUT", "4s"))
	if err != nil || c.CustomersInvoicesURL != "http://acct-customers-invoices" || c.CustomersInvoicesTimeout != 4*time.Second {
		t.Fatalf("set: %+v %v", c, err)
	}
	for _, kv := range [][2]string{
		{"CUSTOMERS_INVOICES_URL", "not a url"}, {"CUSTOMERS_INVOICES_URL", "ftp://x"}, {"CUSTOMERS_INVOICES_URL", "http://"},
		{"CUSTOMERS_INVOICES_TIMEOUT", "0s"}, {"CUSTOMERS_INVOICES_TIMEOUT", "1h"},
	} {
		if _, err := LoadFrom(env(kv[0], kv[1])); err == nil || !strings.Contains(err.Error(), kv[0]) {
			t.Errorf("%s=%s: error %v, want one naming it", kv[0], kv[1], err)
		}
	}
}
