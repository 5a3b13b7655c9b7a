package chart

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
)

type fuzzAccountStore struct{ upserts int }

func (s *fuzzAccountStore) UpsertLedgerAccounts(_ context.Context, _ bun.IDB, businessID uuid.UUID, _ []events.LedgerAccountSnapshot) error {
	if businessID == uuid.Nil {
		panic("upsert for no business")
	}
	s.upserts++
	return nil
}

func (s *fuzzAccountStore) LiveAccounts(context.Context, bun.IDB, uuid.UUID, []Ref) (map[string]bool, bool, error) {
	return nil, false, nil
}

// FuzzApply feeds arbitrary ledger_accounts.upserted payloads to
// the consumer of acct.accounts.v1: a malformed event is an error (the
// event goes to the DLQ), never a panic, and only an event with a business
// id reaches the store.
func FuzzApply(f *testing.F) {
	f.Add(events.TypeLedgerAccountsUpserted, []byte(`{"business_id":"0190c4c4-0000-7000-8000-000000000001","accounts":[{"id":"0190c4c4-0000-7000-8000-000000000002","stable_name":"ACCOUNTS_RECEIVABLE","name":"A/R","classification":"ASSET","archived":false}]}`))
	f.Add(events.TypeLedgerAccountsUpserted, []byte(`{"business_id":"00000000-0000-0000-0000-000000000000","accounts":[]}`))
	f.Add(events.TypeLedgerAccountsUpserted, []byte(`{"business_id":"nope"}`))
	f.Add(events.TypeLedgerAccountsUpserted, []byte(`{"accounts":{}}`))
	f.Add(events.TypeLedgerAccountsUpserted, []byte(`null`))
	f.Add(events.TypeLedgerAccountsUpserted, []byte(`[1]`))
	f.Add("business.created", []byte(`{}`))
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		s := &fuzzAccountStore{}
		err := Apply(context.Background(), nil, s, events.Event{Type: typ, Data: data})
		if typ != events.TypeLedgerAccountsUpserted && (err != nil || s.upserts != 0) {
			t.Fatalf("event of type %q was not ignored: %v", typ, err)
		}
		if err != nil && s.upserts != 0 {
			t.Fatalf("refused event reached the store")
		}
	})
}
