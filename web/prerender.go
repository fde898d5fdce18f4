package web

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/markdown"
)

// prerenderFrom is the number of markdown messages from which a page
// renders them ahead, on every core: below it, rendering in place is as
// fast.
const prerenderFrom = 64

// prerender renders the messages' markdown ahead of the page on every
// core (goldmark and chroma are safe for concurrent use): markdown is most
// of a long transcript's time. Which messages' code is coloured is decided
// first, in the page's order, from the page's budget, so the page is the
// same whichever goroutine renders what.
func prerender(msgs []views.MessageView, b *markdown.Budget) {
	var idx []int
	for i, m := range msgs {
		if m.Markdown {
			idx = append(idx, i)
		}
	}
	if len(idx) < prerenderFrom {
		return
	}
	plain := make([]bool, len(msgs))
	for _, i := range idx {
		plain[i] = !b.Take(markdown.FenceLines(msgs[i].Text))
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= len(idx) {
					return
				}
				i := idx[k]
				var mb *markdown.Budget // nil: its lines are taken already
				if plain[i] {
					mb = markdown.NewBudget(0)
				}
				msgs[i].HTML = markdown.RenderWithin(mb, msgs[i].Text)
			}
		})
	}
	wg.Wait()
}
