package stacktest

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/acctsuite/acct/tools/internal/clientshapes"
)

// Every successful answer of the suite's tests is checked against the
// shape the real client decodes (client-shapes.md); the calls walked are
// counted for TestClientShapesWalk.
var (
	shapesOnce sync.Once
	shapes     *clientshapes.Catalog
	shapesErr  error

	walkMu     sync.Mutex
	walked     = map[string]int{} // call key → answers checked
	shapeFails []string           // every violation seen, with its call
	typedNulls = map[string]int{} // nulls in TypeScript-typed shapes, by call and field
)

func catalog() (*clientshapes.Catalog, error) {
	shapesOnce.Do(func() { shapes, shapesErr = clientshapes.Load() })
	return shapes, shapesErr
}

// observeShape checks a 2xx JSON answer to method path against every call
// client-shapes.md lists for it; it returns the violations (also kept for
// the final report).
func observeShape(method, path string, status int, header http.Header, body []byte) []string {
	if status < 200 || status > 299 || status == http.StatusNoContent || !strings.HasPrefix(header.Get("Content-Type"), "application/json") {
		return nil
	}
	c, err := catalog()
	if err != nil {
		return []string{"client-shapes.md: " + err.Error()}
	}
	routes, err := routeTable()
	if err != nil {
		return []string{err.Error()}
	}
	// The call is the one of the route the gateway chose: a literal route
	// (DELETE /bank-transactions/tags) is not the client's
	// DELETE /bank-transactions/{bankTransactionId}.
	route := routeOf(routes, method, path)
	var out []string
	for _, call := range c.Match(method, path) {
		if route == "" || !sameTemplate(route, call.Path) {
			continue
		}
		for _, e := range c.CheckAnswer(call, body) {
			if rest, ok := strings.CutPrefix(e, clientshapes.TypedNull); ok {
				walkMu.Lock()
				typedNulls[call.Key()+": "+indexRe.ReplaceAllString(rest, "[]")]++
				walkMu.Unlock()
				continue
			}
			out = append(out, fmt.Sprintf("%s (as %s, shape %s): %s", call.Key(), method+" "+path, call.Shape, e))
		}
		walkMu.Lock()
		walked[call.Key()]++
		walkMu.Unlock()
	}
	if len(out) > 0 {
		walkMu.Lock()
		shapeFails = append(shapeFails, out...)
		walkMu.Unlock()
	}
	return out
}

var indexRe = regexp.MustCompile(`\[[0-9]+\]`)

// outOfScope are calls of the real product's own side businesses, which
// the suite does not serve (bookkeeping tasks and periods).
func outOfScope(c clientshapes.Call) bool {
	return strings.Contains(c.Path, "/tasks/") || strings.Contains(c.Path, "/bookkeeping/")
}

// routeOf is the template of the gateway's route for method and a request
// path: the match with the most literal segments ("" none).
func routeOf(routes []matrixRoute, method, path string) string {
	path, _, _ = strings.Cut(path, "?")
	segs := strings.Split(strings.TrimSuffix(path, "/"), "/")
	best, bestLiteral := "", -1
	for _, r := range routes {
		tmpl := strings.Split(r.Path, "/")
		if len(tmpl) != len(segs) || !slices.Contains(r.Methods, method) {
			continue
		}
		literal := 0
		for i := range tmpl {
			switch {
			case strings.HasPrefix(tmpl[i], ":"):
			case tmpl[i] == segs[i]:
				literal++
			default:
				literal = -1
			}
			if literal < 0 {
				break
			}
		}
		if literal > bestLiteral {
			best, bestLiteral = r.Path, literal
		}
	}
	return best
}

// sameTemplate reports whether a gateway template (:param) and a
// client-shapes path ({param}) name the same route. A client-shapes
// parameter that is not an identifier ({reportRoute}) also stands for a
// literal segment of the gateway's (.../unified/trial-balance); an
// identifier does not (DELETE /bank-transactions/tags is not the client's
// DELETE /bank-transactions/{bankTransactionId}).
func sameTemplate(gateway, shapes string) bool {
	g := strings.Split(gateway, "/")
	s := strings.Split(strings.TrimSuffix(shapes, "/"), "/")
	if len(g) != len(s) {
		return false
	}
	for i := range g {
		gp, sp := strings.HasPrefix(g[i], ":"), strings.HasPrefix(s[i], "{")
		switch {
		case gp && sp, !gp && !sp && g[i] == s[i]:
		case !gp && sp && !strings.HasSuffix(s[i], "Id}"):
		default:
			return false
		}
	}
	return true
}

// routed reports whether the gateway routes method path (a client-shapes
// path, {param} segments) to a service.
func routed(routes []matrixRoute, method, path string) bool {
	for _, r := range routes {
		if slices.Contains(r.Methods, method) && sameTemplate(r.Path, path) {
			return true
		}
	}
	return false
}

// walkReport is the calls the gateway serves that no test walked, and the
// calls it does not serve. A generic call (GET /reports/unified/{reportRoute})
// the gateway serves through its listed instances (.../unified/trial-balance)
// counts as served, and walked when one of them was.
func walkReport(t *testing.T, c *clientshapes.Catalog) (unwalked, unserved []string) {
	routes := gatewayRoutes(t)
	walkMu.Lock()
	defer walkMu.Unlock()
	seen := map[string]bool{}
	for _, call := range c.Calls {
		if outOfScope(call) || seen[call.Key()] {
			continue
		}
		seen[call.Key()] = true
		served, wasWalked := routed(routes, call.Method, call.Path), walked[call.Key()] > 0
		if !served {
			for _, inst := range c.Calls {
				if inst.Key() != call.Key() && inst.Method == call.Method && inst.Shape == call.Shape &&
					call.Matches(inst.Path) && routed(routes, inst.Method, inst.Path) {
					served = true
					wasWalked = wasWalked || walked[inst.Key()] > 0
				}
			}
		}
		switch {
		case !served:
			unserved = append(unserved, call.Key())
		case !wasWalked:
			unwalked = append(unwalked, call.Key())
		}
	}
	sort.Strings(unwalked)
	sort.Strings(unserved)
	return unwalked, unserved
}
