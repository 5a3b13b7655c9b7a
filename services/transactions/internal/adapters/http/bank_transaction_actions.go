package http

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// registerTransactionActions mounts the calls that change bank transactions
// beyond categorizing one: archive and restore, metadata, uncategorize, the
// bulk calls, and the counterparties. They come after Register's routes,
// so DELETE /bank-transactions/tags is matched before DELETE
// /bank-transactions/{id}.
func (h *handlers) registerTransactionActions(r fiber.Router, p string, auth, biz fiber.Handler) {
	r.Delete(p+"/bank-transactions/:bankTransactionId", auth, biz, h.archiveTransaction)
	r.Post(p+"/bank-transactions/:bankTransactionId/restore", auth, biz, h.restoreTransaction)
	r.Post(p+"/bank-transactions/:bankTransactionId/uncategorize", auth, biz, h.uncategorize)
	r.Get(p+"/bank-transactions/:bankTransactionId/metadata", auth, biz, h.getMetadata)
	r.Patch(p+"/bank-transactions/:bankTransactionId/metadata", auth, biz, h.updateMetadata)
	r.Put(p+"/bank-transactions/:bankTransactionId/metadata", auth, biz, h.updateMetadata)
	r.Post(p+"/bank-transactions/bulk-categorize", auth, biz, h.bulkCategorize)
	r.Post(p+"/bank-transactions/bulk-match-or-categorize", auth, biz, h.bulkMatchOrCategorize)
	r.Post(p+"/bank-transactions/bulk-uncategorize", auth, biz, h.bulkUncategorize)
	r.Get(p+"/counterparties", auth, biz, h.listCounterparties)
}

// archiveTransaction is DELETE /v1/businesses/{businessId}/bank-transactions/{bankTransactionId}:
// the archived transaction, as the SDK decodes it (BankTransaction).
func (h *handlers) archiveTransaction(c *fiber.Ctx) error {
	id, err := bankTxnParam(c)
	if err != nil {
		return err
	}
	t, err := h.banking.ArchiveTransaction(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return h.renderTxn(c, t)
}

// restoreTransaction is POST .../bank-transactions/{bankTransactionId}/restore.
func (h *handlers) restoreTransaction(c *fiber.Ctx) error {
	id, err := bankTxnParam(c)
	if err != nil {
		return err
	}
	t, err := h.banking.RestoreTransaction(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return h.renderTxn(c, t)
}

// uncategorize is POST .../bank-transactions/{bankTransactionId}/uncategorize.
func (h *handlers) uncategorize(c *fiber.Ctx) error {
	id, err := bankTxnParam(c)
	if err != nil {
		return err
	}
	t, err := h.banking.Uncategorize(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return h.renderTxn(c, t)
}

// MaxMetadataBody bounds a metadata update (a memo of 2,000 characters
// and 1 KB of metadata fit easily).
const MaxMetadataBody = 64 << 10

// metadataJSON is the SDK's BankTransactionMetadata ({memo}) with the
// other fields the update sets.
type metadataJSON struct {
	Type               string          `json:"type"`
	BankTransactionID  string          `json:"bank_transaction_id"`
	Memo               *string         `json:"memo"`
	ReferenceNumber    *string         `json:"reference_number"`
	Metadata           json.RawMessage `json:"metadata"`
	CustomerID         *string         `json:"customer_id"`
	CustomerExternalID *string         `json:"customer_external_id"`
	VendorID           *string         `json:"vendor_id"`
	VendorExternalID   *string         `json:"vendor_external_id"`
}

func toMetadata(t banking.BankTransaction) metadataJSON {
	out := metadataJSON{
		Type: "Bank_Transaction_Metadata", BankTransactionID: t.ID.String(), Memo: t.Memo,
		ReferenceNumber: t.ReferenceNumber, Metadata: t.Metadata, CustomerID: uuidString(t.CustomerID),
		CustomerExternalID: t.CustomerExternalID, VendorID: uuidString(t.VendorID), VendorExternalID: t.VendorExternalID,
	}
	if len(out.Metadata) == 0 {
		out.Metadata = json.RawMessage("null")
	}
	return out
}

// getMetadata is GET .../bank-transactions/{bankTransactionId}/metadata
// (what earlier SDKs read).
func (h *handlers) getMetadata(c *fiber.Ctx) error {
	id, err := bankTxnParam(c)
	if err != nil {
		return err
	}
	t, err := h.banking.TransactionMetadata(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toMetadata(t))
}

// updateMetadata is PATCH (and PUT, which earlier SDKs send with {memo})
// .../bank-transactions/{bankTransactionId}/metadata: a partial update.
func (h *handlers) updateMetadata(c *fiber.Ctx) error {
	id, err := bankTxnParam(c)
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxMetadataBody)
	if err != nil {
		return err
	}
	p, err := banking.DecodeMetadataPatch(body)
	if err != nil {
		return err
	}
	t, err := h.banking.UpdateMetadata(c.UserContext(), businessID(c), id, p)
	if err != nil {
		return err
	}
	return httpx.OK(c, toMetadata(t))
}

// MaxBulkBody bounds a bulk body: 500 categorizations, splits included.
const MaxBulkBody = 8 << 20

// updateClassJSON is a classification as a categorize request names it.
type updateClassJSON struct {
	Type          string  `json:"type"`
	ID            *string `json:"id,omitempty"`
	StableName    *string `json:"stable_name,omitempty"`
	ExclusionType *string `json:"exclusion_type,omitempty"`
}

func toUpdateClass(c banking.Classification) updateClassJSON {
	out := updateClassJSON{Type: string(c.Type)}
	switch c.Type {
	case banking.ByAccountID:
		id := c.AccountID.String()
		out.ID = &id
	case banking.ByStableName:
		s := c.StableName
		out.StableName = &s
	case banking.ByExclusion:
		x := string(c.Exclusion)
		out.ExclusionType = &x
	}
	return out
}

// categoryUpdateJSON is the SDK's CategoryUpdate: the categorization a
// bulk item asked for, echoed in its result.
type categoryUpdateJSON struct {
	Type     string            `json:"type"`
	Category *updateClassJSON  `json:"category,omitempty"`
	TaxCode  *string           `json:"tax_code,omitempty"`
	Entries  []splitUpdateJSON `json:"entries,omitempty"`
}

type splitUpdateJSON struct {
	Category updateClassJSON `json:"category"`
	Amount   int64           `json:"amount"`
	TaxCode  *string         `json:"tax_code,omitempty"`
	Tags     []tags.KeyValue `json:"tags,omitempty"`
}

func toCategoryUpdate(r banking.CategorizationRequest) *categoryUpdateJSON {
	out := &categoryUpdateJSON{Type: string(r.Type)}
	code := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	if r.Type == banking.TypeSplit {
		for _, e := range r.Entries {
			out.Entries = append(out.Entries, splitUpdateJSON{
				Category: toUpdateClass(e.Category), Amount: int64(e.Amount), TaxCode: code(e.TaxCode), Tags: e.Tags,
			})
		}
		return out
	}
	cat := toUpdateClass(r.Category)
	out.Category, out.TaxCode = &cat, code(r.TaxCode)
	return out
}

// categorizedResultJSON is the SDK's CategorizedResult with what the call
// did.
type categorizedResultJSON struct {
	TransactionID        string              `json:"transaction_id"`
	Categorization       *categoryUpdateJSON `json:"categorization"`
	CategorizationStatus string              `json:"categorization_status"`
	Changed              bool                `json:"changed"`
}

// matchedResultJSON is the SDK's MatchedResult with what the call did.
type matchedResultJSON struct {
	TransactionID        string `json:"transaction_id"`
	SuggestedMatchID     string `json:"suggested_match_id"`
	CategorizationStatus string `json:"categorization_status"`
	Changed              bool   `json:"changed"`
}

// bulkResultJSON answers bulk-categorize and bulk-match-or-categorize:
// the SDK's BulkMatchOrCategorizeData (matched_results,
// categorized_results), one result per transaction in the order sent.
type bulkResultJSON struct {
	Type               string                  `json:"type"`
	MatchedResults     []matchedResultJSON     `json:"matched_results"`
	CategorizedResults []categorizedResultJSON `json:"categorized_results"`
}

func toBulkResult(typ string, results []app.BulkResult) bulkResultJSON {
	out := bulkResultJSON{Type: typ, MatchedResults: []matchedResultJSON{}, CategorizedResults: []categorizedResultJSON{}}
	for _, r := range results {
		status := string(r.Transaction.Status)
		switch r.Action.Type {
		case banking.BulkMatch:
			out.MatchedResults = append(out.MatchedResults, matchedResultJSON{
				TransactionID: r.Action.TransactionID.String(), SuggestedMatchID: r.Action.MatchID.String(),
				CategorizationStatus: status, Changed: r.Changed,
			})
		case banking.BulkCategorize:
			out.CategorizedResults = append(out.CategorizedResults, categorizedResultJSON{
				TransactionID: r.Action.TransactionID.String(), Categorization: toCategoryUpdate(r.Action.Categorization),
				CategorizationStatus: status, Changed: r.Changed,
			})
		}
	}
	return out
}

// bulkCategorize is POST /v1/businesses/{businessId}/bank-transactions/bulk-categorize.
func (h *handlers) bulkCategorize(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxBulkBody)
	if err != nil {
		return err
	}
	actions, err := banking.ParseBulkCategorize(body)
	if err != nil {
		return err
	}
	results, err := h.banking.BulkApply(c.UserContext(), businessID(c), actions)
	if err != nil {
		return err
	}
	return httpx.OK(c, toBulkResult("Bulk_Categorize_Result", results))
}

// bulkMatchOrCategorize is POST
// /v1/businesses/{businessId}/bank-transactions/bulk-match-or-categorize.
func (h *handlers) bulkMatchOrCategorize(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxBulkBody)
	if err != nil {
		return err
	}
	actions, err := banking.ParseBulkMatchOrCategorize(body)
	if err != nil {
		return err
	}
	results, err := h.banking.BulkApply(c.UserContext(), businessID(c), actions)
	if err != nil {
		return err
	}
	return httpx.OK(c, toBulkResult("Bulk_Match_Or_Categorize_Result", results))
}

// uncategorizeResultJSON is the SDK's UncategorizeResult with what the
// call did.
type uncategorizeResultJSON struct {
	TransactionID        string `json:"transaction_id"`
	Success              bool   `json:"success"`
	CategorizationStatus string `json:"categorization_status"`
	Changed              bool   `json:"changed"`
}

// bulkUncategorize is POST
// /v1/businesses/{businessId}/bank-transactions/bulk-uncategorize: data is
// the SDK's {results: [{transaction_id, success}]}.
func (h *handlers) bulkUncategorize(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxBulkBody)
	if err != nil {
		return err
	}
	actions, err := banking.ParseBulkUncategorize(body)
	if err != nil {
		return err
	}
	results, err := h.banking.BulkApply(c.UserContext(), businessID(c), actions)
	if err != nil {
		return err
	}
	out := make([]uncategorizeResultJSON, len(results))
	for i, r := range results {
		out[i] = uncategorizeResultJSON{
			TransactionID: r.Action.TransactionID.String(), Success: true,
			CategorizationStatus: string(r.Transaction.Status), Changed: r.Changed,
		}
	}
	return httpx.OK(c, map[string]any{"type": "Bulk_Uncategorize_Result", "results": out})
}

// counterpartyJSON is the SDK's BankTransactionCounterparty: external_id
// is absent rather than null when there is none (the SDK refuses null).
type counterpartyJSON struct {
	Type       string   `json:"type"`
	ID         string   `json:"id"`
	ExternalID *string  `json:"external_id,omitempty"`
	Name       string   `json:"name"`
	Website    *string  `json:"website"`
	Logo       *string  `json:"logo"`
	MCCs       []string `json:"mccs"`
}

func toCounterparty(cp banking.Counterparty) counterpartyJSON {
	out := counterpartyJSON{
		Type: "Counterparty", ID: cp.ID.String(), ExternalID: cp.ExternalID, Name: cp.Name, Website: cp.Website,
		Logo: cp.Logo, MCCs: cp.MCCs,
	}
	if out.MCCs == nil {
		out.MCCs = []string{}
	}
	return out
}

// listCounterparties is GET /v1/businesses/{businessId}/counterparties:
// the spec's pagination (sort_by name, sort_order, cursor, limit default
// 100 at most 500, show_total_count) over q and external_ids.
func (h *handlers) listCounterparties(c *fiber.Ctx) error {
	q := httpx.Query(c)
	f, err := banking.ParseCounterpartyFilter(q)
	if err != nil {
		return err
	}
	bid := businessID(c)
	p, err := page.Parse(q, app.CounterpartyPageSpec, h.codec, bid.String()+"|"+f.Fingerprint())
	if err != nil {
		return err
	}
	cps, meta, err := h.banking.Counterparties(c.UserContext(), bid, f, p)
	if err != nil {
		return err
	}
	out := make([]counterpartyJSON, len(cps))
	for i, cp := range cps {
		out[i] = toCounterparty(cp)
	}
	return httpx.List(c, out, meta)
}
