package httpx

import (
	"fmt"
	"mime"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
)

// BindJSON decodes the JSON request body into v strictly: the content type
// must be application/json (415 otherwise); an empty body, malformed JSON,
// unknown fields, wrong types and anything after the value are 400
// InvalidPayload errors naming the offending field or byte offset.
func BindJSON(c *fiber.Ctx, v any) error {
	if !isJSONContentType(c.Get(fiber.HeaderContentType)) {
		return apperr.New(apperr.UnsupportedMediaType, "Content-Type must be application/json")
	}
	return DecodeJSON(c.Body(), v)
}

// DecodeJSON is BindJSON without the content-type check (jsonraw.Decode).
func DecodeJSON(body []byte, v any) error { return jsonraw.Decode(body, v) }

// isJSONContentType accepts application/json and application/*+json, with
// or without parameters such as charset, in any case.
func isJSONContentType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.TrimSpace(mt)
	if strings.EqualFold(mt, fiber.MIMEApplicationJSON) {
		return true
	}
	const app = "application/"
	return len(mt) > len(app)+5 && strings.EqualFold(mt[:len(app)], app) && strings.EqualFold(mt[len(mt)-5:], "+json")
}

// UUIDParam parses the named path parameter as a canonical UUID; anything
// else is 400 InvalidParameters naming the parameter.
func UUIDParam(c *fiber.Ctx, name string) (uuid.UUID, error) {
	raw := c.Params(name)
	if len(raw) != 36 {
		return uuid.Nil, apperr.Field(name, "must be a UUID")
	}
	id, err := uuid.Parse(raw)
	if err != nil {
		return uuid.Nil, apperr.Field(name, "must be a UUID")
	}
	return id, nil
}

// QueryBool reads an optional boolean query parameter (true/false/1/0).
func QueryBool(c *fiber.Ctx, name string, def bool) (bool, error) {
	raw := c.Query(name)
	if raw == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(raw)
	if err != nil {
		return def, apperr.Field(name, "must be true or false")
	}
	return b, nil
}

// QueryInt reads an optional integer query parameter within [minimum, maximum].
func QueryInt(c *fiber.Ctx, name string, def, minimum, maximum int) (int, error) {
	raw := c.Query(name)
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < minimum || n > maximum {
		return def, apperr.Field(name, fmt.Sprintf("must be an integer between %d and %d", minimum, maximum))
	}
	return n, nil
}

// Query is the request's query string as url.Values, repeated parameters
// kept in order (for framework-free parsers such as page.Parse).
func Query(c *fiber.Ctx) url.Values {
	q := url.Values{}
	c.Context().QueryArgs().VisitAll(func(k, v []byte) { q.Add(string(k), string(v)) })
	return q
}

// JSONBody returns the request body after checking that it is JSON
// (application/json or application/*+json: 415 otherwise) and at most
// limit bytes (413), for parsers that take the raw bytes.
func JSONBody(c *fiber.Ctx, limit int) ([]byte, error) {
	mt, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	if err != nil || !(mt == fiber.MIMEApplicationJSON || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return nil, apperr.New(apperr.UnsupportedMediaType, "Content-Type must be application/json")
	}
	body := c.Body()
	if len(body) > limit {
		return nil, apperr.New(apperr.PayloadTooLarge, "request body too large")
	}
	return body, nil
}
