package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

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

// TestSVGPolicy: an SVG figure may style itself and do nothing else; the
// page and the PNG keep the pages' policy.
func TestSVGPolicy(t *testing.T) {
	s := mustDemo(t)
	for u, want := range map[string]string{
		"/experiments/demo/figures/rwr.svg": svgPolicy,
		"/experiments/demo/figures/rwr.png": contentSecurityPolicy,
		"/experiments/demo/rwr":             contentSecurityPolicy,
	} {
		if got := mustGet(t, s, u, http.StatusOK, "").Header.Get("Content-Security-Policy"); got != want {
			t.Errorf("%s: Content-Security-Policy %q, want %q", u, got, want)
		}
	}
	if strings.Contains(svgPolicy, "script") || !strings.HasPrefix(svgPolicy, "default-src 'none'") {
		t.Errorf("the SVG policy %q allows more than styles", svgPolicy)
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
