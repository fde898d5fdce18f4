package web

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/views"
	"github.com/labstack/echo/v4"
)

// badRequest is a problem with the request the user can fix; its message is
// shown as is.
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func badRequestf(format string, args ...any) error {
	return &badRequest{msg: fmt.Sprintf(format, args...)}
}

// notFound says which thing was not found.
func notFound(what string) error {
	return fmt.Errorf("%s: %w", what, data.ErrNotFound)
}

// handleError maps every handler error to a status and a page. Only server
// errors are logged; users never see internal error text.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status := http.StatusInternalServerError
	title, msg := "Something went wrong", "The server could not show this page. The error has been logged."
	var br *badRequest
	var he *echo.HTTPError
	switch {
	case errors.As(err, &br):
		status, title, msg = http.StatusBadRequest, "Bad request", br.msg
	case errors.Is(err, data.ErrNotFound):
		status, title, msg = http.StatusNotFound, "Not found", err.Error()
	case errors.As(err, &he):
		status = he.Code
		title = http.StatusText(he.Code)
		msg = fmt.Sprint(he.Message)
		if status >= 500 {
			msg = "The server could not show this page. The error has been logged."
		}
	}
	if status >= 500 {
		s.log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	}
	if c.Request().Method == http.MethodHead {
		c.NoContent(status)
		return
	}
	if err := render(c, status, views.ErrorPage(status, title, msg)); err != nil {
		s.log.Error("render error page", "err", err)
	}
}
