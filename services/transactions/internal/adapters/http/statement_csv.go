package http

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/statementcsv"
)

// previewCell is the client SDK's PreviewCell: the raw text, the value
// read from it (null when it cannot be read) and whether it could.
type previewCell struct {
	Raw     string `json:"raw"`
	Parsed  any    `json:"parsed"`
	IsValid bool   `json:"is_valid"`
}

// previewRow is the SDK's TransactionPreviewRow.
type previewRow struct {
	Row             int          `json:"row"`
	IsValid         bool         `json:"is_valid"`
	Date            previewCell  `json:"date"`
	Description     previewCell  `json:"description"`
	Amount          *previewCell `json:"amount"`
	ExternalID      *previewCell `json:"external_id"`
	ReferenceNumber *previewCell `json:"reference_number"`
}

// statementTxnJSON is a row as POST /custom-accounts/{id}/transactions
// takes it (new_transactions_request) and as the preview lists it.
type statementTxnJSON struct {
	Row              int     `json:"row,omitempty"`
	ExternalID       string  `json:"external_id"`
	Date             string  `json:"date"`
	Description      string  `json:"description"`
	CounterpartyName *string `json:"counterparty_name,omitempty"`
	Memo             *string `json:"memo,omitempty"`
	Amount           int64   `json:"amount"`
	SignedAmount     *int64  `json:"signed_amount,omitempty"`
	Direction        string  `json:"direction"`
	ReferenceNumber  *string `json:"reference_number"`
}

type statementRowError struct {
	Row     int    `json:"row"`
	Message string `json:"message"`
}

// statementPreviewJSON is the answer of parse-csv: the SDK's
// ParseCsvResponse (is_valid, new_transactions_preview,
// new_transactions_request, invalid_transactions_count,
// total_transactions_count) and the column guesses, the transactions
// and the per-row errors of the window.
type statementPreviewJSON struct {
	Type                     string                `json:"type"`
	IsValid                  bool                  `json:"is_valid"`
	NewTransactionsPreview   []previewRow          `json:"new_transactions_preview"`
	NewTransactionsRequest   *statementRequestJSON `json:"new_transactions_request"`
	InvalidTransactionsCount int                   `json:"invalid_transactions_count"`
	TotalTransactionsCount   int                   `json:"total_transactions_count"`
	ValidTransactionsCount   int                   `json:"valid_transactions_count"`
	Delimiter                string                `json:"delimiter"`
	DateFormat               string                `json:"date_format"`
	AmountLayout             string                `json:"amount_layout"`
	Columns                  []statementcsv.Column `json:"columns"`
	Transactions             []statementTxnJSON    `json:"transactions"`
	Errors                   []statementRowError   `json:"errors"`
	Offset                   int                   `json:"offset"`
	Limit                    int                   `json:"limit"`
	HasMore                  bool                  `json:"has_more"`
	NextOffset               *int                  `json:"next_offset"`
}

type statementRequestJSON struct {
	Transactions []statementTxnJSON `json:"transactions"`
}

func optText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toStatementPreview(p statementcsv.Preview) statementPreviewJSON {
	out := statementPreviewJSON{
		Type: "Statement_Csv_Preview", IsValid: p.Valid(), InvalidTransactionsCount: p.Invalid, TotalTransactionsCount: p.Total,
		ValidTransactionsCount: p.Total - p.Invalid, Delimiter: p.Delimiter, DateFormat: p.DateFormat, AmountLayout: p.Layout,
		Columns: p.Columns, Offset: p.Offset, Limit: p.Limit, HasMore: p.HasMore,
		NewTransactionsPreview: make([]previewRow, 0, len(p.Rows)), Transactions: make([]statementTxnJSON, 0, len(p.Rows)),
		Errors: []statementRowError{},
	}
	if p.HasMore {
		out.NextOffset = &p.NextOffset
	}
	hasID := false
	for _, c := range p.Columns {
		hasID = hasID || c.Role == statementcsv.RoleExternalID
	}
	var request []statementTxnJSON
	for _, r := range p.Rows {
		pr := previewRow{Row: r.Row, IsValid: r.Valid(),
			Date:        previewCell{Raw: r.RawDate, IsValid: r.DateOK},
			Description: previewCell{Raw: r.RawDescription, IsValid: r.DescriptionOK},
			Amount:      &previewCell{Raw: r.RawAmount, IsValid: r.AmountOK},
		}
		if r.DateOK {
			pr.Date.Parsed = r.Date.Format(time.DateOnly)
		}
		if r.DescriptionOK {
			pr.Description.Parsed = r.Description
		}
		if r.AmountOK {
			pr.Amount.Parsed = r.Signed
		}
		if hasID && r.RawExternalID != "" {
			pr.ExternalID = &previewCell{Raw: r.RawExternalID, Parsed: r.RawExternalID, IsValid: true}
		}
		if r.RawReference != "" {
			pr.ReferenceNumber = &previewCell{Raw: r.RawReference, Parsed: r.Reference, IsValid: true}
		}
		out.NewTransactionsPreview = append(out.NewTransactionsPreview, pr)
		for _, msg := range r.Errors {
			out.Errors = append(out.Errors, statementRowError{Row: r.Row, Message: msg})
		}
		if !r.Valid() {
			continue
		}
		signed := r.Signed
		t := statementTxnJSON{
			Row: r.Row, ExternalID: r.ExternalID, Date: r.Date.Format(time.DateOnly), Description: r.Description,
			CounterpartyName: optText(r.Counterparty), Memo: optText(r.Memo), Amount: r.Amount(), SignedAmount: &signed,
			Direction: r.Direction(), ReferenceNumber: optText(r.Reference),
		}
		out.Transactions = append(out.Transactions, t)
		t.Row, t.SignedAmount = 0, nil
		request = append(request, t)
	}
	// As the SDK expects: the request to forward only when the whole file
	// can be imported (a file of more than one window is imported window
	// by window, each with its offset).
	if p.Valid() && len(request) > 0 {
		out.NewTransactionsRequest = &statementRequestJSON{Transactions: request}
	}
	return out
}

// previewStatementCSV is POST
// /v1/businesses/{businessId}/custom-accounts/{customAccountId}/parse-csv:
// a multipart body whose `file` part is a bank statement CSV. Query
// `offset` (rows to skip) and `limit` (at most 1,000) choose the window
// of rows answered; the counts cover the whole file.
func (h *handlers) previewStatementCSV(c *fiber.Ctx) error {
	accountID, err := httpx.UUIDParam(c, "customAccountId")
	if err != nil {
		return err
	}
	offset, err := httpx.QueryInt(c, "offset", 0, 0, statementcsv.MaxRows)
	if err != nil {
		return err
	}
	limit, err := httpx.QueryInt(c, "limit", statementcsv.DefaultLimit, 1, statementcsv.MaxLimit)
	if err != nil {
		return err
	}
	// The body is read as it arrives (StreamsBody): at most
	// MaxStatementCSVBytes of the file, MaxStatementBodyBytes in all.
	body := httpx.StreamedBody(c, MaxStatementBodyBytes)
	file, err := statementFile(c.Get(fiber.HeaderContentType), body)
	var p statementcsv.Preview
	if err == nil {
		lr := httpx.LimitedReader(file, app.MaxStatementCSVBytes)
		p, err = h.banking.PreviewStatementCSV(c.UserContext(), businessID(c), accountID, lr, statementcsv.Options{Offset: offset, Limit: limit})
	}
	if errors.Is(err, httpx.ErrStreamTooLarge) {
		return apperr.New(apperr.PayloadTooLarge, "the statement file is larger than 50 MiB")
	}
	if me := (*multipartError)(nil); errors.As(err, &me) {
		return badStatementBody(me.err.Error())
	}
	if err != nil {
		return err
	}
	return httpx.OK(c, toStatementPreview(p))
}

func badStatementBody(reason string) error {
	return apperr.FieldErrors(apperr.InvalidPayload, map[string]string{"file": reason}).WithEnum(app.EnumInvalidStatementCSV)
}

// MaxStatementBodyBytes bounds a parse-csv body: the largest file and its
// multipart framing.
const MaxStatementBodyBytes = app.MaxStatementCSVBytes + 1<<20

// StreamsBody names the requests whose body is read as it arrives
// (httpx.Options.StreamBody): POST .../custom-accounts/{id}/parse-csv.
func StreamsBody(c *fiber.Ctx) bool {
	if c.Method() != fiber.MethodPost {
		return false
	}
	seg := strings.Split(strings.Trim(c.Path(), "/"), "/")
	return len(seg) == 6 && seg[0] == "v1" && seg[1] == "businesses" && seg[3] == "custom-accounts" && seg[5] == "parse-csv"
}

// statementFile finds the `file` part of a multipart body.
func statementFile(contentType string, body io.Reader) (io.Reader, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || !strings.EqualFold(mt, "multipart/form-data") || params["boundary"] == "" {
		return nil, badStatementBody("the body must be multipart/form-data with a file part")
	}
	mr := multipart.NewReader(body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, badStatementBody("is required: a multipart part named file")
		}
		if errors.Is(err, httpx.ErrStreamTooLarge) {
			return nil, err
		}
		if err != nil {
			return nil, badStatementBody("the multipart body cannot be read: " + err.Error())
		}
		if part.FormName() == "file" {
			return &partReader{p: part}, nil
		}
	}
}

// multipartError is a body that breaks off while the file is read.
type multipartError struct{ err error }

func (e *multipartError) Error() string { return e.err.Error() }

type partReader struct{ p *multipart.Part }

func (r *partReader) Read(b []byte) (int, error) {
	n, err := r.p.Read(b)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, httpx.ErrStreamTooLarge) {
		return n, &multipartError{err}
	}
	return n, err
}
