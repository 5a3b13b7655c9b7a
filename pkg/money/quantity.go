package money

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// QuantityDecimals is the number of decimal places a Quantity holds: enough
// for hours in seconds (1/3600 ≈ 0.000278) and for unit fractions such as
// "0.333", while leaving ±9.2 × 10^12 units of range.
const QuantityDecimals = 6

const quantityScale = 1_000_000 // 10^QuantityDecimals

// Quantity is an exact decimal count of units, such as an invoice line's
// "1.5" hours, with QuantityDecimals decimal places. The zero value is 0.
// It is stored as the quantity × 10^6 in an int64 (Scaled), never as a
// float.
type Quantity struct {
	scaled int64
}

// ParseQuantity reads a decimal such as "2", "1.5", "-0.25" or "0.333333".
// More than six decimal places is ErrTooPrecise (no silent rounding); the
// grammar is that of Parse otherwise. Negative quantities are valid here:
// whether a field allows them is the caller's rule.
func ParseQuantity(s string) (Quantity, error) {
	v, err := parseDecimal(s, QuantityDecimals, "quantity")
	return Quantity{v}, err
}

// ParseJSONQuantity reads a quantity sent as a JSON string ("1.5", what the
// client SDK sends) or a JSON number (1.5, what other clients send). Both
// follow ParseQuantity's grammar, so exponents are rejected.
func ParseJSONQuantity(raw json.RawMessage) (Quantity, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Quantity{}, &ParseError{What: "quantity", Input: string(raw), Reason: "must be a decimal number or a string holding one", Err: ErrSyntax}
		}
		return ParseQuantity(s)
	}
	return ParseQuantity(string(raw))
}

// QuantityOf returns the whole number n of units, or ErrOverflow beyond
// ±9,223,372,036,854 units.
func QuantityOf(n int64) (Quantity, error) {
	v, ok := mulDivRound(n, quantityScale, 1)
	if !ok {
		return Quantity{}, fmt.Errorf("%w: quantity %d", ErrOverflow, n)
	}
	return Quantity{v}, nil
}

// QuantityFromScaled is the inverse of Scaled, for reading a stored
// quantity (a BIGINT column holding millionths).
func QuantityFromScaled(millionths int64) Quantity { return Quantity{millionths} }

// Scaled is the quantity in millionths of a unit: what to store.
func (q Quantity) Scaled() int64 { return q.scaled }

// Sign returns −1, 0 or +1.
func (q Quantity) Sign() int { return Cents(q.scaled).Sign() }

// String is the canonical decimal form, without trailing zeros: "2", "1.5",
// "0.333333", "-0.25". ParseQuantity(q.String()) == q.
func (q Quantity) String() string {
	return formatDecimal(q.scaled, QuantityDecimals, 0)
}

// MarshalJSON writes the quantity as a JSON string ("1.5"): the invoice
// line shape of the spec's clients decodes a decimal inside a string and
// fails on a JSON number. Where a shape wants a number (bill lines), write
// json.Number(q.String()).
func (q Quantity) MarshalJSON() ([]byte, error) {
	return json.Marshal(q.String())
}

// UnmarshalJSON accepts what ParseJSONQuantity accepts. Unlike the usual
// encoding/json convention, null is an error rather than a no-op: a line's
// quantity is never optional. For an optional field use *Quantity, which
// encoding/json sets to nil on null without calling this.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	v, err := ParseJSONQuantity(b)
	if err != nil {
		return err
	}
	*q = v
	return nil
}

// LineTotal is quantity × unit price in cents, rounded half away from zero
// to a whole cent: 1.5 × 333 = 499.5 → 500, −1.5 × 333 → −500,
// 0.333 × 100 = 33.3 → 33. The product is computed exactly (128-bit), so
// the only error is ErrOverflow when the rounded total is outside int64.
func LineTotal(q Quantity, unitPrice Cents) (Cents, error) {
	v, ok := mulDivRound(q.scaled, int64(unitPrice), quantityScale)
	if !ok {
		return 0, fmt.Errorf("%w: line total %s × %d", ErrOverflow, q, unitPrice)
	}
	return Cents(v), nil
}
