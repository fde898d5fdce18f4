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

	e.GET("/", s.showHome, known(noParams))
	e.GET("/api/generation", s.generation, known(noParams))
	e.GET("/static/*", serveStatic, known(noParams))
	s.pairsRoutes(e, heavy)
	s.experimentRoutes(e, heavy)
	s.auditRoutes(e, heavy)
}

// pairsRoutes are the AnnotatedPairs explorer's.
func (s *Server) pairsRoutes(e *echo.Echo, heavy echo.MiddlewareFunc) {
	e.GET("/pairs/:dataset/table.csv", s.pairsTableCSV, known(explorerParams), heavy)
	// Figures are NAME.png, NAME.svg or NAME.pdf, with NAME from the table.
	e.GET("/pairs/:dataset/figures/:file", figureTable{
		"strength": {s.pairsStrengthFigure, explorerParams},
		"heatmap":  {s.pairsHeatmapFigure, explorerParams},
		"length":   {s.pairsLengthFigure, refParams},
		"models":   {s.pairsModelsFigure, modelsParams},
	}.handler, heavy)
	e.GET("/pairs/:dataset/models", s.showPairsModels, known(modelsParams), heavy)
	e.GET("/pairs/:dataset/models.csv", s.pairsModelsCSV, known(modelsParams), heavy)
	e.GET("/pairs/:dataset/ranking.csv", s.pairsRankingCSV, known(modelsParams), heavy)
	e.GET("/pairs/:dataset/cycles.csv", s.pairsCyclesCSV, known(modelsParams), heavy)
	e.GET("/pairs/:dataset", s.showPairs, known(explorerParams), heavy)
	e.GET("/pairs/:dataset/annotators.csv", s.pairsAnnotatorsCSV, known(refParams), heavy)
	e.GET("/pairs/:dataset/overview.csv", s.pairsOverviewCSV, known(refParams), heavy)
	e.GET("/pairs/:dataset/comparisons", s.listPairComparisons, known(listParams), heavy)
	e.GET("/pairs/:dataset/compare", s.showPairsCompare, known(pairsCmpParams), heavy)
	e.GET("/pairs/:dataset/compare.csv", s.pairsCompareCSV, known(pairsCmpParams), heavy)
	// The comparisons list's links carry its reference models.
	e.GET("/pairs/:dataset/comparisons/:id", s.showPairComparison, known(refParams), heavy)
}

// experimentRoutes are an experiment's pages, their CSVs and figures.
func (s *Server) experimentRoutes(e *echo.Echo, heavy echo.MiddlewareFunc) {
	e.GET("/experiments/:exp", s.showExperiment, known(overviewParams), heavy)
	e.GET("/experiments/:exp/scores.csv", s.experimentScoresCSV, known(overviewParams), heavy)
	e.GET("/experiments/:exp/figures/:file", figureTable{
		"scores":   {s.experimentFigure, overviewParams},
		"crux-":    {s.cruxFigure, noParams}, // crux-DIMENSION
		"rwr":      {s.rwrFigure, rwrParams},
		"transfer": {s.transferFigure, transferParams},
		"cycles":   {s.cyclesFigure, cyclesParams},
		"dose":     {s.doseFigure, sweepParams},
		"refresh":  {s.refreshFigure, sweepParams},
		"scorers":  {s.scorersFigure, scorerParams},
		"compare":  {s.compareFigure, compareParams},
		"heatmap":  {s.judgedHeatmap, judgedParams},
		"forest":   {s.judgedForest, judgedParams},
		"paired":   {s.pairedFigure, pairedParams},
		"judges":   {s.judgesFigure, judgesFigParams},
	}.handler, heavy)
	e.GET("/experiments/:exp/dimensions.csv", s.dimensionsCSV, known(judgedParams), heavy)
	e.GET("/experiments/:exp/gate.csv", s.gateCSV, known(judgedParams), heavy)
	e.GET("/experiments/:exp/paired", s.showPaired, known(pairedParams), heavy)
	e.GET("/experiments/:exp/paired.csv", s.pairedCSV, known(pairedParams), heavy)
	e.GET("/experiments/:exp/judges", s.showJudges, known(noParams), heavy)
	e.GET("/experiments/:exp/judges.csv", s.judgesCSV, known(noParams), heavy)
	e.GET("/experiments/:exp/scorers.csv", s.scorersCSV, known(scorerParams), heavy)
	e.GET("/experiments/:exp/compare", s.showCompare, known(compareParams), heavy)
	e.GET("/experiments/:exp/compare.csv", s.compareCSV, known(compareParams), heavy)
	e.GET("/experiments/:exp/compare/units", s.showUnits, known(unitsParams), heavy)
	e.GET("/experiments/:exp/compare/units.csv", s.unitsCSV, known(unitsParams), heavy)
	e.GET("/experiments/:exp/crux", s.showCrux, known(noParams), heavy)
	e.GET("/experiments/:exp/rwr", s.showRWR, known(rwrParams), heavy)
	e.GET("/experiments/:exp/transfer", s.showTransfer, known(transferParams), heavy)
	e.GET("/experiments/:exp/cycles", s.showCycles, known(cyclesParams), heavy)
	e.GET("/experiments/:exp/judgments", s.listJudgments, known(judgmentParams))
	e.GET("/experiments/:exp/judgments.csv", s.judgmentsCSV, known(judgmentParams))
	e.GET("/experiments/:exp/correlations.csv", s.correlationsCSV, known(overviewParams), heavy)
	e.GET("/experiments/:exp/crux.csv", s.cruxCSV, known(noParams), heavy)
	e.GET("/experiments/:exp/crux-features.csv", s.cruxFeaturesCSV, known(noParams), heavy)
	e.GET("/experiments/:exp/rwr.csv", s.rwrCSV, known(rwrParams), heavy)
	e.GET("/experiments/:exp/transfer.csv", s.transferCSV, known(transferParams), heavy)
	e.GET("/experiments/:exp/cycles.csv", s.cyclesCSV, known(cyclesParams), heavy)
	e.GET("/experiments/:exp/ranking.csv", s.rankingCSV, known(cyclesParams), heavy)
	e.GET("/judgments/:id", s.showJudgment, known(noParams))
}

// auditRoutes are the training runs', the audit browser's and the audits'.
func (s *Server) auditRoutes(e *echo.Echo, heavy echo.MiddlewareFunc) {
	e.GET("/runs/:run", s.showRun, known(runParams))
	e.GET("/runs/:run/figures/:file", figureTable{
		"curves":  {s.runCurvesFigure, runParams},
		"metric-": {s.runMetricFigure, runParams}, // metric-NAME, a training-time scalar
		"judges-": {s.runJudgesFigure, runParams}, // judges-N, the run page's N-th judge and dimension
	}.handler, heavy)
	e.GET("/runs/:run/checkpoints.csv", s.runCheckpointsCSV, known(runParams))
	e.GET("/runs/:run/metrics.csv", s.runMetricsCSV, known(noParams))
	e.GET("/runs/:run/strategies.csv", s.runStrategiesCSV, known(noParams))
	// The audit list sorts and filters tens of thousands of audits (70–200
	// ms on the demo): heavy work, in its turn.
	e.GET("/audits", s.listAudits, known(auditListParams), heavy)
	// The full export takes a slot per chunk it computes, not while it
	// writes to the client (audits_list.go).
	// (The list's CSV link carries the list's whole query.)
	e.GET("/audits.csv", s.auditsCSV, known(auditListParams))
	// Before /audits/:id (echo prefers the static path): an audit whose id is
	// "side-by-side" is still reached by its key, experiment:side-by-side.
	e.GET("/audits/side-by-side", s.showSideBySide, known(sideParams))
	e.GET("/audits/:id", s.showAudit, known(auditParams))
	e.GET("/audits/:id/transcript.json", s.auditTranscriptJSON, known(noParams))
}
