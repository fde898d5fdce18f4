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
	e.Use(middleware.BodyLimit("1M"))

	e.GET("/", s.showHome)

	// AnnotatedPairs explorer.

	// Experiments and audits.
	e.GET("/experiments/:exp", s.showExperiment)
	e.GET("/experiments/:exp/scores.csv", s.experimentScoresCSV)
	e.GET("/experiments/:exp/figures/:file", s.experimentFigure)
	e.GET("/audits", s.listAudits)
	e.GET("/audits.csv", s.auditsCSV)
	e.GET("/audits/:id", s.showAudit)
	e.GET("/audits/:id/transcript.json", s.auditTranscriptJSON)
	e.GET("/static/*", echo.WrapHandler(http.StripPrefix("/static/", http.FileServer(http.FS(static.FS)))))
}
