package stack

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// EchoDelivery is one webhook-id a receiver (bin/webhook-echo) accepted,
// as its GET /received?full=1 lists it.
type EchoDelivery struct {
	ID                 string `json:"id"`
	Type               string `json:"type"`
	BusinessID         string `json:"business_id"`
	BusinessExternalID string `json:"business_external_id"`
	EntityID           string `json:"entity_id"`
	Count              int    `json:"count"`
}

// EchoReceived is a receiver's GET /received?full=1.
type EchoReceived struct {
	Count      int            `json:"count"`
	Duplicates int            `json:"duplicates"`
	Rejected   int            `json:"rejected"`
	Deliveries []EchoDelivery `json:"deliveries"`
}

// Received reads what the receiver at base has accepted.
func Received(ctx context.Context, base string) (EchoReceived, error) {
	var out EchoReceived
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/received?full=1", nil)
	if err != nil {
		return out, err
	}
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return out, fmt.Errorf("GET %s/received: %s", base, resp.Status)
	}
	return out, json.NewDecoder(resp.Body).Decode(&out)
}
