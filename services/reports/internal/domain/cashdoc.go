package domain

import (
	"time"

	"github.com/google/uuid"
)

// DocKey names a deferred document by its ledger source.
type DocKey struct {
	SourceType string
	SourceID   string
}

// LineKey is an account and tag set.
type LineKey struct {
	Account uuid.UUID
	TagSet  uuid.UUID
}

// DocLine is a document's profit-and-loss amount on an account and tag
// set.
type DocLine struct {
	Account uuid.UUID
	TagSet  uuid.UUID
	Amount  int64
}

// Allocation is what a payment paid on a document, on the payment's day.
type Allocation struct {
	Doc     DocKey
	Payment uuid.UUID
	Day     time.Time
	Amount  int64
}

// RecognizeDoc is what a document's payments recognize on the cash basis:
// its lines (in a stable order) spread over its allocations (grouped per
// payment, in day then payment order) by Recognize, summed per day,
// account and tag set (zero amounts left out).
func RecognizeDoc(lines []DocLine, total int64, allocs []Allocation) (map[DayKey]int64, error) {
	type pay struct {
		day    time.Time
		id     uuid.UUID
		amount int64
	}
	var pays []pay
	for _, a := range allocs {
		if n := len(pays); n > 0 && pays[n-1].id == a.Payment && pays[n-1].day.Equal(a.Day) {
			pays[n-1].amount += a.Amount
			continue
		}
		pays = append(pays, pay{a.Day, a.Payment, a.Amount})
	}
	amounts := make([]int64, len(lines))
	for i, l := range lines {
		amounts[i] = l.Amount
	}
	paid := make([]int64, len(pays))
	for i, p := range pays {
		paid[i] = p.amount
	}
	rows, err := Recognize(amounts, total, paid)
	if err != nil {
		return nil, err
	}
	out := map[DayKey]int64{}
	for k, row := range rows {
		for i, v := range row {
			if v != 0 {
				out[DayKey{Day: pays[k].day, Account: lines[i].Account, TagSet: lines[i].TagSet}] += v
			}
		}
	}
	for k, v := range out {
		if v == 0 {
			delete(out, k)
		}
	}
	return out, nil
}

// DayKey is a day, account and tag set.
type DayKey struct {
	Day     time.Time
	Account uuid.UUID
	TagSet  uuid.UUID
}
