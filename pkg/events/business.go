package events

import (
	"time"

	"github.com/google/uuid"
)

// Business is the payload of business.created and business.updated: the
// business as auth-tokens stores it after the change. The TIN is deliberately
// not published: no consumer needs it and events are widely readable.
type Business struct {
	ID                    uuid.UUID `json:"id"`
	ClientID              string    `json:"client_id"`
	ExternalID            *string   `json:"external_id"`
	LegalName             string    `json:"legal_name"`
	USState               *string   `json:"us_state"`
	Country               string    `json:"country"`
	EntityType            *string   `json:"entity_type"`
	PhoneNumber           *string   `json:"phone_number"`
	ActivationAt          *string   `json:"activation_at"` // RFC 3339 date-time (older events: a date)
	NAICSCode             *string   `json:"naics_code"`
	DefaultReportingBasis string    `json:"default_reporting_basis"`
	CreatedAt             time.Time `json:"created_at"`
	UpdatedAt             time.Time `json:"updated_at"`
	// IsDemo marks a sandbox business; absent (older events) means false.
	IsDemo bool `json:"is_demo,omitempty"`
	// FiscalYearStartMonth is the month (1–12) the business's fiscal year
	// starts in; absent (older events) means January (FiscalYearStart).
	FiscalYearStartMonth int `json:"fiscal_year_start_month,omitempty"`
}

// FiscalYearStart is the month (1–12) the business's fiscal year starts
// in: January unless the event says another.
func (b Business) FiscalYearStart() int {
	if b.FiscalYearStartMonth >= 1 && b.FiscalYearStartMonth <= 12 {
		return b.FiscalYearStartMonth
	}
	return 1
}
