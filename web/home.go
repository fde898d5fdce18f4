package web

import (
	"net/http"

	"github.com/auditscope/auditscope/views"
	"github.com/labstack/echo/v4"
)

func (s *Server) showHome(c echo.Context) error {
	sum, err := s.store.Summary(c.Request().Context())
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.Home(sum))
}
