package service

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// TestInvoicePaymentTrailingSlash: the client SDK posts an invoice payment
// to .../payment/ (with a slash). The row without the slash routes it,
// with its tenancy check, and the path reaches the service as sent.
func TestInvoicePaymentTrailingSlash(t *testing.T) {
	own, foreign := uuid.New(), uuid.New()
	fake := newFakeAuthTokens(t, map[uuid.UUID]string{own: "client-a", foreign: "client-b"})
	is := newIssuer(t)
	_, gw := startGateway(t, testConfig(is.jwks.URL, fake.URL))
	tok := is.platform(t, "client-a")
	inv := uuid.NewString()
	hdr := map[string]string{"Content-Type": "application/json"}

	p := "/v1/businesses/" + own.String() + "/invoices/" + inv + "/payment/"
	status, _, body := call(t, http.MethodPost, gw+p, tok, strings.NewReader(`{}`), hdr)
	if status != http.StatusOK || fake.seen(http.MethodPost, p) == nil {
		t.Fatalf("got %d %s; upstream saw %v", status, body, fake.received())
	}
	status, _, body = call(t, http.MethodPost, gw+"/v1/businesses/"+foreign.String()+"/invoices/"+inv+"/payment/", tok, strings.NewReader(`{}`), hdr)
	wantError(t, status, body, http.StatusNotFound, apperr.NotFound)
	status, _, body = call(t, http.MethodGet, gw+p, tok, nil, nil)
	wantError(t, status, body, http.StatusMethodNotAllowed, apperr.MethodNotAllowed)
}
