package web

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/static"
)

// unescapeParams hands handlers their path parameters decoded. Echo routes
// on the raw path when a request's path holds an escaped character that
// decoding would change, %2F above all (an audit id such as run1/sample-3,
// a metric such as train/loss, linked by package links as one escaped segment),
// and then leaves the parameters escaped; without one it routes on the
// decoded path. Either way a handler now sees the id as it is stored.
func unescapeParams(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Request().URL.RawPath == "" {
			return next(c)
		}
		vals := c.ParamValues()
		out := make([]string, len(vals))
		for i, v := range vals {
			u, err := url.PathUnescape(v)
			if err != nil {
				return badRequestf("the path segment %q is not validly escaped", v)
			}
			out[i] = u
		}
		c.SetParamValues(out...)
		return next(c)
	}
}

// noNUL keeps NUL bytes out of every text response: a transcript or a
// dataset may hold an escaped \u0000, which HTML escaping passes through,
// and browsers and spreadsheets treat a NUL each in their own way. It is
// replaced by U+FFFD, as an HTML parser would.
func noNUL(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		res := c.Response()
		res.Writer = &nulFreeWriter{ResponseWriter: res.Writer}
		return next(c)
	}
}

type nulFreeWriter struct{ http.ResponseWriter }

var replacement = []byte("\uFFFD")

func (w *nulFreeWriter) Write(b []byte) (int, error) {
	if bytes.IndexByte(b, 0) < 0 || !textual(w.Header().Get(echo.HeaderContentType)) {
		return w.ResponseWriter.Write(b)
	}
	if _, err := w.ResponseWriter.Write(bytes.ReplaceAll(b, []byte{0}, replacement)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Unwrap lets http.ResponseController reach Flush through the wrapper.
func (w *nulFreeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes a streaming response's flush on.
func (w *nulFreeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// textual reports whether a content type is text a person reads (HTML,
// CSV, JSON, SVG, plain text), not an image or a PDF.
func textual(ct string) bool {
	return strings.HasPrefix(ct, "text/") || strings.Contains(ct, "json") || strings.Contains(ct, "svg")
}

// headAsGet answers HEAD wherever GET answers (curl -I, link checkers):
// the request is routed as a GET and its body dropped. It runs before
// routing, which matches on the method.
func headAsGet(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Method != http.MethodHead {
			return next(c)
		}
		// net/http drops a HEAD response's body itself, but it reads the
		// method from this same request, now a GET.
		r.Method = http.MethodGet
		c.Response().Writer = headWriter{c.Response().Writer}
		return next(c)
	}
}

type headWriter struct{ http.ResponseWriter }

func (headWriter) Write(b []byte) (int, error) { return len(b), nil }

// serveStatic serves the embedded stylesheets and scripts: files only (no
// directory listing), and a missing file gets the app's 404 page.
func serveStatic(c echo.Context) error {
	name := c.Param("*")
	st, err := fs.Stat(static.FS, name)
	if err != nil || st.IsDir() || !fs.ValidPath(name) {
		return notFound(fmt.Sprintf("static file %q", name))
	}
	http.ServeFileFS(c.Response(), c.Request(), static.FS, name)
	return nil
}
