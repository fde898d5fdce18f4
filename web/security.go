package web

import (
	"net/url"

	"github.com/labstack/echo/v4"
)

// contentSecurityPolicy allows only our own scripts, styles and images: no
// inline script, no third-party source, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// securityHeaders sets the headers every response carries.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		return next(c)
	}
}

// maxQueryLength caps a request's query string: every view's state fits in
// far less, and a longer one is an attempt to make the server work.
const maxQueryLength = 4096

// limitQuery rejects requests whose query string is too long.
func limitQuery(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if len(c.Request().URL.RawQuery) > maxQueryLength {
			return badRequestf("the query string is longer than %d bytes", maxQueryLength)
		}
		// Go's parser drops what it cannot read (a ";", a bad %-escape) and
		// the page would then ignore it silently: refuse it instead.
		if _, err := url.ParseQuery(c.Request().URL.RawQuery); err != nil {
			return badRequestf("the query string cannot be read (%v): separate parameters with & and escape values", err)
		}
		return next(c)
	}
}
