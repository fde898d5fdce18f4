package e2e

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserFoldedBlocks (issue #50): at 1,280 px no message text, tool
// argument or output block of the docent log's samples is taller than
// about 1,200 px until it is unfolded (a 5,950 px `strings` output was).
func TestBrowserFoldedBlocks(t *testing.T) {
	s := inspectServer(t)
	ids := regexp.MustCompile(`href="/audits/(docent-sample\.eval:[^"?#]*)`).FindAllStringSubmatch(
		mustGet(t, s, "/audits?exp=docent-sample.eval", http.StatusOK, "text/html").Body, -1)
	if len(ids) < 10 {
		t.Fatalf("%d samples listed", len(ids))
	}
	ctx, base := browserOn(t, s.Handler)
	step(t, ctx, "window", chromedp.EmulateViewport(1280, 900))
	tallest, where := 0.0, ""
	for _, m := range ids {
		step(t, ctx, "open "+m[1], chromedp.Navigate(base+"/audits/"+m[1]), chromedp.WaitVisible(`[data-testid="transcript"]`))
		// A folded block's whole text is inside its closed <details>, laid
		// out but not shown: only what is visible counts.
		h := eval[float64](t, ctx, `Math.max(0, ...Array.from(document.querySelectorAll('[data-testid="message"] .body, [data-testid="message"] pre')).filter(function (e) { return e.checkVisibility(); }).map(function (e) { return e.getBoundingClientRect().height; }))`)
		if h > tallest {
			tallest, where = h, m[1]
		}
	}
	t.Logf("tallest block: %.0f px (%s)", tallest, where)
	if tallest > 1250 {
		t.Errorf("a block of %s is %.0f px tall, want at most about 1,200 until unfolded", where, tallest)
	}
}
