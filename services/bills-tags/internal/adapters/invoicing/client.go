// Package invoicing is the bills-tags service's client of the
// customers-invoices service: the internal calls generic tagging makes to
// the owner of invoices and invoice payments, with the caller's own
// credentials (the owner verifies them again and scopes the answer to
// that caller), a timeout, and the owner's errors turned into our error
// objects. It mirrors the transactions client.
package invoicing

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
)

// EnumUnavailable is the error_enum of a 503 when the customers-invoices
// service did not answer (down, timed out, or failed).
const EnumUnavailable = "CustomersInvoicesUnavailable"

// maxAnswer bounds the answer read (500 invoices × 50 tags fit).
const maxAnswer = 32 << 20

// Client calls the customers-invoices service at BaseURL.
type Client struct {
	BaseURL string
	HTTP    *http.Client
}

// New is a client of baseURL whose calls give up after timeout.
func New(baseURL string, timeout time.Duration) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), HTTP: &http.Client{Timeout: timeout}}
}

var _ app.InvoiceTagger = (*Client)(nil)

// TagInvoices is POST /v1/businesses/{id}/invoices/tags of the
// customers-invoices service for caller: the tags it added, or its
// refusal as our error object (a 4xx keeps its type, enum and
// description, with `invoice_ids` named `entity_ids`); no answer, a
// timeout or a 5xx is 503 CustomersInvoicesUnavailable.
func (c *Client) TagInvoices(ctx context.Context, caller app.Caller, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error) {
	return c.tag(ctx, caller, businessID, "/invoices/tags", "invoice_ids", ids, kvs)
}

// TagInvoicePayments is TagInvoices for customer payments: POST
// /v1/businesses/{id}/invoices/payments/tags, `payment_ids` named
// `entity_ids`.
func (c *Client) TagInvoicePayments(ctx context.Context, caller app.Caller, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error) {
	return c.tag(ctx, caller, businessID, "/invoices/payments/tags", "payment_ids", ids, kvs)
}

func (c *Client) tag(ctx context.Context, caller app.Caller, businessID uuid.UUID, route, idsField string, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error) {
	body, err := json.Marshal(map[string]any{"key_values": kvs, idsField: ids})
	if err != nil {
		return nil, fmt.Errorf("encode tag request: %w", err)
	}
	url := c.BaseURL + "/v1/businesses/" + businessID.String() + route
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("tag %s: %w", route, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", caller.Authorization)
	if caller.RequestID != "" {
		req.Header.Set("X-Request-Id", caller.RequestID)
	}
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, unavailable(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, unavailable(err)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		var ans struct {
			Tags *[]tags.Tag `json:"tags"`
		}
		if err := json.Unmarshal(raw, &ans); err != nil {
			return nil, unavailable(fmt.Errorf("decode answer: %w", err))
		}
		if ans.Tags == nil {
			return nil, unavailable(fmt.Errorf("answer without tags"))
		}
		return *ans.Tags, nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return nil, refusal(resp.StatusCode, raw, idsField)
	}
	return nil, unavailable(fmt.Errorf("customers-invoices service answered %d", resp.StatusCode))
}

func unavailable(cause error) error {
	return apperr.Wrap(apperr.Unavailable, cause, "the customers-invoices service did not apply the tags: try again").
		WithEnum(EnumUnavailable)
}

// refusal is the customers-invoices service's 4xx answer as our error: its
// category follows the status, its enum, description and meta are kept,
// and its field names (idsField, and the unknown id's invoice_id or
// payment_id) become ours.
func refusal(status int, raw []byte, idsField string) error {
	var body apperr.Body
	_ = json.Unmarshal(raw, &body)
	e := &apperr.Error{Type: apperr.TypeForStatus(status), Enum: body.ErrorEnum, Message: strings.ReplaceAll(body.Description, idsField, "entity_ids")}
	if e.Type == apperr.InvalidParameters {
		e.Type = apperr.InvalidPayload // the body we sent was built from the caller's body
	}
	if e.Message == "" {
		e.Message = fmt.Sprintf("the customers-invoices service refused the tags (%d)", status)
	}
	for k, v := range body.Meta {
		switch k {
		case "invoice_id", "payment_id":
			k = "entity_id"
		}
		e = e.WithMeta(k, rename(k, v, idsField))
	}
	return e
}

// rename maps the customers-invoices service's body fields to POST /tags's.
func rename(key string, v any, idsField string) any {
	switch key {
	case "field":
		if s, ok := v.(string); ok {
			return renameField(s, idsField)
		}
	case "fields":
		if m, ok := v.(map[string]any); ok {
			out := make(map[string]any, len(m))
			for f, reason := range m {
				out[renameField(f, idsField)] = reason
			}
			return out
		}
	}
	return v
}

func renameField(f, idsField string) string {
	if rest, ok := strings.CutPrefix(f, idsField); ok {
		return "entity_ids" + rest
	}
	return f
}
