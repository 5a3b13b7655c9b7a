package jsonraw

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Decode decodes the JSON document body into v strictly: an empty body,
// malformed JSON, unknown fields, wrong types and anything after the value
// are 400 InvalidPayload errors naming the offending field or byte offset.
// It is what every request body parser decodes with (httpx.BindJSON and
// the domains' Parse functions).
func Decode(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return apperr.New(apperr.InvalidPayload, "request body is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err, len(body))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apperr.New(apperr.InvalidPayload, "unexpected data after the JSON value").
			WithMeta("offset", dec.InputOffset())
	}
	return nil
}

func decodeError(err error, size int) error {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return apperr.Wrap(apperr.InvalidPayload, err, "malformed JSON: "+syntax.Error()).
			WithMeta("offset", syntax.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apperr.Wrap(apperr.InvalidPayload, err, "malformed JSON: unexpected end of input").
			WithMeta("offset", size)
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return apperr.Wrap(apperr.InvalidPayload, err, "request body "+describeType(typeErr.Type))
		}
		return withCause(apperr.PayloadField(field, describeType(typeErr.Type)), err)
	}
	// encoding/json has no typed error for unknown fields.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if unq, uerr := strconv.Unquote(name); uerr == nil {
			name = unq
		}
		return withCause(apperr.PayloadField(name, "unknown field"), err)
	}
	// Errors from UnmarshalJSON/UnmarshalText methods (uuid, time, enums)
	// describe the value but not where it was.
	return apperr.Wrap(apperr.InvalidPayload, err, "invalid value: "+err.Error())
}

func withCause(e *apperr.Error, cause error) *apperr.Error {
	e.Err = cause
	return e
}

func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "must be a string"
	case reflect.Bool:
		return "must be a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "must be an integer"
	case reflect.Float32, reflect.Float64:
		return "must be a number"
	case reflect.Slice, reflect.Array:
		return "must be an array"
	case reflect.Map, reflect.Struct:
		return "must be an object"
	}
	return "has the wrong type"
}
