// Package views holds the templ components of every page. Components take
// typed view models and do no lookups of their own.
package views

import (
	"net/url"
	"strings"

	"github.com/a-h/templ"
)

// Path joins path segments under the root, escaping each, so ids from
// imported files can never change a link's shape.
func Path(segments ...string) templ.SafeURL {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return templ.SafeURL(b.String())
}

// PathQuery is Path with a query string.
func PathQuery(q url.Values, segments ...string) templ.SafeURL {
	p := string(Path(segments...))
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	return templ.SafeURL(p)
}
