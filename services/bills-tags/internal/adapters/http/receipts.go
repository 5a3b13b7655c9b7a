package http

import (
	"io"
	"mime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httplist"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/receipt"
)

// Error enums of the import's multipart framing.
const (
	EnumMultipartRequired = "MultipartRequired" // 415: the body is not multipart/form-data
	EnumInvalidMultipart  = "InvalidMultipart"  // 400: no or several file parts, unreadable form
)

// MaxReceiptBody is the service's body limit: a 10 MiB receipt plus its
// multipart framing and context, so that the file itself is what the
// import's 413 ReceiptTooLarge measures (bigger bodies get the kit's 413).
const MaxReceiptBody = app.MaxReceiptBytes + 1<<20

type ledgerAccountIDJSON struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

type stableNameRefJSON struct {
	Type       string `json:"type"`
	StableName string `json:"stable_name"`
}

type accountValueJSON struct {
	Value       string `json:"value"`
	DisplayName string `json:"display_name"`
}

// ledgerAccountJSON is the spec's ledger account (Single_Chart_Account)
// a proposed line names: the default chart's details when the account is
// one of its expense accounts, only its id otherwise.
type ledgerAccountJSON struct {
	Type           string              `json:"type"`
	ID             ledgerAccountIDJSON `json:"id"`
	Name           *string             `json:"name"`
	AccountNumber  *string             `json:"account_number"`
	StableName     *stableNameRefJSON  `json:"stable_name"`
	Normality      string              `json:"normality"`
	AccountType    accountValueJSON    `json:"account_type"`
	AccountSubtype *accountValueJSON   `json:"account_subtype"`
}

type receiptLineJSON struct {
	Description         string             `json:"description"`
	ProposedAmountCents int64              `json:"proposed_amount_cents"`
	ProposedAccount     *ledgerAccountJSON `json:"proposed_account"`
}

type matchedVendorJSON struct {
	ID          string  `json:"id"`
	DisplayName string  `json:"display_name"`
	ExternalID  *string `json:"external_id"`
}

// receiptJSON is the spec's Receipt_Parse_Result, every key present (null
// where empty), plus failure_reason (why a FAILED receipt could not be
// read), proposed_confidence (each field's) and note (what to check when
// the total is uncertain).
type receiptJSON struct {
	Type                     string             `json:"type"`
	BusinessDocumentID       string             `json:"business_document_id"`
	SourceStorageDocumentID  string             `json:"source_storage_document_id"`
	Source                   string             `json:"source"`
	Status                   string             `json:"status"`
	ProposedLineItems        []receiptLineJSON  `json:"proposed_line_items"`
	CreatedAt                time.Time          `json:"created_at"`
	UpdatedAt                time.Time          `json:"updated_at"`
	MessageLogID             *string            `json:"message_log_id"`
	BillID                   *string            `json:"bill_id"`
	ProposedPaidAt           *time.Time         `json:"proposed_paid_at"`
	ProposedVendorDisplay    *string            `json:"proposed_vendor_display"`
	ProposedVendorExternalID *string            `json:"proposed_vendor_external_id"`
	MatchedVendor            *matchedVendorJSON `json:"matched_vendor"`
	ProposedAmountCents      *int64             `json:"proposed_amount_cents"`
	RejectedAt               *time.Time         `json:"rejected_at"`
	FailureReason            *string            `json:"failure_reason"`
	ProposedConfidence       proposedConfidence `json:"proposed_confidence"`
	Note                     *string            `json:"note"`
	ProposedCurrency         *string            `json:"proposed_currency"`
}

// proposedConfidence is how sure the reading is of each proposed field,
// 0 (not found) to 1.
type proposedConfidence struct {
	Vendor float64 `json:"vendor"`
	PaidAt float64 `json:"paid_at"`
	Amount float64 `json:"amount"`
}

func humanize(s string) string {
	s = strings.ReplaceAll(strings.ToLower(s), "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func toLedgerAccount(businessID uuid.UUID, ref *bill.AccountRef) *ledgerAccountJSON {
	if ref == nil || ref.IsZero() {
		return nil
	}
	out := &ledgerAccountJSON{
		Type:        "Single_Chart_Account",
		ID:          ledgerAccountIDJSON{Type: "AccountId", ID: receipt.AccountID(businessID, *ref).String()},
		Normality:   "DEBIT",
		AccountType: accountValueJSON{Value: "EXPENSE", DisplayName: "Expenses"},
	}
	if ref.StableName != "" {
		out.StableName = &stableNameRefJSON{Type: "StableName", StableName: ref.StableName}
	}
	if a, ok := receipt.ChartAccountOf(businessID, *ref); ok {
		name := a.Name
		out.Name = &name
		out.StableName = &stableNameRefJSON{Type: "StableName", StableName: a.StableName}
		out.AccountSubtype = &accountValueJSON{Value: a.Subtype, DisplayName: humanize(a.Subtype)}
	}
	return out
}

func idString(id *uuid.UUID) *string {
	if id == nil {
		return nil
	}
	s := id.String()
	return &s
}

func toReceipt(v app.ReceiptView) receiptJSON {
	r := v.Receipt
	out := receiptJSON{
		Type: "Receipt_Parse_Result", BusinessDocumentID: r.ID.String(), SourceStorageDocumentID: r.StorageDocumentID.String(),
		Source: r.Source, Status: string(r.Status), ProposedLineItems: make([]receiptLineJSON, len(r.LineItems)),
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, BillID: idString(r.BillID), ProposedPaidAt: r.PaidAt,
		ProposedVendorDisplay: r.VendorDisplay, ProposedVendorExternalID: r.VendorExternalID,
		ProposedAmountCents: r.AmountCents, RejectedAt: r.RejectedAt, FailureReason: r.FailureReason,
		ProposedConfidence: proposedConfidence{Vendor: r.FieldConfidence.Vendor, PaidAt: r.FieldConfidence.PaidAt, Amount: r.FieldConfidence.Amount},
		Note:               r.Note,
		ProposedCurrency:   r.Currency,
	}
	for i, l := range r.LineItems {
		out.ProposedLineItems[i] = receiptLineJSON{Description: l.Description, ProposedAmountCents: l.AmountCents,
			ProposedAccount: toLedgerAccount(r.BusinessID, l.Account)}
	}
	if m := v.MatchedVendor; m != nil {
		out.MatchedVendor = &matchedVendorJSON{ID: m.ID.String(), DisplayName: m.DisplayName(), ExternalID: m.ExternalID}
	}
	return out
}

// receiptHandlers serve the receipt routes.
type receiptHandlers struct {
	receipts *app.Receipts
	codec    *page.Codec
}

func receiptParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "businessDocumentId") }

func invalidMultipart(field, reason string) error {
	return apperr.PayloadField(field, reason).WithEnum(EnumInvalidMultipart)
}

// parseUpload reads the import's multipart body: exactly one `file` part
// (at most app.MaxReceiptBytes: 413 beyond) and an optional `context`
// text (one value, valid UTF-8, at most receipt.MaxContextChars).
func parseUpload(c *fiber.Ctx) (app.Upload, error) {
	mt, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	if err != nil || mt != fiber.MIMEMultipartForm {
		return app.Upload{}, apperr.New(apperr.UnsupportedMediaType, "Content-Type must be multipart/form-data").WithEnum(EnumMultipartRequired)
	}
	form, err := c.MultipartForm()
	if err != nil {
		return app.Upload{}, apperr.Wrap(apperr.InvalidPayload, err, "the body must be multipart/form-data with a file part").
			WithEnum(EnumInvalidMultipart)
	}
	files := form.File["file"]
	if len(files) != 1 || len(form.File) != 1 {
		return app.Upload{}, invalidMultipart("file", "exactly one file part named file is required")
	}
	var up app.Upload
	if vs := form.Value["context"]; len(vs) > 0 {
		v := vs[0]
		switch {
		case len(vs) > 1:
			return app.Upload{}, apperr.PayloadField("context", "one context only").WithEnum(receipt.EnumInvalidContext)
		case !utf8.ValidString(v) || strings.ContainsRune(v, 0):
			return app.Upload{}, apperr.PayloadField("context", "must be UTF-8 text").WithEnum(receipt.EnumInvalidContext)
		case utf8.RuneCountInString(v) > receipt.MaxContextChars:
			return app.Upload{}, apperr.PayloadField("context", "at most 2000 characters").WithEnum(receipt.EnumInvalidContext)
		}
		if v = strings.TrimSpace(v); v != "" {
			up.Context = &v
		}
	}
	fh := files[0]
	if fh.Size > app.MaxReceiptBytes {
		return app.Upload{}, apperr.New(apperr.PayloadTooLarge, "receipt file too large").WithEnum(receipt.EnumReceiptTooLarge).
			WithMeta("max_bytes", app.MaxReceiptBytes)
	}
	src, err := fh.Open()
	if err != nil {
		return app.Upload{}, apperr.Wrap(apperr.InvalidPayload, err, "unreadable file part").WithEnum(EnumInvalidMultipart)
	}
	defer src.Close()
	up.Data, err = io.ReadAll(io.LimitReader(src, app.MaxReceiptBytes+1))
	if err != nil {
		return app.Upload{}, apperr.Wrap(apperr.InvalidPayload, err, "unreadable file part").WithEnum(EnumInvalidMultipart)
	}
	name := strings.ToValidUTF8(strings.ReplaceAll(fh.Filename, "\x00", ""), "")
	if n := []rune(name); len(n) > receipt.MaxFileNameLen {
		name = string(n[:receipt.MaxFileNameLen])
	}
	up.FileName = name
	return up, nil
}

// importReceipt is POST /receipts/import: 201 with data = [the receipt].
func (h *receiptHandlers) importReceipt(c *fiber.Ctx) error {
	up, err := parseUpload(c)
	if err != nil {
		return err
	}
	v, err := h.receipts.Import(c.UserContext(), businessID(c), up)
	if err != nil {
		return err
	}
	return httpx.Created(c, []receiptJSON{toReceipt(v)})
}

// listReceipts is GET /receipts.
func (h *receiptHandlers) listReceipts(c *fiber.Ctx) error {
	return httplist.List[receipt.Filter, app.ReceiptView, receiptJSON]{
		Spec: app.ReceiptPageSpec, Codec: h.codec, Filter: receipt.ParseFilter, Find: h.receipts.Receipts, Render: toReceipt,
	}.Handle(c)
}

// getReceipt is GET /receipts/{businessDocumentId}.
func (h *receiptHandlers) getReceipt(c *fiber.Ctx) error {
	id, err := receiptParam(c)
	if err != nil {
		return err
	}
	v, err := h.receipts.Receipt(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toReceipt(v))
}

// createBillFromReceipt is POST /receipts/{businessDocumentId}/create-bill:
// an optional JSON body of overrides; 200 with the receipt (bill_id set).
func (h *receiptHandlers) createBillFromReceipt(c *fiber.Ctx) error {
	id, err := receiptParam(c)
	if err != nil {
		return err
	}
	var raw []byte
	if len(c.Body()) > 0 {
		if raw, err = jsonBody(c, receipt.MaxCreateBillBody); err != nil {
			return err
		}
	}
	o, err := receipt.ParseOverrides(raw)
	if err != nil {
		return err
	}
	v, _, err := h.receipts.CreateBill(c.UserContext(), businessID(c), id, o)
	if err != nil {
		return err
	}
	return httpx.OK(c, toReceipt(v))
}

// rejectReceipt is POST /receipts/{businessDocumentId}/reject (no body).
func (h *receiptHandlers) rejectReceipt(c *fiber.Ctx) error {
	id, err := receiptParam(c)
	if err != nil {
		return err
	}
	v, err := h.receipts.Reject(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toReceipt(v))
}
