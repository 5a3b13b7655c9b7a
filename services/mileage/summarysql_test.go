package mileage

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestRawSummarySQL(t *testing.T) {
	bid := uuid.MustParse("01a213b6-ab04-7f2e-a466-500f97bcf438")
	vid := "01a213b6-ab1f-75a1-9247-11c0c1ba87a6"
	sql, err := RawSummarySQL(bid, url.Values{"purpose": {"BUSINESS"}, "vehicle_ids": {vid}, "year": {"2024"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FROM trips AS t", bid.String(), vid, "'BUSINESS'", "'2024-01-01'", "'2024-12-31'", "deleted_at IS NULL", "GROUP BY 1, 2"} {
		if !strings.Contains(sql, want) {
			t.Errorf("%s lacks %q", sql, want)
		}
	}
	if _, err := RawSummarySQL(bid, url.Values{"purpose": {"NOPE"}}); err == nil {
		t.Error("a bad purpose is accepted")
	}
}
