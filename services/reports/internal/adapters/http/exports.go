package http

import (
	"context"
	"net/url"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/reports/internal/app"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// renderDownload is an export's answer: the spec's pre-signed download.
func renderDownload(c *fiber.Ctx, d app.Download, docType string) error {
	return httpx.OK(c, presignedURL{Type: "Storage_Presigned_Url", PresignedURL: d.URL, FileType: d.FileType,
		FileName: d.FileName, CreatedAt: d.CreatedAt, DocumentID: d.ID.String(), DocumentType: docType})
}

// exportOf is a GET export: its query parsed by parse (its 400s first),
// the file written by export, the answer the download of type docType.
func exportOf[Q any](parse func(url.Values) (Q, error), export func(context.Context, uuid.UUID, Q) (app.Download, error), docType string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		q, err := parse(httpx.Query(c))
		if err != nil {
			return err
		}
		d, err := export(c.UserContext(), businessID(c), q)
		if err != nil {
			return err
		}
		return renderDownload(c, d, docType)
	}
}

func (h *handlers) transactionsXLSX(c *fiber.Ctx) error {
	d, err := h.exports.TransactionsXLSX(c.UserContext(), businessID(c), httpx.Query(c))
	if err != nil {
		return err
	}
	return renderDownload(c, d, DocTransactionsExcel)
}

// comparisonCSV takes the comparison's body, checked by the comparison's
// own rules, and money_format.
func (h *handlers) comparisonCSV(c *fiber.Ctx) error {
	f, err := domain.ParseMoneyFormat(httpx.Query(c))
	if err != nil {
		return err
	}
	var body domain.ComparisonBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	q, err := domain.ParseComparison(body)
	if err != nil {
		return err
	}
	d, err := h.exports.ComparisonCSV(c.UserContext(), businessID(c), q, f)
	if err != nil {
		return err
	}
	return renderDownload(c, d, DocComparisonCSV)
}
