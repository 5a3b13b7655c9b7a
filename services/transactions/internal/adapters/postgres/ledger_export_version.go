package postgres

import (
	"context"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/app"
)

var _ app.LedgerVersions = (*Store)(nil)

// LedgerVersion implements app.LedgerVersions with one read of the
// business's entries (an index-only count on ledger_entries_entry_number_idx)
// and accounts. The count, not only the highest entry number: entry numbers
// come from a sequence, so an entry numbered below the highest may commit
// after it; the count moves with every entry that commits (entries never
// go). Account rows are updated in place, each update moving its
// updated_at: their sum moves with every update, whatever the order of
// commits.
func (s *Store) LedgerVersion(ctx context.Context, businessID uuid.UUID) (app.LedgerVersion, error) {
	var v app.LedgerVersion
	err := s.conn(ctx).NewRaw(`SELECT e.entries, e.last_entry, a.accounts, a.accounts_updated
		FROM (SELECT count(*) AS entries, coalesce(max(entry_number), 0) AS last_entry
		        FROM ledger_entries WHERE business_id = ?) e,
		     (SELECT count(*) AS accounts, coalesce(sum(extract(epoch FROM updated_at)), 0)::text AS accounts_updated
		        FROM ledger_accounts WHERE business_id = ?) a`, businessID, businessID).
		Scan(ctx, &v.Entries, &v.LastEntryNumber, &v.Accounts, &v.AccountsUpdated)
	return v, wrap("read ledger version", err)
}
