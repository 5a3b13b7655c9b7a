package http

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/transactions/internal/app"
)

// The document types of the ledger's exports.
const (
	DocLedgerEntriesCSV  = "LEDGER_ENTRIES_CSV"
	DocLedgerBalancesCSV = "LEDGER_BALANCES_CSV"
)

// downloadJSON is the spec's pre-signed download (the SDK's
// S3PresignedUrl), as the reports' exports answer it.
type downloadJSON struct {
	Type         string    `json:"type"`
	PresignedURL string    `json:"presignedUrl"`
	FileType     string    `json:"fileType"`
	FileName     string    `json:"fileName"`
	CreatedAt    time.Time `json:"createdAt"`
	DocumentID   string    `json:"documentId"`
	DocumentType string    `json:"document_type"`
}

func renderDownload(c *fiber.Ctx, d app.Download, docType string) error {
	return httpx.OK(c, downloadJSON{Type: "Storage_Presigned_Url", PresignedURL: d.URL, FileType: d.FileType,
		FileName: d.FileName, CreatedAt: d.CreatedAt, DocumentID: d.ID.String(), DocumentType: docType})
}

// exportPeriod reads start_date and end_date of an export (both optional
// and inclusive; a date is a UTC day).
func exportPeriod(c *fiber.Ctx) (app.PeriodFilter, error) {
	from, until, err := period(c.Query("start_date"), c.Query("end_date"), "")
	return app.PeriodFilter{From: from, Until: until}, err
}

// exportEntries is GET /v1/businesses/{businessId}/ledger/entries/exports/csv.
func (h *handlers) exportEntries(c *fiber.Ctx) error {
	f, err := exportPeriod(c)
	if err != nil {
		return err
	}
	d, err := h.ledger.EntriesCSV(c.UserContext(), businessID(c), f)
	if err != nil {
		return err
	}
	return renderDownload(c, d, DocLedgerEntriesCSV)
}

// exportBalances is GET /v1/businesses/{businessId}/ledger/balances/exports/csv.
func (h *handlers) exportBalances(c *fiber.Ctx) error {
	f, err := exportPeriod(c)
	if err != nil {
		return err
	}
	d, err := h.ledger.BalancesCSV(c.UserContext(), businessID(c), f)
	if err != nil {
		return err
	}
	return renderDownload(c, d, DocLedgerBalancesCSV)
}
