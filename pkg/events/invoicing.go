package events

import (
	"time"

	"github.com/google/uuid"
)

// Event types published on TopicInvoicing by the customers-invoices service.
const (
	// TypeCustomerUpserted: a customer was created, changed, archived or
	// reactivated. The payload is the whole customer as it now is (not a
	// delta), so a consumer keeps the latest Version per CustomerID and
	// never reads the customers-invoices service's tables. A create that
	// found an existing customer by external_id, and a change that changes
	// nothing, publish nothing.
	TypeCustomerUpserted = "customer.upserted"
)

// CustomerUpserted is the payload of customer.upserted: the customer with
// every field the API answers. Text fields are null when empty (never "").
// DisplayName is the name a ledger line or a report shows: the company
// name when there is one, else the individual's name. Version starts at 1
// and grows by one with every change, so an older snapshot delivered late
// is recognisable. Status is ACTIVE or ARCHIVED; ArchivedAt is set exactly
// when the customer is archived.
type CustomerUpserted struct {
	CustomerID     uuid.UUID   `json:"customer_id"`
	BusinessID     uuid.UUID   `json:"business_id"`
	Version        int         `json:"version"`
	ExternalID     *string     `json:"external_id"`
	DisplayName    string      `json:"display_name"`
	IndividualName *string     `json:"individual_name"`
	CompanyName    *string     `json:"company_name"`
	Email          *string     `json:"email"`
	MobilePhone    *string     `json:"mobile_phone"`
	OfficePhone    *string     `json:"office_phone"`
	AddressString  *string     `json:"address_string"`
	Memo           *string     `json:"memo"`
	Status         string      `json:"status"`
	Tags           []LedgerTag `json:"tags"`
	CreatedAt      time.Time   `json:"created_at"`
	UpdatedAt      time.Time   `json:"updated_at"`
	ArchivedAt     *time.Time  `json:"archived_at"`
}
