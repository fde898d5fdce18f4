package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserSVGOpensAlone opens one SVG of each figure kind on its own, as
// a reader does who follows a figure's SVG link: every fill the figure
// declares must be the one the browser draws. Under the pages' own
// Content-Security-Policy (style-src 'self') the figures' style attributes
// were refused and every fill fell back to black.
// Every text of the figure must lie inside it, as the browser lays it out
// (a label ran off the intransitivity graph, the heat map's scale label off
// its right edge).
func TestBrowserSVGOpensAlone(t *testing.T) {
	ctx, base := browser(t)
	const ds = "/pairs/synthetic-personality-demo/figures/"
	for _, u := range []string{
		"/experiments/demo/figures/scores.svg", "/experiments/demo/figures/crux-composite.svg",
		"/experiments/demo/figures/rwr.svg", "/experiments/demo/figures/transfer.svg",
		"/experiments/demo/figures/cycles.svg", "/experiments/demo/figures/cycles.svg?kind=intragroup&max=4", "/experiments/demo/figures/dose.svg",
		"/experiments/demo/figures/refresh.svg",
		"/experiments/demo/figures/compare.svg?a=ref-pairwise-cal25%40e3&b=ref-pairwise-cal25%40e1",
		"/runs/demo:ref-pairwise-cal50/figures/curves.svg", "/runs/demo:ref-pairwise-cal50/figures/metric-reward.svg",
		ds + "strength.svg", ds + "heatmap.svg", ds + "heatmap.svg?split=topic", ds + "length.svg", ds + "models.svg",
	} {
		step(t, ctx, "open "+u, chromedp.Navigate(base+u), chromedp.WaitReady(chromedp.CSS("svg")))
		raw := eval[string](t, ctx, `(() => {
			const hex = h => "rgb(" + [0, 2, 4].map(i => parseInt(h.slice(i, i + 2), 16)).join(", ") + ")";
			let n = 0; const bad = [];
			for (const el of document.querySelectorAll('[style*="fill:#"]')) {
				const m = el.getAttribute("style").match(/fill:#([0-9a-fA-F]{6})/);
				if (!m) continue;
				n++;
				const got = getComputedStyle(el).fill, want = hex(m[1]);
				if (got !== want) bad.push(el.tagName + " drawn " + got + ", declared " + want);
			}
			return JSON.stringify({n, bad});
		})()`)
		var got struct {
			N   int
			Bad []string
		}
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			t.Fatal(err)
		}
		if got.N == 0 {
			t.Errorf("%s: no declared fill to check", u)
		}
		if len(got.Bad) > 0 {
			t.Errorf("%s: %d of %d fills not drawn as declared, e.g. %v", u, len(got.Bad), got.N, got.Bad[:min(3, len(got.Bad))])
		}
		for _, out := range eval[[]string](t, ctx, textOutsideJS) {
			t.Errorf("%s: %s", u, out)
		}
	}
}

// textOutsideJS lists the texts of the open SVG that reach past its edges
// (a quarter pixel of rounding allowed).
const textOutsideJS = `(() => {
	const R = document.querySelector('svg').getBoundingClientRect();
	return Array.from(document.querySelectorAll('text')).flatMap(t => {
		const b = t.getBoundingClientRect(), e = 0.25;
		const out = [];
		if (b.left < R.left - e) out.push('left by ' + (R.left - b.left).toFixed(1) + ' px');
		if (b.right > R.right + e) out.push('right by ' + (b.right - R.right).toFixed(1) + ' px');
		if (b.top < R.top - e) out.push('top by ' + (R.top - b.top).toFixed(1) + ' px');
		if (b.bottom > R.bottom + e) out.push('bottom by ' + (b.bottom - R.bottom).toFixed(1) + ' px');
		return out.length ? ['"' + t.textContent.slice(0, 40) + '" runs off the ' + out.join(', ')] : [];
	});
})()`

// TestBrowserFigureHover: the pages show their figures as <object>s whose
// marks carry titles: on each page kind (bars, dots and whiskers, a heat
// map, a graph, a scatter, lines) every figure has titled shapes, and the
// shape under the middle of each is that shape, so the browser shows its
// title on hover; the overview's first bar row names the first auditor.
func TestBrowserFigureHover(t *testing.T) {
	// Independent of the other tests (a server of its own on the
	// read-only demo): run beside them, on the other core.
	t.Parallel()
	ctx, base := browser(t)
	for _, u := range []string{"/experiments/demo", "/pairs/synthetic-personality-demo", "/experiments/demo/cycles?kind=intragroup&max=4",
		"/experiments/demo/crux", "/runs/demo:ref-pairwise-cal50"} {
		step(t, ctx, "open "+u, chromedp.Navigate(base+u), chromedp.WaitReady(chromedp.CSS("object.figure")))
		// Wait until every figure's document has loaded.
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`[...document.querySelectorAll('object.figure')].every(o => o.contentDocument && o.contentDocument.querySelector('svg'))`,
			chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			t.Fatalf("%s: the figures did not load: %v", u, err)
		}
		raw := eval[string](t, ctx, `JSON.stringify([...document.querySelectorAll('object.figure')].map(o => {
			const d = o.contentDocument, shapes = [...d.querySelectorAll('g.hover > *')];
			const bad = shapes.filter(s => {
				const b = s.getBoundingClientRect();
				if (b.width === 0 && b.height === 0) return true;
				const hit = d.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
				return !hit || hit.closest('g.hover') === null || hit.querySelector('title') === null;
			}).length;
			return {src: o.data, n: shapes.length, bad, first: shapes.length ? shapes[0].querySelector('title').textContent : ""};
		}))`)
		var figs []struct {
			Src    string
			N, Bad int
			First  string
		}
		if err := json.Unmarshal([]byte(raw), &figs); err != nil {
			t.Fatal(err)
		}
		if len(figs) == 0 {
			t.Errorf("%s shows no figure", u)
		}
		for _, f := range figs {
			if f.N == 0 {
				t.Errorf("%s: %s has no titled marks", u, f.Src)
			}
			if f.Bad > 0 {
				t.Errorf("%s: %s: %d of %d titled shapes are not under the pointer at their middle", u, f.Src, f.Bad, f.N)
			}
			if strings.HasSuffix(f.Src, "/figures/scores.svg") && !strings.HasPrefix(f.First, "Claude Haiku 4.5: ") {
				t.Errorf("the scores figure's first row is titled %q", f.First)
			}
		}
	}
}
