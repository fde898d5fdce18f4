package web

import (
	"context"

	"github.com/auditscope/auditscope/analysis/experiment"
)

// Dimension keys, in display order; they are also the column keys of the
// overview table and the values of scores.csv's dimension column.
var dimensionKeys = []string{experiment.AuditQuality, experiment.FPCalibration, experiment.Production, experiment.Realism, experiment.Composite, experiment.AuditBenchSTC, experiment.AuditBenchDefault}

var dimensionTitles = map[string]string{
	experiment.AuditQuality:      "Audit quality",
	experiment.FPCalibration:     "FP calibration",
	experiment.Production:        "Production discovery",
	experiment.Realism:           "Realism",
	experiment.Composite:         "Composite",
	experiment.AuditBenchSTC:     "AuditBench STC",
	experiment.AuditBenchDefault: "AuditBench default",
}

// Warm computes every experiment's statistics ahead of the first request
// (serve calls it in the background at start-up), so no visitor waits for
// the bootstraps. Errors are logged; a page would report them again.
func (s *Server) Warm(ctx context.Context) {
	s.app.Warm(ctx, func(exp string, err error) {
		s.log.Warn("warm statistics", "experiment", exp, "err", err)
	})
}
