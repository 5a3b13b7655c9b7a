package http

import (
	"net/url"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/transactions/internal/app"
)

// FuzzParseAccountLinesQuery feeds arbitrary query strings to the filters
// and the pagination of GET /ledger/accounts/{id}/lines: refusals are 4xx
// error objects; an accepted period is non-empty, and the same filters
// spelled differently ("1" for "true", a date for its midnight) give the
// same cursor fingerprint.
func FuzzParseAccountLinesQuery(f *testing.F) {
	for _, s := range []string{
		"",
		"include_child_account_lines=true&sort_by=entry_at&sort_order=DESC&limit=150",
		"include_child_account_lines=false&start_date=2026-01-01&end_date=2026-12-31",
		"include_child_account_lines=1&start_date=2026-01-01T00:00:00Z",
		"start_date=2026-03-02&end_date=2026-03-01",
		"start_date=2026-02-30",
		"end_date=2026-03-01T09:00:00.123456789%2B02:00",
		"include_child_account_lines=maybe",
		"sort_by=amount&sort_order=sideways&limit=0",
		"limit=501&show_total_count=yes",
		"cursor=eyJ2IjoxfQ&limit=1",
		"start_date=%00&end_date=%FF",
	} {
		f.Add(s)
	}
	codec := page.NewCodec([]byte("fuzz-account-lines"))
	bid, account := uuid.New(), uuid.New()
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		in, err := parseAccountLinesQuery(q)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		if in.From != nil && in.Until != nil && !in.From.Before(*in.Until) {
			t.Fatalf("accepted an empty period %v..%v", in.From, in.Until)
		}
		in.AccountID = account
		fp := accountLinesFingerprint(bid, in)
		// The same filters, normalized, give the same fingerprint.
		norm := url.Values{"include_child_account_lines": {map[bool]string{true: "1", false: "0"}[in.WithSubAccounts]}}
		if in.From != nil {
			norm.Set("start_date", in.From.Format("2006-01-02T15:04:05.999999999Z07:00"))
		}
		if in.Until != nil {
			// end_date is inclusive: the instant just before the exclusive end.
			norm.Set("end_date", in.Until.Add(-1).Format("2006-01-02T15:04:05.999999999Z07:00"))
		}
		again, err := parseAccountLinesQuery(norm)
		if err != nil {
			t.Fatalf("normalized %v refused: %v", norm, err)
		}
		again.AccountID = account
		if got := accountLinesFingerprint(bid, again); got != fp {
			t.Fatalf("fingerprint of %q = %q, of its normal form %v = %q", raw, fp, norm, got)
		}
		if _, err := page.Parse(q, app.AccountLinePageSpec, codec, fp); err != nil {
			apperrtest.Require4xx(t, err)
		}
	})
}
