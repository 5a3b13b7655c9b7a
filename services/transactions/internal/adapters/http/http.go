// Package http is the transactions service's HTTP adapter: Fiber handlers
// that parse a request, call the ledger and render the answer in the
// spec's shapes (and the client SDK's, see client-shapes.md), one file per
// resource. Errors go to httpx's error handler unchanged.
//
// Ledger accounts appear in two forms. Where the spec shows the
// Single_Chart_Account (GET, POST and PUT /ledger/accounts...), `id` is
// {type: "AccountId", id} and `stable_name` is {type: "StableName",
// stable_name}, as the spec shows. Everywhere the SDK's shapes apply (a
// journal line's `account`, chart nodes, balance nodes) they are plain
// strings.
package http

import (
	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/httpguard"
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// Options are the collaborators of the handlers.
type Options struct {
	Ledger  *app.Ledger
	Banking *app.Banking
	// Spool bounds the receipts record requests spool at once (nil:
	// unbounded).
	Spool *banking.SpoolBudget
	// Guards are the kit's route guards (token, tenancy, idempotency,
	// cursor codec).
	httpguard.Guards
}

type handlers struct {
	ledger  *app.Ledger
	banking *app.Banking
	codec   *page.Codec
	spool   *banking.SpoolBudget
}

// Register mounts every ledger and bank-account route on r.
func Register(r fiber.Router, o Options) {
	h := &handlers{ledger: o.Ledger, banking: o.Banking, codec: o.Cursors, spool: o.Spool}
	idem := o.Idem()
	const p = "/v1/businesses/:businessId"
	auth, biz := o.Auth, o.Business

	r.Get(p+"/ledger/chart", auth, biz, h.getChart)
	r.Get(p+"/ledger/accounts/:accountId", auth, biz, h.getAccount)
	r.Get(p+"/ledger/accounts/:accountId/lines", auth, biz, h.listAccountLines)
	r.Post(p+"/ledger/accounts", auth, biz, idem, h.createAccount)
	r.Put(p+"/ledger/accounts/:accountId", auth, biz, h.updateAccount)
	r.Post(p+"/ledger/accounts/:accountId/archive", auth, biz, h.archiveAccount)
	r.Delete(p+"/ledger/accounts/:accountId", auth, biz, h.deleteAccount)
	r.Get(p+"/categories", auth, biz, h.listCategories)

	r.Get(p+"/ledger/entries", auth, biz, h.listEntries)
	r.Get(p+"/ledger/entries/exports/csv", auth, biz, h.exportEntries)
	r.Get(p+"/ledger/entries/:entryId", auth, biz, h.getEntry)
	r.Post(p+"/ledger/entries/:entryId/reverse", auth, biz, idem, h.reverseEntry)
	r.Post(p+"/ledger/journal-entries", auth, biz, idem, h.createJournalEntry)
	r.Get(p+"/ledger/balances", auth, biz, h.getBalances)
	r.Get(p+"/ledger/balances/exports/csv", auth, biz, h.exportBalances)

	r.Post(p+"/custom-accounts", auth, biz, idem, h.createCustomAccount)
	r.Get(p+"/custom-accounts", auth, biz, h.listCustomAccounts)
	r.Post(p+"/custom-accounts/:customAccountId/transactions", auth, biz, idem, h.createCustomTransactions)
	r.Post(p+"/custom-accounts/:customAccountId/parse-csv", auth, biz, h.previewStatementCSV)
	r.Post(p+"/bank-transactions/bulk", auth, biz, idem, h.importTransactions)
	r.Post(p+"/categorization-rules", auth, biz, idem, h.createRule)
	r.Get(p+"/categorization-rules", auth, biz, h.listRules)
	r.Delete(p+"/categorization-rules/suggestions/:suggestionId", auth, biz, h.rejectRuleSuggestion)
	r.Delete(p+"/categorization-rules/:ruleId", auth, biz, h.deleteRule)
	r.Patch(p+"/categorization-rules/:ruleId", auth, biz, h.updateRule)
	r.Post(p+"/categorization-rules/:ruleId/archive", auth, biz, h.archiveRule)
	r.Get(p+"/bank-transactions", auth, biz, h.listBankTransactions)
	r.Post(p+"/bank-transactions/tags", auth, biz, h.tagTransactions)
	r.Delete(p+"/bank-transactions/tags", auth, biz, h.untagTransactions)
	r.Get(p+"/bank-transactions/:bankTransactionId", auth, biz, h.getBankTransaction)
	r.Put(p+"/bank-transactions/:bankTransactionId/categorize", auth, biz, h.categorize)
	r.Post(p+"/bank-transactions/:bankTransactionId/categorize", auth, biz, h.categorize)
	r.Put(p+"/bank-transactions/:bankTransactionId/match", auth, biz, h.confirmMatch)
	r.Post(p+"/bank-transactions/:bankTransactionId/match", auth, biz, h.confirmMatch)
	r.Post(p+"/custom-accounts/:customAccountId/transactions/record", auth, biz, idem, h.recordTransaction)
	r.Patch(p+"/custom-accounts/:customAccountId/transactions/:transactionId/record", auth, biz, h.updateRecordedTransaction)
	r.Get(p+"/bank-transactions/:bankTransactionId/documents", auth, biz, h.listDocuments)
	r.Post(p+"/bank-transactions/:bankTransactionId/documents", auth, biz, idem, h.addDocument)
	r.Post(p+"/bank-transactions/:bankTransactionId/documents/:documentId/archive", auth, biz, h.archiveDocument)
	h.registerTransactionActions(r, p, auth, biz)
}

// businessID is the business RequireBusiness authorised.
func businessID(c *fiber.Ctx) uuid.UUID {
	id, _ := httpauth.BusinessIDFrom(c)
	return id
}

// identity is the verified caller.
func identity(c *fiber.Ctx) authn.Identity {
	id, _ := httpauth.IdentityFrom(c)
	return id
}
