package kafka

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/webhooks/internal/domain"
)

func ev(t testing.TB, typ string, payload any) events.Event {
	t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	return events.Event{ID: uuid.New(), Type: typ, Time: time.Date(2026, 11, 27, 1, 2, 3, 0, time.UTC), Data: b}
}

func TestChanges(t *testing.T) {
	bid, id := uuid.New(), uuid.New()
	ext := "ext-1"
	now := time.Now().UTC()
	for _, tc := range []struct {
		name     string
		event    events.Event
		entity   string
		fixed    string
		version  int64
		archived bool
		initial  bool
		external bool
	}{
		{"business created", ev(t, events.TypeBusinessCreated, events.Business{ID: bid, ExternalID: &ext}), domain.EntityBusiness, "", -1, false, true, true},
		{"business updated", ev(t, events.TypeBusinessUpdated, events.Business{ID: bid}), domain.EntityBusiness, "", -1, false, false, false},
		{"bank transaction", ev(t, events.TypeBankTransactionUpserted, events.BankTransactionUpserted{TransactionID: id, BusinessID: bid, Version: 1}), domain.EntityBankTransaction, "", 1, false, true, false},
		{"journal entry", ev(t, events.TypeLedgerEntryPosted, events.LedgerEntryPosted{EntryID: id, BusinessID: bid}), "", domain.TypeJournalEntryPosted, 0, false, false, false},
		{"customer archived", ev(t, events.TypeCustomerUpserted, events.CustomerUpserted{CustomerID: id, BusinessID: bid, Version: 4, Status: "ARCHIVED", ExternalID: &ext}), domain.EntityCustomer, "", 4, true, false, true},
		{"invoice voided", ev(t, events.TypeInvoiceUpserted, events.InvoiceUpserted{BusinessID: bid, Invoice: events.InvoiceSnapshot{ID: id, Status: "VOIDED", Version: 3}}), domain.EntityInvoice, "", 3, true, false, false},
		{"invoice sent", ev(t, events.TypeInvoiceUpserted, events.InvoiceUpserted{BusinessID: bid, Invoice: events.InvoiceSnapshot{ID: id, Status: "SENT", Version: 1, ExternalID: &ext}}), domain.EntityInvoice, "", 1, false, true, true},
		{"invoice deleted", ev(t, events.TypeInvoiceDeleted, events.InvoiceDeleted{BusinessID: bid, InvoiceID: id}), domain.EntityInvoice, "", 0, true, false, false},
		{"invoice payment", ev(t, events.TypeInvoicePaymentUpserted, events.InvoicePaymentUpserted{BusinessID: bid, Payment: events.InvoicePaymentSnapshot{ID: id, Version: 2}}), domain.EntityInvoicePayment, "", 2, false, false, false},
		{"invoice payment deleted", ev(t, events.TypeInvoicePaymentDeleted, events.InvoicePaymentDeleted{BusinessID: bid, PaymentID: id}), domain.EntityInvoicePayment, "", 0, true, false, false},
		{"write-off voided", ev(t, events.TypeInvoiceWriteOffUpserted, events.InvoiceWriteOffUpserted{BusinessID: bid, WriteOff: events.InvoiceWriteOffSnapshot{ID: id, Version: 2, Voided: true}}), domain.EntityInvoiceWriteOff, "", 2, true, false, false},
		{"vendor merged", ev(t, events.TypeVendorUpserted, events.VendorUpserted{VendorID: id, BusinessID: bid, Version: 2, Status: "ARCHIVED"}), domain.EntityVendor, "", 2, true, false, false},
		{"bill", ev(t, events.TypeBillUpserted, events.BillUpserted{BusinessID: bid, Bill: events.BillSnapshot{ID: id, Version: 1, Status: "RECEIVED"}}), domain.EntityBill, "", 1, false, true, false},
		{"bill payment deleted", ev(t, events.TypeBillPaymentDeleted, events.BillPaymentDeleted{BusinessID: bid, PaymentID: id}), domain.EntityBillPayment, "", 0, true, false, false},
		{"bill payment", ev(t, events.TypeBillPaymentUpserted, events.BillPaymentUpserted{BusinessID: bid, Payment: events.BillPaymentSnapshot{ID: id, Version: 1}}), domain.EntityBillPayment, "", 1, false, true, false},
		{"vendor credit", ev(t, events.TypeVendorCreditUpserted, events.VendorCreditUpserted{BusinessID: bid, VendorCredit: events.VendorCreditSnapshot{ID: id, Version: 1}}), domain.EntityVendorCredit, "", 1, false, true, false},
		{"receipt parsed", ev(t, events.TypeReceiptParsed, events.ReceiptParsed{ReceiptID: id, BusinessID: bid, Status: "FAILED"}), "", domain.TypeReceiptParsed, 0, false, false, false},
		{"vehicle deleted", ev(t, events.TypeVehicleUpserted, events.VehicleUpserted{VehicleID: id, BusinessID: bid, Version: 3, DeletedAt: &now}), domain.EntityVehicle, "", 3, true, false, false},
		{"trip deleted", ev(t, events.TypeTripDeleted, events.TripUpserted{TripID: id, BusinessID: bid, Version: 2, DeletedAt: &now}), domain.EntityTrip, "", 2, true, false, false},
		{"trip", ev(t, events.TypeTripUpserted, events.TripUpserted{TripID: id, BusinessID: bid, Version: 1}), domain.EntityTrip, "", 1, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := Changes(tc.event)
			if err != nil || len(cs) != 1 {
				t.Fatalf("Changes = %v, %v", cs, err)
			}
			c := cs[0]
			wantID := id.String()
			if tc.entity == domain.EntityBusiness {
				wantID = bid.String()
			}
			if c.BusinessID != bid || c.EntityID != wantID || c.Entity != tc.entity || c.Fixed != tc.fixed || c.Archived != tc.archived ||
				c.Initial != tc.initial || (c.ExternalID != nil) != tc.external || !c.At.Equal(tc.event.Time) {
				t.Fatalf("change %+v", c)
			}
			if tc.version >= 0 && c.Version != tc.version {
				t.Fatalf("version %d, want %d", c.Version, tc.version)
			}
		})
	}
}

func TestLedgerAccountsAreOneChangeEach(t *testing.T) {
	bid, a, b := uuid.New(), uuid.New(), uuid.New()
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	cs, err := Changes(ev(t, events.TypeLedgerAccountsUpserted, events.LedgerAccountsUpserted{BusinessID: bid, Accounts: []events.LedgerAccountSnapshot{
		{ID: a, Name: "Cash", UpdatedAt: at}, {ID: b, Name: "Old", Archived: true, UpdatedAt: at},
	}}))
	if err != nil || len(cs) != 2 {
		t.Fatalf("%v %v", cs, err)
	}
	if cs[0].EntityID != a.String() || cs[0].Archived || !cs[0].Initial || cs[0].Version != at.UnixMicro() || cs[0].Key == cs[1].Key {
		t.Fatalf("%+v", cs[0])
	}
	if !cs[1].Archived || cs[1].Entity != domain.EntityGeneralLedgerAccount {
		t.Fatalf("%+v", cs[1])
	}
}

func TestChangesRefuseMissingIDsAndIgnoreUnknownTypes(t *testing.T) {
	if _, err := Changes(ev(t, events.TypeCustomerUpserted, events.CustomerUpserted{Version: 1})); err == nil {
		t.Fatal("a customer without ids was accepted")
	}
	if _, err := Changes(events.Event{Type: events.TypeInvoiceUpserted, Data: []byte(`{"invoice": 7}`)}); err == nil {
		t.Fatal("a malformed payload was accepted")
	}
	cs, err := Changes(ev(t, "vehicle.teleported", map[string]any{}))
	if err != nil || len(cs) != 0 {
		t.Fatalf("unknown type: %v %v", cs, err)
	}
}

// FuzzChanges: no payload makes Changes panic, and every change it
// returns names its business and entity.
func FuzzChanges(f *testing.F) {
	types := []string{events.TypeBusinessCreated, events.TypeBankTransactionUpserted, events.TypeLedgerEntryPosted, events.TypeLedgerAccountsUpserted,
		events.TypeCustomerUpserted, events.TypeInvoiceUpserted, events.TypeInvoiceDeleted, events.TypeInvoicePaymentUpserted,
		events.TypeInvoicePaymentDeleted, events.TypeInvoiceWriteOffUpserted, events.TypeVendorUpserted, events.TypeBillUpserted,
		events.TypeBillPaymentUpserted, events.TypeBillPaymentDeleted, events.TypeVendorCreditUpserted, events.TypeReceiptParsed,
		events.TypeVehicleUpserted, events.TypeTripUpserted, events.TypeTripDeleted}
	bid, id := uuid.New().String(), uuid.New().String()
	for i := range types {
		f.Add(uint8(i), []byte(`{"business_id":"`+bid+`","customer_id":"`+id+`","version":1}`))
		f.Add(uint8(i), []byte(`{"business_id":"`+bid+`","accounts":[{"id":"`+id+`","updated_at":"2026-01-01T00:00:00Z"}]}`))
		f.Add(uint8(i), []byte(`{"business_id":"`+bid+`","invoice":{"id":"`+id+`","version":2,"status":"VOIDED"}}`))
	}
	f.Add(uint8(0), []byte(`null`))
	f.Add(uint8(3), []byte(`{"accounts":[null]}`))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		e := events.Event{ID: uuid.New(), Type: types[int(which)%len(types)], Data: data}
		cs, err := Changes(e)
		if err != nil {
			return
		}
		for _, c := range cs {
			if c.BusinessID == uuid.Nil || c.EntityID == "" || c.EntityID == uuid.Nil.String() || (c.Entity == "") == (c.Fixed == "") {
				t.Fatalf("change %+v from %s", c, data)
			}
		}
	})
}
