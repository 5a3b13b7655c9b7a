package httpx

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// fuzzBody has the field kinds request bodies use.
type fuzzBody struct {
	Name     string            `json:"name"`
	Note     *string           `json:"note"`
	Count    int               `json:"count"`
	Ratio    float64           `json:"ratio"`
	On       bool              `json:"on"`
	ID       uuid.UUID         `json:"id"`
	At       *time.Time        `json:"at"`
	Items    []fuzzItem        `json:"items"`
	Labels   map[string]string `json:"labels"`
	Metadata json.RawMessage   `json:"metadata"`
}

type fuzzItem struct {
	Amount int64  `json:"amount"`
	Memo   string `json:"memo"`
}

// FuzzBindJSON sends arbitrary bodies and content types through BindJSON
// (and so DecodeJSON), the strict decoder of every JSON request body: a
// refusal is a 4xx error object (415 for the content type, 400 naming the
// field or offset otherwise), and an accepted body, rendered and bound
// again, gives the same value.
func FuzzBindJSON(f *testing.F) {
	f.Add("application/json", []byte(`{"name":"a","note":null,"count":3,"ratio":0.5,"on":true,"id":"0190c4c4-0000-7000-8000-000000000001","at":"2026-03-04T05:06:07Z","items":[{"amount":125,"memo":"m"}],"labels":{"k":"v"},"metadata":{"x":[1]}}`))
	f.Add("application/merge-patch+json", []byte(`{"name":"b"}`))
	f.Add("Application/JSON; charset=utf-8", []byte(` {} `))
	f.Add("text/plain", []byte(`{}`))
	f.Add("", []byte(`{}`))
	f.Add("application/json", []byte(``))
	f.Add("application/json", []byte(`{"name":1}`))
	f.Add("application/json", []byte(`{"unknown":1}`))
	f.Add("application/json", []byte(`{"items":[{"amount":"1"}]}`))
	f.Add("application/json", []byte(`{"count":1e400}`))
	f.Add("application/json", []byte(`{"id":"nope"}`))
	f.Add("application/json", []byte(`{"at":"2026-02-30"}`))
	f.Add("application/json", []byte(`{} {}`))
	f.Add("application/json", []byte(`{"name":"a"`))
	f.Add("application/json", []byte(`[]`))
	f.Add("application/json", []byte("{\"name\":\"\xff\"}"))
	app := fiber.New()
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		rc := &fasthttp.RequestCtx{}
		rc.Request.Header.Set(fiber.HeaderContentType, contentType)
		rc.Request.SetBody(body)
		c := app.AcquireCtx(rc)
		defer app.ReleaseCtx(c)
		var v fuzzBody
		err := BindJSON(c, &v)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("bound value does not render: %v", err)
		}
		var again fuzzBody
		if err := DecodeJSON(out, &again); err != nil {
			t.Fatalf("rendered %s does not decode: %v", out, err)
		}
		out2, _ := json.Marshal(again)
		if string(out) != string(out2) {
			t.Fatalf("round trip changed the value:\n%s\n%s", out, out2)
		}
		if !reflect.DeepEqual(v.Items, again.Items) || v.ID != again.ID {
			t.Fatalf("round trip changed items or id")
		}
	})
}
