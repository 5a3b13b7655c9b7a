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

// DocLine is a document's amount on an account and tag set: the sum of
// its entries' lines there, of one role.
type DocLine struct {
	Account uuid.UUID
	TagSet  uuid.UUID
	Role    LineRole
	Amount  int64
}

// LineRole tells a deferred document's lines apart.
type LineRole int16

// The roles.
const (
	// RolePnL: a profit-and-loss line (revenue, expenses).
	RolePnL LineRole = 0
	// RoleOther: any other line that is not the control account (a sales
	// tax payable...).
	RoleOther LineRole = 1
	// RoleControl: a line on the rule's control account (the document's
	// receivable or payable).
	RoleControl LineRole = 2
)

// Allocation is what a payment paid on a document, on the payment's day.
type Allocation struct {
	Doc     DocKey
	Payment uuid.UUID
	Day     time.Time
	Amount  int64
}

// RecognizeDoc is what a document's payments recognize on the cash basis,
// its allocations grouped per payment (in day then payment order), summed
// per day, account and tag set (zero amounts left out). Each payment's
// part is balanced, so the cash basis stays balanced:
//
//   - the profit-and-loss lines are spread by Recognize (so a tax on the
//     total is not revenue: half of 100.00 + 13.00 tax recognizes 50.00);
//   - the control lines by Recognize too, which makes them exactly what
//     was paid (their sum is the total): a partly paid invoice leaves no
//     receivable on the cash basis;
//   - the other lines (taxes...) take the rest of each payment's part,
//     divided over them in proportion to what each has left (Spread), so
//     that a fully paid document has recognized each of them exactly.
//
// A document whose lines predate the other and control roles (lines of
// the profit and loss only) recognizes its profit-and-loss lines alone.
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
	paid := make([]int64, len(pays))
	for i, p := range pays {
		paid[i] = p.amount
	}
	var groups [3][]DocLine
	for _, l := range lines {
		if l.Role >= RolePnL && l.Role <= RoleControl {
			groups[l.Role] = append(groups[l.Role], l)
		}
	}
	amounts := func(ls []DocLine) []int64 {
		out := make([]int64, len(ls))
		for i, l := range ls {
			out[i] = l.Amount
		}
		return out
	}
	pnl, err := Recognize(amounts(groups[RolePnL]), total, paid)
	if err != nil {
		return nil, err
	}
	out := map[DayKey]int64{}
	add := func(ls []DocLine, rows [][]int64) {
		for k, row := range rows {
			for i, v := range row {
				if v != 0 {
					out[DayKey{Day: pays[k].day, Account: ls[i].Account, TagSet: ls[i].TagSet}] += v
				}
			}
		}
	}
	add(groups[RolePnL], pnl)
	if len(groups[RoleControl]) == 0 {
		return prune(out), nil
	}
	control, err := Recognize(amounts(groups[RoleControl]), total, paid)
	if err != nil {
		return nil, err
	}
	add(groups[RoleControl], control)
	rest := make([]int64, len(pays))
	for k := range pays {
		for _, v := range pnl[k] {
			rest[k] -= v
		}
		for _, v := range control[k] {
			rest[k] -= v
		}
	}
	if len(groups[RoleOther]) == 0 {
		// Nothing to take the rest: it is zero when the lines balance
		// (their sum is then −total, recognized as exactly as the
		// control lines); else it goes on the control lines.
		rows, err := Spread(amounts(groups[RoleControl]), rest)
		if err != nil {
			return nil, err
		}
		add(groups[RoleControl], rows)
		return prune(out), nil
	}
	other, err := Spread(amounts(groups[RoleOther]), rest)
	if err != nil {
		return nil, err
	}
	add(groups[RoleOther], other)
	return prune(out), nil
}

func prune(out map[DayKey]int64) map[DayKey]int64 {
	for k, v := range out {
		if v == 0 {
			delete(out, k)
		}
	}
	return out
}

// DayKey is a day, account and tag set.
type DayKey struct {
	Day     time.Time
	Account uuid.UUID
	TagSet  uuid.UUID
}
