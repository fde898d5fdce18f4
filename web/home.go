package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/auditscope/auditscope/views"
	"github.com/labstack/echo/v4"
)

func (s *Server) showHome(c echo.Context) error {
	sum, err := s.store.Summary(c.Request().Context())
	if err != nil {
		return err
	}
	var problems []views.WatchProblem
	if s.cfg.Problems != nil {
		problems = s.cfg.Problems()
	}
	return render(c, http.StatusOK, views.Home(sum, problems))
}

// generation answers the live pages' poll: the data's version and when it
// last changed. It reads two numbers and takes no lock, so polling costs
// nothing while the data stands still.
func (s *Server) generation(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, map[string]any{"version": s.version(), "changed": s.store.ChangedAt().Format(time.RFC3339)})
}

// consistent makes a request read one state of the data: it holds the
// store's View (imports land only between requests) and carries the data's
// version for the page footer and the live pages' poll. Static files and
// the poll itself need neither.
func (s *Server) consistent(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		p := c.Request().URL.Path
		if p == "/api/generation" || strings.HasPrefix(p, "/static/") {
			return next(c)
		}
		release := s.store.View()
		defer release()
		req := c.Request()
		c.SetRequest(req.WithContext(views.WithFreshness(req.Context(), views.Freshness{Version: s.version(), Changed: s.store.ChangedAt()})))
		return next(c)
	}
}
