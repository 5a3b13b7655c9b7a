// Package openapi loads, validates, merges and serves the services'
// OpenAPI 3 documents: each service embeds its own self-contained document
// and serves it; the gateway serves the merged one. /docs renders it with
// Swagger UI from assets embedded in the binary (no CDN).
package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/swaggest/swgui/v5emb"
)

// Load parses a YAML or JSON OpenAPI 3 document, resolves its internal
// references and validates it.
func Load(data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("openapi: load: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("openapi: invalid document: %w", err)
	}
	return doc, nil
}

// Merge unions the paths, components and tags of docs into one validated
// document (openapi version, info, servers and security from the first).
// An item defined identically in several documents is kept once; the same
// name with different definitions is an error naming it.
func Merge(docs ...*openapi3.T) (*openapi3.T, error) {
	if len(docs) == 0 {
		return nil, errors.New("openapi: merge: no documents")
	}
	first := docs[0]
	out := &openapi3.T{
		OpenAPI:    first.OpenAPI,
		Info:       first.Info,
		Servers:    first.Servers,
		Security:   first.Security,
		Paths:      openapi3.NewPaths(),
		Components: &openapi3.Components{},
	}
	c := out.Components
	for _, d := range docs {
		if d.Paths != nil {
			for path, item := range d.Paths.Map() {
				if err := mergeEntry("path", path, out.Paths.Value(path), item, func() { out.Paths.Set(path, item) }); err != nil {
					return nil, err
				}
			}
		}
		src := d.Components
		if src == nil {
			continue
		}
		var errs []error
		errs = append(errs,
			mergeMap("schema", &c.Schemas, src.Schemas),
			mergeMap("parameter", &c.Parameters, src.Parameters),
			mergeMap("header", &c.Headers, src.Headers),
			mergeMap("request body", &c.RequestBodies, src.RequestBodies),
			mergeMap("response", &c.Responses, src.Responses),
			mergeMap("security scheme", &c.SecuritySchemes, src.SecuritySchemes),
			mergeMap("example", &c.Examples, src.Examples),
			mergeMap("link", &c.Links, src.Links),
			mergeMap("callback", &c.Callbacks, src.Callbacks),
		)
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		for _, tag := range d.Tags {
			if !slices.ContainsFunc(out.Tags, func(t *openapi3.Tag) bool { return t.Name == tag.Name }) {
				out.Tags = append(out.Tags, tag)
			}
		}
	}
	// A round trip through JSON re-resolves every $ref against the merged
	// components and validates the result as a whole.
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("openapi: merge: encode: %w", err)
	}
	return Load(raw)
}

func mergeMap[M ~map[string]V, V any](kind string, dst *M, src M) error {
	for name, v := range src {
		if *dst == nil {
			*dst = M{}
		}
		existing, ok := (*dst)[name]
		if !ok {
			(*dst)[name] = v
			continue
		}
		if err := sameDefinition(kind, name, existing, v); err != nil {
			return err
		}
	}
	return nil
}

func mergeEntry[V any](kind, name string, existing *V, v *V, set func()) error {
	if existing == nil {
		set()
		return nil
	}
	return sameDefinition(kind, name, existing, v)
}

func sameDefinition(kind, name string, a, b any) error {
	ja, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("openapi: merge %s %q: %w", kind, name, err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		return fmt.Errorf("openapi: merge %s %q: %w", kind, name, err)
	}
	if !bytes.Equal(ja, jb) {
		return fmt.Errorf("openapi: merge: %s %q is defined differently in two documents", kind, name)
	}
	return nil
}

// MarshalJSON renders doc as the bytes Serve expects.
func MarshalJSON(doc *openapi3.T) ([]byte, error) {
	return json.Marshal(doc)
}

// Serve registers GET /openapi.json (doc() as JSON) and GET /docs (Swagger
// UI reading /openapi.json, assets served from the binary under /docs/).
func Serve(app *fiber.App, doc func() []byte) {
	app.Get("/openapi.json", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(doc())
	})
	ui := adaptor.HTTPHandler(v5emb.New(title(doc()), "/openapi.json", "/docs"))
	app.Get("/docs", ui)
	app.Get("/docs/*", ui)
}

// title reads info.title for the page title without a full load.
func title(doc []byte) string {
	var d struct {
		Info struct {
			Title string `json:"title"`
		} `json:"info"`
	}
	if json.Unmarshal(doc, &d) == nil && d.Info.Title != "" {
		return d.Info.Title
	}
	return "API reference"
}

// MergeDocuments merges documents given as YAML or JSON (a service built
// from several packages, each with its own fragment) into one JSON document.
func MergeDocuments(docs ...[]byte) ([]byte, error) {
	loaded := make([]*openapi3.T, len(docs))
	for i, d := range docs {
		doc, err := Load(d)
		if err != nil {
			return nil, fmt.Errorf("openapi: document %d: %w", i, err)
		}
		loaded[i] = doc
	}
	merged, err := Merge(loaded...)
	if err != nil {
		return nil, err
	}
	return MarshalJSON(merged)
}
