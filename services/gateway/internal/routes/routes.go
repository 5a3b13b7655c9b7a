// Package routes is the gateway's routing table: the single source of truth
// for which public paths exist, which service owns them, and which
// authentication and tenancy rules guard them. Adding a service means adding
// rows here (and its UPSTREAM_<SERVICE>_URL); the gateway's wiring and its
// table-driven tests pick the rows up automatically.
package routes

import (
	"fmt"
	"net/http"
	"strings"
)

// Upstream service names. Each has an UPSTREAM_<NAME>_URL variable.
const (
	AuthTokens        = "auth-tokens"
	Transactions      = "transactions"
	CustomersInvoices = "customers-invoices"
	Reports           = "reports"
	BillsTags         = "bills-tags"
	Mileage           = "mileage"
	Webhooks          = "webhooks"
)

// BusinessParam is the path parameter that carries the business id on
// business-scoped routes.
const BusinessParam = "businessId"

// Auth says whether a route needs a bearer token.
type Auth int

const (
	// Public routes are reachable without a token (rate limited per IP).
	Public Auth = iota
	// Token routes need a valid bearer token (rate limited per client).
	Token
)

func (a Auth) String() string {
	if a == Public {
		return "public"
	}
	return "token"
}

// Tenancy is a set of tenancy rules; rules combine with |.
type Tenancy uint8

const (
	// TenancyNone: any authenticated identity may call the route.
	TenancyNone Tenancy = 0
	// PlatformOnly: business-scoped tokens get 403 Forbidden.
	PlatformOnly Tenancy = 1 << iota
	// Business: the :businessId path parameter must be a business the
	// identity may see (owned by the platform client, or the business
	// token's own business); otherwise 404.
	Business
)

// Has reports whether all rules of r are in t.
func (t Tenancy) Has(r Tenancy) bool { return r != 0 && t&r == r }

func (t Tenancy) String() string {
	var parts []string
	if t.Has(Business) {
		parts = append(parts, "business")
	}
	if t.Has(PlatformOnly) {
		parts = append(parts, "platform-only")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "+")
}

// Limit is a route's rate-limit class.
type Limit int

const (
	// Standard routes are limited per client (token routes) or per client
	// IP (public routes) at RATE_LIMIT_RPS/RATE_LIMIT_BURST.
	Standard Limit = iota
	// Credentials routes check client secrets: a stricter per-IP limit
	// (TOKEN_RATE_LIMIT_RPS/_BURST) slows down guessing. Public routes only.
	Credentials
)

// Route is one row of the table.
type Route struct {
	Methods  []string // HTTP methods; GET implies HEAD
	Path     string   // fiber-style pattern, e.g. /v1/businesses/:businessId
	Upstream string   // service name, a key of the upstream URL map
	Auth     Auth
	Tenancy  Tenancy
	Limit    Limit
}

// Table is the gateway's routing table. Order matters only for readability:
// fiber matches static segments and parameters independently of order here.
var Table = []Route{
	{Methods: []string{http.MethodPost}, Path: "/oauth2/token", Upstream: AuthTokens, Auth: Public, Limit: Credentials},
	{Methods: []string{http.MethodGet}, Path: "/.well-known/jwks.json", Upstream: AuthTokens, Auth: Public},
	{Methods: []string{http.MethodGet}, Path: "/whoami", Upstream: AuthTokens, Auth: Token},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses", Upstream: AuthTokens, Auth: Token},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses", Upstream: AuthTokens, Auth: Token, Tenancy: PlatformOnly},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId", Upstream: AuthTokens, Auth: Token, Tenancy: Business},
	// auth-tokens answers 403 to a business token changing its business;
	// the gateway says the same without a round trip.
	{Methods: []string{http.MethodPatch}, Path: "/v1/businesses/:businessId", Upstream: AuthTokens, Auth: Token, Tenancy: Business | PlatformOnly},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/accounting-config", Upstream: AuthTokens, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/auth-token", Upstream: AuthTokens, Auth: Token, Tenancy: Business | PlatformOnly},

	// transactions: the ledger and the chart of accounts.
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/ledger/chart", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/ledger/accounts", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet, http.MethodPut, http.MethodDelete}, Path: "/v1/businesses/:businessId/ledger/accounts/:accountId", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/ledger/accounts/:accountId/archive", Upstream: Transactions, Auth: Token, Tenancy: Business},
	// The general ledger detail of an account, and the journal's and the
	// balances' CSV exports (static segments, matched before :entryId).
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/ledger/accounts/:accountId/lines", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/ledger/balances", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/ledger/balances/exports/csv", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/ledger/entries", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/ledger/entries/exports/csv", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/ledger/entries/:entryId", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/ledger/entries/:entryId/reverse", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/ledger/journal-entries", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/categories", Upstream: Transactions, Auth: Token, Tenancy: Business},
	// transactions: bank accounts and bank transactions.
	{Methods: []string{http.MethodGet, http.MethodPost}, Path: "/v1/businesses/:businessId/custom-accounts", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/custom-accounts/:customAccountId/transactions", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/custom-accounts/:customAccountId/parse-csv", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/custom-accounts/:customAccountId/transactions/record", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPatch}, Path: "/v1/businesses/:businessId/custom-accounts/:customAccountId/transactions/:transactionId/record", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet, http.MethodPost}, Path: "/v1/businesses/:businessId/bank-transactions/:bankTransactionId/documents", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/bank-transactions/:bankTransactionId/documents/:documentId/archive", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/bank-transactions", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/bank-transactions/bulk", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost, http.MethodDelete}, Path: "/v1/businesses/:businessId/bank-transactions/tags", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/bank-transactions/:bankTransactionId", Upstream: Transactions, Auth: Token, Tenancy: Business},
	// The spec's heading says PUT, every sample says POST: both.
	{Methods: []string{http.MethodPut, http.MethodPost}, Path: "/v1/businesses/:businessId/bank-transactions/:bankTransactionId/categorize", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPut, http.MethodPost}, Path: "/v1/businesses/:businessId/bank-transactions/:bankTransactionId/match", Upstream: Transactions, Auth: Token, Tenancy: Business},
	// Archive (the SDK's DELETE), restore, uncategorize, metadata, the bulk
	// calls and the counterparties.
	{Methods: []string{http.MethodDelete}, Path: "/v1/businesses/:businessId/bank-transactions/:bankTransactionId", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/bank-transactions/:bankTransactionId/restore", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/bank-transactions/:bankTransactionId/uncategorize", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet, http.MethodPatch, http.MethodPut}, Path: "/v1/businesses/:businessId/bank-transactions/:bankTransactionId/metadata", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/bank-transactions/bulk-categorize", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/bank-transactions/bulk-match-or-categorize", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/bank-transactions/bulk-uncategorize", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/counterparties", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet, http.MethodPost}, Path: "/v1/businesses/:businessId/categorization-rules", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPatch, http.MethodDelete}, Path: "/v1/businesses/:businessId/categorization-rules/:ruleId", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/categorization-rules/:ruleId/archive", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodDelete}, Path: "/v1/businesses/:businessId/categorization-rules/suggestions/:suggestionId", Upstream: Transactions, Auth: Token, Tenancy: Business},
	// transactions: acctsync. The provider sends the user's browser to the
	// callback without our token: the single-use state is the credential.
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/acctsync/authorize", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/acctsync/connection-status", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/acctsync/sync-from", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/acctsync/sync-from/status", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/acctsync/unlink", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/acctsync/ledger/accounts", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/acctsync/ledger/accounts/:accountId", Upstream: Transactions, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/acctsync/callback", Upstream: Transactions, Auth: Public},

	// customers-invoices: customers.
	{Methods: []string{http.MethodGet, http.MethodPost}, Path: "/v1/businesses/:businessId/customers", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet, http.MethodPatch}, Path: "/v1/businesses/:businessId/customers/:customerId", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/customers/:customerId/archive", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	// customers-invoices: invoices, payments and write-offs. The client SDK
	// posts payments to .../payment/ (with a slash): the router is not
	// strict about a trailing slash, so the row without it covers it.
	{Methods: []string{http.MethodGet, http.MethodPost}, Path: "/v1/businesses/:businessId/invoices", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/invoices/payments", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/invoices/payments/bulk-delete", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/invoices/payments/tags", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/invoices/payments/:paymentId", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/invoices/payments/:paymentId/tags", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/invoices/tags", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/invoices/summary-stats", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet, http.MethodPatch, http.MethodDelete}, Path: "/v1/businesses/:businessId/invoices/:invoiceId", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/invoices/:invoiceId/void", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPut}, Path: "/v1/businesses/:businessId/invoices/:invoiceId/finalize-invoice", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/invoices/:invoiceId/reset", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPut}, Path: "/v1/businesses/:businessId/invoices/:invoiceId/payment/:paymentId", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/invoices/:invoiceId/refund", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/invoices/:invoiceId/payment-methods", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/invoices/:invoiceId/pdf", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/invoices/:invoiceId/html", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/invoices/:invoiceId/payment", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/invoices/:invoiceId/write-off", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/invoices/:invoiceId/write-offs/:writeOffId", Upstream: CustomersInvoices, Auth: Token, Tenancy: Business},

	// bills-tags: the tag registry and generic tagging (the static key/
	// segment before :dimensionId).
	{Methods: []string{http.MethodGet, http.MethodPost}, Path: "/v1/businesses/:businessId/tags/dimensions", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/tags/dimensions/key/:dimensionKey", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPatch}, Path: "/v1/businesses/:businessId/tags/dimensions/:dimensionId", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/tags/dimensions/:dimensionId/values", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/tags/dimensions/:dimensionId/values/:valueId/archive", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/tags", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	// bills-tags: vendors.
	{Methods: []string{http.MethodGet, http.MethodPost}, Path: "/v1/businesses/:businessId/vendors", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet, http.MethodPatch}, Path: "/v1/businesses/:businessId/vendors/:vendorId", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/vendors/:vendorId/update", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/vendors/:vendorId/archive", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/vendors/:vendorId/merge", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	// bills-tags: bills (the static bulk segment before :billId).
	{Methods: []string{http.MethodGet, http.MethodPost}, Path: "/v1/businesses/:businessId/bills", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/bills/bulk", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet, http.MethodPatch}, Path: "/v1/businesses/:businessId/bills/:billId", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/bills/:billId/update", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/bills/:billId/void", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	// bills-tags: bill payments and the spec's tag endpoints.
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/bills/bill-payments", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost, http.MethodDelete}, Path: "/v1/businesses/:businessId/bills/bill-payments/tags", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet, http.MethodDelete}, Path: "/v1/businesses/:businessId/bills/bill-payments/:paymentId", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/bills/bill-payments/:paymentId/update", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	// bills-tags: vendor credits.
	{Methods: []string{http.MethodGet, http.MethodPost}, Path: "/v1/businesses/:businessId/bills/vendor-credits", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet, http.MethodPatch}, Path: "/v1/businesses/:businessId/bills/vendor-credits/:vendorCreditId", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	// bills-tags: receipts (the static import segment before :businessDocumentId).
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/receipts/import", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/receipts", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/receipts/:businessDocumentId", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/receipts/:businessDocumentId/create-bill", Upstream: BillsTags, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/receipts/:businessDocumentId/reject", Upstream: BillsTags, Auth: Token, Tenancy: Business},

	// reports: the profit and loss from the ledger's read model (and its
	// comparison's CSV export); the transactions CSV and XLSX exports from
	// its bank transactions read model.
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/profit-and-loss", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/profit-and-loss-summaries", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/profit-and-loss/lines", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/profit-and-loss/exports/excel", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/profit-and-loss/lines/exports/excel", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/balance-sheet", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/balance-sheet/exports/csv", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/balance-sheet/exports/excel", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/cashflow-statement", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/cashflow-statement/exports/csv", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/reports/profit-and-loss-comparison", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/reports/profit-and-loss/exports/comparison-csv", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/transactions/exports/csv", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/transactions/exports/excel", Upstream: Reports, Auth: Token, Tenancy: Business},
	// reports: the unified reports (the client's generic table): their
	// config, then each report and its spreadsheet export by route (a
	// route is a static path here: a report is no tenant's row).
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/config", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/unified/trial-balance", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/unified/trial-balance/exports/excel", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/unified/ar-aging", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/unified/ar-aging/exports/excel", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/unified/ap-aging", Upstream: Reports, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/reports/unified/ap-aging/exports/excel", Upstream: Reports, Auth: Token, Tenancy: Business},

	// mileage: vehicles, trips and the mileage summary. Static segments
	// (bulk) are matched before :tripId by the router.
	{Methods: []string{http.MethodGet, http.MethodPost}, Path: "/v1/businesses/:businessId/mileage/vehicles", Upstream: Mileage, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet, http.MethodPatch, http.MethodDelete}, Path: "/v1/businesses/:businessId/mileage/vehicles/:vehicleId", Upstream: Mileage, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/mileage/vehicles/:vehicleId/archive", Upstream: Mileage, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/mileage/vehicles/:vehicleId/reactivate", Upstream: Mileage, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet, http.MethodPost}, Path: "/v1/businesses/:businessId/mileage/trips", Upstream: Mileage, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodPost}, Path: "/v1/businesses/:businessId/mileage/trips/bulk", Upstream: Mileage, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet, http.MethodPatch, http.MethodDelete}, Path: "/v1/businesses/:businessId/mileage/trips/:tripId", Upstream: Mileage, Auth: Token, Tenancy: Business},
	{Methods: []string{http.MethodGet}, Path: "/v1/businesses/:businessId/mileage/summary", Upstream: Mileage, Auth: Token, Tenancy: Business},

	// webhooks: the event catalog (any token) and the endpoints API
	// (platform tokens only; the service scopes everything by platform).
	{Methods: []string{http.MethodGet}, Path: "/v1/webhooks/event-types", Upstream: Webhooks, Auth: Token},
	{Methods: []string{http.MethodGet, http.MethodPost}, Path: "/v1/webhooks/endpoints", Upstream: Webhooks, Auth: Token, Tenancy: PlatformOnly},
	{Methods: []string{http.MethodGet, http.MethodPatch, http.MethodDelete}, Path: "/v1/webhooks/endpoints/:endpointId", Upstream: Webhooks, Auth: Token, Tenancy: PlatformOnly},
	{Methods: []string{http.MethodPost}, Path: "/v1/webhooks/endpoints/:endpointId/rotate-secret", Upstream: Webhooks, Auth: Token, Tenancy: PlatformOnly},
	{Methods: []string{http.MethodPost}, Path: "/v1/webhooks/endpoints/:endpointId/test", Upstream: Webhooks, Auth: Token, Tenancy: PlatformOnly},
	{Methods: []string{http.MethodGet}, Path: "/v1/webhooks/endpoints/:endpointId/deliveries", Upstream: Webhooks, Auth: Token, Tenancy: PlatformOnly},
	{Methods: []string{http.MethodPost}, Path: "/v1/webhooks/endpoints/:endpointId/deliveries/:deliveryId/resend", Upstream: Webhooks, Auth: Token, Tenancy: PlatformOnly},
	{Methods: []string{http.MethodPost}, Path: "/v1/webhooks/endpoints/:endpointId/recover", Upstream: Webhooks, Auth: Token, Tenancy: PlatformOnly},
}

// Upstreams lists the distinct upstream names used by the table, in order of
// first appearance.
func Upstreams(table []Route) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range table {
		if !seen[r.Upstream] {
			seen[r.Upstream] = true
			out = append(out, r.Upstream)
		}
	}
	return out
}

// Paths maps each distinct path pattern to the methods it accepts (with HEAD
// added where GET is), in table order. The gateway answers 405 with an Allow
// header for any other method on these paths.
func Paths(table []Route) (order []string, allowed map[string][]string) {
	allowed = map[string][]string{}
	for _, r := range table {
		if _, ok := allowed[r.Path]; !ok {
			order = append(order, r.Path)
		}
		for _, m := range Methods(r) {
			if !contains(allowed[r.Path], m) {
				allowed[r.Path] = append(allowed[r.Path], m)
			}
		}
	}
	return order, allowed
}

// Methods returns the methods a route is registered for: its own plus HEAD
// for GET routes.
func Methods(r Route) []string {
	out := append([]string(nil), r.Methods...)
	if contains(out, http.MethodGet) && !contains(out, http.MethodHead) {
		out = append(out, http.MethodHead)
	}
	return out
}

// Concrete fills a pattern's :params with values (param name → value), for
// tests and documentation.
func Concrete(pattern string, values map[string]string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") {
			if v, ok := values[strings.TrimPrefix(s, ":")]; ok {
				segs[i] = v
			}
		}
	}
	return strings.Join(segs, "/")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Validate checks the table's internal consistency: every rule needs a token,
// business tenancy needs the :businessId parameter, every row names methods
// and an upstream, and no pattern has a wildcard: a wildcard would forward
// paths nobody reviewed (and whose segments no tenancy rule sees) to a
// service.
func Validate(table []Route) error {
	for _, r := range table {
		if len(r.Methods) == 0 || r.Path == "" || r.Upstream == "" {
			return fmt.Errorf("route %q: methods, path and upstream are required", r.Path)
		}
		if !strings.HasPrefix(r.Path, "/") || strings.ContainsAny(r.Path, "*+?") {
			return fmt.Errorf("route %q: patterns start with / and have no wildcards or optional parameters", r.Path)
		}
		if r.Limit == Credentials && r.Auth != Public {
			return fmt.Errorf("route %q: the credentials rate limit is for public routes", r.Path)
		}
		if r.Auth == Public && r.Tenancy != TenancyNone {
			return fmt.Errorf("route %q: tenancy rules need token auth", r.Path)
		}
		if r.Tenancy.Has(Business) && !strings.Contains(r.Path, "/:"+BusinessParam) {
			return fmt.Errorf("route %q: business tenancy needs the :%s parameter", r.Path, BusinessParam)
		}
	}
	return nil
}

// Ambiguous reports whether a raw request path could mean two different
// paths to two readers: a dot segment ("." or "..", also percent-encoded),
// an encoded slash or backslash, a raw backslash, or an encoded NUL. The
// gateway routes on the raw path and forwards it byte for byte; a service
// or library that decodes or resolves such a path afterwards could reach a
// route (or a business) other than the one the gateway authorised, so these
// paths are refused instead.
func Ambiguous(path []byte) bool {
	dots := 0 // dots in the current segment so far; -1 once it has anything else
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '/':
			if dots == 1 || dots == 2 {
				return true
			}
			dots = 0
			continue
		case c == '\\':
			return true
		case c == '%' && i+2 < len(path):
			switch hi, lo := path[i+1], path[i+2]|0x20; { // lo lowercased
			case hi == '2' && lo == 'f', hi == '5' && lo == 'c', hi == '0' && lo == '0':
				return true
			case hi == '2' && lo == 'e':
				if dots >= 0 {
					dots++
				}
				i += 2
				continue
			}
		case c == '.':
			if dots >= 0 {
				dots++
			}
			continue
		}
		dots = -1
	}
	return dots == 1 || dots == 2
}

// Row is one route as `gateway routes` prints it: the table in a form tools
// outside the gateway read (the tenancy matrix is generated from it).
type Row struct {
	Methods  []string `json:"methods"`
	Path     string   `json:"path"`
	Upstream string   `json:"upstream"`
	Auth     string   `json:"auth"`    // public or token
	Tenancy  []string `json:"tenancy"` // rules, e.g. ["business", "platform-only"]; [] for none
	Limit    string   `json:"limit"`   // standard or credentials
}

// Listing is the document `gateway routes` prints.
type Listing struct {
	Routes []Row `json:"routes"`
}

// String names the rate-limit class.
func (l Limit) String() string {
	if l == Credentials {
		return "credentials"
	}
	return "standard"
}

// List describes table as Rows, in table order.
func List(table []Route) Listing {
	out := Listing{Routes: make([]Row, 0, len(table))}
	for _, r := range table {
		row := Row{Methods: append([]string(nil), r.Methods...), Path: r.Path, Upstream: r.Upstream,
			Auth: r.Auth.String(), Tenancy: []string{}, Limit: r.Limit.String()}
		if r.Tenancy.Has(Business) {
			row.Tenancy = append(row.Tenancy, "business")
		}
		if r.Tenancy.Has(PlatformOnly) {
			row.Tenancy = append(row.Tenancy, "platform-only")
		}
		out.Routes = append(out.Routes, row)
	}
	return out
}
