package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserUnitsToSideBySide follows a researcher from "A beats B" to the
// transcripts: the compare page's AuditBench row, its units, the ones that
// differ, and the first such unit's audits side by side: in two columns
// that line up turn by turn at 1,280 px, stacked (A over B) in a narrow
// window, neither scrolling sideways.
func TestBrowserUnitsToSideBySide(t *testing.T) {
	ctx, base := browser(t)
	step(t, ctx, "viewport", chromedp.EmulateViewport(1280, 900))
	step(t, ctx, "compare", chromedp.Navigate(base+"/experiments/demo/compare?a=binary-pointwise%40e3&b=binary-pointwise%40e1"),
		chromedp.WaitReady(chromedp.CSS("body")))
	units := eval[string](t, ctx, `[...document.querySelectorAll('a[data-testid=compare-units]')].map(a => a.href).find(h => h.includes('dim=auditbench_stc'))`)
	if units == "" {
		t.Fatal("no units link on the AuditBench STC row")
	}
	step(t, ctx, "units", chromedp.Navigate(units), chromedp.WaitReady(chromedp.CSS("[data-testid=units-form]")))
	step(t, ctx, "discordant", chromedp.SetValue(chromedp.CSS("[data-testid=units-show]"), "discordant"),
		chromedp.Click(chromedp.CSS("[data-testid=units-form] button")))
	// The click starts a navigation; the new page is the one whose URL
	// carries the filter (an evaluation during the navigation may fail).
	pollUntil(t, "the filtered page", func() bool {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && location.search.includes("show=")`))
		return err == nil && ok
	})
	if u := eval[string](t, ctx, `location.search`); !strings.Contains(u, "show=discordant") || strings.Contains(u, "sort=") {
		t.Errorf("the form's URL %q: want show=discordant and no default sort", u)
	}
	if n := eval[int](t, ctx, `[...document.querySelectorAll('[data-testid=units-table] tbody tr')].filter(r => !/detected by [AB] only/.test(r.textContent)).length`); n != 0 {
		t.Errorf("%d rows that are not discordant", n)
	}
	step(t, ctx, "side by side", chromedp.Click(chromedp.CSS("[data-testid=units-side-by-side]")), chromedp.WaitReady(chromedp.CSS("[data-testid=sbs-transcripts]")))
	// The layout is measured once the page has loaded, its style sheet
	// with it: under a busy CI the cells were measured unstyled, stacked.
	pollUntil(t, "the side-by-side page loaded", func() bool {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && location.pathname.endsWith("/side-by-side")`))
		return err == nil && ok
	})
	type box struct{ Left, Right, Top, Bottom float64 }
	cells := func() (box, box) {
		b := eval[[]box](t, ctx, `[...document.querySelectorAll('.sbs-turn')][1].querySelectorAll('.sbs-cell').values().map(c => { const r = c.getBoundingClientRect(); return {Left: r.left, Right: r.right, Top: r.top, Bottom: r.bottom}; }).toArray()`)
		if len(b) != 2 {
			t.Fatalf("%d cells in a turn", len(b))
		}
		return b[0], b[1]
	}
	noSideways := func(what string) {
		if sw, iw := eval[float64](t, ctx, `document.documentElement.scrollWidth`), eval[float64](t, ctx, `window.innerWidth`); sw > iw {
			t.Errorf("%s: scrolls sideways, %v px in %v", what, sw, iw)
		}
	}
	a, b := cells()
	if a.Top != b.Top || b.Left < a.Right {
		t.Errorf("at 1,280 px the turn's cells are not side by side: A %+v, B %+v", a, b)
	}
	noSideways("1,280 px")
	step(t, ctx, "narrow", chromedp.EmulateViewport(700, 900))
	a, b = cells()
	if b.Top < a.Bottom || b.Left != a.Left {
		t.Errorf("at 700 px the turn's cells are not stacked: A %+v, B %+v", a, b)
	}
	noSideways("700 px")
	// A message's permalink lands on its side of this page.
	link := eval[string](t, ctx, `document.querySelector('.sbs-cell[data-side=B] .msg .head a').href`)
	if !strings.Contains(link, "/audits/side-by-side?") || !strings.Contains(link, "#m-B-") {
		t.Errorf("B's message permalink %q", link)
	}
}
