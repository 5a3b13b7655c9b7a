package openapi_test

import (
	"fmt"
	"io"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
)

const errorSchema = `
    Error:
      type: object
      required: [type, description]
      properties:
        type: {type: string}
        description: {type: string}
        error_enum: {type: string}
        meta: {type: object}
`

var businessesDoc = `
openapi: 3.0.3
info: {title: auth-tokens, version: "1"}
paths:
  /v1/businesses/{businessId}:
    get:
      operationId: getBusiness
      parameters:
        - {name: businessId, in: path, required: true, schema: {type: string, format: uuid}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                required: [data]
                properties:
                  data: {$ref: '#/components/schemas/Business'}
        "404":
          description: not found
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Error'}
  /v1/businesses:
    post:
      operationId: createBusiness
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [legal_name]
              additionalProperties: false
              properties:
                legal_name: {type: string, minLength: 1}
      responses:
        "201":
          description: created
          content:
            application/json:
              schema:
                type: object
                required: [data]
                properties:
                  data: {$ref: '#/components/schemas/Business'}
components:
  schemas:
    Business:
      type: object
      required: [id, legal_name]
      properties:
        id: {type: string, format: uuid}
        legal_name: {type: string}
` + errorSchema

var vehiclesDoc = `
openapi: 3.0.3
info: {title: mileage, version: "1"}
tags: [{name: mileage}]
paths:
  /v1/businesses/{businessId}/mileage/vehicles:
    get:
      operationId: listVehicles
      tags: [mileage]
      parameters:
        - {name: businessId, in: path, required: true, schema: {type: string, format: uuid}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  data: {type: array, items: {$ref: '#/components/schemas/Vehicle'}}
components:
  schemas:
    Vehicle:
      type: object
      properties:
        id: {type: string, format: uuid}
` + errorSchema

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		wantErr bool
	}{
		{"valid yaml", businessesDoc, false},
		{"valid json", `{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{}}`, false},
		{"not a document", "::: nope", true},
		{"dangling ref", strings.Replace(businessesDoc, "#/components/schemas/Business'}", "#/components/schemas/Missing'}", 1), true},
		{"missing info", `{"openapi":"3.0.3","paths":{}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openapi.Load([]byte(tt.doc))
			if (err != nil) != tt.wantErr {
				t.Fatalf("Load error = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}

func mustLoad(t *testing.T, doc string) *openapi3.T {
	t.Helper()
	d, err := openapi.Load([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestMerge(t *testing.T) {
	merged, err := openapi.Merge(mustLoad(t, businessesDoc), mustLoad(t, vehiclesDoc))
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	for _, p := range []string{"/v1/businesses/{businessId}", "/v1/businesses", "/v1/businesses/{businessId}/mileage/vehicles"} {
		if merged.Paths.Value(p) == nil {
			t.Errorf("merged doc lacks path %s", p)
		}
	}
	for _, s := range []string{"Business", "Vehicle", "Error"} {
		if merged.Components.Schemas[s] == nil {
			t.Errorf("merged doc lacks schema %s", s)
		}
	}
	if merged.Info.Title != "auth-tokens" || len(merged.Tags) != 1 {
		t.Errorf("info %v tags %v", merged.Info.Title, merged.Tags)
	}

	conflicting := strings.Replace(vehiclesDoc, "description: {type: string}", "description: {type: integer}", 1)
	if _, err := openapi.Merge(mustLoad(t, businessesDoc), mustLoad(t, conflicting)); err == nil || !strings.Contains(err.Error(), `"Error"`) {
		t.Fatalf("conflicting schema: err = %v", err)
	}
	samePath := strings.Replace(vehiclesDoc, "/v1/businesses/{businessId}/mileage/vehicles", "/v1/businesses/{businessId}", 1)
	if _, err := openapi.Merge(mustLoad(t, businessesDoc), mustLoad(t, samePath)); err == nil || !strings.Contains(err.Error(), "path") {
		t.Fatalf("conflicting path: err = %v", err)
	}
	if _, err := openapi.Merge(); err == nil {
		t.Fatal("Merge of nothing succeeded")
	}
}

func TestServe(t *testing.T) {
	doc := mustLoad(t, businessesDoc)
	raw, err := openapi.MarshalJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	app := fiber.New()
	openapi.Serve(app, func() []byte { return raw })

	get := func(path string) (int, string, string) {
		resp, err := app.Test(httptest.NewRequest("GET", path, nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	status, ct, body := get("/openapi.json")
	if status != 200 || ct != "application/json" || body != string(raw) {
		t.Fatalf("/openapi.json: %d %q", status, ct)
	}

	status, ct, page := get("/docs")
	if status != 200 || !strings.HasPrefix(ct, "text/html") || !strings.Contains(page, "/openapi.json") {
		t.Fatalf("/docs: %d %q %.200s", status, ct, page)
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(refs) == 0 {
		t.Fatal("docs page references no assets")
	}
	for _, m := range refs {
		ref := m[1]
		if strings.Contains(ref, "//") {
			t.Errorf("docs page references a remote asset: %s", ref)
			continue
		}
		if status, _, _ := get(ref); status != 200 {
			t.Errorf("asset %s: status %d", ref, status)
		}
	}
}

// recorder is a testing.TB that records failures instead of failing, so a
// test can prove the validator rejects a bad exchange.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.TB.Fatalf("unexpected fatal: "+format, args...)
}

func TestValidator(t *testing.T) {
	const id = "0f8fad5b-d9cb-469f-a165-70867728950e"
	app := fiber.New()
	app.Get("/v1/businesses/:businessId", func(c *fiber.Ctx) error {
		switch c.Params("businessId") {
		case id:
			return c.JSON(fiber.Map{"data": fiber.Map{"id": id, "legal_name": "Acme"}})
		case "0f8fad5b-d9cb-469f-a165-000000000000":
			return c.JSON(fiber.Map{"data": fiber.Map{"id": 42}}) // wrong type, missing field
		case "0f8fad5b-d9cb-469f-a165-111111111111":
			return c.Status(500).JSON(fiber.Map{"type": "Internal", "description": "x"}) // undocumented status
		}
		return c.Status(404).JSON(fiber.Map{"type": "NotFound", "description": "no", "error_enum": "NotFound"})
	})
	app.Post("/v1/businesses", func(c *fiber.Ctx) error {
		return c.Status(201).JSON(fiber.Map{"data": fiber.Map{"id": id, "legal_name": "Acme"}})
	})
	app.Get("/v1/secret", func(c *fiber.Ctx) error { return c.SendString("hi") })

	tests := []struct {
		name       string
		method     string
		path, body string
		wantFail   string // substring of the recorded failure; "" means valid
	}{
		{"valid get", "GET", "/v1/businesses/" + id, "", ""},
		{"valid documented error", "GET", "/v1/businesses/0f8fad5b-d9cb-469f-a165-222222222222", "", ""},
		{"valid post", "POST", "/v1/businesses", `{"legal_name":"Acme"}`, ""},
		{"wrong response body", "GET", "/v1/businesses/0f8fad5b-d9cb-469f-a165-000000000000", "", "response does not match"},
		{"undocumented status", "GET", "/v1/businesses/0f8fad5b-d9cb-469f-a165-111111111111", "", "response does not match"},
		{"invalid request body", "POST", "/v1/businesses", `{"legal_name":"Acme","extra":1}`, "request does not match"},
		{"undocumented route", "GET", "/v1/secret", "", "undocumented route"},
	}
	v := openapitest.New(t, []byte(businessesDoc))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			req := httptest.NewRequest(tt.method, "http://api.local"+tt.path, body)
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, _ := v.Do(rec, app, req)
			if resp == nil {
				t.Fatal("no response")
			}
			if tt.wantFail == "" {
				if len(rec.errors) != 0 {
					t.Fatalf("valid exchange rejected: %v", rec.errors)
				}
				return
			}
			if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], tt.wantFail) {
				t.Fatalf("want one failure containing %q, got %v", tt.wantFail, rec.errors)
			}
		})
	}
}
