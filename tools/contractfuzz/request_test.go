package contractfuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/textproto"
	"net/url"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// creds are the tokens requests are sent with.
type creds struct {
	platform      string // the platform client that owns the businesses
	business      string // business token of the main business
	otherBusiness string // business token of another business of the same platform
	clientID      string
	clientSecret  string
}

// fuzzReq is one generated request.
type fuzzReq struct {
	op       *operation
	method   string
	target   string // path and query
	header   map[string]string
	body     []byte
	auth     string // which credentials: platform, business, other-business, none, garbage, basic, basic-wrong
	label    string // what was made invalid, "" for a valid request
	mainBiz  bool   // the path names the main business (answers may be harvested)
	basicID  string
	basicSec string
}

// build generates request number i of the run for op; the same seed and i
// always give the same request (ids come from the pools, which fill as
// the run goes).
func build(seed uint64, i int, op *operation, p *pools, c *creds) *fuzzReq {
	g := &gen{r: rand.New(rand.NewPCG(seed, splitmix(uint64(i)^seed))), pools: p, path: op.path}
	fr := &fuzzReq{op: op, method: op.method, header: map[string]string{}}
	mode := g.r.IntN(100)
	// 0–44 valid, 45–59 one bad parameter, 60–84 one bad body field,
	// 85–94 a hostile body as a whole, 95–99 hostile credentials.
	badParam := mode >= 45 && mode < 60
	badField := mode >= 60 && mode < 85
	badBody := mode >= 85 && mode < 95
	badAuth := mode >= 95
	if op.body == nil && op.bodyType == "" {
		// Nothing to break in a body: break a parameter instead.
		badParam = badParam || badField || badBody
		badField, badBody = false, false
	}

	// Parameters.
	var inParams []*openapi3.Parameter
	for _, pr := range op.params {
		if pr.In == "path" || pr.In == "query" || pr.In == "header" {
			inParams = append(inParams, pr)
		}
	}
	broken := -1
	if badParam && len(inParams) > 0 {
		broken = g.r.IntN(len(inParams))
	}
	path := op.path
	query := url.Values{}
	fr.mainBiz = true
	for k, pr := range inParams {
		var sch *openapi3.Schema
		if pr.Schema != nil {
			sch = pr.Schema.Value
		}
		switch pr.In {
		case "path":
			var v string
			if k == broken {
				v = g.badPathValue()
				fr.label = "invalid path " + pr.Name
			} else {
				v = g.pathValue(op.path, pr.Name, sch)
			}
			if pr.Name == "businessId" && v != p.main {
				fr.mainBiz = false
			}
			path = strings.Replace(path, "{"+pr.Name+"}", url.PathEscape(v), 1)
		case "query":
			if k != broken && !pr.Required && !g.pct(40) {
				continue
			}
			var vals []string
			if k == broken {
				fr.label = "invalid query " + pr.Name
				vals = serialize(g.invalid(sch, pr.Name))
			} else {
				vals = serializeQuery(pr, g.valid(pr.Schema, pr.Name, 0))
			}
			for _, v := range vals {
				query.Add(pr.Name, v)
			}
		case "header":
			if k != broken && !pr.Required && !g.pct(50) {
				continue
			}
			if k == broken {
				fr.label = "invalid header " + pr.Name
				fr.header[pr.Name] = g.pick([]string{strings.Repeat("k", 1000), "", " ", "ü-not-ascii", "a b c", "null"})
			} else if strings.EqualFold(pr.Name, "Idempotency-Key") {
				fr.header[pr.Name] = g.uuid()
			} else {
				vals := serialize(g.valid(pr.Schema, pr.Name, 0))
				if len(vals) > 0 {
					fr.header[pr.Name] = vals[0]
				}
			}
		}
	}
	if len(query) > 0 && g.pct(3) {
		query.Add("unknown_param", "1")
	}
	fr.target = path
	if len(query) > 0 {
		fr.target += "?" + query.Encode()
	}
	// An HTTP/1.1 server answers a request head larger than its read
	// buffer (16 KiB, pkg/httpx) with 431 and closes the connection; the
	// client, still writing, then gets a TCP reset that can wipe that
	// answer before it is read. Such a reset says nothing about the
	// contract, so heads stay under 12 KiB: over-long query values are cut
	// (still far beyond any maxLength). Oversized bodies are sent (413).
	for len(fr.target) > 12<<10 {
		longest, size := "", -1
		for k, vs := range query {
			if n := len(strings.Join(vs, "")) + len(vs)*len(k); n > size {
				longest, size = k, n
			}
		}
		vs, cut := query[longest], false
		for j, v := range vs {
			if len(v) > 64 {
				vs[j], cut = v[:len(v)/2], true
			}
		}
		if len(vs) > 8 {
			query[longest], cut = vs[:len(vs)/2], true
		}
		if !cut {
			query.Del(longest)
		}
		fr.target = path + "?" + query.Encode()
	}

	// Body.
	switch op.bodyType {
	case "application/json":
		switch {
		case badBody:
			fr.body, fr.header["Content-Type"], fr.label = g.hostileJSON(op)
		default:
			var v any
			if op.body != nil {
				v = g.valid(&openapi3.SchemaRef{Value: op.body}, "body", 0)
			}
			if badField {
				fr.label = g.mutate()
				if fr.label == "" {
					v, fr.label = []any{v}, "array instead of object"
				}
			}
			if v != nil || op.bodyReq {
				b, _ := json.Marshal(v)
				fr.body = b
				fr.header["Content-Type"] = "application/json"
			}
		}
	case "multipart/form-data":
		fr.body, fr.header["Content-Type"], fr.label = g.multipart(op.body, badField || badBody)
	case "application/x-www-form-urlencoded":
		form := url.Values{}
		if op.body != nil {
			if m, ok := g.valid(&openapi3.SchemaRef{Value: op.body}, "form", 0).(map[string]any); ok {
				for k, v := range m {
					form[k] = serialize(v)
				}
			}
		}
		if _, ok := form["grant_type"]; ok && !badField {
			form.Set("grant_type", "client_credentials")
		}
		if badField || badBody {
			fr.label = "bad form"
			form.Set(g.pick([]string{"grant_type", "scope", "client_id"}), g.pick(weird))
		}
		fr.body = []byte(form.Encode())
		fr.header["Content-Type"] = "application/x-www-form-urlencoded"
		if badBody && g.pct(50) {
			fr.header["Content-Type"] = "application/json"
		}
	default:
		if op.bodyType != "" {
			fr.body = []byte("opaque")
			fr.header["Content-Type"] = op.bodyType
		}
	}

	// Credentials.
	switch {
	case op.basic:
		switch r := g.r.IntN(10); {
		case r < 5:
			fr.auth, fr.basicID, fr.basicSec = "basic", c.clientID, c.clientSecret
		case r < 8:
			fr.auth, fr.basicID, fr.basicSec = "basic-wrong", c.clientID, "wrong-"+c.clientSecret
		default:
			fr.auth = "none"
		}
	case op.public:
		fr.auth = "none"
	case badAuth:
		fr.auth = g.pick([]string{"none", "garbage", "other-business"})
		if fr.label == "" {
			fr.label = "credentials: " + fr.auth
		}
	default:
		fr.auth = "platform"
		if fr.mainBiz && strings.Contains(op.path, "{businessId}") && g.pct(25) {
			fr.auth = "business"
		}
	}
	return fr
}

func (g *gen) pathValue(path, name string, sch *openapi3.Schema) string {
	ids := g.pools.get(collectionOf(path, name))
	if name == "businessId" {
		if g.pct(96) {
			return g.pools.main
		}
		return g.uuid()
	}
	if len(ids) > 0 && g.pct(88) {
		return ids[g.r.IntN(len(ids))]
	}
	if sch != nil && sch.Format != "uuid" && typeOf(sch) == "string" {
		return g.str(sch, name)
	}
	return g.uuid()
}

func (g *gen) badPathValue() string {
	return g.pick([]string{"not-a-uuid", "0", "-1", strings.Repeat("9", 300), "Ünïcødé", "00000000-0000-0000-0000-000000000000",
		g.uuid()[:35], g.uuid() + "0", "%zz", "a b", "null", "'", "\u202e", "1e309"})
}

// splitmix decorrelates the streams of neighbouring request numbers.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// serialize renders a query/header value in form style (arrays explode).
func serialize(v any) []string {
	switch x := v.(type) {
	case nil:
		return []string{""}
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, serialize(e)...)
		}
		if len(out) == 0 {
			return []string{""}
		}
		return out
	case map[string]any:
		b, _ := json.Marshal(x)
		return []string{string(b)}
	case float64:
		return []string{strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%f", x), "0"), ".")}
	}
	return []string{fmt.Sprint(v)}
}

func serializeQuery(pr *openapi3.Parameter, v any) []string {
	if arr, ok := v.([]any); ok && pr.Explode != nil && !*pr.Explode {
		parts := serialize(arr)
		return []string{strings.Join(parts, ",")}
	}
	return serialize(v)
}

// hostileJSON returns a body that breaks the JSON request as a whole.
func (g *gen) hostileJSON(op *operation) ([]byte, string, string) {
	switch g.r.IntN(12) {
	case 0:
		return nil, "application/json", "empty body"
	case 1:
		return []byte(`{"a":`), "application/json", "truncated JSON"
	case 2:
		return []byte(`[]`), "application/json", "array body"
	case 3:
		return []byte(`null`), "application/json", "null body"
	case 4:
		return []byte(`"text"`), "application/json", "string body"
	case 5:
		return []byte("{\"x\":1,}"), "application/json", "trailing comma"
	case 6:
		return []byte(`{"a":1}`), "text/plain", "wrong content type"
	case 7:
		return bytes.Repeat([]byte("["), 100000), "application/json", "deep nesting"
	case 8:
		if g.pct(10) {
			// Over BODY_LIMIT_BYTES (1 MiB): 413 with the error object.
			return append(append([]byte(`{"pad":"`), bytes.Repeat([]byte("x"), 1100000)...), `"}`...), "application/json", "body over the limit"
		}
		return []byte(`{"a":"` + strings.Repeat("€", 50000) + `"}`), "application/json", "large unicode body"
	case 9:
		return []byte("\xff\xfe{\"a\":1}"), "application/json", "invalid UTF-8"
	case 10:
		v := g.valid(&openapi3.SchemaRef{Value: op.body}, "body", 0)
		b, _ := json.Marshal(v)
		return b, "", "no content type"
	}
	v := g.valid(&openapi3.SchemaRef{Value: op.body}, "body", 0)
	b, _ := json.Marshal(v)
	if len(b) > 2 && b[0] == '{' {
		b = append([]byte(`{"dup":1,"dup":2,`), b[1:]...)
	}
	return b, "application/json", "duplicate keys"
}

// Small files of each kind the receipt and document uploads take: a
// minimal PDF, a PNG signature with junk, random bytes, and nothing.
var (
	tinyPDF = []byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")
	tinyPNG = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 64)...)
	// receiptPDFs are the text PDFs of pkg/receipts' corpus (loaded by the
	// test): uploads that parse, so receipts get created and reviewed.
	receiptPDFs [][]byte
)

func (g *gen) multipart(s *openapi3.Schema, bad bool) ([]byte, string, string) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	label := ""
	names := []string{}
	if s != nil {
		for k := range s.Properties {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	req := map[string]bool{}
	if s != nil {
		for _, r := range s.Required {
			req[r] = true
		}
	}
	skip := ""
	if bad && len(names) > 0 && g.pct(40) {
		skip = g.pick(names)
		label = "multipart without " + skip
	}
	for _, k := range names {
		if k == skip || (!req[k] && !g.pct(60)) {
			continue
		}
		ps := s.Properties[k].Value
		binary := ps != nil && (ps.Format == "binary" || (ps.Items != nil && ps.Items.Value != nil && ps.Items.Value.Format == "binary"))
		if binary {
			content, name, ct := tinyPDF, "r.pdf", "application/pdf"
			if len(receiptPDFs) > 0 && g.pct(60) {
				content = receiptPDFs[g.r.IntN(len(receiptPDFs))] // a real receipt: the parse succeeds
			}
			switch g.r.IntN(5) {
			case 1:
				content, name, ct = tinyPNG, "r.png", "image/png"
			case 2:
				content, name, ct = []byte(fmt.Sprint(g.r.Uint64())), "r.bin", "application/octet-stream"
			case 3:
				if bad {
					content, label = nil, "empty file"
				}
			}
			h := make(textproto.MIMEHeader)
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, k, name))
			h.Set("Content-Type", ct)
			part, _ := w.CreatePart(h)
			_, _ = part.Write(content)
			continue
		}
		v := g.valid(s.Properties[k], k, 1)
		if bad && label == "" && g.pct(50) {
			v, label = g.invalid(ps, k), "invalid multipart field "+k
		}
		for _, x := range serialize(v) {
			_ = w.WriteField(k, x)
		}
	}
	_ = w.Close()
	ct := w.FormDataContentType()
	body := buf.Bytes()
	if bad && label == "" {
		switch g.r.IntN(3) {
		case 0:
			ct, label = "multipart/form-data", "multipart without boundary"
		case 1:
			body, label = body[:len(body)/2], "truncated multipart"
		default:
			ct, label = "application/json", "multipart body sent as JSON"
		}
	}
	return body, ct, label
}
