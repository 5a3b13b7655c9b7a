package internalclient_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
	"github.com/acctsuite/acct/pkg/internalclient"
)

// FuzzDecodeAnswer feeds arbitrary answers (status and body) of another
// service to DecodeAnswer: a 2xx decodes or is 503, a 4xx is a 4xx error
// object with a message whatever the body, renamed to our field names,
// anything else is 503; every error renders as JSON (its meta comes from
// the answer).
func FuzzDecodeAnswer(f *testing.F) {
	f.Add(200, []byte(`{"data":{"type":"Bank_Transaction_Tags","tags":[{"id":"x","key":"k","value":"v"}]},"tags":[]}`))
	f.Add(200, []byte(`{"data":{}}`))
	f.Add(200, []byte(`not json`))
	f.Add(204, []byte(``))
	f.Add(400, []byte(`{"error_enum":"InvalidTags","description":"transaction_ids[0]: not found","meta":{"fields":{"transaction_ids[0]":"not found","tags[0].key":"too long"}}}`))
	f.Add(404, []byte(`{"error_enum":"NotFound","description":"no such transaction","meta":{"field":"transaction_ids","invoice_id":"i"}}`))
	f.Add(401, []byte(`{}`))
	f.Add(409, []byte(`{"meta":{"fields":"x","ids":[1,{"a":null}]}}`))
	f.Add(422, []byte(`not json`))
	f.Add(400, []byte(`{"meta":{"fields":{"":1e400}}}`))
	f.Add(500, []byte(`{"type":"Internal"}`))
	f.Add(302, []byte(``))
	c := internalclient.New("transactions", "http://transactions", 0, "TransactionsUnavailable")
	call := internalclient.Call{
		Path: "/v1/businesses/b/bank-transactions/tags", Body: map[string]any{}, Action: "apply the tags",
		Rename: internalclient.Rename{
			Fields:   map[string]string{"transaction_ids": "entity_ids"},
			MetaKeys: map[string]string{"invoice_id": "entity_id"},
		},
	}
	f.Fuzz(func(t *testing.T, status int, raw []byte) {
		status = 100 + (status%500+500)%500
		var ans struct {
			Data struct {
				Tags []map[string]any `json:"tags"`
			} `json:"data"`
		}
		err := c.DecodeAnswer(call, status, raw, &ans)
		switch {
		case status >= 200 && status < 300:
			if err != nil && !apperr.Is(err, apperr.Unavailable) {
				t.Fatalf("%d %q: %v, want nil or 503", status, raw, err)
			}
		case status >= 400 && status < 500:
			e := apperrtest.Require4xx(t, err)
			if f, ok := e.Meta["field"].(string); ok && strings.HasPrefix(f, "transaction_ids") {
				t.Fatalf("meta.field %q not renamed", f)
			}
			if fs, ok := e.Meta["fields"].(map[string]any); ok {
				for k := range fs {
					if strings.HasPrefix(k, "transaction_ids") {
						t.Fatalf("meta.fields key %q not renamed", k)
					}
				}
			}
			if _, ok := e.Meta["invoice_id"]; ok {
				t.Fatalf("meta key invoice_id not renamed: %v", e.Meta)
			}
		default:
			if !apperr.Is(err, apperr.Unavailable) {
				t.Fatalf("%d %q: %v, want 503", status, raw, err)
			}
		}
		var e *apperr.Error
		if errors.As(err, &e) {
			if _, err := json.Marshal(e.Body()); err != nil {
				t.Fatalf("error of %d %q does not render: %v", status, raw, err)
			}
		}
	})
}
