package contractfuzz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
)

// gen builds values from schemas with one request's own random source.
// Valid values respect types, enums, bounds, lengths and formats (with a
// share of boundary values); ids come from the fixture pools. Every node it
// writes is recorded as a slot so that one of them can be mutated into an
// invalid value afterwards.
type gen struct {
	r     *rand.Rand
	pools *pools
	path  string // the operation's path template
	slots []slot
}

// slot is one place in a generated JSON value that a mutation may replace.
type slot struct {
	m        map[string]any // parent object (nil for array elements)
	a        []any          // parent array
	key      string
	idx      int
	schema   *openapi3.Schema
	required bool
}

// uuid is a random (version 4) uuid from the request's own source, so
// that a seed replays the same ids.
func (g *gen) uuid() string {
	var u uuid.UUID
	for i := range u {
		u[i] = byte(g.r.Uint32())
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u.String()
}

func (g *gen) pct(p int) bool { return g.r.IntN(100) < p }

func (g *gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

var (
	stableNames = []string{"CASH", "RENT", "MEALS", "UTILITIES", "OPENING_BALANCE_EQUITY", "ACCOUNTS_RECEIVABLE", "ACCOUNTS_PAYABLE", "REVENUE", "OFFICE_EXPENSES"}
	tagKeys     = []string{"dept", "site", "region", "trip"}
	tagValues   = []string{"east", "west", "north", "retail", "office"}
	weird       = []string{
		"", " ", "Ünïcødé ✓ 🧾", "\u202eRTL\u202c", "\x00nul", "a\nb\tc", "'; DROP TABLE x; --", "../../etc/passwd",
		"%00%2F", "<script>alert(1)</script>", "null", "NaN", "-0", "1e309", strings.Repeat("€", 300), "\ufeffbom",
		"\xff\xfe invalid utf8",
	}
)

func typeOf(s *openapi3.Schema) string {
	if s == nil || s.Type == nil {
		if s != nil && len(s.Properties) > 0 {
			return "object"
		}
		if s != nil && s.Items != nil {
			return "array"
		}
		return ""
	}
	for _, t := range s.Type.Slice() {
		if t != "null" {
			return t
		}
	}
	return ""
}

// valid returns a value the schema accepts (as far as the generator can
// tell: patterns are matched from a list of candidates).
func (g *gen) valid(ref *openapi3.SchemaRef, name string, depth int) any {
	if ref == nil || ref.Value == nil {
		return "x"
	}
	s := ref.Value
	if depth > 8 {
		return nil
	}
	if len(s.OneOf) > 0 {
		return g.valid(s.OneOf[g.r.IntN(len(s.OneOf))], name, depth+1)
	}
	if len(s.AnyOf) > 0 {
		return g.valid(s.AnyOf[g.r.IntN(len(s.AnyOf))], name, depth+1)
	}
	if len(s.AllOf) > 0 {
		merged := map[string]any{}
		var last any
		for _, sub := range s.AllOf {
			v := g.valid(sub, name, depth+1)
			if m, ok := v.(map[string]any); ok {
				for k, x := range m {
					merged[k] = x
				}
			} else {
				last = v
			}
		}
		if len(merged) > 0 || last == nil {
			return merged
		}
		return last
	}
	if len(s.Enum) > 0 {
		return s.Enum[g.r.IntN(len(s.Enum))]
	}
	switch typeOf(s) {
	case "object":
		return g.object(s, depth)
	case "array":
		n := int(s.MinItems)
		hi := n + 3
		if s.MaxItems != nil && int(*s.MaxItems) < hi {
			hi = int(*s.MaxItems)
		}
		if n == 0 && hi > 0 && !g.pct(10) {
			n = 1
		}
		if hi > n {
			n += g.r.IntN(hi - n + 1)
		}
		arr := make([]any, n)
		for i := range arr {
			arr[i] = g.valid(s.Items, singular(name), depth+1)
			g.slots = append(g.slots, slot{a: arr, idx: i, schema: schemaOf(s.Items)})
		}
		return arr
	case "integer", "number":
		return g.number(s, name)
	case "boolean":
		return g.pct(50)
	case "string":
		return g.str(s, name)
	}
	if s.Items != nil {
		return []any{}
	}
	return g.str(s, name)
}

func schemaOf(r *openapi3.SchemaRef) *openapi3.Schema {
	if r == nil {
		return nil
	}
	return r.Value
}

func singular(name string) string {
	switch {
	case strings.HasSuffix(name, "_ids"):
		return strings.TrimSuffix(name, "s")
	case strings.HasSuffix(name, "ies"):
		return strings.TrimSuffix(name, "ies") + "y"
	case strings.HasSuffix(name, "s"):
		return strings.TrimSuffix(name, "s")
	}
	return name
}

func (g *gen) object(s *openapi3.Schema, depth int) map[string]any {
	m := map[string]any{}
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p := s.Properties[k]
		if p.Value != nil && p.Value.ReadOnly {
			continue
		}
		if !req[k] && !g.pct(55) {
			continue
		}
		if p.Value != nil && p.Value.Nullable && !req[k] && g.pct(5) {
			m[k] = nil
		} else {
			m[k] = g.valid(p, k, depth+1)
		}
		g.slots = append(g.slots, slot{m: m, key: k, schema: p.Value, required: req[k]})
	}
	if len(s.Properties) == 0 && s.AdditionalProperties.Schema != nil && g.pct(60) {
		m["k"+fmt.Sprint(g.r.IntN(9))] = g.valid(s.AdditionalProperties.Schema, "value", depth+1)
	}
	return m
}

func (g *gen) number(s *openapi3.Schema, name string) any {
	lo, hi := 1.0, 500000.0
	lname := strings.ToLower(name)
	switch {
	case strings.Contains(lname, "year"):
		lo, hi = 2020, 2027
	case strings.Contains(lname, "month"):
		lo, hi = 1, 12
	case strings.Contains(lname, "limit") || strings.Contains(lname, "size"):
		lo, hi = 1, 50
	case strings.Contains(lname, "duration"):
		lo, hi = 60, 3600
	}
	if s.Min != nil {
		lo = math.Max(lo, *s.Min)
		if lo > hi {
			hi = lo + 1000
		}
	}
	if s.Max != nil {
		hi = math.Min(hi, *s.Max)
		if hi < lo {
			lo = hi - 1000
			if s.Min != nil {
				lo = *s.Min
			}
		}
	}
	if s.ExclusiveMin.Bool != nil && *s.ExclusiveMin.Bool && s.Min != nil && lo <= *s.Min {
		lo = *s.Min + 1
	}
	if s.ExclusiveMax.Bool != nil && *s.ExclusiveMax.Bool && s.Max != nil && hi >= *s.Max {
		hi = *s.Max - 1
	}
	var v float64
	switch {
	case g.pct(10) && s.Min != nil:
		v = lo // boundary
	case g.pct(10) && s.Max != nil:
		v = hi // boundary
	default:
		v = lo + g.r.Float64()*(hi-lo)
	}
	if typeOf(s) == "integer" || s.MultipleOf == nil {
		if typeOf(s) == "integer" {
			return int64(math.Round(math.Max(lo, math.Min(hi, math.Round(v)))))
		}
	}
	return math.Round(v*100) / 100
}

var patternCache sync.Map // pattern → *regexp.Regexp (nil when Go cannot compile it)

func compiled(p string) *regexp.Regexp {
	if v, ok := patternCache.Load(p); ok {
		re, _ := v.(*regexp.Regexp)
		return re
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	patternCache.Store(p, re)
	return re
}

func (g *gen) str(s *openapi3.Schema, name string) string {
	lname := strings.ToLower(name)
	switch s.Format {
	case "uuid":
		return g.pools.idFor(g, name)
	case "date":
		return fmt.Sprintf("2026-%02d-%02d", 1+g.r.IntN(12), 1+g.r.IntN(28))
	case "date-time":
		if g.pct(10) {
			return fmt.Sprintf("2026-%02d-%02dT%02d:%02d:%02d.%03d+02:00", 1+g.r.IntN(12), 1+g.r.IntN(28), g.r.IntN(24), g.r.IntN(60), g.r.IntN(60), g.r.IntN(1000))
		}
		return fmt.Sprintf("2026-%02d-%02dT%02d:%02d:%02dZ", 1+g.r.IntN(12), 1+g.r.IntN(28), g.r.IntN(24), g.r.IntN(60), g.r.IntN(60))
	case "email":
		return fmt.Sprintf("user%d@example.com", g.r.IntN(1000))
	case "uri", "url":
		return fmt.Sprintf("https://example.com/r/%d", g.r.IntN(1000))
	case "binary", "byte":
		return "aGVsbG8="
	}
	var cands []string
	switch {
	case lname == "stable_name":
		cands = stableNames
	case lname == "key" || strings.HasSuffix(lname, "_key"):
		cands = tagKeys
	case lname == "value":
		cands = tagValues
	case lname == "quantity" || lname == "distance" || strings.Contains(lname, "amount") || strings.Contains(lname, "price") || strings.Contains(lname, "rate"):
		cands = []string{fmt.Sprint(1 + g.r.IntN(50000)), "1", "2.5", "0.1", "100.25"}
	case lname == "account_type" && s.Format == "":
		cands = []string{"ASSET", "LIABILITY", "EQUITY", "REVENUE", "EXPENSE"}
	case lname == "normality" || lname == "direction":
		cands = []string{"DEBIT", "CREDIT"}
	case lname == "country":
		cands = []string{"US"}
	case lname == "us_state" || lname == "state":
		cands = []string{"CA", "NY", "TX"}
	case strings.Contains(lname, "currency"):
		cands = []string{"USD"}
	case strings.HasSuffix(lname, "_id") || strings.HasSuffix(lname, "id"):
		if ids := g.pools.anyFor(lname); len(ids) > 0 && g.pct(70) {
			cands = ids
		}
	}
	if s.Pattern != "" {
		re := compiled(s.Pattern)
		all := append(append([]string{}, cands...), "1234", "12.5", "-7", "US", "abc", "ABC", "ABC_DEF", "a-b", "2026-05", "2026-05-01", "Q1", "#", "x1")
		for _, c := range all {
			if re != nil && re.MatchString(c) && fits(s, c) {
				return c
			}
		}
	}
	if len(cands) > 0 {
		c := g.pick(cands)
		if fits(s, c) {
			return c
		}
	}
	lo := int(s.MinLength)
	hi := lo + 24
	if s.MaxLength != nil && int(*s.MaxLength) < hi {
		hi = int(*s.MaxLength)
	}
	if lo == 0 && hi > 0 {
		lo = 1
	}
	n := lo
	switch {
	case g.pct(10):
		n = hi // boundary: the longest accepted
	case hi > lo:
		n = lo + g.r.IntN(hi-lo+1)
	}
	alphabet := []rune("abcdefghijklmnopqrstuvwxyz ABCDEFGHIJ0123456789-é✓")
	if g.pct(70) {
		alphabet = []rune("abcdefghijklmnopqrstuvwxyz0123456789")
	}
	out := make([]rune, n)
	for i := range out {
		out[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	str := string(out)
	if n > 0 && strings.TrimSpace(str) != str {
		out[0], out[n-1] = 'x', 'y'
		str = string(out)
	}
	return str
}

func fits(s *openapi3.Schema, v string) bool {
	n := uint64(len([]rune(v)))
	return n >= s.MinLength && (s.MaxLength == nil || n <= *s.MaxLength)
}

// invalid returns a value the schema rejects, or any hostile value when the
// schema says little (what must come back then is a 4xx with the error
// object, never a 5xx).
func (g *gen) invalid(s *openapi3.Schema, name string) any {
	t := typeOf(s)
	if s != nil && len(s.Enum) > 0 && g.pct(40) {
		return g.pick([]string{"NOT_A_VALUE", "", "lowercase", strings.Repeat("Z", 300)})
	}
	switch g.r.IntN(6) {
	case 0: // wrong type
		switch t {
		case "string":
			return []any{12345, true, map[string]any{}, []any{}}[g.r.IntN(4)]
		case "integer", "number":
			return g.pick([]string{"abc", "", "1,5", "0x10", "1e3", "12.345.6"})
		case "boolean":
			return "yes"
		case "array":
			return map[string]any{"0": "x"}
		case "object":
			return []any{"x", 1}
		}
		return 42
	case 1:
		return nil
	}
	switch t {
	case "string":
		switch g.r.IntN(6) {
		case 0:
			if s.MaxLength != nil {
				return strings.Repeat("a", int(*s.MaxLength)+1)
			}
			return strings.Repeat("long", 5000)
		case 1:
			if s.MinLength > 0 {
				return strings.Repeat("a", int(s.MinLength)-1)
			}
			return ""
		case 2:
			switch s.Format {
			case "uuid":
				return g.pick([]string{"not-a-uuid", "00000000-0000-0000-0000-00000000000g", g.uuid()[:35], "{" + g.uuid() + "}"})
			case "date":
				return g.pick([]string{"2026-13-01", "2026-02-30", "26-01-01", "2026/01/01", "yesterday", "0000-00-00", "99999-01-01"})
			case "date-time":
				return g.pick([]string{"2026-01-01", "2026-01-01T25:00:00Z", "2026-01-01 10:00:00", "not a time", "2026-01-01T10:00:00"})
			}
			return g.pick([]string{"-1", "1.2.3", "9999999999999999999999", "1e400", "-0.0001"})
		case 3:
			return 123
		}
		return g.pick(weird)
	case "integer", "number":
		switch g.r.IntN(7) {
		case 0:
			if s.Min != nil {
				return *s.Min - 1
			}
			return -1
		case 1:
			if s.Max != nil {
				return *s.Max + 1
			}
			return 1e308
		case 2:
			return 0.5
		case 3:
			return 9223372036854775807
		case 4:
			return -9223372036854775808
		case 5:
			return 0
		}
		return "12"
	case "array":
		switch g.r.IntN(3) {
		case 0:
			return []any{}
		case 1:
			n := 1001
			if s.MaxItems != nil {
				n = int(*s.MaxItems) + 1
			}
			if n > 5000 {
				n = 5000
			}
			arr := make([]any, n)
			for i := range arr {
				arr[i] = g.valid(s.Items, singular(name), 6)
			}
			return arr
		}
		return []any{nil, "x", 1}
	case "object":
		m := g.object(s, 6)
		for k := range m {
			if g.pct(50) {
				delete(m, k)
			}
		}
		m["unexpected_field"] = g.pick(weird)
		return m
	}
	return g.pick(weird)
}

// mutate turns one recorded slot into an invalid value: a missing required
// field, an extra field, a wrong type, an out-of-range or malformed value.
// It returns a short label of what it did.
func (g *gen) mutate() string {
	if len(g.slots) == 0 {
		return ""
	}
	sl := g.slots[g.r.IntN(len(g.slots))]
	if sl.m != nil {
		switch {
		case sl.required && g.pct(25):
			delete(sl.m, sl.key)
			return "missing required " + sl.key
		case g.pct(10):
			sl.m["extra_"+sl.key] = "x"
			return "extra field next to " + sl.key
		}
		sl.m[sl.key] = g.invalid(sl.schema, sl.key)
		return "invalid " + sl.key
	}
	sl.a[sl.idx] = g.invalid(sl.schema, "item")
	return "invalid array item"
}
