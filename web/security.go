package web

import (
	"net/url"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// contentSecurityPolicy allows only our own scripts, styles, images and
// embedded figures (object-src: the SVG figures a page shows as <object>):
// no inline script, no third-party source, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'self'; frame-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// svgPolicy replaces contentSecurityPolicy on SVG figures: a browser applies
// a response's policy to an SVG opened on its own, and gonum/plot draws with
// style attributes, which style-src 'self' refuses (every fill then falls
// back to black), and embeds its font as a data: URL. The figure may style
// itself and use its own font, and nothing else: no script, no request
// anywhere. Our own pages may embed it (frame-ancestors 'self': a page
// shows its figures as <object>, so their marks' titles show on hover);
// no other site may.
const svgPolicy = "default-src 'none'; style-src 'unsafe-inline'; font-src data:; frame-ancestors 'self'"

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

// validText refuses a request whose query or path parameters are not valid
// UTF-8 once decoded (?eval=%ff, /experiments/%ff): every value is text a
// query binds or a page shows, and DuckDB refuses to bind such a string,
// which would otherwise surface as a server error. It runs after
// unescapeParams, on the parameters as handlers see them.
func validText(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		for k, vs := range c.QueryParams() {
			if !utf8.ValidString(k) {
				return badRequestf("a query parameter's name is not valid UTF-8 text (%q)", k)
			}
			for _, v := range vs {
				if !utf8.ValidString(v) {
					return badRequestf("%s: the value is not valid UTF-8 text (%q)", k, v)
				}
			}
		}
		names := c.ParamNames()
		for i, v := range c.ParamValues() {
			if utf8.ValidString(v) {
				continue
			}
			name := "path"
			if i < len(names) {
				name = names[i]
			}
			return badRequestf("the path segment %s is not valid UTF-8 text (%q)", name, v)
		}
		// A path no route matched has no parameters: its segments are
		// checked as they are, so its 404 page never shows broken text.
		if !utf8.ValidString(c.Request().URL.Path) {
			return badRequestf("the path is not valid UTF-8 text (%q)", c.Request().URL.Path)
		}
		return next(c)
	}
}
