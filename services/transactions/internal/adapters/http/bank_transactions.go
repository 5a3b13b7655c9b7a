package http

import (
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking/salestax"
)

// MaxTransactionsBody bounds a body of up to banking.MaxImportItems
// transactions (each with metadata and tags).
const MaxTransactionsBody = 8 << 20

// bankTxnBaseJSON are the fields every rendering of a bank transaction
// has (both bankTxnDataOnlyJSON and bankTxnJSON embed it).
type bankTxnBaseJSON struct {
	ID                   string          `json:"id"`
	BusinessID           string          `json:"business_id"`
	Source               string          `json:"source"`
	SourceTransactionID  string          `json:"source_transaction_id"`
	SourceAccountID      *string         `json:"source_account_id"`
	ExternalID           *string         `json:"external_id"`
	ExternalAccountID    *string         `json:"external_account_id"`
	TransactionType      *string         `json:"transaction_type"`
	ImportedAt           time.Time       `json:"imported_at"`
	Date                 time.Time       `json:"date"`
	Direction            string          `json:"direction"`
	Amount               int64           `json:"amount"`
	CounterpartyName     *string         `json:"counterparty_name"`
	CounterpartyID       *string         `json:"counterparty_id"`
	Description          *string         `json:"description"`
	AccountName          *string         `json:"account_name"`
	CategorizationStatus string          `json:"categorization_status"`
	Metadata             json.RawMessage `json:"metadata"`
	Memo                 *string         `json:"memo"`
	ReferenceNumber      *string         `json:"reference_number"`
	CustomerID           *string         `json:"customer_id"`
	VendorID             *string         `json:"vendor_id"`
	TaxCode              *string         `json:"tax_code"`
}

func toBankTxnBase(t banking.BankTransaction) bankTxnBaseJSON {
	out := bankTxnBaseJSON{
		ID: t.ID.String(), BusinessID: t.BusinessID.String(), Source: string(t.Source),
		SourceTransactionID: t.SourceTransactionID, SourceAccountID: t.SourceAccountID, ExternalID: t.ExternalID,
		ExternalAccountID: uuidString(t.ExternalAccountID), TransactionType: t.TransactionType, ImportedAt: t.ImportedAt, Date: t.Date,
		Direction: string(t.Direction), Amount: int64(t.Amount), CounterpartyName: t.CounterpartyName,
		CounterpartyID: uuidString(t.CounterpartyID()), Description: t.Description, AccountName: t.AccountName, CategorizationStatus: string(t.Status),
		Metadata: t.Metadata, Memo: t.Memo, ReferenceNumber: t.ReferenceNumber,
		CustomerID: uuidString(t.CustomerID), VendorID: uuidString(t.VendorID), TaxCode: t.TaxCode,
	}
	if len(out.Metadata) == 0 {
		out.Metadata = json.RawMessage("null")
	}
	return out
}

// bankTxnDataOnlyJSON is the SDK's BankTransactionDataOnly: a transaction
// without category, tags or matches (the answer of creating custom
// transactions).
type bankTxnDataOnlyJSON struct {
	bankTxnBaseJSON
}

func toBankTxnDataOnly(t banking.BankTransaction) bankTxnDataOnlyJSON {
	return bankTxnDataOnlyJSON{bankTxnBaseJSON: toBankTxnBase(t)}
}

// createCustomTransactions is POST
// /v1/businesses/{businessId}/custom-accounts/{customAccountId}/transactions:
// up to 1,000 transactions, checked all together (one 400 names every
// violation, nothing is written), answered as data: [...] in the order
// sent. Items whose external_id exists are answered with the stored row.
func (h *handlers) createCustomTransactions(c *fiber.Ctx) error {
	accountID, err := httpx.UUIDParam(c, "customAccountId")
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxTransactionsBody)
	if err != nil {
		return err
	}
	items, err := banking.ParseCustomTransactions(body)
	if err != nil {
		return err
	}
	txns, err := h.banking.CreateCustomTransactions(c.UserContext(), businessID(c), accountID, items)
	if err != nil {
		return err
	}
	out := make([]bankTxnDataOnlyJSON, len(txns))
	for i, t := range txns {
		out[i] = toBankTxnDataOnly(t)
	}
	return httpx.Created(c, out)
}

// importTransactions is POST /v1/businesses/{businessId}/bank-transactions/bulk:
// up to 1,000 provider or API transactions, checked all together (one 400
// names every violation, nothing is written), answered as data: [...] in
// the order sent; a (source, source_transaction_id) imported before is
// answered with the stored row.
func (h *handlers) importTransactions(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxTransactionsBody)
	if err != nil {
		return err
	}
	items, err := banking.ParseImportBatch(body)
	if err != nil {
		return err
	}
	txns, err := h.banking.ImportTransactions(c.UserContext(), businessID(c), items)
	if err != nil {
		return err
	}
	out := make([]bankTxnDataOnlyJSON, len(txns))
	for i, t := range txns {
		out[i] = toBankTxnDataOnly(t)
	}
	return httpx.Created(c, out)
}

// bankTxnJSON is a bank transaction: the spec's Bank_Transaction with the
// SDK's BankTransaction fields.
type bankTxnJSON struct {
	Type string `json:"type"`
	bankTxnBaseJSON
	CustomAccountID         *string              `json:"custom_account_id"`
	AccountMask             *string              `json:"account_mask"`
	AccountInstitution      *institutionJSON     `json:"account_institution"`
	Category                any                  `json:"category"`
	CategorizationMethod    *string              `json:"categorization_method"`
	CategorizationFlow      *categorizationFlo   `json:"categorization_flow"`
	TaxOptions              *taxOptionsJSON      `json:"tax_options"`
	ProjectedIncomeCategory string               `json:"projected_income_category"`
	SuggestedMatches        []suggestedMatchJSON `json:"suggested_matches"`
	Match                   *matchJSON           `json:"match"`
	TransactionTags         []tags.Tag           `json:"transaction_tags"`
	DocumentIDs             []string             `json:"document_ids"`
	Customer                any                  `json:"customer"`
	Vendor                  any                  `json:"vendor"`
	CustomerExternalID      *string              `json:"customer_external_id"`
	VendorExternalID        *string              `json:"vendor_external_id"`
	ArchivedAt              *time.Time           `json:"archived_at"`
	// UpdateCategorizationRulesSuggestion is the rule the transaction's
	// categorization suggests (rules.go); null on lists.
	UpdateCategorizationRulesSuggestion *ruleSuggestionJSON `json:"update_categorization_rules_suggestion"`
}

type institutionJSON struct {
	Name string  `json:"name"`
	Logo *string `json:"logo"`
}

type taxOptionJSON struct {
	Code        string `json:"code"`
	DisplayName string `json:"display_name"`
}

type taxOptionsJSON struct {
	Canada []taxOptionJSON `json:"canada"`
}

// categorizationFlo is the categorization_flow: the spec's `categories`
// and the SDK's `suggestions` (the same categories).
type categorizationFlo struct {
	Type        string `json:"type"`
	Category    any    `json:"category"`
	Categories  []any  `json:"categories"`
	Suggestions []any  `json:"suggestions"`
}

// accountCategoryJSON is the SDK's AccountCategorization (with the spec's
// {category, display_name}).
type accountCategoryJSON struct {
	Type        string  `json:"type"`
	ID          string  `json:"id"`
	StableName  *string `json:"stable_name"`
	Category    string  `json:"category"`
	DisplayName string  `json:"display_name"`
}

// exclusionCategoryJSON is the SDK's ExclusionCategorization.
type exclusionCategoryJSON struct {
	Type          string `json:"type"`
	ID            string `json:"id"`
	Category      string `json:"category"`
	DisplayName   string `json:"display_name"`
	ExclusionType string `json:"exclusion_type"`
}

type splitCategoryJSON struct {
	Type        string           `json:"type"`
	ID          string           `json:"id"`
	Category    string           `json:"category"`
	DisplayName string           `json:"display_name"`
	Entries     []splitEntryJSON `json:"entries"`
}

type splitEntryJSON struct {
	Type     string     `json:"type"`
	Amount   int64      `json:"amount"`
	Category any        `json:"category"`
	TaxCode  *string    `json:"tax_code"`
	Tags     []tags.Tag `json:"tags"`
}

func categoryOf(e banking.TxnCategoryEntry) any {
	if e.ExclusionType != nil {
		return exclusionCategoryJSON{Type: "Exclusion", ID: *e.ExclusionType, Category: *e.ExclusionType, DisplayName: e.DisplayName, ExclusionType: *e.ExclusionType}
	}
	out := accountCategoryJSON{Type: "Account", StableName: e.StableName, DisplayName: e.DisplayName}
	if e.AccountID != nil {
		out.ID = e.AccountID.String()
		out.Category = out.ID
	}
	if e.StableName != nil {
		out.Category = *e.StableName
	}
	return out
}

// txnCategoryJSON is the transaction's `category`: nil until categorized.
func txnCategoryJSON(t banking.BankTransaction) any {
	c := t.Category
	if c == nil || len(c.Entries) == 0 {
		return nil
	}
	if !c.Split {
		return categoryOf(c.Entries[0])
	}
	out := splitCategoryJSON{Type: "Split_Categorization", ID: t.ID.String(), Category: "SPLIT", DisplayName: "Split"}
	for _, e := range c.Entries {
		entry := splitEntryJSON{Type: "AccountSplitEntry", Amount: int64(e.Amount), Category: categoryOf(e), TaxCode: e.TaxCode, Tags: e.Tags}
		if e.ExclusionType != nil {
			entry.Type = "ExclusionSplitEntry"
		}
		if entry.Tags == nil {
			entry.Tags = []tags.Tag{}
		}
		out.Entries = append(out.Entries, entry)
	}
	return out
}

func uuidString(id *uuid.UUID) *string {
	if id == nil {
		return nil
	}
	s := id.String()
	return &s
}

// toBankTxn renders t; taxOptions are its Canadian options (nil: not a
// Canadian business).
func toBankTxn(t banking.BankTransaction, taxOptions []salestax.Option) bankTxnJSON {
	out := bankTxnJSON{
		Type: "Bank_Transaction", bankTxnBaseJSON: toBankTxnBase(t), CustomAccountID: uuidString(t.CustomAccountID),
		AccountMask: t.AccountMask, Category: txnCategoryJSON(t), ProjectedIncomeCategory: string(t.ProjectedIncome()),
		SuggestedMatches: suggestedMatches(t), Match: matchOf(t), TransactionTags: t.Tags, DocumentIDs: []string{},
		CustomerExternalID: t.CustomerExternalID, VendorExternalID: t.VendorExternalID, ArchivedAt: t.ArchivedAt,
	}
	if t.InstitutionName != nil {
		out.AccountInstitution = &institutionJSON{Name: *t.InstitutionName}
	}
	if t.Method != nil {
		m := string(*t.Method)
		out.CategorizationMethod = &m
	}
	if out.TransactionTags == nil {
		out.TransactionTags = []tags.Tag{}
	}
	for _, d := range t.DocumentIDs {
		out.DocumentIDs = append(out.DocumentIDs, d.String())
	}
	if taxOptions != nil {
		opts := &taxOptionsJSON{Canada: []taxOptionJSON{}}
		for _, o := range taxOptions {
			opts.Canada = append(opts.Canada, taxOptionJSON{Code: o.Code, DisplayName: o.DisplayName})
		}
		out.TaxOptions = opts
	}
	if out.Category == nil {
		suggestions := make([]any, 0, len(t.Suggestions))
		for _, s := range t.Suggestions {
			suggestions = append(suggestions, categoryOf(s))
		}
		out.CategorizationFlow = &categorizationFlo{
			Type: "ASK_FROM_SUGGESTIONS", Categories: suggestions, Suggestions: suggestions,
		}
	}
	return out
}

// bankTxnParam is the :bankTransactionId path parameter.
func bankTxnParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "bankTransactionId") }

// renderTxn answers t with its tax options.
func (h *handlers) renderTxn(c *fiber.Ctx, t banking.BankTransaction) error {
	opts, err := h.banking.TaxOptions(c.UserContext(), t)
	if err != nil {
		return err
	}
	out := toBankTxn(t, opts)
	sg, err := h.banking.RuleSuggestionOf(c.UserContext(), t)
	if err != nil {
		return err
	}
	out.UpdateCategorizationRulesSuggestion = toRuleSuggestion(sg)
	return httpx.OK(c, out)
}

// getBankTransaction is GET /v1/businesses/{businessId}/bank-transactions/{bankTransactionId}.
func (h *handlers) getBankTransaction(c *fiber.Ctx) error {
	id, err := bankTxnParam(c)
	if err != nil {
		return err
	}
	t, err := h.banking.BankTransaction(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return h.renderTxn(c, t)
}

// MaxCategorizeBody bounds a categorize body (a split of many entries
// with tags).
const MaxCategorizeBody = 256 << 10

// categorize is PUT and POST
// /v1/businesses/{businessId}/bank-transactions/{bankTransactionId}/categorize.
func (h *handlers) categorize(c *fiber.Ctx) error {
	id, err := bankTxnParam(c)
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxCategorizeBody)
	if err != nil {
		return err
	}
	r, err := banking.DecodeCategorization(body)
	if err != nil {
		return err
	}
	t, err := h.banking.Categorize(c.UserContext(), businessID(c), id, r)
	if err != nil {
		return err
	}
	return h.renderTxn(c, t)
}

// listBankTransactions is GET /v1/businesses/{businessId}/bank-transactions:
// the spec's pagination (sort_by date|amount|imported_at, sort_order,
// cursor, limit default 100 max 500, show_total_count) over the domain's
// filters; a cursor is valid only with the filter it was issued for.
func (h *handlers) listBankTransactions(c *fiber.Ctx) error {
	q := httpx.Query(c)
	f, err := banking.ParseFilter(q)
	if err != nil {
		return err
	}
	bid := businessID(c)
	p, err := page.Parse(q, app.BankTxnPageSpec, h.codec, bid.String()+"|"+f.Fingerprint())
	if err != nil {
		return err
	}
	txns, meta, err := h.banking.BankTransactions(c.UserContext(), bid, f, p)
	if err != nil {
		return err
	}
	options, err := h.banking.TaxOptionsOf(c.UserContext(), bid)
	if err != nil {
		return err
	}
	out := make([]bankTxnJSON, len(txns))
	for i, t := range txns {
		out[i] = toBankTxn(t, options(t))
	}
	return httpx.List(c, out, meta)
}
