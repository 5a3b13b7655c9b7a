package banking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/acctsuite/acct/pkg/jsonraw"
	"golang.org/x/sync/semaphore"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// Optional is a request property that is either absent (Set false) or
// given a value; null is not accepted for it.
type Optional[T any] struct {
	Set   bool
	Value T
}

// Nullable is a request property that is absent (Set false), null (Set
// and Null: clear it) or given a value.
type Nullable[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// RecordPatch is the `transaction` part of a record request: what to set
// on the recorded transaction. An absent property stays unchanged.
type RecordPatch struct {
	// ExternalID is accepted when recording a new transaction only: it
	// makes the call idempotent within the custom account.
	ExternalID         Optional[string]
	Amount             Optional[money.Cents]
	Direction          Optional[Direction]
	Date               Optional[time.Time]
	Description        Optional[string]
	MerchantName       Nullable[string]
	Memo               Nullable[string]
	Metadata           Nullable[json.RawMessage]
	ReferenceNumber    Nullable[string]
	CustomerID         Nullable[uuid.UUID]
	CustomerExternalID Nullable[string]
	VendorID           Nullable[uuid.UUID]
	VendorExternalID   Nullable[string]
	// Categorization is a single Category payload, still to be checked
	// against the transaction (its amount may change in the same patch)
	// with CategorizationRequest.Validate.
	Categorization Optional[CategorizationRequest]
	// DocumentIDs are the receipts to keep; the other documents of the
	// transaction are archived.
	DocumentIDs Optional[[]uuid.UUID]
	Tags        Optional[[]tags.KeyValue]
}

// RecordMode says which record endpoint a request is for.
type RecordMode int

// The record endpoints.
const (
	// RecordCreate is POST .../custom-accounts/{id}/transactions/record:
	// the transaction part is required with amount, direction and date.
	RecordCreate RecordMode = iota
	// RecordUpdate is PATCH .../transactions/{id}/record: at least one
	// part; omitted properties stay unchanged.
	RecordUpdate
)

// Limits of a record request.
const (
	MaxReceiptFiles = 5
	// DefaultMaxReceiptBytes bounds one receipt file unless
	// RecordOptions says otherwise.
	DefaultMaxReceiptBytes = 25 << 20
	// MaxTransactionPartBytes bounds the transaction JSON part.
	MaxTransactionPartBytes = 64 << 10
	// MaxFilenameLength bounds a receipt's filename, in characters.
	MaxFilenameLength = 255
	// MaxDocumentIDs bounds document_ids.
	MaxDocumentIDs = 100
)

// RecordOptions configure ParseRecordRequest.
type RecordOptions struct {
	Mode RecordMode
	// SpoolDir is where receipt files are written while the request is
	// read; "" is os.TempDir().
	SpoolDir string
	// MaxFileBytes bounds one receipt; 0 is DefaultMaxReceiptBytes.
	MaxFileBytes int64
	// Spool bounds the bytes every request's receipts hold in SpoolDir at
	// once (nil: unbounded).
	Spool *SpoolBudget
}

// SpoolBudget bounds what all record requests spool at once, so the spool
// directory (a size-limited emptyDir in Kubernetes, whose overflow evicts
// the pod) never fills up: a request takes room as it writes, waits up
// to its wait for room others give back, and is refused 503
// ReceiptSpoolBusy with Retry-After beyond, its spooled files removed.
type SpoolBudget struct {
	sem  *semaphore.Weighted
	size int64
	wait time.Duration
}

// NewSpoolBudget is a budget of size bytes and the longest wait for room.
func NewSpoolBudget(size int64, wait time.Duration) *SpoolBudget {
	return &SpoolBudget{sem: semaphore.NewWeighted(size), size: size, wait: wait}
}

// EnumReceiptSpoolBusy: the receipts being spooled fill the budget.
const EnumReceiptSpoolBusy = "ReceiptSpoolBusy"

// SpoolRetryAfter is the Retry-After of a refusal for a full spool.
const SpoolRetryAfter = 5

func errSpoolBusy() error {
	return apperr.New(apperr.Unavailable, "too many receipts are being uploaded at once; retry shortly").
		WithEnum(EnumReceiptSpoolBusy).WithMeta(apperr.RetryAfterMeta, SpoolRetryAfter)
}

// spoolWriter writes a spool file, taking room in the budget first.
type spoolWriter struct {
	w        io.Writer
	budget   *SpoolBudget
	deadline time.Time
	taken    *int64
	busy     bool
}

func (s *spoolWriter) Write(p []byte) (int, error) {
	if s.budget != nil && len(p) > 0 {
		n := int64(len(p))
		if n > s.budget.size {
			s.busy = true
			return 0, errors.New("spool budget smaller than one write")
		}
		ctx, cancel := context.WithDeadline(context.Background(), s.deadline)
		err := s.budget.sem.Acquire(ctx, n)
		cancel()
		if err != nil {
			s.busy = true
			return 0, err
		}
		*s.taken += n
	}
	return s.w.Write(p)
}

// ReceiptFile is a receipt of a record request, spooled to a temporary
// file so that nothing reaches storage before the whole request is valid
// and no file is ever held in memory.
type ReceiptFile struct {
	Filename    string
	ContentType string // as sent; application/octet-stream when absent
	Size        int64
	path        string
	budget      *SpoolBudget
	taken       int64 // bytes of budget the file holds
}

// remove deletes the spooled file and gives its room back.
func (f *ReceiptFile) remove() error {
	err := os.Remove(f.path)
	if f.budget != nil && f.taken > 0 {
		f.budget.sem.Release(f.taken)
		f.taken = 0
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// Open reads the spooled file.
func (f *ReceiptFile) Open() (io.ReadCloser, error) {
	r, err := os.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("open spooled receipt %q: %w", f.Filename, err)
	}
	return r, nil
}

// RecordRequest is a parsed record request. Close it when done: it removes
// the spooled files.
type RecordRequest struct {
	// Transaction is the transaction part, nil when the request has none.
	Transaction *RecordPatch
	Files       []*ReceiptFile
}

// Close removes the spooled files.
func (r *RecordRequest) Close() error {
	var errs []error
	for _, f := range r.Files {
		if err := f.remove(); err != nil {
			errs = append(errs, err)
		}
	}
	r.Files = nil
	return errors.Join(errs...)
}

// trackingReader remembers the first error of the body other than EOF, so
// a failure to read the request (a dropped connection, a body limit) is
// told apart from a malformed multipart body.
type trackingReader struct {
	r   io.Reader
	err error
}

func (t *trackingReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF && t.err == nil {
		t.err = err
	}
	return n, err
}

// ParseRecordRequest reads a record request: a multipart/form-data body
// (contentType is the request's Content-Type with its boundary) of one
// `transaction` part, JSON with at least one property (application/json
// or any +json type; a part without a Content-Type, as browsers send a
// FormData string, is read as JSON), and up to MaxReceiptFiles `files`
// parts, each with a filename unique in the request. Files are streamed to
// temporary files under opts.SpoolDir, each at most opts.MaxFileBytes.
//
// Refusals: a Content-Type that is not multipart/form-data is 415; a
// missing boundary, a malformed body, no parts at all, an unknown part
// name, a second transaction part, a transaction part that is not JSON,
// not an object, empty or with an invalid property, more than five files,
// a file without a filename, a duplicate filename or an empty file are
// 400 InvalidPayload naming the part or property; a file or transaction
// part over its size limit is 413. When recording a new transaction
// (RecordCreate) the transaction part is required, with amount, direction
// and date. Nothing is left on disk after an error.
func ParseRecordRequest(body io.Reader, contentType string, opts RecordOptions) (_ *RecordRequest, err error) {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil || mediaType != "multipart/form-data" {
		return nil, apperr.New(apperr.UnsupportedMediaType, "the body must be multipart/form-data").WithEnum(EnumUnsupportedMediaType)
	}
	boundary := params["boundary"]
	if boundary == "" || len(boundary) > 70 {
		return nil, fieldError(apperr.InvalidPayload, "body", EnumInvalidMultipart, "the multipart boundary is missing or longer than 70 characters")
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxReceiptBytes
	}
	if opts.SpoolDir == "" {
		opts.SpoolDir = os.TempDir()
	}

	req := &RecordRequest{}
	defer func() {
		if err != nil {
			_ = req.Close()
		}
	}()
	tr := &trackingReader{r: body}
	mr := multipart.NewReader(tr, boundary)
	parts := 0
	names := map[string]bool{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, readError(tr, err)
		}
		parts++
		switch name := part.FormName(); name {
		case "transaction":
			if req.Transaction != nil {
				return nil, fieldError(apperr.InvalidPayload, "transaction", EnumInvalidMultipart, "only one transaction part is allowed")
			}
			patch, err := readTransactionPart(tr, part, opts.Mode)
			if err != nil {
				return nil, err
			}
			req.Transaction = patch
		case "files":
			f := fmt.Sprintf("files[%d]", len(req.Files))
			if len(req.Files) == MaxReceiptFiles {
				return nil, fieldError(apperr.InvalidPayload, "files", EnumTooManyFiles, fmt.Sprintf("at most %d files", MaxReceiptFiles))
			}
			filename := part.FileName()
			if filename == "" {
				return nil, fieldError(apperr.InvalidPayload, f, EnumMissingFilename, "a file part needs a filename")
			}
			if reason := checkFilename(filename); reason != "" {
				return nil, fieldError(apperr.InvalidPayload, f, EnumInvalidMultipart, reason)
			}
			if names[filename] {
				return nil, fieldError(apperr.InvalidPayload, f, EnumDuplicateFilename, fmt.Sprintf("the filename %q is used twice", filename))
			}
			names[filename] = true
			rf, err := spool(tr, part, filename, f, opts)
			if err != nil {
				return nil, err
			}
			req.Files = append(req.Files, rf)
		default:
			return nil, fieldError(apperr.InvalidPayload, partField(name), EnumUnknownPart,
				fmt.Sprintf("unknown part %q: the parts are transaction and files", name))
		}
	}
	switch {
	case parts == 0:
		return nil, fieldError(apperr.InvalidPayload, "body", EnumEmptyRecordRequest, "at least one part (transaction or files) is required")
	case opts.Mode == RecordCreate && req.Transaction == nil:
		return nil, fieldError(apperr.InvalidPayload, "transaction", EnumEmptyRecordRequest, "is required to record a transaction")
	}
	return req, nil
}

// partField names an unknown part in meta.fields.
func partField(name string) string {
	if name == "" {
		return "part"
	}
	if len(name) > 100 {
		name = name[:100]
	}
	return strings.ToValidUTF8(name, "?")
}

// readError turns an error of the multipart reader into a 400, unless the
// body itself could not be read.
func readError(tr *trackingReader, err error) error {
	if tr.err != nil {
		return fmt.Errorf("read the record request: %w", tr.err)
	}
	return apperr.Wrap(apperr.InvalidPayload, err, "malformed multipart body").
		WithEnum(EnumInvalidMultipart).WithMeta("fields", map[string]string{"body": "malformed multipart body"})
}

func checkFilename(name string) string {
	switch {
	case !utf8.ValidString(name):
		return "the filename must be valid UTF-8"
	case utf8.RuneCountInString(name) > MaxFilenameLength:
		return fmt.Sprintf("the filename must be at most %d characters", MaxFilenameLength)
	case name == "." || name == ".." || strings.ContainsAny(name, "/\\"):
		return "the filename must be a plain file name"
	case checkText(name, textRule{max: MaxFilenameLength}) != "":
		return "the filename must not contain control characters"
	}
	return ""
}

// spool copies a file part to a temporary file, at most opts.MaxFileBytes.
func spool(tr *trackingReader, part *multipart.Part, filename, f string, opts RecordOptions) (*ReceiptFile, error) {
	tmp, err := os.CreateTemp(opts.SpoolDir, "receipt-*")
	if err != nil {
		return nil, fmt.Errorf("spool receipt: %w", err)
	}
	rf := &ReceiptFile{Filename: filename, ContentType: part.Header.Get("Content-Type"), path: tmp.Name(), budget: opts.Spool}
	if rf.ContentType == "" {
		rf.ContentType = "application/octet-stream"
	}
	w := &writeTracker{w: tmp}
	sw := &spoolWriter{w: w, budget: opts.Spool, taken: &rf.taken}
	if opts.Spool != nil {
		sw.deadline = time.Now().Add(opts.Spool.wait)
	}
	n, copyErr := io.Copy(sw, io.LimitReader(part, opts.MaxFileBytes+1))
	closeErr := tmp.Close()
	var fail error
	switch {
	case sw.busy:
		fail = errSpoolBusy()
	case w.err != nil:
		fail = fmt.Errorf("spool receipt %q: %w", filename, w.err)
	case copyErr != nil:
		fail = readError(tr, copyErr)
	case closeErr != nil:
		fail = fmt.Errorf("spool receipt %q: %w", filename, closeErr)
	case n > opts.MaxFileBytes:
		fail = apperr.FieldErrors(apperr.PayloadTooLarge, map[string]string{f: fmt.Sprintf("a file is at most %d bytes", opts.MaxFileBytes)}).
			WithEnum(EnumFileTooLarge)
	case n == 0:
		fail = fieldError(apperr.InvalidPayload, f, EnumInvalidMultipart, "the file is empty")
	}
	if fail != nil {
		_ = rf.remove()
		return nil, fail
	}
	rf.Size = n
	return rf, nil
}

// writeTracker remembers a write error of the spool file, so that a full
// disk is not blamed on the client.
type writeTracker struct {
	w   io.Writer
	err error
}

func (t *writeTracker) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if err != nil && t.err == nil {
		t.err = err
	}
	return n, err
}

// readTransactionPart reads and decodes the transaction JSON part.
func readTransactionPart(tr *trackingReader, part *multipart.Part, mode RecordMode) (*RecordPatch, error) {
	if ct := part.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" && !strings.HasSuffix(mt, "+json") {
			return nil, fieldError(apperr.InvalidPayload, "transaction", EnumUnsupportedMediaType,
				"the transaction part must be application/json")
		}
	}
	raw, err := io.ReadAll(io.LimitReader(part, MaxTransactionPartBytes+1))
	if err != nil {
		return nil, readError(tr, err)
	}
	if len(raw) > MaxTransactionPartBytes {
		return nil, apperr.FieldErrors(apperr.PayloadTooLarge, map[string]string{"transaction": fmt.Sprintf("the transaction part is at most %d bytes", MaxTransactionPartBytes)}).
			WithEnum(EnumTransactionTooLarge)
	}
	return DecodeRecordPatch(raw, mode)
}

// recordProperties are the properties a transaction part may carry.
var recordProperties = []string{
	"external_id", "amount", "direction", "date", "description", "merchant_name", "memo", "metadata",
	"reference_number", "customer_id", "customer_external_id", "vendor_id", "vendor_external_id",
	"categorization", "document_ids", "tags",
}

// DecodeRecordPatch reads the JSON of a transaction part: an object with
// at least one property, every property of the spec's list checked for
// its type and rules (null only where the spec allows it: merchant_name,
// memo, reference_number, customer_id, customer_external_id, vendor_id,
// vendor_external_id; and metadata, whose null clears it). Unknown
// properties are refused rather than ignored, so a misspelt property never
// reads as "leave unchanged". external_id is accepted only with
// RecordCreate, which also requires amount, direction and date.
func DecodeRecordPatch(raw []byte, mode RecordMode) (*RecordPatch, error) {
	var m map[string]json.RawMessage
	if !jsonraw.IsObject(raw) || json.Unmarshal(raw, &m) != nil {
		return nil, fieldError(apperr.InvalidPayload, "transaction", EnumInvalidTransaction, "must be a JSON object")
	}
	if len(m) == 0 {
		return nil, fieldError(apperr.InvalidPayload, "transaction", EnumEmptyRecordRequest, "must have at least one property")
	}
	v := apperr.NewViolations(apperr.InvalidPayload)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(recordProperties, k) {
			v.Add("transaction."+partField(k), EnumInvalidTransaction, "unknown property")
		}
	}
	p := &RecordPatch{}
	const f = "transaction."
	present := func(k string) (json.RawMessage, bool) { r, ok := m[k]; return r, ok }
	notNull := func(k string) (json.RawMessage, bool) {
		r, ok := present(k)
		if ok && jsonraw.IsNull(r) {
			v.Add(f+k, EnumInvalidTransaction, "must not be null")
			return nil, false
		}
		return r, ok
	}
	if r, ok := present("external_id"); ok {
		if mode != RecordCreate {
			v.Add(f+"external_id", EnumInvalidTransaction, "can only be set when recording a new transaction")
		} else if s := decodeText(r, f+"external_id", textRule{max: MaxExternalIDLength, required: true}, v); s != nil {
			p.ExternalID = Optional[string]{Set: true, Value: *s}
		}
	}
	if r, ok := notNull("amount"); ok {
		if a := decodeAmount(r, f+"amount", v); a > 0 {
			p.Amount = Optional[money.Cents]{Set: true, Value: a}
		}
	}
	if r, ok := notNull("direction"); ok {
		if d := decodeDirection(r, f+"direction", v); d.Valid() {
			p.Direction = Optional[Direction]{Set: true, Value: d}
		}
	}
	if r, ok := notNull("date"); ok {
		if t := decodeDate(r, f+"date", v); !t.IsZero() {
			p.Date = Optional[time.Time]{Set: true, Value: t}
		}
	}
	if r, ok := notNull("description"); ok {
		// Blank text sets an empty description.
		s := decodeText(r, f+"description", textRule{max: MaxDescriptionLength, multiline: true}, v)
		if !v.Has(f + "description") {
			p.Description = Optional[string]{Set: true, Value: deref(s)}
		}
	}
	nullableText := func(k string, max int, multiline bool) Nullable[string] {
		r, ok := present(k)
		switch {
		case !ok:
			return Nullable[string]{}
		case jsonraw.IsNull(r):
			return Nullable[string]{Set: true, Null: true}
		}
		s := decodeText(r, f+k, textRule{max: max, multiline: multiline}, v)
		if s == nil {
			// Blank text clears the property, like null.
			return Nullable[string]{Set: true, Null: true}
		}
		return Nullable[string]{Set: true, Value: *s}
	}
	p.MerchantName = nullableText("merchant_name", MaxMerchantNameLength, false)
	p.Memo = nullableText("memo", MaxMemoLength, true)
	p.ReferenceNumber = nullableText("reference_number", MaxReferenceNumberLength, false)
	p.CustomerExternalID = nullableText("customer_external_id", MaxExternalIDLength, false)
	p.VendorExternalID = nullableText("vendor_external_id", MaxExternalIDLength, false)
	nullableUUID := func(k string) Nullable[uuid.UUID] {
		r, ok := present(k)
		switch {
		case !ok:
			return Nullable[uuid.UUID]{}
		case jsonraw.IsNull(r):
			return Nullable[uuid.UUID]{Set: true, Null: true}
		}
		if id := decodeUUID(r, f+k, v); id != nil {
			return Nullable[uuid.UUID]{Set: true, Value: *id}
		}
		return Nullable[uuid.UUID]{}
	}
	p.CustomerID = nullableUUID("customer_id")
	p.VendorID = nullableUUID("vendor_id")
	if r, ok := present("metadata"); ok {
		if jsonraw.IsNull(r) {
			p.Metadata = Nullable[json.RawMessage]{Set: true, Null: true}
		} else if md := decodeMetadata(r, f+"metadata", v); md != nil {
			p.Metadata = Nullable[json.RawMessage]{Set: true, Value: md}
		}
	}
	if r, ok := notNull("categorization"); ok {
		c, err := decodeCategorization(r, f+"categorization.", false)
		if err != nil {
			if err := v.Merge(err); err != nil {
				return nil, err
			}
		} else {
			p.Categorization = Optional[CategorizationRequest]{Set: true, Value: c}
		}
	}
	if r, ok := notNull("document_ids"); ok {
		if mode == RecordCreate {
			v.Add(f+"document_ids", EnumInvalidTransaction, "can only be set on an existing transaction")
		} else if ids, ok := decodeDocumentIDs(r, f+"document_ids", v); ok {
			p.DocumentIDs = Optional[[]uuid.UUID]{Set: true, Value: ids}
		}
	}
	if r, ok := notNull("tags"); ok {
		if kvs, ok := decodeTags(r, f+"tags", v); ok {
			if kvs == nil {
				kvs = []tags.KeyValue{}
			}
			p.Tags = Optional[[]tags.KeyValue]{Set: true, Value: kvs}
		}
	}
	if mode == RecordCreate {
		for _, k := range []string{"amount", "direction", "date"} {
			if _, ok := m[k]; !ok {
				v.Add(f+k, EnumInvalidTransaction, "is required to record a transaction")
			}
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// decodeDocumentIDs reads an array of distinct document UUIDs (an empty
// array archives every document).
func decodeDocumentIDs(raw json.RawMessage, f string, v *apperr.Violations) ([]uuid.UUID, bool) {
	var items []json.RawMessage
	if !strings.HasPrefix(strings.TrimSpace(string(raw)), "[") || json.Unmarshal(raw, &items) != nil {
		v.Add(f, EnumInvalidTransaction, "must be an array of document ids")
		return nil, false
	}
	if len(items) > MaxDocumentIDs {
		v.Add(f, EnumInvalidTransaction, fmt.Sprintf("at most %d document ids", MaxDocumentIDs))
		return nil, false
	}
	ids := make([]uuid.UUID, 0, len(items))
	ok := true
	for i, item := range items {
		id := decodeUUID(item, fmt.Sprintf("%s[%d]", f, i), v)
		if id == nil {
			if jsonraw.IsNull(item) {
				v.Add(fmt.Sprintf("%s[%d]", f, i), EnumInvalidTransaction, "must be a UUID")
			}
			ok = false
			continue
		}
		if !slices.Contains(ids, *id) {
			ids = append(ids, *id)
		}
	}
	return ids, ok
}

// HasChanges reports whether the patch sets anything.
func (p *RecordPatch) HasChanges() bool {
	return p.ExternalID.Set || p.Amount.Set || p.Direction.Set || p.Date.Set || p.Description.Set ||
		p.MerchantName.Set || p.Memo.Set || p.Metadata.Set || p.ReferenceNumber.Set || p.CustomerID.Set ||
		p.CustomerExternalID.Set || p.VendorID.Set || p.VendorExternalID.Set || p.Categorization.Set ||
		p.DocumentIDs.Set || p.Tags.Set
}
