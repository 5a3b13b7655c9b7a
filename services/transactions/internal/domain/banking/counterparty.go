package banking

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// counterpartyNamespace is the namespace of counterparty ids. The
// transactions schema's migration 20261203000001 computes the same ids in
// SQL: never change it.
var counterpartyNamespace = uuid.MustParse("5b0f6c1e-8e2a-4d7f-9c3b-2a1d0e4f6a88")

// CounterpartyID is the id of the business's counterparty whose normalised
// name (autocat.NormalizeCounterparty) is key: a name-based UUID (version 3)
// over the business id and the key, so the same name always has the same id
// in a business (and different ids in different businesses) without a
// lookup.
func CounterpartyID(businessID uuid.UUID, key string) uuid.UUID {
	return uuid.NewMD5(counterpartyNamespace, []byte(businessID.String()+":"+key))
}

// NormalizeCounterparty is the key of a counterparty name: lower case,
// punctuation and symbols as single spaces, and numbers of three digits or
// more (store and terminal numbers) dropped, so "TIM HORTONS #2345", "Tim
// Hortons 0917" and "tim-hortons" are one counterparty while "7-Eleven"
// keeps its 7. It returns "" for a name with nothing left (no counterparty).
// The business's category history (autocat) is kept under the same key.
func NormalizeCounterparty(name string) string {
	fields := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := fields[:0]
	for _, f := range fields {
		if len(f) < 3 || strings.IndexFunc(f, func(r rune) bool { return !unicode.IsDigit(r) }) >= 0 {
			out = append(out, f)
		}
	}
	return strings.Join(out, " ")
}

// CounterpartyID is the id of the counterparty t is with (the counterparty
// of its normalised counterparty name), nil when it names none.
func (t BankTransaction) CounterpartyID() *uuid.UUID {
	if t.CounterpartyName == nil {
		return nil
	}
	key := NormalizeCounterparty(*t.CounterpartyName)
	if key == "" {
		return nil
	}
	id := CounterpartyID(t.BusinessID, key)
	return &id
}

// Counterparty is someone a business's bank transactions are with (the
// SDK's BankTransactionCounterparty): one per normalised counterparty name,
// named as first seen.
type Counterparty struct {
	ID         uuid.UUID
	BusinessID uuid.UUID
	// Key is the normalised name the counterparty stands for.
	Key        string
	Name       string
	ExternalID *string
	Website    *string
	Logo       *string
	// MCCs are merchant category codes; none are known from imports yet.
	MCCs      []string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Bounds of the counterparty listing's filters.
const (
	MaxCounterpartyExternalIDs = 100
)

// CounterpartyFilter is the filter of GET /counterparties: zero fields do
// not filter, all conditions must hold.
type CounterpartyFilter struct {
	// Query is searched in the name (case-insensitive, anywhere).
	Query string
	// ExternalIDs keeps the counterparties with one of these external ids
	// (sorted, without duplicates).
	ExternalIDs []string
}

// ParseCounterpartyFilter reads q (at most 200 characters) and external_ids
// (repeated, at most 100) from a query string; other parameters are left
// alone. Bad values are one 400 InvalidParameters InvalidFilter naming each.
func ParseCounterpartyFilter(q url.Values) (CounterpartyFilter, error) {
	v := apperr.NewViolations(apperr.InvalidParameters)
	var f CounterpartyFilter
	switch vals := nonEmpty(q["q"]); {
	case len(vals) > 1:
		v.Add("q", EnumInvalidFilter, "must be given at most once")
	case len(vals) == 1:
		if reason := checkText(vals[0], textRule{max: MaxQueryLength}); reason != "" {
			v.Add("q", EnumInvalidFilter, reason)
		} else {
			f.Query = vals[0]
		}
	}
	ids := nonEmpty(q["external_ids"])
	if len(ids) > MaxCounterpartyExternalIDs {
		v.Add("external_ids", EnumInvalidFilter, fmt.Sprintf("at most %d ids", MaxCounterpartyExternalIDs))
	}
	for _, s := range ids {
		if reason := checkText(s, textRule{max: MaxExternalIDLength}); reason != "" {
			v.Add("external_ids", EnumInvalidFilter, reason)
			break
		}
	}
	slices.Sort(ids)
	f.ExternalIDs = slices.Compact(ids)
	if err := v.Err(); err != nil {
		return CounterpartyFilter{}, err
	}
	return f, nil
}

// Fingerprint binds a pagination cursor to the filter it was issued for.
func (f CounterpartyFilter) Fingerprint() string {
	q := url.Values{}
	if f.Query != "" {
		q.Set("q", f.Query)
	}
	for _, id := range f.ExternalIDs {
		q.Add("external_id", id)
	}
	sum := sha256.Sum256([]byte("counterparties-v1?" + q.Encode()))
	return hex.EncodeToString(sum[:16])
}
