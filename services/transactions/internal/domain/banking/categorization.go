package banking

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acctsuite/acct/pkg/jsonraw"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"

	"github.com/acctsuite/acct/services/transactions/internal/domain/banking/salestax"
)

// CategorizationType tells a single category from a split (the request's
// `type`).
type CategorizationType string

// The categorize request types.
const (
	TypeCategory CategorizationType = "Category"
	TypeSplit    CategorizationType = "Split"
)

// MaxSplitEntries bounds a split. With at most two tax lines per entry
// and the bank line, a split's journal entry stays far below the ledger's
// 500-line bound.
const MaxSplitEntries = 100

// MaxCategorizationBytes bounds the categorize body this package reads;
// MaxSplitEntries entries with their tags fit comfortably.
const MaxCategorizationBytes = 1 << 20

// CategorizationRequest is a categorize body read and checked for shape,
// before it is checked against the transaction it categorizes. A single
// category is Type Category with Category set; a split is Type Split with
// Entries.
type CategorizationRequest struct {
	Type     CategorizationType
	Category Classification
	TaxCode  string // "" when absent or null
	Entries  []SplitEntryRequest
}

// SplitEntryRequest is one entry of a split as sent.
type SplitEntryRequest struct {
	Category Classification
	Amount   money.Cents
	TaxCode  string // "" when absent or null
	Tags     []tags.KeyValue
}

type wireCategorization struct {
	Type     json.RawMessage `json:"type"`
	Category json.RawMessage `json:"category"`
	TaxCode  json.RawMessage `json:"tax_code"`
	Entries  json.RawMessage `json:"entries"`
}

type wireSplitEntry struct {
	Category json.RawMessage `json:"category"`
	Amount   json.RawMessage `json:"amount"`
	TaxCode  json.RawMessage `json:"tax_code"`
	Tags     json.RawMessage `json:"tags"`
}

// DecodeCategorization reads a categorize body: `{type: "Category",
// category, tax_code?}` or `{type: "Split", entries: [{category, amount,
// tax_code?, tags?}]}`. Amounts are whole cents as a JSON number or a
// string of digits (what the client SDK sends either way); tax_code may be
// null or "" for none; unknown members are ignored. Every shape violation
// is a 400 InvalidPayload naming the field (`category.type`,
// `entries[1].amount`...); the enum is InvalidCategorization unless a
// more specific one applies (InvalidSplitAmount, TooManySplitEntries,
// AmountOutOfRange, InvalidTags).
func DecodeCategorization(body []byte) (CategorizationRequest, error) {
	return decodeCategorization(body, "", true)
}

// decodeCategorization reads a categorization found at field prefix
// (""/"categorization."); split says whether a Split is acceptable there.
func decodeCategorization(body []byte, prefix string, split bool) (CategorizationRequest, error) {
	v := apperr.NewViolations(apperr.InvalidPayload)
	if len(body) > MaxCategorizationBytes {
		return CategorizationRequest{}, fieldError(apperr.InvalidPayload, field(prefix, ""), EnumInvalidCategorization,
			fmt.Sprintf("must be at most %d bytes", MaxCategorizationBytes))
	}
	var w wireCategorization
	if !jsonraw.IsObject(body) || json.Unmarshal(body, &w) != nil {
		return CategorizationRequest{}, fieldError(apperr.InvalidPayload, field(prefix, ""), EnumInvalidCategorization,
			"must be a JSON object: {type: Category, category} or {type: Split, entries}")
	}
	typ, ok := jsonraw.String(w.Type)
	var req CategorizationRequest
	switch {
	case !ok:
		v.Add(field(prefix, "type"), EnumInvalidCategorization, "is required: Category or Split")
	case CategorizationType(typ) == TypeCategory:
		req.Type = TypeCategory
		if jsonraw.IsNull(w.Category) {
			v.Add(field(prefix, "category"), EnumInvalidCategorization, "is required")
		} else if c, ok := decodeClassification(w.Category, field(prefix, "category"), v); ok {
			req.Category = c
		}
		req.TaxCode = decodeTaxCode(w.TaxCode, field(prefix, "tax_code"), v)
	case CategorizationType(typ) == TypeSplit && split:
		req.Type = TypeSplit
		if !jsonraw.IsNull(w.TaxCode) {
			if code := decodeTaxCode(w.TaxCode, field(prefix, "tax_code"), v); code != "" {
				v.Add(field(prefix, "tax_code"), EnumTaxCodeNotAllowed, "a split takes tax_code on each entry, not on the split")
			}
		}
		req.Entries = decodeSplitEntries(w.Entries, prefix, v)
	case CategorizationType(typ) == TypeSplit:
		v.Add(field(prefix, "type"), EnumInvalidCategorization, "must be Category here (a split is not accepted)")
	default:
		v.Add(field(prefix, "type"), EnumInvalidCategorization, "must be Category or Split")
	}
	if err := v.Err(); err != nil {
		return CategorizationRequest{}, err
	}
	return req, nil
}

// field joins a prefix ("", "categorization.") and a member name.
func field(prefix, name string) string {
	if name == "" {
		if prefix == "" {
			return "body"
		}
		return strings.TrimSuffix(prefix, ".")
	}
	return prefix + name
}

func decodeTaxCode(raw json.RawMessage, f string, v *apperr.Violations) string {
	if jsonraw.IsNull(raw) {
		return ""
	}
	s, ok := jsonraw.String(raw)
	if !ok {
		v.Add(f, EnumInvalidCategorization, "must be a string or null")
		return ""
	}
	return s
}

func decodeSplitEntries(raw json.RawMessage, prefix string, v *apperr.Violations) []SplitEntryRequest {
	f := field(prefix, "entries")
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		v.Add(f, EnumInvalidCategorization, "is required: an array of {category, amount}")
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		v.Add(f, EnumInvalidCategorization, "must be an array of {category, amount}")
		return nil
	}
	switch {
	case len(items) == 0:
		v.Add(f, EnumInvalidCategorization, "a split needs at least one entry")
		return nil
	case len(items) > MaxSplitEntries:
		v.Add(f, EnumTooManySplitEntries, fmt.Sprintf("a split has at most %d entries, got %d", MaxSplitEntries, len(items)))
		return nil
	}
	out := make([]SplitEntryRequest, 0, len(items))
	for i, item := range items {
		ef := fmt.Sprintf("%s[%d]", f, i)
		var w wireSplitEntry
		if !jsonraw.IsObject(item) || json.Unmarshal(item, &w) != nil {
			v.Add(ef, EnumInvalidCategorization, "must be an object {category, amount}")
			continue
		}
		var e SplitEntryRequest
		if jsonraw.IsNull(w.Category) {
			v.Add(ef+".category", EnumInvalidCategorization, "is required")
		} else if c, ok := decodeClassification(w.Category, ef+".category", v); ok {
			e.Category = c
		}
		if jsonraw.IsNull(w.Amount) {
			v.Add(ef+".amount", EnumInvalidSplitAmount, "is required: a positive number of cents")
		} else if amt, err := money.ParseJSONCents(w.Amount); err != nil {
			enum := EnumInvalidSplitAmount
			if errors.Is(err, money.ErrOverflow) {
				enum = EnumAmountOutOfRange
			}
			v.Add(ef+".amount", enum, "must be a positive whole number of cents")
		} else if amt <= 0 {
			v.Add(ef+".amount", EnumInvalidSplitAmount, "must be a positive number of cents")
		} else {
			e.Amount = amt
		}
		e.TaxCode = decodeTaxCode(w.TaxCode, ef+".tax_code", v)
		if !jsonraw.IsNull(w.Tags) {
			var kvs []tags.KeyValue
			if json.Unmarshal(w.Tags, &kvs) != nil {
				v.Add(ef+".tags", tags.EnumInvalidTags, "must be an array of {key, value}")
			} else if norm, err := tags.NormalizeList(ef+".tags", kvs); err != nil {
				if err := v.Merge(err); err != nil {
					v.Add(ef+".tags", tags.EnumInvalidTags, "invalid tags")
				}
			} else {
				e.Tags = norm
			}
		}
		out = append(out, e)
	}
	return out
}

// CategorizationTarget is what checking a categorization needs to know
// about the transaction and its business.
type CategorizationTarget struct {
	Amount    money.Cents // positive
	Direction Direction
	Date      time.Time
	// Country is the business's country (ISO 3166 alpha-2); tax codes are
	// accepted only for CA.
	Country string
	// Province selects the Canadian tax options; "" offers every code (see
	// salestax.Options).
	Province salestax.Province
}

// TaxOptions are the transaction's `tax_options.canada`: nil (JSON null)
// unless the business is Canadian.
func (t CategorizationTarget) TaxOptions() []salestax.Option {
	if !t.canada() {
		return nil
	}
	return salestax.Options(t.Province, t.Date)
}

func (t CategorizationTarget) canada() bool { return strings.EqualFold(t.Country, "CA") }

// Categorization is a categorize request checked against its transaction:
// one entry for a single category (its amount is the transaction's), one
// or more for a split, their amounts summing exactly to the transaction's
// amount. The only way to get one is Validate (or ParseCategorization), so
// holding one means holding a categorization that may be posted once its
// classifications are resolved to ledger accounts.
type Categorization struct {
	split     bool
	direction Direction
	amount    money.Cents
	entries   []CategorizationEntry
}

// CategorizationEntry is an entry of a checked categorization.
type CategorizationEntry struct {
	Category Classification
	Amount   money.Cents
	// Tax is the tax option the entry's amount includes, nil for none.
	Tax  *salestax.Option
	Tags []tags.KeyValue
}

// IsSplit reports whether the categorization is a split.
func (c Categorization) IsSplit() bool { return c.split }

// Status is the categorization status the transaction takes: SPLIT or
// CATEGORIZED.
func (c Categorization) Status() CategorizationStatus {
	if c.split {
		return StatusSplit
	}
	return StatusCategorized
}

// Direction and Amount are the transaction's, as validated.
func (c Categorization) Direction() Direction { return c.direction }

// Amount is the transaction's amount, which the entries sum to.
func (c Categorization) Amount() money.Cents { return c.amount }

// Entries are the entries (a copy).
func (c Categorization) Entries() []CategorizationEntry { return slices.Clone(c.entries) }

// TaxCode is the single category's tax code ("" for none or for a split,
// whose codes are on its entries): the transaction's `tax_code`.
func (c Categorization) TaxCode() string {
	if c.split || len(c.entries) == 0 || c.entries[0].Tax == nil {
		return ""
	}
	return c.entries[0].Tax.Code
}

// IsDuplicate reports whether the transaction is categorized as a
// duplicate of another: nothing is posted for it.
func (c Categorization) IsDuplicate() bool {
	return !c.split && len(c.entries) == 1 && c.entries[0].Category.Exclusion == DuplicateTransaction
}

// Validate checks the request against its transaction:
//   - a split's entries are positive and sum exactly to the transaction's
//     amount (overflow-checked): SplitAmountMismatch with meta
//     expected/actual otherwise;
//   - a split entry is never DUPLICATE_TRANSACTION (a transaction is a
//     duplicate as a whole or not at all): DuplicateNotSplittable;
//   - tax_code only for CA businesses and never with an exclusion
//     (TaxCodeNotAllowed), and one of the transaction's tax options for
//     its date (UnknownTaxCode).
//
// A one-entry split is accepted and stays a split (status SPLIT): the
// spec asks only that the entries sum to the amount. Every violation is
// named in one 400 InvalidPayload.
func (r CategorizationRequest) Validate(t CategorizationTarget) (Categorization, error) {
	return r.validate(t, "")
}

// ValidateAt is Validate for a categorization sent as the body member
// field (e.g. "transaction.categorization" of a record request), which
// prefixes the fields its errors name.
func (r CategorizationRequest) ValidateAt(t CategorizationTarget, field string) (Categorization, error) {
	return r.validate(t, field+".")
}

func (r CategorizationRequest) validate(t CategorizationTarget, prefix string) (Categorization, error) {
	if t.Amount <= 0 || !t.Direction.Valid() {
		return Categorization{}, fmt.Errorf("categorization target: amount %d and direction %q must be positive and CREDIT or DEBIT", t.Amount, t.Direction)
	}
	v := apperr.NewViolations(apperr.InvalidPayload)
	c := Categorization{direction: t.Direction, amount: t.Amount}
	switch r.Type {
	case TypeCategory:
		if err := r.Category.Validate(field(prefix, "category")); err != nil {
			_ = v.Merge(err)
		}
		e := CategorizationEntry{Category: r.Category, Amount: t.Amount}
		e.Tax = checkTaxCode(t, r.Category, r.TaxCode, field(prefix, "tax_code"), v)
		c.entries = []CategorizationEntry{e}
	case TypeSplit:
		c.split = true
		if len(r.Entries) == 0 || len(r.Entries) > MaxSplitEntries {
			v.Add(field(prefix, "entries"), EnumInvalidCategorization, fmt.Sprintf("a split has 1 to %d entries", MaxSplitEntries))
			break
		}
		amounts := make([]money.Cents, len(r.Entries))
		for i, se := range r.Entries {
			ef := fmt.Sprintf("%s[%d]", field(prefix, "entries"), i)
			if err := se.Category.Validate(ef + ".category"); err != nil {
				_ = v.Merge(err)
			}
			if se.Amount <= 0 {
				v.Add(ef+".amount", EnumInvalidSplitAmount, "must be a positive number of cents")
			}
			if se.Category.Exclusion == DuplicateTransaction {
				v.Add(ef+".category", EnumDuplicateNotSplittable, "DUPLICATE_TRANSACTION applies to a whole transaction, not to a split entry")
			}
			amounts[i] = se.Amount
			c.entries = append(c.entries, CategorizationEntry{
				Category: se.Category,
				Amount:   se.Amount,
				Tax:      checkTaxCode(t, se.Category, se.TaxCode, ef+".tax_code", v),
				Tags:     slices.Clone(se.Tags),
			})
		}
		sum, err := money.Sum(amounts...)
		switch {
		case err != nil:
			v.Add(field(prefix, "entries"), EnumAmountOutOfRange, "the entries' amounts add up beyond the int64 cents range")
		case sum != t.Amount:
			v.Add(field(prefix, "entries"), EnumSplitAmountMismatch,
				fmt.Sprintf("the entries add up to %d cents, the transaction is %d cents", sum, t.Amount))
			v.Meta("expected", int64(t.Amount))
			v.Meta("actual", int64(sum))
		}
	default:
		v.Add(field(prefix, "type"), EnumInvalidCategorization, "must be Category or Split")
	}
	if err := v.Err(); err != nil {
		return Categorization{}, err
	}
	return c, nil
}

// checkTaxCode resolves code for a category of t, recording why it is
// refused in v.
func checkTaxCode(t CategorizationTarget, c Classification, code, f string, v *apperr.Violations) *salestax.Option {
	if code == "" {
		return nil
	}
	if !t.canada() {
		v.Add(f, EnumTaxCodeNotAllowed, "tax_code is only supported for businesses in Canada (country CA)")
		return nil
	}
	if c.IsExclusion() {
		v.Add(f, EnumTaxCodeNotAllowed, "tax_code cannot be used with an exclusion")
		return nil
	}
	o, ok := salestax.Lookup(t.Province, code, t.Date)
	if !ok {
		opts := salestax.Options(t.Province, t.Date)
		valid := make([]string, len(opts))
		for i, o := range opts {
			valid[i] = o.Code
		}
		reason := fmt.Sprintf("must be one of the transaction's tax options on %s: %s", t.Date.Format(time.DateOnly), strings.Join(valid, ", "))
		if len(valid) == 0 {
			reason = fmt.Sprintf("the transaction has no tax options on %s", t.Date.Format(time.DateOnly))
		}
		v.Add(f, EnumUnknownTaxCode, reason)
		return nil
	}
	return &o
}

// ParseCategorization is DecodeCategorization then Validate: the
// categorize body of a transaction, checked, or a 400 naming every
// offending field.
func ParseCategorization(body []byte, t CategorizationTarget) (Categorization, error) {
	req, err := DecodeCategorization(body)
	if err != nil {
		return Categorization{}, err
	}
	return req.Validate(t)
}
