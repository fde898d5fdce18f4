package web

import (
	"testing"
	"time"

	"github.com/auditscope/auditscope/web/internal/webtest"
	"github.com/labstack/echo/v4"
)

// mustEcho is a bare echo instance for building contexts in tests.
func mustEcho() *echo.Echo { return echo.New() }

// The shared helpers (web/internal/webtest), by the names the tests use.
type response = webtest.Response

var (
	contains = webtest.Contains
	csvRows  = webtest.CSVRows
	csvNum   = webtest.CSVNum
	near     = webtest.Near
)

func get(t testing.TB, s *Server, path string) response {
	t.Helper()
	return webtest.Get(t, s.Handler(), path)
}

// mustGet fetches path and checks the status and content type.
func mustGet(t testing.TB, s *Server, path string, status int, contentType string) response {
	t.Helper()
	return webtest.MustGet(t, s.Handler(), path, status, contentType)
}

func within[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	return webtest.Within(t, ch, d, what)
}

func pollUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	webtest.PollUntil(t, what, cond)
}
