package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/web/app"
)

// badRequestf is a problem with the request the user can fix (a
// 400): the application layer's QueryError, whose message is shown as is.
func badRequestf(format string, args ...any) error {
	return app.Queryf(format, args...)
}

// notFound says which thing was not found.
func notFound(what string) error {
	return fmt.Errorf("%s: %w", what, model.ErrNotFound)
}

// streamError is a failure after a streamed response (a CSV export written
// as it is read) has started.
type streamError struct{ err error }

func (e *streamError) Error() string { return "streamed response failed: " + e.err.Error() }
func (e *streamError) Unwrap() error { return e.err }

// handleError maps every handler error to a status and a page. Only server
// errors are logged; users never see internal error text.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		var se *streamError
		if errors.As(err, &se) {
			// Too late for an error page. Aborting the connection makes
			// the client see a failed download instead of a file that
			// looks complete but is short.
			if c.Request().Context().Err() == nil {
				s.log.Error("streamed response failed", "method", c.Request().Method, "path", c.Request().URL.Path, "err", se.err)
			}
			panic(http.ErrAbortHandler)
		}
		return
	}
	var busy *busyError
	if errors.As(err, &busy) {
		s.refuse(c, busy)
		return
	}
	if errors.Is(err, context.Canceled) && c.Request().Context().Err() != nil {
		return // the client went away while its request waited
	}
	status := http.StatusInternalServerError
	title, msg := "Something went wrong", "The server could not show this page. The error has been logged."
	var br *app.QueryError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &br):
		status, title, msg = http.StatusBadRequest, "Bad request", queryErrorText(br)
	case errors.Is(err, model.ErrNotFound):
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
	if wantsText(c.Request()) {
		// A CSV or figure URL, or a client that takes no HTML (auditscope
		// export): the message on one line.
		c.String(status, title+": "+strings.Join(strings.Fields(msg), " ")+"\n")
		return
	}
	if err := render(c, status, views.ErrorPage(status, title, msg)); err != nil {
		s.log.Error("render error page", "err", err)
	}
}

// refuse answers a request the scheduler refused: expected under load, so
// not logged. The page asks again by itself.
func (s *Server) refuse(c echo.Context, busy *busyError) {
	retry := busy.RetryAfterSeconds()
	c.Response().Header().Set("Retry-After", strconv.Itoa(retry))
	if c.Request().Method == http.MethodHead {
		c.NoContent(http.StatusServiceUnavailable)
		return
	}
	if wantsText(c.Request()) {
		c.String(http.StatusServiceUnavailable, fmt.Sprintf("server busy, retry in %d s\n", retry))
		return
	}
	if err := render(c, http.StatusServiceUnavailable, views.BusyPage(retry)); err != nil {
		s.log.Error("render error page", "err", err)
	}
}
