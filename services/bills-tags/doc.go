// Package billstags is the bills & tags service: vendors, bills, bill
// payments and vendor credits, published on acct.bills.v1 for the ledger.
// The package itself holds what belongs to the service as a whole: its
// embedded OpenAPI document.
package billstags
