package contractfuzz

import (
	"encoding/json"
	"strings"
	"sync"
)

// pools holds the ids of real objects of the main business, keyed by the
// collection template they live under (".../invoices", ".../bills/bill-
// payments"), so that path parameters and id fields name objects that exist
// most of the time and the requests reach the services' deep code.
type pools struct {
	mu     sync.RWMutex
	byColl map[string][]string
	next   map[string]int
	// singular ("customer", "bank_transaction") → collection templates, for
	// body fields named after them (customer_id, bank_transaction_ids).
	bySingular map[string][]string
	main       string
}

const poolSize = 64

func newPools(ops []*operation, business string) *pools {
	p := &pools{byColl: map[string][]string{}, next: map[string]int{}, bySingular: map[string][]string{}, main: business}
	seen := map[string]bool{}
	for _, o := range ops {
		for _, pr := range o.params {
			if pr.In != "path" {
				continue
			}
			c := collectionOf(o.path, pr.Name)
			if c == "" || seen[c] {
				continue
			}
			seen[c] = true
			last := c[strings.LastIndex(c, "/")+1:]
			s := strings.ReplaceAll(singular(last), "-", "_")
			p.bySingular[s] = append(p.bySingular[s], c)
		}
	}
	p.add("/v1/businesses", business)
	return p
}

func (p *pools) add(coll, id string) {
	if id == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := p.byColl[coll]
	for _, x := range ids {
		if x == id {
			return
		}
	}
	if len(ids) < poolSize {
		p.byColl[coll] = append(ids, id)
		return
	}
	ids[p.next[coll]%poolSize] = id
	p.next[coll]++
}

func (p *pools) get(coll string) []string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.byColl[coll]
}

// anyFor lists the ids a body field of that name may take.
func (p *pools) anyFor(field string) []string {
	base := strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(field), "s"), "_id")
	if base == "business" {
		return []string{p.main}
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	var out []string
	for _, c := range p.bySingular[base] {
		out = append(out, p.byColl[c]...)
	}
	if len(out) == 0 {
		// vendor_to_archive_id, source_vendor_id...: the kind named inside.
		for s, colls := range p.bySingular {
			if len(s) > 3 && strings.Contains(base, s) {
				for _, c := range colls {
					out = append(out, p.byColl[c]...)
				}
			}
		}
	}
	if len(out) == 0 && (base == "entity" || base == "transaction" || strings.HasSuffix(base, "transaction")) {
		for _, ids := range p.byColl {
			out = append(out, ids...)
		}
	}
	return out
}

// idFor returns a uuid for a body field: a real object's id most of the
// time, else a fresh (unknown) one.
func (p *pools) idFor(g *gen, field string) string {
	ids := p.anyFor(field)
	if f := strings.ToLower(field); (f == "id" || f == "ids" || f == "item") && g.path != "" {
		// A bare "ids" list (bulk-delete...) names objects of the
		// operation's own collection.
		ids = p.get(harvestTarget(g.path[:strings.LastIndex(g.path, "/")]))
	}
	if len(ids) > 0 && g.pct(85) {
		return ids[g.r.IntN(len(ids))]
	}
	return g.uuid()
}

// harvestAliases maps collections whose create answers hold ids that live
// under another collection.
func harvestTarget(path string) string {
	for _, suf := range []string{"/bulk", "/import", "/record"} {
		path = strings.TrimSuffix(path, suf)
	}
	switch {
	case strings.HasSuffix(path, "/custom-accounts/{customAccountId}/transactions"):
		return "/v1/businesses/{businessId}/bank-transactions"
	case strings.HasSuffix(path, "/write-off"):
		return path + "s"
	case strings.HasSuffix(path, "/invoices/{invoiceId}/payment"):
		return "/v1/businesses/{businessId}/invoices/payments"
	}
	return path
}

// harvest records the ids of an answer's data (one object or a list, also
// one level down: {"data": {"transactions": [...]}}).
func (p *pools) harvest(path string, body []byte) {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(body, &env) != nil || len(env.Data) == 0 {
		return
	}
	coll := harvestTarget(path)
	if strings.HasSuffix(coll, "/bank-transactions") {
		// The imported transactions are also the custom account's.
		defer func() {
			for _, id := range p.get(coll) {
				p.add("/v1/businesses/{businessId}/custom-accounts/{customAccountId}/transactions", id)
			}
		}()
	}
	var one map[string]any
	if json.Unmarshal(env.Data, &one) == nil {
		if id := idOf(one); id != "" {
			p.add(coll, id)
			if k, ok := one["key"].(string); ok && strings.HasSuffix(coll, "/tags/dimensions") {
				p.add(coll+"/key", k)
			}
			return
		}
		for _, v := range one {
			if list, ok := v.([]any); ok {
				p.addList(coll, list)
			}
		}
		return
	}
	var list []any
	if json.Unmarshal(env.Data, &list) == nil {
		p.addList(coll, list)
	}
}

func (p *pools) addList(coll string, list []any) {
	for i, x := range list {
		if i >= 8 {
			return
		}
		if m, ok := x.(map[string]any); ok {
			if id := idOf(m); id != "" {
				p.add(coll, id)
			}
			if k, ok := m["key"].(string); ok && strings.HasSuffix(coll, "/tags/dimensions") {
				p.add(coll+"/key", k)
			}
		}
	}
}

// idOf is an answer's id: "id" as a string, or as the spec's account
// identifier object ({"type": "AccountId", "id": ...}), or a receipt's
// business_document_id.
func idOf(m map[string]any) string {
	switch id := m["id"].(type) {
	case string:
		return id
	case map[string]any:
		s, _ := id["id"].(string)
		return s
	}
	s, _ := m["business_document_id"].(string)
	return s
}
