package banking

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/tags"
)

// MaxBulkTransactions bounds the transactions of one bulk call
// (bulk-categorize, bulk-match-or-categorize, bulk-uncategorize).
const MaxBulkTransactions = 500

// Error enums of the bulk calls' bodies.
const (
	// EnumDuplicateTransactionID: a bulk body names a transaction twice.
	EnumDuplicateTransactionID = "DuplicateTransactionId"
	// EnumInvalidBulkRequest: a bulk body or one of its items has the
	// wrong shape.
	EnumInvalidBulkRequest = "InvalidBulkRequest"
)

// BulkActionType is what a bulk call does to one transaction.
type BulkActionType string

// The bulk actions (the first two are the `type` of a
// bulk-match-or-categorize item).
const (
	BulkMatch        BulkActionType = "match"
	BulkCategorize   BulkActionType = "categorize"
	BulkUncategorize BulkActionType = "uncategorize"
)

// BulkAction is one item of a bulk call, checked for shape: what to do to
// which transaction. Field is where the item is in the body
// (`transactions[3]`, `transactions.<id>`, `transaction_ids[2]`), the prefix
// of every field an error about the item names.
type BulkAction struct {
	TransactionID uuid.UUID
	Field         string
	Type          BulkActionType
	// MatchID is a match's suggested_match_id.
	MatchID uuid.UUID
	// Categorization is a categorize's body, still to be checked against
	// its transaction (CategorizationRequest.ValidateAt).
	Categorization CategorizationRequest
}

// bulkBody decodes the body's one member name (a JSON value), refusing a
// body that is not an object or lacks it.
func bulkBody(body []byte, name, shape string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if !jsonraw.IsObject(body) || json.Unmarshal(body, &m) != nil {
		return nil, fieldError(apperr.InvalidPayload, "body", EnumInvalidBulkRequest, "must be a JSON object: "+shape)
	}
	raw, ok := m[name]
	if !ok || jsonraw.IsNull(raw) {
		return nil, fieldError(apperr.InvalidPayload, name, EnumInvalidBulkRequest, "is required: "+shape)
	}
	return raw, nil
}

// checkCount refuses n items outside 1..MaxBulkTransactions.
func checkCount(n int, f string) error {
	switch {
	case n == 0:
		return fieldError(apperr.InvalidPayload, f, EnumNoTransactions, "must name at least one transaction")
	case n > MaxBulkTransactions:
		return fieldError(apperr.InvalidPayload, f, EnumTooManyTransactions,
			fmt.Sprintf("names %d transactions; at most %d per call", n, MaxBulkTransactions))
	}
	return nil
}

// decodeBulkID reads a transaction id (a canonical UUID string) at f.
func decodeBulkID(raw json.RawMessage, f string, v *apperr.Violations) (uuid.UUID, bool) {
	s, ok := jsonraw.String(raw)
	id, ok := parseUUIDOK(s, ok)
	if !ok {
		v.Add(f, EnumInvalidBulkRequest, "must be a bank transaction id (a UUID)")
	}
	return id, ok
}

func parseUUIDOK(s string, ok bool) (uuid.UUID, bool) {
	if !ok {
		return uuid.Nil, false
	}
	id, ok := parseUUID(s)
	return id, ok && id != uuid.Nil
}

// ParseBulkCategorize reads the body of POST /bank-transactions/bulk-categorize
// (the client SDK's BulkCategorizeRequest): `{transactions: [{transaction_id,
// categorization}]}`, 1 to 500 items, each categorization a categorize body
// (single or split; see DecodeCategorization). A transaction named twice is
// refused (DuplicateTransactionId). Every violation is named, under its
// item (`transactions[3].categorization.entries[1].amount`), in one 400.
func ParseBulkCategorize(body []byte) ([]BulkAction, error) {
	const shape = "{transactions: [{transaction_id, categorization}]}"
	raw, err := bulkBody(body, "transactions", shape)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if r := bytes.TrimSpace(raw); len(r) == 0 || r[0] != '[' || json.Unmarshal(r, &items) != nil {
		return nil, fieldError(apperr.InvalidPayload, "transactions", EnumInvalidBulkRequest, "must be an array: "+shape)
	}
	if err := checkCount(len(items), "transactions"); err != nil {
		return nil, err
	}
	v := apperr.NewViolations(apperr.InvalidPayload)
	out := make([]BulkAction, 0, len(items))
	seen := map[uuid.UUID]bool{}
	for i, item := range items {
		f := fmt.Sprintf("transactions[%d]", i)
		var w struct {
			TransactionID  json.RawMessage `json:"transaction_id"`
			Categorization json.RawMessage `json:"categorization"`
		}
		if !jsonraw.IsObject(item) || json.Unmarshal(item, &w) != nil {
			v.Add(f, EnumInvalidBulkRequest, "must be an object {transaction_id, categorization}")
			continue
		}
		a := BulkAction{Field: f, Type: BulkCategorize}
		id, idOK := decodeBulkID(w.TransactionID, f+".transaction_id", v)
		if idOK && seen[id] {
			v.Add(f+".transaction_id", EnumDuplicateTransactionID, "names a transaction an earlier item names")
		}
		seen[id] = true
		a.TransactionID = id
		c, ok := decodeBulkCategorization(w.Categorization, f+".categorization", v)
		if ok && idOK {
			a.Categorization = c
			out = append(out, a)
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeBulkCategorization reads an item's categorization at f.
func decodeBulkCategorization(raw json.RawMessage, f string, v *apperr.Violations) (CategorizationRequest, bool) {
	if jsonraw.IsNull(raw) {
		v.Add(f, EnumInvalidCategorization, "is required: {type: Category, category} or {type: Split, entries}")
		return CategorizationRequest{}, false
	}
	c, err := decodeCategorization(raw, f+".", true)
	if err != nil {
		if err := v.Merge(err); err != nil {
			v.Add(f, EnumInvalidCategorization, "invalid categorization")
		}
		return CategorizationRequest{}, false
	}
	return c, true
}

// member is a member of a JSON object, in the order sent.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers reads a JSON object's members in order (a map would lose
// the order and merge repeated keys).
func objectMembers(raw json.RawMessage) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, ok := tok.(string)
		if !ok {
			return nil, false
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, false
		}
		out = append(out, member{key: key, value: value})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	return out, true
}

// ParseBulkMatchOrCategorize reads the body of POST
// /bank-transactions/bulk-match-or-categorize (the client SDK's
// BulkMatchOrCategorizeRequest): `{transactions: {<transaction id>: {type:
// "match", suggested_match_id} | {type: "categorize", categorization}}}`,
// 1 to 500 members. A transaction id given twice is refused. Every
// violation is named under its member (`transactions.<id>.categorization.category`)
// in one 400. The actions come back in the order sent.
func ParseBulkMatchOrCategorize(body []byte) ([]BulkAction, error) {
	const shape = "{transactions: {<transaction id>: {type: match, suggested_match_id} | {type: categorize, categorization}}}"
	raw, err := bulkBody(body, "transactions", shape)
	if err != nil {
		return nil, err
	}
	members, ok := objectMembers(raw)
	if !ok {
		return nil, fieldError(apperr.InvalidPayload, "transactions", EnumInvalidBulkRequest, "must be an object keyed by transaction id: "+shape)
	}
	if err := checkCount(len(members), "transactions"); err != nil {
		return nil, err
	}
	v := apperr.NewViolations(apperr.InvalidPayload)
	out := make([]BulkAction, 0, len(members))
	seen := map[uuid.UUID]bool{}
	for _, m := range members {
		f := "transactions." + partField(m.key)
		id, idOK := parseUUIDOK(m.key, true)
		switch {
		case !idOK:
			v.Add(f, EnumInvalidBulkRequest, "each key must be a bank transaction id (a UUID)")
		case seen[id]:
			v.Add(f, EnumDuplicateTransactionID, "names a transaction twice")
			idOK = false
		}
		seen[id] = true
		var w struct {
			Type             json.RawMessage `json:"type"`
			SuggestedMatchID json.RawMessage `json:"suggested_match_id"`
			Categorization   json.RawMessage `json:"categorization"`
		}
		if !jsonraw.IsObject(m.value) || json.Unmarshal(m.value, &w) != nil {
			v.Add(f, EnumInvalidBulkRequest, "must be an object {type: match, suggested_match_id} or {type: categorize, categorization}")
			continue
		}
		a := BulkAction{TransactionID: id, Field: f}
		typ, _ := jsonraw.String(w.Type)
		itemOK := false
		switch BulkActionType(typ) {
		case BulkMatch:
			a.Type = BulkMatch
			s, isString := jsonraw.String(w.SuggestedMatchID)
			if a.MatchID, itemOK = parseUUIDOK(s, isString); !itemOK {
				v.Add(f+".suggested_match_id", EnumInvalidBulkRequest, "is required: one of the transaction's suggested match ids (a UUID)")
			}
		case BulkCategorize:
			a.Type = BulkCategorize
			a.Categorization, itemOK = decodeBulkCategorization(w.Categorization, f+".categorization", v)
		default:
			v.Add(f+".type", EnumInvalidBulkRequest, "must be match or categorize")
		}
		if itemOK && idOK {
			out = append(out, a)
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// ParseBulkUncategorize reads the body of POST
// /bank-transactions/bulk-uncategorize (the client SDK's
// BulkUncategorizeRequest): `{transaction_ids: [<transaction id>]}`, 1 to
// 500 ids; an id repeated counts once.
func ParseBulkUncategorize(body []byte) ([]BulkAction, error) {
	const shape = "{transaction_ids: [<transaction id>]}"
	raw, err := bulkBody(body, "transaction_ids", shape)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if r := bytes.TrimSpace(raw); len(r) == 0 || r[0] != '[' || json.Unmarshal(r, &items) != nil {
		return nil, fieldError(apperr.InvalidPayload, "transaction_ids", EnumInvalidBulkRequest, "must be an array: "+shape)
	}
	v := apperr.NewViolations(apperr.InvalidPayload)
	var out []BulkAction
	for i, item := range items {
		f := fmt.Sprintf("transaction_ids[%d]", i)
		id, ok := decodeBulkID(item, f, v)
		if ok && !slices.ContainsFunc(out, func(a BulkAction) bool { return a.TransactionID == id }) {
			out = append(out, BulkAction{TransactionID: id, Field: f, Type: BulkUncategorize})
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := checkCount(len(out), "transaction_ids"); err != nil {
		return nil, err
	}
	return out, nil
}

// Same reports whether c and o categorize alike: the same split or single
// category, the same entries in order (account or exclusion, amount, tax
// code, tags by key and value) and the same projected income. Display names
// and tag timestamps do not count. A categorize call that would give a
// transaction the categorization it has changes nothing.
func (c TxnCategory) Same(o TxnCategory) bool {
	if c.Split != o.Split || c.Projected != o.Projected || len(c.Entries) != len(o.Entries) {
		return false
	}
	for i, a := range c.Entries {
		b := o.Entries[i]
		if a.Amount != b.Amount || !sameID(a.AccountID, b.AccountID) || !sameText(a.ExclusionType, b.ExclusionType) ||
			!sameText(a.TaxCode, b.TaxCode) || !sameTagValues(a.Tags, b.Tags) {
			return false
		}
	}
	return true
}

// sameTagValues compares two tag lists by their key/value pairs, in any
// order.
func sameTagValues(a, b []tags.Tag) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(t tags.Tag) string { return t.Key + "\x1f" + t.Value }
	ka, kb := make([]string, len(a)), make([]string, len(b))
	for i := range a {
		ka[i], kb[i] = key(a[i]), key(b[i])
	}
	slices.Sort(ka)
	slices.Sort(kb)
	return slices.Equal(ka, kb)
}
