// Package page implements the cursor pagination of every listing endpoint
// (the spec's Pagination section): parsing and validating sort_by,
// sort_order, cursor, limit and show_total_count; opaque HMAC-signed cursors
// bound to the sort and the filters; and the `request_metadata` response
// meta. It depends on neither the HTTP framework nor the database: handlers
// pass the query values (httpx.Query), and package pagebun runs the keyset
// queries on Bun.
package page

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Query parameter names.
const (
	ParamSortBy         = "sort_by"
	ParamSortOrder      = "sort_order"
	ParamCursor         = "cursor"
	ParamLimit          = "limit"
	ParamShowTotalCount = "show_total_count"
)

// Defaults of Spec.DefaultLimit and Spec.MaxLimit.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Kind is the type of a sort key's values.
type Kind int

// The sortable kinds the spec names: timestamp, integer and string keys.
const (
	KindTime Kind = iota + 1
	KindInt
	KindString
)

// Key is one sortable field. Column is trusted SQL (a column, optionally
// qualified, or an expression) that must never be NULL: NULLs fall out of
// keyset comparisons.
type Key struct {
	Column string
	Kind   Kind
}

// Spec lists the sort keys of one endpoint.
type Spec struct {
	Keys         map[string]Key
	Default      string // sort_by when the client sends none
	DefaultLimit int    // DefaultLimit when 0
	MaxLimit     int    // MaxLimit when 0
}

// Order is a sort direction.
type Order string

// Sort directions.
const (
	Asc  Order = "ASC"
	Desc Order = "DESC"
)

// Position is where the previous page ended.
type Position struct {
	Value any // time.Time, int64 or string, per the key's Kind
	ID    uuid.UUID
}

// Params are the validated pagination parameters of one request.
type Params struct {
	SortBy         string
	Key            Key
	Order          Order
	Limit          int
	ShowTotalCount bool
	After          *Position // nil on the first page

	codec  *Codec
	filter string
}

// Validate reports programming errors in a Spec.
func (s Spec) Validate() error {
	if len(s.Keys) == 0 {
		return fmt.Errorf("page: spec has no sort keys")
	}
	if _, ok := s.Keys[s.Default]; !ok {
		return fmt.Errorf("page: default sort key %q is not among the keys", s.Default)
	}
	for name, k := range s.Keys {
		if k.Column == "" || k.Kind < KindTime || k.Kind > KindString {
			return fmt.Errorf("page: sort key %q needs a column and a kind", name)
		}
	}
	if s.DefaultLimit < 0 || s.MaxLimit < 0 || (s.MaxLimit > 0 && s.DefaultLimit > s.MaxLimit) {
		return fmt.Errorf("page: bad limits %d/%d", s.DefaultLimit, s.MaxLimit)
	}
	return nil
}

func (s Spec) limits() (def, max int) {
	def, max = s.DefaultLimit, s.MaxLimit
	if max == 0 {
		max = MaxLimit
	}
	if def == 0 {
		def = min(DefaultLimit, max)
	}
	return def, max
}

// Parse validates the pagination parameters of a request's query. filterFingerprint
// identifies the request's other filters (for example the canonical query
// string without pagination parameters, plus the business id): a cursor
// only works with the sort and filters it was issued for. Errors are 400
// InvalidParameters naming the parameter.
func Parse(q url.Values, spec Spec, codec *Codec, filterFingerprint string) (Params, error) {
	if err := spec.Validate(); err != nil {
		return Params{}, apperr.Wrap(apperr.Internal, err, "pagination misconfigured")
	}
	defLimit, maxLimit := spec.limits()
	p := Params{SortBy: spec.Default, Order: Asc, Limit: defLimit, codec: codec, filter: filterFingerprint}

	if v := q.Get(ParamSortBy); v != "" {
		if _, ok := spec.Keys[v]; !ok {
			keys := make([]string, 0, len(spec.Keys))
			for k := range spec.Keys {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			return Params{}, apperr.Field(ParamSortBy, "must be one of "+strings.Join(keys, ", "))
		}
		p.SortBy = v
	}
	p.Key = spec.Keys[p.SortBy]

	if v := q.Get(ParamSortOrder); v != "" {
		switch o := Order(strings.ToUpper(v)); o {
		case Asc, Desc:
			p.Order = o
		default:
			return Params{}, apperr.Field(ParamSortOrder, "must be ASC or DESC")
		}
	}

	if v := q.Get(ParamLimit); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxLimit {
			return Params{}, apperr.Field(ParamLimit, fmt.Sprintf("must be an integer between 1 and %d", maxLimit))
		}
		p.Limit = n
	}

	if v := q.Get(ParamShowTotalCount); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return Params{}, apperr.Field(ParamShowTotalCount, "must be true or false")
		}
		p.ShowTotalCount = b
	}

	if v := q.Get(ParamCursor); v != "" {
		if codec == nil {
			return Params{}, apperr.New(apperr.Internal, "pagination has no cursor codec")
		}
		cur, err := codec.decode(v)
		if err != nil {
			return Params{}, apperr.Field(ParamCursor, "is not a cursor issued by this API")
		}
		switch {
		case cur.SortBy != p.SortBy:
			return Params{}, apperr.Field(ParamCursor, "was issued for sort_by="+cur.SortBy)
		case cur.Order != p.Order:
			return Params{}, apperr.Field(ParamCursor, "was issued for sort_order="+string(cur.Order))
		case cur.Filter != filterHash(filterFingerprint):
			return Params{}, apperr.Field(ParamCursor, "was issued for other filters")
		}
		pos, err := cur.position(p.Key.Kind)
		if err != nil {
			return Params{}, apperr.Field(ParamCursor, "is not a cursor issued by this API")
		}
		p.After = pos
	}
	return p, nil
}

// Finish trims rows fetched with Apply (at most Limit+1) to one page and
// builds the response meta; key returns a row's sort value (of the key's
// Kind) and id. Set the total with Meta.WithTotal when ShowTotalCount.
func Finish[T any](rows []T, p Params, key func(T) (any, uuid.UUID)) ([]T, Meta, error) {
	meta := Meta{Type: MetaType, Pagination: Pagination{SortBy: p.SortBy, SortOrder: p.Order}}
	if len(rows) <= p.Limit {
		return rows, meta, nil
	}
	rows = rows[:p.Limit]
	v, id := key(rows[len(rows)-1])
	enc, err := encodeValue(p.Key.Kind, v)
	if err != nil {
		return nil, Meta{}, err
	}
	if p.codec == nil {
		return nil, Meta{}, fmt.Errorf("page: params without codec (use Parse)")
	}
	next := p.codec.encode(cursor{
		V: cursorVersion, SortBy: p.SortBy, Order: p.Order, Filter: filterHash(p.filter),
		Value: enc, ID: id.String(),
	})
	meta.Pagination.Cursor = &next
	meta.Pagination.HasMore = true
	return rows, meta, nil
}

// MetaType is the `type` of listing meta.
const MetaType = "request_metadata"

// Meta is the `meta` object of a listing response.
type Meta struct {
	Type       string     `json:"type"`
	Pagination Pagination `json:"pagination"`
}

// Pagination is meta.pagination. Cursor is null when there is no next page;
// total_count is present only when show_total_count was true.
type Pagination struct {
	SortBy     string  `json:"sort_by"`
	SortOrder  Order   `json:"sort_order"`
	Cursor     *string `json:"cursor"`
	HasMore    bool    `json:"has_more"`
	TotalCount *int    `json:"total_count,omitempty"`
}

// WithTotal returns m with total_count set.
func (m Meta) WithTotal(n int) Meta {
	m.Pagination.TotalCount = &n
	return m
}
