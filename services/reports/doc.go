// Package reports is the reports service: a read model of the ledger built
// from acct.ledger.v1 events only (never another service's schema) and the
// profit-and-loss report served from it. The package
// itself holds what belongs to the service as a whole: its embedded OpenAPI
// document.
package reports
