package web

import (
	"context"
	"time"

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
	s.stats.Warm(ctx, func(what string, err error) {
		s.log.Warn("compute ahead", "what", what, "err", err)
	})
}

// WarmOnChange runs Warm now and again whenever the data changes (an
// import lands under serve --watch, a lake's new manifest), checking every
// interval until ctx ends: the pages people open first are computed off
// the request path.
func (s *Server) WarmOnChange(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	last := int64(-1)
	for {
		if v := s.Version(); v != last {
			last = v
			s.Warm(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
