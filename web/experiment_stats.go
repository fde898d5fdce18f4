package web

import (
	"context"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/web/app"
)

// Dimension keys, in display order; they are also the column keys of the
// overview table and the values of scores.csv's dimension column.
var dimensionKeys = app.Dimensions

var dimensionTitles = map[string]string{
	model.EvalAuditQuality:      "Audit quality",
	model.EvalFPCalibration:     "FP calibration",
	model.EvalProduction:        "Production discovery",
	model.EvalRealism:           "Realism",
	app.Composite:               "Composite",
	model.EvalAuditBenchSTC:     "AuditBench STC",
	model.EvalAuditBenchDefault: "AuditBench default",
}

// Warm computes every experiment's statistics ahead of the first request
// (serve calls it in the background at start-up), so no visitor waits for
// the bootstraps. Errors are logged; a page would report them again.
func (s *Server) Warm(ctx context.Context) {
	s.app.Warm(ctx, func(exp string, err error) {
		s.log.Warn("warm statistics", "experiment", exp, "err", err)
	})
}
