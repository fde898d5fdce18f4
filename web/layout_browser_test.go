package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserNoSidewaysScroll opens one page of every type of the demo in a
// 1,280 px wide window: none may scroll the page sideways (a wide table
// scrolls inside its own container instead).
func TestBrowserNoSidewaysScroll(t *testing.T) {
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
		"/pairs/synthetic-personality-demo/models",
		"/pairs/synthetic-personality-demo/comparisons",
		"/pairs/icai-example-v2-40-principles",
		"/audits/petri:petri-rollback-01",
		"/judgments/demo:j-000001",
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
	}
}
