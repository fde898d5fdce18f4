package web

import (
	"bytes"
	"net/http"

	"github.com/auditscope/auditscope/views/figures"
	"github.com/labstack/echo/v4"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// writeFigure renders p into a buffer and sends it with the format's content
// type and a file name.
func writeFigure(c echo.Context, p *plot.Plot, w, h vg.Length, format, name string) error {
	var buf bytes.Buffer
	if err := figures.Write(&buf, p, w, h, format); err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", `inline; filename="`+name+"."+format+`"`)
	return c.Blob(http.StatusOK, figures.Formats[format], buf.Bytes())
}
