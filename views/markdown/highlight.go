package markdown

import (
	"bytes"
	"html"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// formatter writes CSS classes, never inline styles, so the page's
// content security policy (style-src 'self') stays strict; the classes'
// colours are static/chroma.css (CSS writes them).
var formatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.PreventSurroundingPre(true))

// Highlight renders code in lang as HTML spans with classes, escaped; a
// language chroma does not know, or none, is the code escaped as it is.
func Highlight(code, lang string) string {
	lexer := lexers.Get(strings.ToLower(lang))
	if lang == "" || lexer == nil {
		return escape(code)
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err != nil {
		return html.EscapeString(code)
	}
	var b bytes.Buffer
	if err := formatter.Format(&b, styles.Get("github"), it); err != nil {
		return html.EscapeString(code)
	}
	return b.String()
}

// CSS is the stylesheet of Highlight's classes (the GitHub colours).
func CSS() string {
	var b bytes.Buffer
	formatter.WriteCSS(&b, styles.Get("github"))
	return b.String()
}

func escape(code string) string { return html.EscapeString(code) }
