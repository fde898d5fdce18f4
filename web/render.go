package web

import (
	"bytes"
	"maps"
	"net/http"
	"net/url"
	"strconv"

	"github.com/a-h/templ"
	"github.com/auditscope/auditscope/views/markdown"
	"github.com/labstack/echo/v4"
)

// render writes a component through a buffer, so a failed render becomes a
// clean error instead of half a page.
func render(c echo.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	// Each page colours at most markdown.BudgetLines lines of code it has
	// not coloured before (the one slow part of a long transcript).
	// A handler that spent some of it ahead (prerender) set it already.
	ctx := c.Request().Context()
	if markdown.BudgetFrom(ctx) == nil {
		ctx = markdown.WithBudget(ctx, markdown.NewBudget(markdown.BudgetLines))
	}
	if err := comp.Render(ctx, &buf); err != nil {
		return err
	}
	return c.Blob(status, echo.MIMETextHTMLCharsetUTF8, buf.Bytes())
}

// csvBlob sends CSV with a download file name.
func csvBlob(c echo.Context, name string, body []byte) error {
	c.Response().Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", body)
}

// pastLastPage redirects a request for a page past the end of a list of
// total items, per to a page, to the list's last page at its own URL (page
// 1 carries no page parameter), as a link to page 9 of a list that has
// shrunk to 8 should. It reports whether it did; q is the page's query.
func pastLastPage(c echo.Context, path string, q url.Values, page, total, per int) (bool, error) {
	last := max(1, (total+per-1)/per)
	if page <= last {
		return false, nil
	}
	q = maps.Clone(q)
	q.Set("page", strconv.Itoa(last))
	if last == 1 {
		q.Del("page")
	}
	target := path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	return true, c.Redirect(http.StatusSeeOther, target)
}
