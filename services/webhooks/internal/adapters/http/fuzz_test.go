package http

import (
	"testing"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/services/webhooks/internal/domain"
)

// FuzzParseEndpointBody: any body is decoded or refused with a 400,
// never a panic, and what is decoded normalizes without a panic.
func FuzzParseEndpointBody(f *testing.F) {
	for _, s := range []string{
		`{"url":"https://example.com/hook"}`,
		`{"url":"https://x","event_types":["Invoice.created"],"business_ids":["0b6f1c8e-5d3a-4f8e-9a41-6c2d7e9b1a10"],"ordering":"none","disabled":true,"description":"d"}`,
		`{"url":null}`, `{"event_types":null}`, `{"business_ids":["x"]}`, `[]`, `{}`, `{"url":"a"} {}`, `{"secret":"whsec_"}`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		b, err := parseEndpointBody(raw)
		if err != nil {
			if apperr.From(err).Status() != 400 {
				t.Fatalf("%q: %v", raw, err)
			}
			return
		}
		in := domain.EndpointInput{}
		if b.URL != nil {
			in.URL = *b.URL
		}
		if b.EventTypes != nil {
			in.EventTypes = *b.EventTypes
		}
		if b.BusinessIDs != nil {
			in.BusinessIDs = *b.BusinessIDs
		}
		if b.Ordering != nil {
			in.Ordering = *b.Ordering
		}
		if b.Description != nil {
			in.Description = *b.Description
		}
		out, vs := in.Normalize()
		if len(vs) == 0 && (out.URL == "" || (out.Ordering != domain.OrderingBusiness && out.Ordering != domain.OrderingNone)) {
			t.Fatalf("%q normalized to %+v", raw, out)
		}
	})
}
