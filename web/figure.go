package web

import (
	"bytes"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/auditscope/auditscope/views/figures"
)

// writeFigure renders p into a buffer and sends it with the format's content
// type and a file name.
func writeFigure(c echo.Context, p *plot.Plot, w, h vg.Length, format, name string) error {
	var buf bytes.Buffer
	if err := figures.Write(&buf, p, w, h, format); err != nil {
		return err
	}
	// The name is made safe for a file name and a quoted header value (a
	// metric may be called "train/loss" or hold a quote).
	c.Response().Header().Set("Content-Disposition", `inline; filename="`+figureStem(name)+"."+format+`"`)
	if format == "svg" {
		c.Response().Header().Set("Content-Security-Policy", svgPolicy)
		c.Response().Header().Set("X-Frame-Options", "SAMEORIGIN")
	}
	return c.Blob(http.StatusOK, figures.Formats[format], buf.Bytes())
}

// figureRoute draws one figure of a page in a format. arg is what follows
// the name of a figure family (crux-DIM, metric-NAME), "" for the others.
type figureRoute func(c echo.Context, arg, format string) error

// figureTable names a page's figure files: the key is the file name without
// its format, or a family's prefix ending in "-". routes.go lists each
// page's table, so every figure URL is listed there.
type figureTable map[string]figure

// figure is one figure of a table: how it is drawn, and the query
// parameters it reads (its page's).
type figure struct {
	draw   figureRoute
	params paramSet
}

// handler serves NAME.FORMAT from the table.
func (t figureTable) handler(c echo.Context) error {
	name := c.Param("file")
	ext := strings.TrimPrefix(path.Ext(name), ".")
	base := strings.TrimSuffix(name, path.Ext(name))
	if _, ok := figures.Formats[ext]; !ok {
		return notFound(fmt.Sprintf("figure %q (formats: png, svg, pdf)", name))
	}
	if f, ok := t[base]; ok && !strings.HasSuffix(base, "-") {
		if err := f.params.check(c); err != nil {
			return err
		}
		return f.draw(c, "", ext)
	}
	for key, f := range t {
		if arg, ok := strings.CutPrefix(base, key); ok && strings.HasSuffix(key, "-") && arg != "" {
			if err := f.params.check(c); err != nil {
				return err
			}
			return f.draw(c, arg, ext)
		}
	}
	names := make([]string, 0, len(t))
	for k := range t {
		if strings.HasSuffix(k, "-") {
			k += "NAME"
		}
		names = append(names, k)
	}
	slices.Sort(names)
	return notFound(fmt.Sprintf("figure %q (figures here: %s)", name, strings.Join(names, ", ")))
}
