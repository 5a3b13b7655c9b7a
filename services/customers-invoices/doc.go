// Package customersinvoices is the customers & invoices service: customers,
// invoices, invoice payments and write-offs, published on
// acct.invoicing.v1 for the ledger. The package itself holds what
// belongs to the service as a whole: its embedded OpenAPI document.
package customersinvoices
