package kafka

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"

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

// A ledger entry as the transactions service publishes it: the registry
// reads only its tags, each (key, value) once however many lines carry
// it (each line's tags include the entry's), with its display names.
func TestCollectPublishedLedgerEntry(t *testing.T) {
	bid := uuid.MustParse("0190c4c4-0000-7000-8000-000000000001")
	name, dim := "Apollo mission", "Project"
	project := events.LedgerTag{ID: uuid.New(), Key: "project", Value: "apollo", DimensionDisplayName: &dim, ValueDisplayName: &name}
	region := events.LedgerTag{ID: uuid.New(), Key: "region", Value: "west"}
	stable := "SALES"
	line := func(dir string, ts ...events.LedgerTag) events.LedgerLine {
		return events.LedgerLine{LineID: uuid.New(), AccountID: uuid.New(), AccountName: "Sales", StableName: &stable, AccountType: "REVENUE",
			Direction: dir, Amount: 1250, SignedAmount: 1250, Tags: ts,
			Ancestors: []events.LedgerAccountRef{{AccountID: uuid.New(), StableName: &stable, Name: "Revenue"}}}
	}
	p := events.LedgerEntryPosted{EntryID: uuid.New(), BusinessID: bid, EntryType: "MANUAL", Date: "2026-03-01",
		Tags:  []events.LedgerTag{project},
		Lines: []events.LedgerLine{line("DEBIT", project), line("CREDIT", project, region), line("CREDIT", project, region)}}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var c tagreg.Collector
	if err := collect(&c, events.Event{Type: events.TypeLedgerEntryPosted, Data: data}); err != nil {
		t.Fatal(err)
	}
	got := c.Learned()
	if len(got) != 2 {
		t.Fatalf("learned %+v, want project=apollo and region=west once each", got)
	}
	if got[0].BusinessID != bid || got[0].Key != "project" || got[0].Value != "apollo" ||
		got[0].DimensionDisplayName == nil || *got[0].DimensionDisplayName != dim || got[0].ValueDisplayName == nil || *got[0].ValueDisplayName != name {
		t.Fatalf("first learned = %+v", got[0])
	}
	if got[1].Key != "region" || got[1].Value != "west" || got[1].DimensionDisplayName != nil {
		t.Fatalf("second learned = %+v", got[1])
	}
}
