// Package markdown renders the text of transcript messages as people write
// it (bold, lists, code fences, tables) into HTML that is safe to put in a
// page: raw HTML in a message is shown as the text it is, never run or
// dropped; links carry rel="noopener nofollow ugc"; images are links, not
// fetched (a message must not make the reader's browser call out).
package markdown

import (
	"bytes"
	"html"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

var md = goldmark.New(
	// Tables, strikethrough and task lists; not Linkify: a bare URL stays
	// text, as the model wrote it.
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList),
	// A line break in a message is one: models and people write lines.
	goldmark.WithRendererOptions(gmhtml.WithHardWraps(), renderer.WithNodeRenderers(util.Prioritized(inert{}, 100))),
	goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(links{}, 100))),
)

// Render renders text as markdown to safe HTML.
func Render(text string) string { return RenderWithin(nil, text) }

// RenderWithin renders text as markdown, its code coloured within the
// page's budget (nil: no bound).
func RenderWithin(budget *Budget, text string) string {
	var b bytes.Buffer
	pc := parser.NewContext()
	pc.Set(budgetCtxKey, budget)
	if err := md.Convert([]byte(text), &b, parser.WithContext(pc)); err != nil {
		// The renderer writes to memory and does not fail on any input;
		// should it, the text as text is the safe answer.
		return "<p>" + html.EscapeString(text) + "</p>"
	}
	return b.String()
}

// Looks reports whether text has markdown worth rendering: without any,
// the page keeps the text as written (pre-wrapped), which is cheaper and
// keeps runs of spaces.
func Looks(text string) bool {
	for _, s := range []string{"**", "__", "`", "# ", "\n- ", "\n* ", "\n1. ", "|", "](", "~~", "\n> "} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return strings.HasPrefix(text, "- ") || strings.HasPrefix(text, "* ") || strings.HasPrefix(text, "# ") || strings.HasPrefix(text, "> ")
}

// links marks every link as the reader's own choice to follow, and makes
// every image a link to it.
type links struct{}

func (links) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	src := reader.Source()
	var images []*ast.Image
	var unsafe []*ast.Link
	var fences []*ast.FencedCodeBlock
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			if gmhtml.IsDangerousURL(n.Destination) {
				unsafe = append(unsafe, n)
			}
			n.SetAttributeString("rel", []byte("noopener nofollow ugc"))
		case *ast.Image:
			images = append(images, n)
		case *ast.FencedCodeBlock:
			fences = append(fences, n)
		}
		return ast.WalkContinue, nil
	})
	// A javascript: (or vbscript:, file:, non-image data:) link is no link:
	// it shows as the text that was written.
	for _, l := range unsafe {
		lit := "[" + string(l.Text(src)) + "](" + string(l.Destination) + ")"
		l.Parent().ReplaceChild(l.Parent(), l, ast.NewString([]byte(lit)))
	}
	// Each fence is coloured now, in the page's order, within the budget;
	// the renderer writes what this left on it.
	budget, _ := pc.Get(budgetCtxKey).(*Budget)
	for _, f := range fences {
		h, ok := HighlightWithin(budget, fenceCode(f, src), string(f.Language(src)))
		f.SetAttribute(highlightedAttr, h)
		if !ok {
			f.SetAttribute(plainAttr, true)
		}
	}
	for _, img := range images {
		link := ast.NewLink()
		link.Destination, link.Title = img.Destination, img.Title
		link.SetAttributeString("rel", []byte("noopener nofollow ugc"))
		alt := "image"
		if t := strings.TrimSpace(string(img.Text(src))); t != "" {
			alt = "image: " + t
		}
		link.AppendChild(link, ast.NewString([]byte(alt)))
		img.Parent().ReplaceChild(img.Parent(), img, link)
	}
}

// Attribute names a fence's HTML travels under from the transformer to the
// renderer (never rendered as attributes: the renderer writes its own).
var (
	highlightedAttr = []byte("auditscope-highlighted")
	plainAttr       = []byte("auditscope-plain")
)

// NotColoured is what an uncoloured block says on hover.
const NotColoured = "Not coloured: a page colours its first 1,000 lines of code"

// fenceCode is a fenced block's code.
func fenceCode(b *ast.FencedCodeBlock, src []byte) string {
	var code strings.Builder
	lines := b.Lines()
	for i := range lines.Len() {
		s := lines.At(i)
		code.Write(s.Value(src))
	}
	return code.String()
}

// inert renders raw HTML, inline or as a block, as the text it is.
type inert struct{}

func (inert) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	r.Register(ast.KindRawHTML, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			segs := n.(*ast.RawHTML).Segments
			for i := range segs.Len() {
				s := segs.At(i)
				w.WriteString(html.EscapeString(string(s.Value(src))))
			}
		}
		return ast.WalkSkipChildren, nil
	})
	// Fenced code in the language it names, highlighted by class.
	r.Register(ast.KindFencedCodeBlock, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		b := n.(*ast.FencedCodeBlock)
		lang := string(b.Language(src))
		h, ok := b.Attribute(highlightedAttr)
		if !ok {
			h = Highlight(fenceCode(b, src), lang)
		}
		if _, plain := b.Attribute(plainAttr); plain {
			w.WriteString(`<pre class="chroma nohl" title="` + NotColoured + `"><code`)
		} else {
			w.WriteString(`<pre class="chroma"><code`)
		}
		if lang != "" {
			w.WriteString(` class="language-` + html.EscapeString(lang) + `"`)
		}
		w.WriteString(">" + h.(string) + "</code></pre>\n")
		return ast.WalkSkipChildren, nil
	})
	r.Register(ast.KindHTMLBlock, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		b := n.(*ast.HTMLBlock)
		w.WriteString("<p>")
		lines := b.Lines()
		for i := range lines.Len() {
			s := lines.At(i)
			w.WriteString(strings.ReplaceAll(html.EscapeString(strings.TrimRight(string(s.Value(src)), "\n")), "\n", "<br>"))
			if i < lines.Len()-1 {
				w.WriteString("<br>\n")
			}
		}
		if b.HasClosure() {
			c := b.ClosureLine
			w.WriteString("<br>\n" + html.EscapeString(strings.TrimRight(string(c.Value(src)), "\n")))
		}
		w.WriteString("</p>\n")
		return ast.WalkSkipChildren, nil
	})
}
