package web

import (
	"bytes"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// render writes a component through a buffer, so a failed render becomes a
// clean error instead of half a page.
func render(c echo.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.Blob(status, echo.MIMETextHTMLCharsetUTF8, buf.Bytes())
}

// csvBlob sends CSV with a download file name.
func csvBlob(c echo.Context, name string, body []byte) error {
	c.Response().Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", body)
}
