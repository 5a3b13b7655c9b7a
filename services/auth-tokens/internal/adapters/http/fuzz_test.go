package http

import (
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/auth-tokens/internal/domain"
)

// FuzzBusinessBody feeds arbitrary POST /v1/businesses bodies through the
// handler's decoding (httpx.DecodeJSON into businessBody) and the domain's
// validation: refusals are 400 error objects naming the field, and a
// business created from a body, rendered as the API answers it and sent
// back as a body, is created identical.
func FuzzBusinessBody(f *testing.F) {
	for _, s := range []string{`{"external_id":"b-1","legal_name":"Acme LLC","tin":"12-3456789","us_state":"CA","country":"US","entity_type":"LLC","phone_number":"+15551234567","activation_at":"2026-01-01T00:00:00Z","naics_code":"541211","default_reporting_basis":"CASH","is_demo":true}`,
		`{"legal_name":"Maple Ltd","country":"CA","activation_at":"2026-02-03"}`, `{}`, `{"legal_name":null}`,
		`{"us_state":"ZZ"}`, `{"country":"XX"}`, `{"activation_at":"2026-02-30"}`, `{"activation_at":"2026-01-01T00:00:00.1234567+14:00"}`,
		`{"entity_type":"GUILD"}`, `{"default_reporting_basis":"accrual"}`, `{"is_demo":"yes"}`, `{"legal_name":"   "}`,
		`{"naics_code":"12"}`, `{"unknown":1}`, `[]`, ``} {
		f.Add([]byte(s))
	}
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	id := uuid.MustParse("0190c4c4-0000-7000-8000-000000000001")
	f.Fuzz(func(t *testing.T, body []byte) {
		var b businessBody
		if err := httpx.DecodeJSON(body, &b); err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		biz, err := domain.NewBusiness(id, "client-a", b.input(), now)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		patched := biz
		if err := patched.Update(b.input(), now); err != nil {
			apperrtest.Require4xx(t, err) // some fields are set only at creation
		}
		out, _ := json.Marshal(toBusinessJSON(biz))
		var m map[string]json.RawMessage
		_ = json.Unmarshal(out, &m)
		in := map[string]json.RawMessage{}
		for _, k := range []string{"external_id", "legal_name", "tin", "us_state", "country", "entity_type", "phone_number",
			"activation_at", "naics_code", "default_reporting_basis", "is_demo"} {
			if v, ok := m[k]; ok {
				in[k] = v
			}
		}
		again, _ := json.Marshal(in)
		var b2 businessBody
		if err := httpx.DecodeJSON(again, &b2); err != nil {
			t.Fatalf("rendered business %s does not decode: %v", again, err)
		}
		biz2, err := domain.NewBusiness(id, "client-a", b2.input(), now)
		if err != nil {
			t.Fatalf("rendered business %s is refused: %v", again, err)
		}
		out2, _ := json.Marshal(toBusinessJSON(biz2))
		if string(out) != string(out2) {
			t.Fatalf("round trip of %s changed the business:\n%s\n%s", body, out, out2)
		}
	})
}

// FuzzBasicCredentials feeds arbitrary Authorization headers to the OAuth
// token endpoint's Basic parser: a parsed pair, encoded again, parses to
// the same pair; other schemes are not Basic.
func FuzzBasicCredentials(f *testing.F) {
	for _, s := range []string{"Basic " + base64.StdEncoding.EncodeToString([]byte("client-a:s3cret")), "basic Y2xpZW50Og==",
		"Basic " + base64.StdEncoding.EncodeToString([]byte("a:b:c")), "Basic bm9jb2xvbg==", "Basic !!!", "Basic ", "Bearer x", "", "Basi"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		id, secret, basic, err := basicCredentials(header)
		if err != nil || !basic {
			if !basic && (err != nil || id != "" || secret != "") {
				t.Fatalf("not Basic, yet %q %q %v", id, secret, err)
			}
			return
		}
		again := "Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+secret))
		id2, secret2, basic2, err := basicCredentials(again)
		if err != nil || !basic2 || id2 != id || secret2 != secret {
			t.Fatalf("%q: %q %q; re-encoded: %q %q %v", header, id, secret, id2, secret2, err)
		}
	})
}
