package kafka

import (
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
)

// FuzzDecodeBatch feeds any payload, as a ledger entry or a bank
// transaction snapshot beside an event of another type, to the batch
// handlers' decoding: an error, or one entry naming its ids, never a
// panic; the other event is passed over.
func FuzzDecodeBatch(f *testing.F) {
	bid, id := uuid.New().String(), uuid.New().String()
	f.Add(true, []byte(`{"entry_id":"`+id+`","business_id":"`+bid+`","date":"2026-01-02","lines":[{"account_id":"`+id+`","amount":100,"signed_amount":100}]}`))
	f.Add(false, []byte(`{"transaction_id":"`+id+`","business_id":"`+bid+`","version":1,"amount":100}`))
	f.Add(true, []byte(`{"entry_id":"`+uuid.Nil.String()+`"}`))
	f.Add(false, []byte(`null`))
	f.Add(true, []byte(`[`))
	f.Fuzz(func(t *testing.T, ledger bool, data []byte) {
		other := events.Event{ID: uuid.New(), Type: events.TypeBusinessCreated, Data: []byte(`{`)}
		e := events.Event{ID: uuid.New(), Data: data}
		if ledger {
			e.Type = events.TypeLedgerEntryPosted
			got, err := decodeBatch([]events.Event{other, e}, e.Type, postedEntry)
			if err == nil && (len(got) != 1 || got[0].Entry.EntryID == uuid.Nil || got[0].Entry.BusinessID == uuid.Nil) {
				t.Fatalf("%d entries from %s", len(got), data)
			}
			return
		}
		e.Type = events.TypeBankTransactionUpserted
		got, err := decodeBatch([]events.Event{e, other}, e.Type, bankSnapshot)
		if err == nil && (len(got) != 1 || got[0].Snapshot.TransactionID == uuid.Nil || got[0].Snapshot.BusinessID == uuid.Nil) {
			t.Fatalf("%d snapshots from %s", len(got), data)
		}
	})
}
