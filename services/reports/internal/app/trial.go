package app

import (
	"context"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// TrialBalance is GET /reports/unified/trial-balance: business bid's
// trial balance on effective_date (default today) on reporting_basis
// (default the business's), as a unified report.
func (r *Reports) TrialBalance(ctx context.Context, bid uuid.UUID, params url.Values) (UnifiedResult, error) {
	p, err := r.planTrialBalance(ctx, bid, params)
	if err != nil {
		return UnifiedResult{}, err
	}
	return p.Result(ctx)
}

// planTrialBalance is the plan of TrialBalance (its 400s, and its basis).
func (r *Reports) planTrialBalance(ctx context.Context, bid uuid.UUID, params url.Values) (UnifiedPlan, error) {
	q, err := domain.ParseBalanceQuery(params, time.Now())
	if err != nil {
		return UnifiedPlan{}, err
	}
	basis, err := r.basis(ctx, bid, q.Basis)
	if err != nil {
		return UnifiedPlan{}, err
	}
	q.Basis = basis
	return UnifiedPlan{Config: r.trialBalanceConfig(basis), Label: q.Date.Format(domain.DateLayout) + "_" + basis, Query: q,
		build: func(ctx context.Context) (domain.UnifiedReport, error) {
			fy, err := r.fiscalStart(ctx, bid, q.Date)
			if err != nil {
				return domain.UnifiedReport{}, err
			}
			var out domain.UnifiedReport
			_, _, err = r.view(ctx, bid, basis, func(ctx context.Context, basis string, accounts map[uuid.UUID]domain.Account) error {
				prior, current, err := r.splitBalances(ctx, bid, basis, fy, q.Date)
				if err != nil {
					return err
				}
				out = domain.BuildTrialBalance(accounts, prior, current).Unified(bid)
				return nil
			})
			return out, err
		}}, nil
}

// trialBalanceConfig is the trial balance's ReportConfig on basis.
func (r *Reports) trialBalanceConfig(basis string) domain.ReportConfig {
	return domain.ReportConfig{Key: ReportTrialBalance, ReportRoute: RouteTrialBalance, DisplayName: "Trial balance",
		Controls: []string{domain.ControlDate, domain.ControlBasis}, BaseQueryParameters: map[string]string{"reporting_basis": basis},
		IsDefaultReport: true}
}

// The trial balance is one of the unified reports.
func init() {
	unifiedReports[RouteTrialBalance] = func(r *Reports, ctx context.Context, bid uuid.UUID, q url.Values) (UnifiedPlan, error) {
		return r.planTrialBalance(ctx, bid, q)
	}
}
