// Package domain holds the webhooks service's entities and rules, with no
// framework: the event catalog and its thin payloads, how a domain change
// becomes a created, updated or archived event, endpoints and their
// validation, deliveries, attempts and the retry schedule.
package domain

import (
	"strings"
	"time"

	"github.com/google/uuid"
)

// Operations of an entity event.
const (
	OpCreated  = "created"
	OpUpdated  = "updated"
	OpArchived = "archived"
)

// Entities whose created, updated and archived events the catalog holds,
// in the real product's names.
const (
	EntityBankTransaction      = "BankTransaction"
	EntityBill                 = "Bill"
	EntityBillPayment          = "BillPayment"
	EntityBusiness             = "Business"
	EntityCustomer             = "Customer"
	EntityGeneralLedgerAccount = "GeneralLedgerAccount"
	EntityInvoice              = "Invoice"
	EntityInvoicePayment       = "InvoicePayment"
	EntityInvoiceWriteOff      = "InvoiceWriteOff"
	EntityTrip                 = "Trip"
	EntityVehicle              = "Vehicle"
	EntityVendor               = "Vendor"
	EntityVendorCredit         = "VendorCredit"
)

// The event types outside the entities' created, updated and archived.
const (
	TypeReceiptParsed      = "Receipt.parsed"
	TypeJournalEntryPosted = "JournalEntry.posted"
	// TypeWebhookTest is what POST .../test sends (to that endpoint only).
	TypeWebhookTest = "Webhook.test"
	// TypeEndpointDisabled goes to a platform's other endpoints when one
	// of its endpoints is disabled for failing.
	TypeEndpointDisabled = "Endpoint.disabled"
)

// EventType is one entry of the catalog.
type EventType struct {
	Name        string
	Description string
	// Subscribable is false for the types an endpoint cannot subscribe
	// to (Webhook.test goes to the endpoint tested whatever it
	// subscribes to).
	Subscribable bool
}

// entityDescriptions says what each entity is, for the catalog.
var entityDescriptions = []struct{ entity, what string }{
	{EntityBankTransaction, "a bank transaction (imported, categorized, matched, tagged or edited)"},
	{EntityBill, "a bill"},
	{EntityBillPayment, "a bill payment"},
	{EntityBusiness, "a business"},
	{EntityCustomer, "a customer"},
	{EntityGeneralLedgerAccount, "an account of a business's chart of accounts"},
	{EntityInvoice, "an invoice"},
	{EntityInvoicePayment, "an invoice payment"},
	{EntityInvoiceWriteOff, "an invoice write-off"},
	{EntityTrip, "a mileage trip"},
	{EntityVehicle, "a vehicle"},
	{EntityVendor, "a vendor"},
	{EntityVendorCredit, "a vendor credit"},
}

// archivedMeaning says, per entity, what makes its .archived event.
var archivedMeaning = map[string]string{
	EntityBankTransaction:      "the suite never archives bank transactions today; the type is reserved so that subscriptions to it stay valid",
	EntityBill:                 "the bill was voided",
	EntityBillPayment:          "the payment was deleted (the bills' balances restored)",
	EntityBusiness:             "the suite never archives businesses today; the type is reserved so that subscriptions to it stay valid",
	EntityCustomer:             "the customer was archived",
	EntityGeneralLedgerAccount: "the account was archived",
	EntityInvoice:              "the invoice was voided or deleted",
	EntityInvoicePayment:       "the payment was deleted",
	EntityInvoiceWriteOff:      "the write-off was undone (voided with its invoice)",
	EntityTrip:                 "the trip was deleted",
	EntityVehicle:              "the vehicle was archived or deleted",
	EntityVendor:               "the vendor was archived or merged into another",
	EntityVendorCredit:         "the suite never archives vendor credits today; the type is reserved so that subscriptions to it stay valid",
}

// Catalog is every event type, entities' first (created, updated,
// archived each), then the others.
func Catalog() []EventType {
	var out []EventType
	for _, e := range entityDescriptions {
		out = append(out,
			EventType{Name: e.entity + "." + OpCreated, Subscribable: true,
				Description: "Sent when " + e.what + " is created."},
			EventType{Name: e.entity + "." + OpUpdated, Subscribable: true,
				Description: "Sent when " + e.what + " changes (and when it is reactivated)."},
			EventType{Name: e.entity + "." + OpArchived, Subscribable: true,
				Description: "Sent when " + archivedMeaning[e.entity] + "."})
	}
	return append(out,
		EventType{Name: TypeReceiptParsed, Subscribable: true,
			Description: "Sent when an imported receipt has been read: ready for a bill with a proposal, or failed with the reason."},
		EventType{Name: TypeJournalEntryPosted, Subscribable: true,
			Description: "Sent when an entry is posted to a business's ledger (a reversal is an entry too)."},
		EventType{Name: TypeEndpointDisabled, Subscribable: true,
			Description: "Sent to a platform's other endpoints when one of its endpoints is disabled after failing for 5 days; entity_id is the endpoint's id, business_id is null."},
		EventType{Name: TypeWebhookTest, Subscribable: false,
			Description: "Sent by POST /v1/webhooks/endpoints/{id}/test to that endpoint only, whatever it subscribes to; entity_id is the endpoint's id, business_id is null."},
	)
}

// catalogIndex is the catalog by name.
var catalogIndex = func() map[string]EventType {
	m := map[string]EventType{}
	for _, t := range Catalog() {
		m[t.Name] = t
	}
	return m
}()

// EntityEventType is the type of operation op on entity.
func EntityEventType(entity, op string) string { return entity + "." + op }

// Event is a webhook's body: thin, naming what changed (data.entity_id)
// so that the platform reads it through the API. BusinessID and
// BusinessExternalID are null for the events about an endpoint.
type Event struct {
	ID                 uuid.UUID  `json:"id"`
	Type               string     `json:"type"`
	BusinessID         *uuid.UUID `json:"business_id"`
	BusinessExternalID *string    `json:"business_external_id"`
	CreatedAt          time.Time  `json:"created_at"`
	Data               EventData  `json:"data"`
}

// EventData names the entity of an event.
type EventData struct {
	EntityID         string  `json:"entity_id"`
	EntityExternalID *string `json:"entity_external_id"`
}

// Example is an example event of type name (fixed ids and time, for the
// catalog's documentation).
func Example(name string) Event {
	bid := uuid.MustParse("0b6f1c8e-5d3a-4f8e-9a41-6c2d7e9b1a10")
	ext := "biz-1042"
	entity := "5f0e2b7c-3a1d-4c9e-8b6f-2d4a9e1c7b30"
	var entityExt *string
	if strings.HasPrefix(name, EntityCustomer+".") || strings.HasPrefix(name, EntityInvoice+".") ||
		strings.HasPrefix(name, EntityVendor+".") || strings.HasPrefix(name, EntityBill+".") {
		s := "ext-7731"
		entityExt = &s
	}
	e := Event{
		ID: uuid.MustParse("01936b2e-8f4a-7c1d-9e2b-4a6f8c0d1e23"), Type: name,
		BusinessID: &bid, BusinessExternalID: &ext,
		CreatedAt: time.Date(2026, 11, 2, 14, 30, 5, 123000000, time.UTC),
		Data:      EventData{EntityID: entity, EntityExternalID: entityExt},
	}
	switch name {
	case TypeWebhookTest, TypeEndpointDisabled:
		e.BusinessID, e.BusinessExternalID = nil, nil
		e.Data.EntityID = "8c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e"
	case EntityBusiness + "." + OpCreated, EntityBusiness + "." + OpUpdated, EntityBusiness + "." + OpArchived:
		e.Data.EntityID, e.Data.EntityExternalID = bid.String(), &ext
	}
	return e
}

// Subscribable reports whether every name is a type an endpoint can
// subscribe to; bad is the first that is not.
func Subscribable(names []string) (bad string, ok bool) {
	for _, n := range names {
		if t, found := catalogIndex[n]; !found || !t.Subscribable {
			return n, false
		}
	}
	return "", true
}
