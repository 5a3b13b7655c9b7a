package http

import (
	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
)

// reportsConfig is GET /v1/businesses/{businessId}/reports/config: the
// unified reports the service serves, in groups.
func (h *handlers) reportsConfig(c *fiber.Ctx) error {
	groups, err := h.reports.ReportGroups(c.UserContext(), businessID(c))
	if err != nil {
		return err
	}
	return httpx.OK(c, groups)
}

// unifiedReport is GET /v1/businesses/{businessId}/reports/unified/{report}:
// the report at that route (404 for one the service does not serve).
func (h *handlers) unifiedReport(c *fiber.Ctx) error {
	u, err := h.reports.Unified(c.UserContext(), businessID(c), c.Params("report"), httpx.Query(c))
	if err != nil {
		return err
	}
	return httpx.OK(c, u.Report.Filled())
}

// unifiedExcel is GET /v1/businesses/{businessId}/reports/unified/{report}/exports/excel:
// the same report (same query, same 400s and 404) as a workbook in
// storage, answered as a pre-signed download whose document_type is the
// report's key with _EXCEL (AR_AGING_EXCEL...).
func (h *handlers) unifiedExcel(c *fiber.Ctx) error {
	ctx, bid := c.UserContext(), businessID(c)
	p, err := h.reports.PlanUnified(ctx, bid, c.Params("report"), httpx.Query(c))
	if err != nil {
		return err
	}
	d, err := h.exports.UnifiedPlanXLSX(ctx, bid, p)
	if err != nil {
		return err
	}
	return renderDownload(c, d, p.Config.Key+"_EXCEL")
}
