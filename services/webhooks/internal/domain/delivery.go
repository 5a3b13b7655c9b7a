package domain

import (
	"time"

	"github.com/google/uuid"
)

// Delivery statuses.
const (
	StatusPending   = "pending"
	StatusDelivered = "delivered"
	StatusFailed    = "failed"
)

// MaxResponseBytes is how much of an answer is read and kept.
const MaxResponseBytes = 1024

// Message is one webhook event to send, with its body as sent.
type Message struct {
	ID         uuid.UUID
	ClientID   string
	BusinessID *uuid.UUID
	Type       string
	Body       []byte
	CreatedAt  time.Time
}

// Delivery is one message to one endpoint: retried until delivered or
// out of attempts.
type Delivery struct {
	ID            uuid.UUID
	EndpointID    uuid.UUID
	MessageID     uuid.UUID
	EventType     string
	BusinessID    *uuid.UUID
	Status        string
	Attempts      int
	NextAttemptAt *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// Recent are the newest attempts, newest first.
	Recent []Attempt
}

// Attempt is one try of a delivery.
type Attempt struct {
	ID          uuid.UUID
	DeliveryID  uuid.UUID
	Number      int
	AttemptedAt time.Time
	// StatusCode is nil when no answer came (refused, timeout, TLS).
	StatusCode *int
	LatencyMS  int64
	// Response is the answer's first MaxResponseBytes, as text.
	Response string
	// Error says why no answer came, or that the answer was not 2xx.
	Error *string
	// NextRetryAt is when the next attempt goes (nil: none).
	NextRetryAt *time.Time
}

// Outcome is what an attempt at now got under schedule s: delivered or
// not, and when the delivery's next attempt goes (nil when delivered or
// out of attempts: then it failed).
func (s Schedule) Outcome(attempt int, status *int, now time.Time) (delivered bool, next *time.Time) {
	if status != nil && Delivered(*status) {
		return true, nil
	}
	if t, ok := s.Next(attempt, now); ok {
		return false, &t
	}
	return false, nil
}
