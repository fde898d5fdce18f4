package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserNoSidewaysScroll opens one page of every type of the demo in a
// 1,280 px wide window: none may scroll the page sideways, and no table may
// hide columns inside its own box, except a matrix too wide for any screen
// (data-scrolls), which must say so just above it, be reachable by keyboard
// and keep its row labels in place.
func TestBrowserNoSidewaysScroll(t *testing.T) {
	// Independent of the other tests (a server of its own on the
	// read-only demo): run beside them, on the other core.
	t.Parallel()
	ctx, base := browser(t)
	step(t, ctx, "viewport", chromedp.EmulateViewport(1280, 900))
	// One comparison page, as its list links it.
	step(t, ctx, "comparisons", chromedp.Navigate(base+"/pairs/synthetic-personality-demo/comparisons"), chromedp.WaitReady(chromedp.CSS("body")))
	comparison := eval[string](t, ctx, `new URL(document.querySelector('a[href*="/comparisons/"]').href).pathname`)
	for _, p := range []string{
		comparison,
		"/",
		"/experiments/demo",
		"/experiments/demo?reward=binary_pointwise&cal=0.5",
		"/experiments/demo/crux",
		"/experiments/demo/rwr",
		"/experiments/demo/transfer",
		"/experiments/demo/cycles",
		"/experiments/demo/judgments",
		"/runs/demo:binary-pointwise",
		"/runs/demo:ref-pairwise-cal50",
		"/audits?exp=demo",
		"/audits/demo:a-000001",
		"/pairs/synthetic-personality-demo",
		"/pairs/synthetic-personality-demo?split=topic&ci=1",
		"/pairs/synthetic-personality-demo?mode=models&ci=1",
		"/pairs/synthetic-personality-demo/models",
		"/pairs/synthetic-personality-demo/compare",
		"/experiments/demo/compare?a=binary-pointwise%40e3&b=binary-pointwise%40e1&b=gemini-3.1-pro",
		"/audits?exp=demo&cols=auditor_failure,concerning,unprompted_deception_toward_user",
		"/pairs/synthetic-personality-demo/comparisons",
		"/pairs/icai-example-v2-40-principles",
		"/audits/petri:petri-rollback-01",
		"/judgments/demo:j-000001",
		"/experiments/demo/compare/units?a=binary-pointwise%40e3&b=binary-pointwise%40e1&dim=composite",
		"/audits/side-by-side?a=demo:a-013596&b=demo:a-011434",
	} {
		step(t, ctx, "open "+p, chromedp.Navigate(base+p), chromedp.WaitReady(chromedp.CSS("body")))
		if title := eval[string](t, ctx, `document.title`); strings.HasPrefix(title, "Not found") || strings.HasPrefix(title, "Bad request") {
			t.Errorf("%s: %s", p, title)
		}
		sw := eval[float64](t, ctx, `document.documentElement.scrollWidth`)
		iw := eval[float64](t, ctx, `window.innerWidth`)
		if sw > iw {
			t.Errorf("%s scrolls sideways: %v px wide in a %v px window", p, sw, iw)
		}
		for _, bad := range eval[[]string](t, ctx, hiddenColumnsJS) {
			t.Errorf("%s: %s", p, bad)
		}
	}
}

// hiddenColumnsJS lists the page's tables that hide columns: wider than
// their box, unless a declared matrix (data-scrolls) with its note, a
// keyboard stop and a pinned first column.
const hiddenColumnsJS = `Array.from(document.querySelectorAll('table.data')).flatMap(t => {
	const name = t.dataset.testid || t.querySelector('th') && t.querySelector('th').textContent.trim() || 'a table';
	if (t.scrollWidth <= t.clientWidth + 1) return [];
	if (!t.hasAttribute('data-scrolls')) return [name + ' hides ' + (t.scrollWidth - t.clientWidth) + ' px of columns'];
	const out = [];
	const box = t.closest('.scroll') || t;
	const note = box.previousElementSibling;
	if (!note || !note.classList.contains('scroll-note')) out.push(name + ' scrolls without saying so');
	if (t.tabIndex !== 0) out.push(name + ' scrolls but cannot be reached by keyboard');
	const first = t.querySelector('tbody td, tbody th');
	if (!first || getComputedStyle(first).position !== 'sticky') out.push(name + ' scrolls its row labels away');
	return out;
})`

// TestBrowserTabStops (issue #50): the experiment page's tab stops stay
// near one a row (821 before: every cell of the scores and judge tables was
// one; 177 now, over the 150: the judge table's 38 dimension links
// and the scores table's 58 auditor links remain), and a skip link takes the
// keyboard past the scores table to the figures.
func TestBrowserTabStops(t *testing.T) {
	// Independent of the other tests (a server of its own on the
	// read-only demo): run beside them, on the other core.
	t.Parallel()
	ctx, base := browser(t)
	step(t, ctx, "open the overview", chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(base+"/experiments/demo"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="scores-table"]`)))
	n := eval[int](t, ctx, `Array.prototype.filter.call(document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]'),
		function (e) { return e.tabIndex >= 0 && !e.disabled && e.checkVisibility(); }).length`)
	if n > 150 {
		t.Errorf("%d tab stops, want at most 150", n)
	}
	t.Logf("%d tab stops", n)
	byKind := eval[string](t, ctx, `(function(){ var c = {}; Array.prototype.filter.call(document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]'),
		function (e) { return e.tabIndex >= 0 && !e.disabled && e.checkVisibility(); }).forEach(function (e) {
		var k = e.tagName + ' ' + (e.closest('[data-testid]') ? e.closest('[data-testid]').getAttribute('data-testid') : ''); c[k] = (c[k] || 0) + 1; });
		return JSON.stringify(c); })()`)
	t.Logf("by kind: %s", byKind)
	// The scores table is one stop: the arrow keys move between its rows'
	// auditors, End to the last, Home back to the first.
	first := eval[string](t, ctx, `document.querySelector('[data-testid="scores-table"] [data-row-link]').textContent`)
	last := eval[string](t, ctx, `(function(){ var l = document.querySelectorAll('[data-testid="scores-table"] [data-row-link]'); return l[l.length-1].textContent; })()`)
	second := eval[string](t, ctx, `document.querySelectorAll('[data-testid="scores-table"] [data-row-link]')[1].textContent`)
	step(t, ctx, "focus the scores table", chromedp.Focus(`[data-testid="scores-table"]`))
	for _, k := range []struct{ key, want string }{{kb.ArrowDown, first}, {kb.ArrowDown, second}, {kb.End, last}, {kb.Home, first}} {
		step(t, ctx, "press a key", chromedp.KeyEvent(k.key))
		if got := eval[string](t, ctx, `document.activeElement.textContent`); got != k.want {
			t.Errorf("after a key: focus on %q, want %q", got, k.want)
		}
	}
	if eval[string](t, ctx, `document.querySelector('[data-testid="skip-figures"]').getAttribute('href')`) != "#figures" ||
		!eval[bool](t, ctx, `!!document.getElementById('figures')`) {
		t.Error("no skip link to the figures")
	}
}
