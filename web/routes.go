package web

import (
	"net/http"

	"github.com/auditscope/auditscope/static"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// routes is the map of the app: every route is listed here.
func (s *Server) routes(e *echo.Echo) {
	e.Use(middleware.Recover())
	e.Use(securityHeaders)
	e.Use(limitQuery)
	if s.cache != nil {
		e.Use(s.cache.middleware)
	}
	e.Use(middleware.BodyLimit("1M"))

	e.GET("/", s.showHome)

	// AnnotatedPairs explorer.
	e.GET("/pairs/:dataset/table.csv", s.pairsTableCSV)
	e.GET("/pairs/:dataset/figures/:file", s.pairsFigureFile)
	e.GET("/pairs/:dataset/models", s.showPairsModels)
	e.GET("/pairs/:dataset/models.csv", s.pairsModelsCSV)
	e.GET("/pairs/:dataset/ranking.csv", s.pairsRankingCSV)
	e.GET("/pairs/:dataset/cycles.csv", s.pairsCyclesCSV)
	e.GET("/pairs/:dataset", s.showPairs)
	e.GET("/pairs/:dataset/annotators.csv", s.pairsAnnotatorsCSV)
	e.GET("/pairs/:dataset/overview.csv", s.pairsOverviewCSV)
	e.GET("/pairs/:dataset/comparisons", s.listPairComparisons)
	e.GET("/pairs/:dataset/comparisons/:id", s.showPairComparison)

	// Experiments and audits.
	e.GET("/experiments/:exp", s.showExperiment)
	e.GET("/experiments/:exp/scores.csv", s.experimentScoresCSV)
	e.GET("/experiments/:exp/figures/:file", s.experimentFigureFile)
	e.GET("/experiments/:exp/crux", s.showCrux)
	e.GET("/experiments/:exp/rwr", s.showRWR)
	e.GET("/experiments/:exp/transfer", s.showTransfer)
	e.GET("/experiments/:exp/cycles", s.showCycles)
	e.GET("/experiments/:exp/judgments", s.listJudgments)
	e.GET("/experiments/:exp/judgments.csv", s.judgmentsCSV)
	e.GET("/experiments/:exp/correlations.csv", s.correlationsCSV)
	e.GET("/experiments/:exp/crux.csv", s.cruxCSV)
	e.GET("/experiments/:exp/crux-features.csv", s.cruxFeaturesCSV)
	e.GET("/experiments/:exp/rwr.csv", s.rwrCSV)
	e.GET("/experiments/:exp/transfer.csv", s.transferCSV)
	e.GET("/experiments/:exp/cycles.csv", s.cyclesCSV)
	e.GET("/experiments/:exp/ranking.csv", s.rankingCSV)
	e.GET("/judgments/:id", s.showJudgment)
	e.GET("/runs/:run", s.showRun)
	e.GET("/runs/:run/figures/:file", s.runFigure)
	e.GET("/runs/:run/checkpoints.csv", s.runCheckpointsCSV)
	e.GET("/runs/:run/metrics.csv", s.runMetricsCSV)
	e.GET("/runs/:run/strategies.csv", s.runStrategiesCSV)
	e.GET("/audits", s.listAudits)
	e.GET("/audits.csv", s.auditsCSV)
	e.GET("/audits/:id", s.showAudit)
	e.GET("/audits/:id/transcript.json", s.auditTranscriptJSON)
	e.GET("/static/*", echo.WrapHandler(http.StripPrefix("/static/", http.FileServer(http.FS(static.FS)))))
}
