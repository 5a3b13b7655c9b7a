// Package transactions is the bills-tags service's client of the
// transactions service: the internal calls generic tagging makes to the
// owner of bank transactions, with the caller's own credentials (the
// owner verifies them again and scopes the answer to that caller), a
// timeout, and the owner's errors turned into our error objects.
package transactions

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

// EnumUnavailable is the error_enum of a 503 when the transactions service
// did not answer (down, timed out, or failed).
const EnumUnavailable = "TransactionsUnavailable"

// maxAnswer bounds the answer read (500 transactions × 50 tags fit).
const maxAnswer = 32 << 20

// Client calls the transactions service at BaseURL.
type Client struct {
	BaseURL string
	HTTP    *http.Client
}

// New is a client of baseURL whose calls give up after timeout.
func New(baseURL string, timeout time.Duration) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), HTTP: &http.Client{Timeout: timeout}}
}

var _ app.BankTransactionTagger = (*Client)(nil)

// TagBankTransactions is POST /v1/businesses/{id}/bank-transactions/tags
// of the transactions service for caller: the tags it added, or its
// refusal as our error object (a 4xx keeps its type, enum and
// description, with `transaction_ids` named `entity_ids`); no answer, a
// timeout or a 5xx is 503 TransactionsUnavailable.
func (c *Client) TagBankTransactions(ctx context.Context, caller app.Caller, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error) {
	body, err := json.Marshal(map[string]any{"key_values": kvs, "transaction_ids": ids})
	if err != nil {
		return nil, fmt.Errorf("encode tag request: %w", err)
	}
	url := c.BaseURL + "/v1/businesses/" + businessID.String() + "/bank-transactions/tags"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("tag bank transactions: %w", err)
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
			Data struct {
				Tags []tags.Tag `json:"tags"`
			} `json:"data"`
		}
		if err := json.Unmarshal(raw, &ans); err != nil {
			return nil, unavailable(fmt.Errorf("decode answer: %w", err))
		}
		return ans.Data.Tags, nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return nil, refusal(resp.StatusCode, raw)
	}
	return nil, unavailable(fmt.Errorf("transactions service answered %d", resp.StatusCode))
}

func unavailable(cause error) error {
	return apperr.Wrap(apperr.Unavailable, cause, "the transactions service did not apply the tags: try again").
		WithEnum(EnumUnavailable)
}

// refusal is the transactions service's 4xx answer as our error: its
// category follows the status, its enum, description and meta are kept,
// and its field names become ours.
func refusal(status int, raw []byte) error {
	var body apperr.Body
	_ = json.Unmarshal(raw, &body)
	e := &apperr.Error{Type: apperr.TypeForStatus(status), Enum: body.ErrorEnum, Message: body.Description}
	if e.Type == apperr.InvalidParameters {
		e.Type = apperr.InvalidPayload // the body we sent was built from the caller's body
	}
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		// Our edge accepted the credentials the owner refused (expired in
		// between, or revoked): the caller's to renew.
		e.Type = apperr.TypeForStatus(status)
	}
	if e.Message == "" {
		e.Message = fmt.Sprintf("the transactions service refused the tags (%d)", status)
	}
	for k, v := range body.Meta {
		e = e.WithMeta(k, rename(k, v))
	}
	return e
}

// rename maps the transactions service's body fields to POST /tags's.
func rename(key string, v any) any {
	switch key {
	case "field":
		if s, ok := v.(string); ok {
			return renameField(s)
		}
	case "fields":
		if m, ok := v.(map[string]any); ok {
			out := make(map[string]any, len(m))
			for f, reason := range m {
				out[renameField(f)] = reason
			}
			return out
		}
	}
	return v
}

func renameField(f string) string {
	if rest, ok := strings.CutPrefix(f, "transaction_ids"); ok {
		return "entity_ids" + rest
	}
	return f
}
