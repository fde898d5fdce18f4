package web

import (
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// routes is the map of the app: every route is listed in this file, one
// line each, grouped by the part of the app it belongs to.
func (s *Server) routes(e *echo.Echo) {
	e.Pre(s.idleWrites)
	e.Pre(headAsGet)
	e.Use(middleware.Recover())
	e.Use(securityHeaders)
	e.Use(limitQuery)
	e.Use(unescapeParams)
	e.Use(validText)
	e.Use(noNUL)
	// The data's state is fixed before the response cache looks, so a
	// cached page is one of the data as it is now.
	e.Use(s.consistent)
	if s.cache != nil {
		e.Use(s.cache.middleware)
	}
	e.Use(middleware.BodyLimit("1M"))
	// Heavy routes (statistics, explorer tables, figures, full exports) run
	// through the limiter; as route middleware it comes after the response
	// cache, so cache hits never wait for a slot. Light pages (the home
	// page, an audit's page, static files) never do.
	heavy := s.heavy

	e.GET("/", s.showHome)
	e.GET("/api/generation", s.generation)
	e.GET("/static/*", serveStatic)
	s.pairsRoutes(e, heavy)
	s.experimentRoutes(e, heavy)
	s.auditRoutes(e, heavy)
}

// pairsRoutes are the AnnotatedPairs explorer's.
func (s *Server) pairsRoutes(e *echo.Echo, heavy echo.MiddlewareFunc) {
	e.GET("/pairs/:dataset/table.csv", s.pairsTableCSV, heavy)
	// Figures are NAME.png, NAME.svg or NAME.pdf, with NAME from the table.
	e.GET("/pairs/:dataset/figures/:file", figureTable{
		"strength": s.pairsStrengthFigure,
		"heatmap":  s.pairsHeatmapFigure,
		"length":   s.pairsLengthFigure,
		"models":   s.pairsModelsFigure,
	}.handler, heavy)
	e.GET("/pairs/:dataset/models", s.showPairsModels, heavy)
	e.GET("/pairs/:dataset/models.csv", s.pairsModelsCSV, heavy)
	e.GET("/pairs/:dataset/ranking.csv", s.pairsRankingCSV, heavy)
	e.GET("/pairs/:dataset/cycles.csv", s.pairsCyclesCSV, heavy)
	e.GET("/pairs/:dataset", s.showPairs, heavy)
	e.GET("/pairs/:dataset/annotators.csv", s.pairsAnnotatorsCSV, heavy)
	e.GET("/pairs/:dataset/overview.csv", s.pairsOverviewCSV, heavy)
	e.GET("/pairs/:dataset/comparisons", s.listPairComparisons, heavy)
	e.GET("/pairs/:dataset/compare", s.showPairsCompare, heavy)
	e.GET("/pairs/:dataset/compare.csv", s.pairsCompareCSV, heavy)
	e.GET("/pairs/:dataset/comparisons/:id", s.showPairComparison, heavy)
}

// experimentRoutes are an experiment's pages, their CSVs and figures.
func (s *Server) experimentRoutes(e *echo.Echo, heavy echo.MiddlewareFunc) {
	e.GET("/experiments/:exp", s.showExperiment, heavy)
	e.GET("/experiments/:exp/scores.csv", s.experimentScoresCSV, heavy)
	e.GET("/experiments/:exp/figures/:file", figureTable{
		"scores":   s.experimentFigure,
		"crux-":    s.cruxFigure, // crux-DIMENSION
		"rwr":      s.rwrFigure,
		"transfer": s.transferFigure,
		"cycles":   s.cyclesFigure,
		"dose":     s.doseFigure,
		"refresh":  s.refreshFigure,
		"scorers":  s.scorersFigure,
		"compare":  s.compareFigure,
	}.handler, heavy)
	e.GET("/experiments/:exp/scorers.csv", s.scorersCSV, heavy)
	e.GET("/experiments/:exp/compare", s.showCompare, heavy)
	e.GET("/experiments/:exp/compare.csv", s.compareCSV, heavy)
	e.GET("/experiments/:exp/compare/units", s.showUnits, heavy)
	e.GET("/experiments/:exp/compare/units.csv", s.unitsCSV, heavy)
	e.GET("/experiments/:exp/crux", s.showCrux, heavy)
	e.GET("/experiments/:exp/rwr", s.showRWR, heavy)
	e.GET("/experiments/:exp/transfer", s.showTransfer, heavy)
	e.GET("/experiments/:exp/cycles", s.showCycles, heavy)
	e.GET("/experiments/:exp/judgments", s.listJudgments)
	e.GET("/experiments/:exp/judgments.csv", s.judgmentsCSV)
	e.GET("/experiments/:exp/correlations.csv", s.correlationsCSV, heavy)
	e.GET("/experiments/:exp/crux.csv", s.cruxCSV, heavy)
	e.GET("/experiments/:exp/crux-features.csv", s.cruxFeaturesCSV, heavy)
	e.GET("/experiments/:exp/rwr.csv", s.rwrCSV, heavy)
	e.GET("/experiments/:exp/transfer.csv", s.transferCSV, heavy)
	e.GET("/experiments/:exp/cycles.csv", s.cyclesCSV, heavy)
	e.GET("/experiments/:exp/ranking.csv", s.rankingCSV, heavy)
	e.GET("/judgments/:id", s.showJudgment)
}

// auditRoutes are the training runs', the audit browser's and the audits'.
func (s *Server) auditRoutes(e *echo.Echo, heavy echo.MiddlewareFunc) {
	e.GET("/runs/:run", s.showRun)
	e.GET("/runs/:run/figures/:file", figureTable{
		"curves":  s.runCurvesFigure,
		"metric-": s.runMetricFigure, // metric-NAME, a training-time scalar
	}.handler, heavy)
	e.GET("/runs/:run/checkpoints.csv", s.runCheckpointsCSV)
	e.GET("/runs/:run/metrics.csv", s.runMetricsCSV)
	e.GET("/runs/:run/strategies.csv", s.runStrategiesCSV)
	// The audit list sorts and filters tens of thousands of audits (70–200
	// ms on the demo): heavy work, in its turn.
	e.GET("/audits", s.listAudits, heavy)
	// The full export takes a slot per chunk it computes, not while it
	// writes to the client (audits_list.go).
	e.GET("/audits.csv", s.auditsCSV)
	// Before /audits/:id (echo prefers the static path): an audit whose id is
	// "side-by-side" is still reached by its key, experiment:side-by-side.
	e.GET("/audits/side-by-side", s.showSideBySide)
	e.GET("/audits/:id", s.showAudit)
	e.GET("/audits/:id/transcript.json", s.auditTranscriptJSON)
}
