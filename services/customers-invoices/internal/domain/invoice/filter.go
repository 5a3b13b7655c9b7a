package invoice

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
)

// Filter is GET /invoices's filters (ParseFilter). Every set filter must
// match (statuses: any of them).
type Filter struct {
	Statuses           []Status
	DueAtStart         *time.Time // due on or after (invoices without a due date excluded)
	DueAtEnd           *time.Time // due on or before
	SentAtStart        *time.Time
	SentAtEnd          *time.Time
	CustomerID         *uuid.UUID
	CustomerExternalID *string // resolved to CustomerID by the listing
	ReferenceNumber    *string
	ReferenceNumbers   []string // any of them
	MinTotal           *money.Cents
	MaxTotal           *money.Cents
	Memo               *string // exact
	MemoContains       *string // case-insensitive substring
	Q                  *string // case-insensitive substring of invoice number, external id, reference number or memo
}

// listQueryParams are GET /invoices's filter parameters and the
// pagination's (which page.Parse reads).
var listQueryParams = map[string]bool{
	"status": true, "due_at_start": true, "due_at_end": true, "sent_at_start": true, "sent_at_end": true,
	"customer_id": true, "customer_external_id": true, "reference_number": true, "reference_numbers": true,
	"min_total_amount": true, "max_total_amount": true, "memo": true, "memo_contains": true, "q": true,
	"show_sales_receipts": true,
	"sort_by":             true, "sort_order": true, "cursor": true, "limit": true, "show_total_count": true,
}

// ParseFilter reads GET /invoices's filters; every bad value is a 400
// naming its parameter. Dates are ISO 8601 dates or date-times (a date is
// its first instant, UTC; an end date includes its whole day).
func ParseFilter(q url.Values) (Filter, error) {
	bad := map[string]string{}
	var f Filter
	for k := range q {
		if !listQueryParams[k] {
			bad[k] = "unknown parameter"
		}
	}
	one := func(k string) *string {
		vs := q[k]
		switch {
		case len(vs) == 0:
			return nil
		case len(vs) > 1:
			bad[k] = "given more than once"
			return nil
		}
		v := strings.TrimSpace(vs[0])
		if v == "" {
			bad[k] = "is empty"
			return nil
		}
		return &v
	}
	list := func(k string) []string {
		var out []string
		for _, v := range q[k] {
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" {
					out = append(out, s)
				}
			}
		}
		return out
	}
	for _, s := range list("status") {
		st, ok := ParseStatus(s)
		if !ok {
			bad["status"] = "values are SENT, PARTIALLY_PAID, PAID, VOIDED, PARTIALLY_WRITTEN_OFF, WRITTEN_OFF"
			continue
		}
		f.Statuses = append(f.Statuses, st)
	}
	date := func(k string, end bool) *time.Time {
		v := one(k)
		if v == nil {
			return nil
		}
		if t, err := time.Parse(time.RFC3339Nano, *v); err == nil {
			t = t.UTC()
			return &t
		}
		t, err := time.Parse(time.DateOnly, *v)
		if err != nil {
			bad[k] = "must be an ISO 8601 date (YYYY-MM-DD) or date-time"
			return nil
		}
		if end {
			t = t.Add(24*time.Hour - time.Microsecond)
		}
		return &t
	}
	f.DueAtStart, f.DueAtEnd = date("due_at_start", false), date("due_at_end", true)
	f.SentAtStart, f.SentAtEnd = date("sent_at_start", false), date("sent_at_end", true)
	if v := one("customer_id"); v != nil {
		id, err := uuid.Parse(*v)
		if err != nil {
			bad["customer_id"] = "must be a uuid"
		} else {
			f.CustomerID = &id
		}
	}
	f.CustomerExternalID = one("customer_external_id")
	f.ReferenceNumber = one("reference_number")
	f.ReferenceNumbers = list("reference_numbers")
	amount := func(k string) *money.Cents {
		v := one(k)
		if v == nil {
			return nil
		}
		n, err := strconv.ParseInt(*v, 10, 64)
		if err != nil || n < 0 {
			bad[k] = "must be a whole number of cents, at least 0"
			return nil
		}
		c := money.Cents(n)
		return &c
	}
	f.MinTotal, f.MaxTotal = amount("min_total_amount"), amount("max_total_amount")
	f.Memo, f.MemoContains, f.Q = one("memo"), one("memo_contains"), one("q")
	if v := one("show_sales_receipts"); v != nil {
		if _, err := strconv.ParseBool(*v); err != nil {
			bad["show_sales_receipts"] = "must be true or false"
		}
	}
	if f.DueAtStart != nil && f.DueAtEnd != nil && f.DueAtEnd.Before(*f.DueAtStart) {
		bad["due_at_end"] = "is before due_at_start"
	}
	if f.SentAtStart != nil && f.SentAtEnd != nil && f.SentAtEnd.Before(*f.SentAtStart) {
		bad["sent_at_end"] = "is before sent_at_start"
	}
	if f.MinTotal != nil && f.MaxTotal != nil && *f.MaxTotal < *f.MinTotal {
		bad["max_total_amount"] = "is less than min_total_amount"
	}
	if len(bad) > 0 {
		return Filter{}, apperr.FieldErrors(apperr.InvalidParameters, bad).WithEnum("InvalidFilter")
	}
	return f, nil
}
