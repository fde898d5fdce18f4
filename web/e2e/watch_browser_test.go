package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/auditscope/auditscope/data/watch"
)

// TestWatchBrowser: an open audit list shows a transcript dropped into the
// watched folder within seconds, without reloading the page.
func TestWatchBrowser(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab")
	os.Mkdir(dir, 0o755)
	copyFile(t, filepath.Join("..", "..", "data", "testdata", "petri", "legacy.json"), filepath.Join(dir, "legacy.json"))
	ctx, base := browserOn(t, func() http.Handler {
		s, _ := watchServer(t, dir, watch.Options{})
		return s.Handler()
	})
	step(t, ctx, "open the list", chromedp.Navigate(base+"/audits?exp=lab"), chromedp.WaitVisible(`[data-testid=audit-count]`))
	if got := eval[string](t, ctx, `document.querySelector("[data-testid=audit-count]").textContent`); got != "1 audit" {
		t.Fatalf("count before: %q", got)
	}
	// A mark that a reload would wipe.
	eval[bool](t, ctx, `window.stayed = true`)
	copyFile(t, filepath.Join("..", "..", "data", "testdata", "petri", "reset.json"), filepath.Join(dir, "reset.json"))
	deadline := time.Now().Add(time.Minute)
	for {
		got := eval[string](t, ctx, `document.querySelector("[data-testid=audit-count]").textContent`)
		if got == "1–2 of 2 audits" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the open page still says %q", got)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !eval[bool](t, ctx, `window.stayed === true`) {
		t.Error("the page was reloaded")
	}
	if got := eval[string](t, ctx, `document.querySelector("[data-testid=freshness]").textContent`); len(got) < 20 {
		t.Errorf("freshness line: %q", got)
	}
}
