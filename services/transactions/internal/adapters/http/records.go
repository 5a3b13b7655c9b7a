package http

import (
	"bytes"
	"io"
	"mime/multipart"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// parseRecord reads a record request body (see banking.ParseRecordRequest).
func (h *handlers) parseRecord(c *fiber.Ctx, mode banking.RecordMode) (*banking.RecordRequest, error) {
	return banking.ParseRecordRequest(bytes.NewReader(c.Body()), c.Get(fiber.HeaderContentType), banking.RecordOptions{Mode: mode, Spool: h.spool})
}

// recordTransaction is POST /v1/businesses/{businessId}/custom-accounts/{customAccountId}/transactions/record.
func (h *handlers) recordTransaction(c *fiber.Ctx) error {
	accountID, err := httpx.UUIDParam(c, "customAccountId")
	if err != nil {
		return err
	}
	rq, err := h.parseRecord(c, banking.RecordCreate)
	if err != nil {
		return err
	}
	defer rq.Close()
	t, err := h.banking.RecordTransaction(c.UserContext(), businessID(c), accountID, rq)
	if err != nil {
		return err
	}
	opts, err := h.banking.TaxOptions(c.UserContext(), t)
	if err != nil {
		return err
	}
	return httpx.Created(c, toBankTxn(t, opts))
}

// updateRecordedTransaction is PATCH .../custom-accounts/{customAccountId}/transactions/{transactionId}/record.
func (h *handlers) updateRecordedTransaction(c *fiber.Ctx) error {
	accountID, err := httpx.UUIDParam(c, "customAccountId")
	if err != nil {
		return err
	}
	id, err := httpx.UUIDParam(c, "transactionId")
	if err != nil {
		return err
	}
	rq, err := h.parseRecord(c, banking.RecordUpdate)
	if err != nil {
		return err
	}
	defer rq.Close()
	t, err := h.banking.UpdateRecordedTransaction(c.UserContext(), businessID(c), accountID, id, rq)
	if err != nil {
		return err
	}
	return h.renderTxn(c, t)
}

type documentURLJSON struct {
	Type         string    `json:"type"`
	PresignedURL string    `json:"presignedUrl"`
	FileType     string    `json:"fileType"`
	FileName     string    `json:"fileName"`
	CreatedAt    time.Time `json:"createdAt"`
	DocumentID   string    `json:"documentId"`
}

type documentURLsJSON struct {
	Type         string            `json:"type"`
	DocumentURLs []documentURLJSON `json:"documentUrls"`
}

// listDocuments is GET /v1/businesses/{businessId}/bank-transactions/{bankTransactionId}/documents.
func (h *handlers) listDocuments(c *fiber.Ctx) error {
	id, err := bankTxnParam(c)
	if err != nil {
		return err
	}
	attachment := false
	switch c.Query("content_disposition") {
	case "", "INLINE":
	case "ATTACHMENT":
		attachment = true
	default:
		return apperr.Field("content_disposition", "must be ATTACHMENT or INLINE")
	}
	docs, err := h.banking.Documents(c.UserContext(), businessID(c), id, attachment)
	if err != nil {
		return err
	}
	out := documentURLsJSON{Type: "Document_Storage_Urls", DocumentURLs: make([]documentURLJSON, len(docs))}
	for i, d := range docs {
		out.DocumentURLs[i] = documentURLJSON{
			Type: "Storage_Presigned_Url", PresignedURL: d.URL, FileType: d.FileType, FileName: d.FileName,
			CreatedAt: d.CreatedAt, DocumentID: d.ID.String(),
		}
	}
	return httpx.OK(c, out)
}

type documentJSON struct {
	Type         string    `json:"type"`
	ID           string    `json:"id"`
	FileName     string    `json:"file_name"`
	FileType     string    `json:"file_type"`
	DocumentType *string   `json:"document_type"`
	CreatedAt    time.Time `json:"created_at"`
}

// addDocument is POST /v1/businesses/{businessId}/bank-transactions/{bankTransactionId}/documents:
// multipart `file` (one receipt) and an optional `documentType` field.
func (h *handlers) addDocument(c *fiber.Ctx) error {
	id, err := bankTxnParam(c)
	if err != nil {
		return err
	}
	rq, documentType, err := parseDocument(c, h.spool)
	if err != nil {
		return err
	}
	defer rq.Close()
	d, err := h.banking.AddDocument(c.UserContext(), businessID(c), id, rq.Files[0], documentType)
	if err != nil {
		return err
	}
	return httpx.Created(c, documentJSON{
		Type: "Document", ID: d.ID.String(), FileName: d.FileName, FileType: d.FileType,
		DocumentType: d.DocumentType, CreatedAt: d.CreatedAt,
	})
}

// parseDocument reads the upload body: its `file` part is checked and
// spooled as a record request's receipt (the body is re-framed as a
// `files` part), `documentType` is a short text field.
func parseDocument(c *fiber.Ctx, spool *banking.SpoolBudget) (*banking.RecordRequest, *string, error) {
	form, err := c.MultipartForm()
	if err != nil {
		return nil, nil, apperr.Wrap(apperr.InvalidPayload, err, "the body must be multipart/form-data with a file part").
			WithEnum(banking.EnumInvalidMultipart)
	}
	files := form.File["file"]
	if len(files) != 1 || len(form.File) != 1 {
		return nil, nil, apperr.PayloadField("file", "exactly one file part named file is required").WithEnum(banking.EnumInvalidMultipart)
	}
	var documentType *string
	if v := form.Value["documentType"]; len(v) > 0 {
		if len(v) > 1 || len(v[0]) == 0 || len(v[0]) > 100 {
			return nil, nil, apperr.PayloadField("documentType", "one text of 1 to 100 characters").WithEnum(banking.EnumInvalidMultipart)
		}
		// Stored as text: NUL or invalid UTF-8 is the caller's mistake (a
		// 400), not a failed insert (found by contract fuzzing).
		if why := jsonraw.TextReason(v[0]); why != "" {
			return nil, nil, apperr.PayloadField("documentType", why).WithEnum(banking.EnumInvalidMultipart)
		}
		documentType = &v[0]
	}
	fh := files[0]
	src, err := fh.Open()
	if err != nil {
		return nil, nil, apperr.Wrap(apperr.InvalidPayload, err, "unreadable file part").WithEnum(banking.EnumInvalidMultipart)
	}
	defer src.Close()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	hdr := make(map[string][]string, len(fh.Header))
	for k, v := range fh.Header {
		hdr[k] = v
	}
	hdr["Content-Disposition"] = []string{`form-data; name="files"; filename="` + quoteEscaper.Replace(fh.Filename) + `"`}
	part, err := w.CreatePart(hdr)
	if err != nil {
		return nil, nil, err
	}
	if _, err := io.Copy(part, src); err != nil {
		return nil, nil, err
	}
	if err := w.Close(); err != nil {
		return nil, nil, err
	}
	rq, err := banking.ParseRecordRequest(&body, w.FormDataContentType(), banking.RecordOptions{Mode: banking.RecordUpdate, Spool: spool})
	if err != nil {
		return nil, nil, err
	}
	if len(rq.Files) != 1 {
		_ = rq.Close()
		return nil, nil, apperr.PayloadField("file", "a file part is required").WithEnum(banking.EnumInvalidMultipart)
	}
	return rq, documentType, nil
}

// archiveDocument is POST .../bank-transactions/{bankTransactionId}/documents/{documentId}/archive.
func (h *handlers) archiveDocument(c *fiber.Ctx) error {
	id, err := bankTxnParam(c)
	if err != nil {
		return err
	}
	docID, err := httpx.UUIDParam(c, "documentId")
	if err != nil {
		return err
	}
	if err := h.banking.ArchiveDocument(c.UserContext(), businessID(c), id, docID); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// quoteEscaper escapes a filename for a Content-Disposition header, as
// mime/multipart does.
var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"")
