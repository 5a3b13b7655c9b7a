// Package clientshapes reads client-shapes.md (the answers the real
// product's client SDK decodes, a copy of the specification's file) into a
// catalog of shapes and calls, and checks answers against it: required keys
// present, null only where nullable, JSON types and formats as listed,
// closed enums limited to their values, nested shapes, items and unions
// checked the same way. Keys the catalog does not list are allowed (the
// client ignores them).
package clientshapes

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Document is the copy of the specification's client-shapes.md the
// catalog is read from.
//
//go:embed client-shapes.md
var Document []byte

// Field is one row of a shape's table.
type Field struct {
	Name     string
	Types    []string // string, number, integer, boolean, object, array, any
	Format   string   // uuid, date-time, date, decimal, number-string, non-empty
	Required bool
	Nullable bool
	Closed   []string // a closed enum's values (none: any value of the type)
	Shape    string   // an object of this shape
	Items    string   // an array of this shape or JSON type
}

// Shape is one section: a table of fields, or a union of other shapes.
type Shape struct {
	Name   string
	Fields []Field
	OneOf  []string
	// Typed: the SDK knows the shape as a TypeScript type only (ts-type),
	// not decoded at run time (effect-schema): a violation does not fail
	// the client's call by itself.
	Typed bool
}

// Call is one listed request and the wrapper of its answer.
type Call struct {
	Method, Path string
	Wrapper      string // data, data-array, paginated, none
	Shape        string
	params       int
	re           *regexp.Regexp
}

// Matches reports whether a request path (no query) is this call's.
func (c Call) Matches(path string) bool { return c.re.MatchString(strings.TrimSuffix(path, "/")) }

// Key is how a call is named in reports: "GET /v1/...".
func (c Call) Key() string { return c.Method + " " + c.Path }

// Catalog is the whole document.
type Catalog struct {
	Shapes map[string]*Shape
	Calls  []Call
}

var (
	headingRe = regexp.MustCompile(`^## (\w+)\s*$`)
	callRe    = regexp.MustCompile("^- `(GET|POST|PUT|PATCH|DELETE) (/[^` ]*)` → ([a-z-]+)")
	oneOfRe   = regexp.MustCompile(`^- one of: ([\w, ]+?)(?: \(|$)`)
	rowRe     = regexp.MustCompile("^\\| `(\\w+)` \\| ([^|]+) \\| ([^|]+) \\| (.*)\\|\\s*$")
	enumRe    = regexp.MustCompile("`([^`]*)`")
	paramRe   = regexp.MustCompile(`\{[^}/]+\}`)
	// quotedParamRe is a parameter after regexp.QuoteMeta.
	quotedParamRe = regexp.MustCompile(`\\\{[^}/]+\\\}`)
	typeRe        = regexp.MustCompile(`^(\w+(?: or \w+)*)(?: \(([\w-]+)\))?$`)
)

// TypedNull starts a violation that is a null where a TypeScript-typed
// shape (Shape.Typed) wants a value: nothing decodes it at run time, so
// the client reads the null as it reads a missing value; callers may
// report these apart from the violations that fail a call.
const TypedNull = "(typed) "

// Parse reads a client-shapes document.
func Parse(doc []byte) (*Catalog, error) {
	c := &Catalog{Shapes: map[string]*Shape{}}
	var cur *Shape
	sc := bufio.NewScanner(bytes.NewReader(doc))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := headingRe.FindStringSubmatch(line); m != nil {
			if m[1] == "Precedence" {
				cur = nil
				continue
			}
			cur = &Shape{Name: m[1]}
			c.Shapes[cur.Name] = cur
			continue
		}
		if cur == nil {
			continue
		}
		if strings.HasPrefix(line, "_SDK ") && strings.HasSuffix(strings.TrimSpace(line), "ts-type_") {
			cur.Typed = true
			continue
		}
		if m := callRe.FindStringSubmatch(line); m != nil {
			path := strings.TrimSuffix(m[2], "/")
			// QuoteMeta escapes the braces: a parameter is \{name\}.
			pattern := "^" + quotedParamRe.ReplaceAllString(regexp.QuoteMeta(path), `[^/]+`) + "/?$"
			c.Calls = append(c.Calls, Call{Method: m[1], Path: path, Wrapper: m[3], Shape: cur.Name,
				params: len(paramRe.FindAllString(path, -1)), re: regexp.MustCompile(pattern)})
			continue
		}
		if m := oneOfRe.FindStringSubmatch(line); m != nil {
			for _, s := range strings.Split(m[1], ",") {
				cur.OneOf = append(cur.OneOf, strings.TrimSpace(s))
			}
			continue
		}
		if m := rowRe.FindStringSubmatch(line); m != nil {
			f, err := parseField(m[1], strings.TrimSpace(m[2]), strings.TrimSpace(m[3]), strings.TrimSpace(m[4]))
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			cur.Fields = append(cur.Fields, f)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, s := range c.Shapes {
		for _, m := range s.OneOf {
			if c.Shapes[m] == nil {
				return nil, fmt.Errorf("%s: union member %s is not a shape", s.Name, m)
			}
		}
		for _, f := range s.Fields {
			if f.Shape != "" && c.Shapes[f.Shape] == nil {
				return nil, fmt.Errorf("%s.%s: shape %s is not in the document", s.Name, f.Name, f.Shape)
			}
		}
	}
	return c, nil
}

func parseField(name, typ, presence, values string) (Field, error) {
	f := Field{Name: name}
	m := typeRe.FindStringSubmatch(typ)
	if m == nil {
		return f, fmt.Errorf("field %s: type %q", name, typ)
	}
	f.Types, f.Format = strings.Split(m[1], " or "), m[2]
	switch presence {
	case "req":
		f.Required = true
	case "req, null":
		f.Required, f.Nullable = true, true
	case "opt":
	case "opt, null":
		f.Nullable = true
	default:
		return f, fmt.Errorf("field %s: presence %q", name, presence)
	}
	head, _, _ := strings.Cut(values, ";")
	switch {
	case strings.HasPrefix(head, "closed: "):
		for _, e := range enumRe.FindAllStringSubmatch(head, -1) {
			f.Closed = append(f.Closed, e[1])
		}
	case strings.HasPrefix(head, "shape "):
		f.Shape = strings.Fields(head)[1]
	case strings.HasPrefix(head, "items "):
		f.Items = strings.Fields(head)[1]
	}
	return f, nil
}

// Load parses the embedded document.
func Load() (*Catalog, error) { return Parse(Document) }

// Match finds the calls listed for method and a request path (its query
// ignored): every call of the most literal matching path (a literal
// segment wins over a parameter, so /invoices/summary-stats is not
// /invoices/{invoiceId}).
func (c *Catalog) Match(method, path string) []Call {
	path, _, _ = strings.Cut(path, "?")
	path = strings.TrimSuffix(path, "/")
	best := -1
	var out []Call
	for _, call := range c.Calls {
		if call.Method != method || !call.re.MatchString(path) {
			continue
		}
		switch {
		case best == -1 || call.params < best:
			best, out = call.params, []Call{call}
		case call.params == best:
			out = append(out, call)
		}
	}
	return out
}

// CheckAnswer checks a call's answer body: its wrapper, then the shape.
// It returns what is wrong, one line each (none: the answer decodes).
func (c *Catalog) CheckAnswer(call Call, body []byte) []string {
	var v any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return []string{"the answer is not JSON: " + err.Error()}
	}
	var errs []string
	switch call.Wrapper {
	case "none":
		c.check(call.Shape, v, "$", &errs)
	case "data", "data-array", "paginated":
		obj, ok := v.(map[string]any)
		if !ok {
			return []string{"$: not an object"}
		}
		data, ok := obj["data"]
		if !ok {
			return []string{"$.data: missing"}
		}
		if call.Wrapper == "data" {
			c.check(call.Shape, data, "$.data", &errs)
			break
		}
		items, ok := data.([]any)
		if !ok {
			return []string{"$.data: not an array"}
		}
		for i, it := range items {
			c.check(call.Shape, it, "$.data["+strconv.Itoa(i)+"]", &errs)
		}
		if call.Wrapper == "paginated" {
			if meta, ok := obj["meta"]; ok {
				mo, ok := meta.(map[string]any)
				if !ok {
					errs = append(errs, "$.meta: not an object")
				} else {
					c.check("PaginationMeta", mo["pagination"], "$.meta.pagination", &errs)
				}
			}
		}
	default:
		errs = append(errs, "unknown wrapper "+call.Wrapper)
	}
	return errs
}

// Check checks v against the named shape.
func (c *Catalog) Check(shape string, v any) []string {
	var errs []string
	c.check(shape, v, "$", &errs)
	return errs
}

func (c *Catalog) check(name string, v any, at string, errs *[]string) {
	s := c.Shapes[name]
	if s == nil {
		*errs = append(*errs, at+": unknown shape "+name)
		return
	}
	if len(s.OneOf) > 0 {
		c.checkUnion(s, v, at, errs)
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		*errs = append(*errs, fmt.Sprintf("%s: %s must be an object, is %s", at, name, kind(v)))
		return
	}
	for _, f := range s.Fields {
		fv, present := obj[f.Name]
		fat := at + "." + f.Name
		switch {
		case !present:
			if f.Required {
				*errs = append(*errs, fat+": required, missing")
			}
			continue
		case fv == nil:
			if !f.Nullable {
				msg := fat + ": null, not nullable"
				if s.Typed {
					msg = TypedNull + msg
				}
				*errs = append(*errs, msg)
			}
			continue
		}
		c.checkValue(f, fv, fat, errs)
	}
}

// checkUnion accepts v when one member accepts it; otherwise it reports
// the member its type names (or that no member has that type).
func (c *Catalog) checkUnion(s *Shape, v any, at string, errs *[]string) {
	var named []string
	typ, _ := v.(map[string]any)["type"].(string)
	for _, m := range s.OneOf {
		var e []string
		c.check(m, v, at, &e)
		if len(e) == 0 {
			return
		}
		for _, f := range c.Shapes[m].Fields {
			if f.Name == "type" && slices.Contains(f.Closed, typ) {
				named = e
			}
		}
	}
	if named != nil {
		*errs = append(*errs, named...)
		return
	}
	*errs = append(*errs, fmt.Sprintf("%s: %s: type %q is none of %s", at, s.Name, typ, strings.Join(s.OneOf, ", ")))
}

func (c *Catalog) checkValue(f Field, v any, at string, errs *[]string) {
	if !slices.Contains(f.Types, "any") && !slices.ContainsFunc(f.Types, func(t string) bool { return isType(t, v) }) {
		*errs = append(*errs, fmt.Sprintf("%s: must be %s, is %s", at, strings.Join(f.Types, " or "), kind(v)))
		return
	}
	if s, ok := v.(string); ok {
		if msg := checkFormat(f.Format, s); msg != "" {
			*errs = append(*errs, fmt.Sprintf("%s: %q %s", at, s, msg))
		}
		if len(f.Closed) > 0 && !slices.Contains(f.Closed, s) {
			*errs = append(*errs, fmt.Sprintf("%s: %q is not one of %s", at, s, strings.Join(f.Closed, ", ")))
		}
	}
	if f.Shape != "" {
		c.check(f.Shape, v, at, errs)
	}
	if f.Items != "" {
		items, _ := v.([]any)
		for i, it := range items {
			iat := at + "[" + strconv.Itoa(i) + "]"
			if c.Shapes[f.Items] != nil {
				c.check(f.Items, it, iat, errs)
			} else if !isType(f.Items, it) {
				*errs = append(*errs, fmt.Sprintf("%s: must be %s, is %s", iat, f.Items, kind(it)))
			}
		}
	}
}

func isType(t string, v any) bool {
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "any":
		return true
	}
	return false
}

var decimalRe = regexp.MustCompile(`^-?\d+(\.\d+)?$`)

// checkFormat is what is wrong with s for format (empty: nothing).
func checkFormat(format, s string) string {
	switch format {
	case "uuid":
		if _, err := uuid.Parse(s); err != nil || len(s) != 36 {
			return "is not a UUID"
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			return "is not a date-time"
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return "is not a date (YYYY-MM-DD)"
		}
	case "decimal":
		if !decimalRe.MatchString(s) {
			return "is not a decimal"
		}
	case "number-string":
		if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return "is not a number in a string"
		}
	case "non-empty":
		if strings.TrimSpace(s) == "" {
			return "is empty"
		}
	}
	return ""
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}
