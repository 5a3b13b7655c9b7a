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
	q, err := domain.ParseBalanceQuery(params, time.Now())
	if err != nil {
		return UnifiedResult{}, err
	}
	fy, err := r.fiscalStart(ctx, bid, q.Date)
	if err != nil {
		return UnifiedResult{}, err
	}
	var out UnifiedResult
	basis, _, err := r.view(ctx, bid, q.Basis, func(ctx context.Context, basis string, accounts map[uuid.UUID]domain.Account) error {
		prior, current, err := r.splitBalances(ctx, bid, basis, fy, q.Date)
		if err != nil {
			return err
		}
		out.Report = domain.BuildTrialBalance(accounts, prior, current).Unified(bid)
		return nil
	})
	out.Config, out.Label = r.trialBalanceConfig(basis), q.Date.Format(domain.DateLayout)+"_"+basis
	return out, err
}

// trialBalanceConfig is the trial balance's ReportConfig on basis.
func (r *Reports) trialBalanceConfig(basis string) domain.ReportConfig {
	return domain.ReportConfig{Key: ReportTrialBalance, ReportRoute: RouteTrialBalance, DisplayName: "Trial balance",
		Controls: []string{domain.ControlDate, domain.ControlBasis}, BaseQueryParameters: map[string]string{"reporting_basis": basis},
		IsDefaultReport: true}
}

// The trial balance is one of the unified reports.
func init() {
	unifiedReports[RouteTrialBalance] = func(r *Reports, ctx context.Context, bid uuid.UUID, q url.Values) (UnifiedResult, error) {
		return r.TrialBalance(ctx, bid, q)
	}
}
