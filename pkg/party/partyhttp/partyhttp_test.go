package partyhttp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/party"
)

type kind struct{}

func (kind) Kind() party.Kind { return party.Kind{Noun: "customer"} }

func TestToJSON(t *testing.T) {
	id := uuid.MustParse("0190c4c4-0000-7000-8000-0000000000c1")
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	memo := "net 30"
	c := party.New[kind](id, id, party.Input{Memo: &memo}, at)
	b, err := json.Marshal(struct {
		JSON
		Extra *string `json:"extra"`
	}{JSON: ToJSON("CustomerData", c)})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"CustomerData","id":"` + id.String() + `","external_id":null,"individual_name":null,"company_name":null,` +
		`"email":null,"mobile_phone":null,"office_phone":null,"address_string":null,"memo":"net 30","notes":"net 30",` +
		`"status":"ACTIVE","transaction_tags":[],"created_at":"2026-03-01T10:00:00Z","updated_at":"2026-03-01T10:00:00Z",` +
		`"archived_at":null,"extra":null}`
	if string(b) != want {
		t.Fatalf("json\n got %s\nwant %s", b, want)
	}
}
