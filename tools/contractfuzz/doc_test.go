package contractfuzz

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"

	"github.com/acctsuite/acct/pkg/openapi"
)

// operation is one documented method on one documented path of the merged
// document, with everything the generator and the checker need.
type operation struct {
	method   string
	path     string // the template, e.g. /v1/businesses/{businessId}/bills/{billId}
	op       *openapi3.Operation
	params   []*openapi3.Parameter
	route    *routers.Route
	public   bool // security: [] — no token needed
	basic    bool // basicAuth (POST /oauth2/token)
	bodyReq  bool
	bodyType string // application/json, multipart/form-data, application/x-www-form-urlencoded or ""
	body     *openapi3.Schema
}

func (o *operation) key() string { return o.method + " " + o.path }

// fetchDocument waits until the gateway's merged document holds every
// service's paths (the gateway merges them in the background).
func fetchDocument(gateway string) ([]byte, error) {
	var last []byte
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		resp, err := http.Get(gateway + "/openapi.json")
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		last = body
		if bytes.Contains(body, []byte(`"/whoami"`)) && bytes.Contains(body, []byte(`/ledger/chart"`)) &&
			bytes.Contains(body, []byte(`/customers"`)) && bytes.Contains(body, []byte(`/reports/profit-and-loss"`)) &&
			bytes.Contains(body, []byte(`/mileage/summary"`)) && bytes.Contains(body, []byte(`/bills"`)) &&
			bytes.Contains(body, []byte(`/v1/webhooks/endpoints"`)) {
			return body, nil
		}
	}
	return nil, fmt.Errorf("the gateway's /openapi.json never held every service's paths (%d bytes)", len(last))
}

// loadOperations parses the document and lists its operations in a stable
// order (path, then method), so that a seed replays the same requests.
func loadOperations(raw []byte) (*openapi3.T, []*operation, error) {
	doc, err := openapi.Load(raw)
	if err != nil {
		return nil, nil, err
	}
	doc.Servers = nil
	var ops []*operation
	paths := doc.Paths.Map()
	keys := make([]string, 0, len(paths))
	for p := range paths {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	for _, p := range keys {
		item := paths[p]
		methods := item.Operations()
		ms := make([]string, 0, len(methods))
		for m := range methods {
			ms = append(ms, m)
		}
		sort.Strings(ms)
		for _, m := range ms {
			op := methods[m]
			o := &operation{method: m, path: p, op: op,
				route: &routers.Route{Spec: doc, Path: p, PathItem: item, Method: m, Operation: op}}
			// Operation parameters override path-item ones of the same name and place.
			seen := map[string]bool{}
			for _, pr := range op.Parameters {
				if pr.Value != nil {
					o.params = append(o.params, pr.Value)
					seen[pr.Value.In+":"+pr.Value.Name] = true
				}
			}
			for _, pr := range item.Parameters {
				if pr.Value != nil && !seen[pr.Value.In+":"+pr.Value.Name] {
					o.params = append(o.params, pr.Value)
				}
			}
			sec := doc.Security
			if op.Security != nil {
				sec = *op.Security
			}
			o.public = len(sec) == 0
			for _, req := range sec {
				if _, ok := req["basicAuth"]; ok {
					o.basic = true
				}
			}
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				rb := op.RequestBody.Value
				o.bodyReq = rb.Required
				for _, ct := range []string{"application/json", "multipart/form-data", "application/x-www-form-urlencoded"} {
					if mt := rb.Content.Get(ct); mt != nil {
						o.bodyType = ct
						if mt.Schema != nil {
							o.body = mt.Schema.Value
						}
						break
					}
				}
				if o.bodyType == "" {
					for ct, mt := range rb.Content {
						o.bodyType = ct
						if mt.Schema != nil {
							o.body = mt.Schema.Value
						}
						break
					}
				}
			}
			ops = append(ops, o)
		}
	}
	return doc, ops, nil
}

// collectionOf returns the pool key of a path parameter: the template up to
// the parameter (".../invoices" for {invoiceId} in ".../invoices/{invoiceId}").
func collectionOf(path, param string) string {
	i := strings.Index(path, "/{"+param+"}")
	if i < 0 {
		return ""
	}
	return path[:i]
}
