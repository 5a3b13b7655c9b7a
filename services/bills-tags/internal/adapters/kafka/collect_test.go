package kafka

import (
	"testing"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/tagreg"
)

// Ledger entries: tags are learned however the payload is spaced (the
// outbox keeps it in a jsonb column); an entry without any tag is passed
// over without being decoded.
func TestCollectLedgerEntries(t *testing.T) {
	bid := "0190c4c4-0000-7000-8000-000000000001"
	tests := []struct {
		name    string
		data    string
		learned int
		wantErr bool
	}{
		{"compact, entry and line tags", `{"business_id":"` + bid + `","tags":[{"key":"Project","value":"Apollo"}],"lines":[{"tags":[{"key":"region","value":"west"}]}]}`, 2, false},
		{"spaced as jsonb prints it", `{"business_id": "` + bid + `", "tags": [], "lines": [{"tags": [{"key": "region", "value": "west"}]}]}`, 1, false},
		{"no tags anywhere", `{"business_id": "` + bid + `", "tags": [], "lines": [{"tags": [], "memo": "rent"}, {"tags": null}]}`, 0, false},
		{"no tags, not even well formed: not decoded", `{"business_id": "` + bid + `", "lines": [`, 0, false},
		{"tags in a payload that does not decode", `{"business_id": "` + bid + `", "tags": [{"key": 1}]}`, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c tagreg.Collector
			err := collect(&c, events.Event{Type: events.TypeLedgerEntryPosted, Data: []byte(tt.data)})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if got := len(c.Learned()); got != tt.learned {
				t.Fatalf("learned %d tags, want %d: %+v", got, tt.learned, c.Learned())
			}
		})
	}
}
