// Package httplist is the one handler of every paginated collection
// (GET /customers, /mileage/trips, /bills...): the query becomes the
// collection's filter, the spec's pagination is parsed with a cursor
// bound to the business and that filter, the use case reads one page, and
// each item is rendered into the `data` array with `meta.pagination`.
package httplist

import (
	"context"
	"net/url"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
)

// Filter is a collection's filter that names itself: Fingerprint is what
// a cursor is bound to, so that a cursor only works with the filter it was
// issued for.
type Filter interface {
	Fingerprint() string
}

// List is one paginated collection of the business the request is for:
// items T read through filter F, answered as J.
type List[F Filter, T, J any] struct {
	// Spec is the collection's pagination (sort keys, limits).
	Spec  page.Spec
	Codec *page.Codec
	// Filter reads the filter from the query (400 on a bad value).
	Filter func(q url.Values) (F, error)
	// Find reads one page of the business's items.
	Find func(ctx context.Context, businessID uuid.UUID, f F, p page.Params) ([]T, page.Meta, error)
	// Render is an item's JSON.
	Render func(T) J
}

// Handle is the GET of the collection.
func (l List[F, T, J]) Handle(c *fiber.Ctx) error {
	q := httpx.Query(c)
	f, err := l.Filter(q)
	if err != nil {
		return err
	}
	bid, _ := httpauth.BusinessIDFrom(c)
	p, err := page.Parse(q, l.Spec, l.Codec, bid.String()+"|"+f.Fingerprint())
	if err != nil {
		return err
	}
	items, meta, err := l.Find(c.UserContext(), bid, f, p)
	if err != nil {
		return err
	}
	out := make([]J, len(items))
	for i, x := range items {
		out[i] = l.Render(x)
	}
	return httpx.List(c, out, meta)
}
