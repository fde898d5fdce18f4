package markdown

import (
	"context"
	"crypto/sha256"
	"strings"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/yuin/goldmark/parser"
)

// Highlighting is the one slow part of a transcript's page: chroma lexes
// about 20,000 lines of code a second on this machine, so a page of 2,000
// messages each with a code fence took 320 ms. Two things keep a page
// fast: code highlighted once is kept (the same tool call's code is on the
// combined and the target views, in every branch and beside another audit),
// and a page colours at most Budget lines of code it has not coloured
// before; the rest is shown as written, in monospace, saying why.

// BudgetLines is how many lines of new code one page colours.
const BudgetLines = 1000

// Budget is what is left of a page's highlighting; safe for the goroutines
// of one render.
type Budget struct {
	mu    sync.Mutex
	lines int
}

// NewBudget is a page's budget of lines.
func NewBudget(lines int) *Budget { return &Budget{lines: lines} }

// Take spends n lines, reporting whether there were that many left.
func (b *Budget) Take(n int) bool { return b.take(n) }

// take spends n lines, reporting whether there were that many left.
func (b *Budget) take(n int) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.lines {
		b.lines = 0 // later, smaller blocks are not coloured either: the page reads in order
		return false
	}
	b.lines -= n
	return true
}

type budgetKey struct{}

// WithBudget gives a render a budget.
func WithBudget(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// BudgetFrom is a render's budget, nil (no bound) when it has none.
func BudgetFrom(ctx context.Context) *Budget {
	b, _ := ctx.Value(budgetKey{}).(*Budget)
	return b
}

// highlighted keeps code already highlighted, by language and content.
// Only blocks of up to cacheMax bytes are kept: at most cacheEntries of
// them, whose HTML is a few times their size, so tens of MB at worst.
const (
	cacheEntries = 2048
	cacheMax     = 8 << 10
)

var highlighted, _ = lru.New[[32]byte, string](cacheEntries)

func cacheKey(code, lang string) [32]byte {
	return sha256.Sum256([]byte(strings.ToLower(lang) + "\x00" + code))
}

// HighlightWithin highlights code when it is kept or the budget has its
// lines; ok is false (and the code escaped as written) when it has not.
func HighlightWithin(b *Budget, code, lang string) (out string, ok bool) {
	if lang == "" {
		return Highlight(code, lang), true
	}
	if len(code) <= cacheMax {
		if h, ok := highlighted.Get(cacheKey(code, lang)); ok {
			return h, true
		}
	}
	lines := strings.Count(code, "\n")
	if !strings.HasSuffix(code, "\n") {
		lines++
	}
	if !b.take(lines) {
		return escape(code), false
	}
	h := Highlight(code, lang)
	if len(code) <= cacheMax {
		highlighted.Add(cacheKey(code, lang), h)
	}
	return h, true
}

var budgetCtxKey = parser.NewContextKey()

// Forget empties the kept highlighting: a benchmark of a page's first view
// starts from nothing.
func Forget() { highlighted.Purge() }

// FenceLines counts the lines of text inside fenced code blocks (``` or
// ~~~ at a line's start), as a page decides ahead of rendering whether a
// message's code is coloured.
func FenceLines(text string) int {
	n := 0
	fence := ""
	for line := range strings.Lines(text) {
		t := strings.TrimLeft(line, " ")
		switch {
		case fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			fence = t[:3]
		case fence != "" && strings.HasPrefix(t, fence):
			fence = ""
		case fence != "":
			n++
		}
	}
	return n
}
