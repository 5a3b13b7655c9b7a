package app

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// PnLLinesReport is a P&L drill-down: the lines behind one line item, its
// value (what the P&L shows for it) and the basis.
type PnLLinesReport struct {
	BusinessID  uuid.UUID
	Query       domain.PnLLinesQuery
	Basis       string
	Value       int64
	Lines       []domain.DetailLine
	LastEventAt *time.Time
}

// PnLLines is GET /reports/profit-and-loss/lines: the lines that make the
// line item q names in business bid's P&L of q (same days, tag filter,
// basis and structure), in day order. On the accrual basis they are the
// ledger's lines; on the cash basis the lines of entries the cash basis
// counts on their date, and, for invoices and bills, the parts their
// payments recognized, on the payment's day. Their amounts, in the line
// item's sense, add up to its value: 404 for a line item the P&L has no
// account for, 400 past domain.MaxDetailLines lines.
func (r *Reports) PnLLines(ctx context.Context, bid uuid.UUID, q domain.PnLLinesQuery) (PnLLinesReport, error) {
	out := PnLLinesReport{BusinessID: bid, Query: q}
	var err error
	out.Basis, out.LastEventAt, err = r.view(ctx, bid, q.Basis, func(ctx context.Context, basis string, accounts map[uuid.UUID]domain.Account) error {
		signs, ok := domain.LineItemAccounts(accounts, q.Structure, q.LineItemName)
		if !ok {
			return apperr.Newf(apperr.NotFound, "the profit and loss has no line item %q", q.LineItemName).WithEnum(domain.EnumUnknownLineItem)
		}
		set := make(map[uuid.UUID]bool, len(signs))
		for id := range signs {
			set[id] = true
		}
		lines, err := r.store.EntryLines(ctx, bid, q.Start, q.End, set, domain.MaxDetailLines)
		if err != nil {
			return err
		}
		if basis == domain.BasisCash {
			kept := lines[:0]
			for _, l := range lines {
				if rule, ok := domain.CashRules[l.SourceType]; !ok || !rule.Deferred {
					kept = append(kept, l)
				}
			}
			rec, err := r.store.RecognizedLines(ctx, bid, q.Start, q.End, set, domain.MaxDetailLines)
			if err != nil {
				return err
			}
			lines = append(kept, rec...)
		}
		for _, l := range lines {
			if !q.Filter.Matches(l.Tags) {
				continue
			}
			l.Account = accounts[l.Account.ID]
			out.Lines = append(out.Lines, l)
			out.Value += signs[l.Account.ID] * l.Amount
			if len(out.Lines) > domain.MaxDetailLines {
				return apperr.FieldErrors(apperr.InvalidParameters, map[string]string{
					"end_date": fmt.Sprintf("a drill-down holds at most %d lines: narrow the dates", domain.MaxDetailLines),
				}).WithEnum(domain.EnumTooManyLines)
			}
		}
		slices.SortStableFunc(out.Lines, func(a, b domain.DetailLine) int {
			return cmp.Or(a.Day.Compare(b.Day), a.EntryAt.Compare(b.EntryAt), strings.Compare(a.EntryID, b.EntryID), strings.Compare(a.ID, b.ID))
		})
		return nil
	})
	return out, err
}
