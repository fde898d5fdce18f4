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
	e.GET("/static/*", echo.WrapHandler(http.StripPrefix("/static/", http.FileServer(http.FS(static.FS)))))
}
