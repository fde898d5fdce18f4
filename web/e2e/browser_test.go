package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser starts headless Chromium against a test server of the demo. The
// test is skipped without Chromium, except in CI, where it must run.
func browser(t *testing.T) (context.Context, string) {
	t.Helper()
	return browserOn(t, func() http.Handler { return mustDemo(t).Handler() })
}

// browserOn is browser against the handler h makes (called only once
// Chromium is known to be there).
func browserOn(t *testing.T, h func() http.Handler) (context.Context, string) {
	t.Helper()
	if raceEnabled {
		// CI runs every browser test in its full pass; under the race
		// detector they would add a minute and watch only the server, which
		// the other tests drive as hard.
		t.Skip("browser tests run in the full pass, not under the race detector")
	}
	path, err := exec.LookPath("chromium")
	if err != nil {
		if path, err = exec.LookPath("chromium-browser"); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("CI needs Chromium for the browser tests (apt-get install chromium)")
			}
			t.Skip("Chromium not installed")
		}
	}
	srv := httptest.NewServer(h())
	t.Cleanup(srv.Close)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1300, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelC(); cancelA() })
	// The first Run starts the browser; it must not carry a timeout.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	return ctx, srv.URL
}

// step runs actions with a time limit.
func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(c, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// waitURL waits until the page's URL contains want: a click that navigates
// leaves the old page in place for a moment, so waiting for an element that
// both pages have is not enough.
func waitURL(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		loc, err := chromedp.Run(c, chromedp.Evaluate[string](`location.href`))
		cancel()
		if err == nil && strings.Contains(loc, want) {
			c, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := chromedp.Do(c, chromedp.WaitReady(chromedp.CSS(`body`))); err == nil {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the page never reached a URL containing %q", want)
}

// TestBrowserAuditFlow opens the audit browser, filters, follows an audit
// link, clicks a highlight, and checks the URL and the marked message.
func TestBrowserAuditFlow(t *testing.T) {
	ctx, base := browser(t)
	step(t, ctx, "open the audit browser",
		chromedp.Navigate(base+"/audits?exp=small"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="audit-table"]`)))
	step(t, ctx, "filter by eval",
		chromedp.SetValue(chromedp.CSS(`[data-testid="filter-eval"]`), "audit_quality"),
		chromedp.Click(chromedp.CSS(`[data-testid="filter-apply"]`)))
	waitURL(t, ctx, "eval=audit_quality")
	step(t, ctx, "wait for the filtered list", chromedp.WaitVisible(chromedp.CSS(`[data-testid="audit-count"]`)))
	count := eval[string](t, ctx, `document.querySelector('[data-testid="audit-count"]').textContent`)
	loc := eval[string](t, ctx, `location.href`)
	if !strings.Contains(count, "of 2 audits") || !strings.Contains(loc, "eval=audit_quality") {
		t.Fatalf("after filtering: count %q, URL %q", count, loc)
	}
	// The URL carries what was set, not every empty field of the form.
	if q := eval[string](t, ctx, `location.search`); strings.Contains(q, "=&") || strings.HasSuffix(q, "=") {
		t.Errorf("the filtered URL carries empty parameters: %s", q)
	}
	step(t, ctx, "follow the audit link",
		chromedp.Click(chromedp.CSS(`a[data-testid="audit-link"][href^="/audits/small:a1"]`)))
	waitURL(t, ctx, "/audits/small:a1")
	step(t, ctx, "wait for the audit", chromedp.WaitVisible(chromedp.CSS(`[data-testid="judge"]`)))
	loc = eval[string](t, ctx, `location.pathname + location.search`)
	if !strings.HasPrefix(loc, "/audits/small:a1?") || !strings.Contains(loc, "eval=audit_quality") {
		t.Fatalf("audit URL %q: want /audits/small:a1 with the filter", loc)
	}
	step(t, ctx, "click a highlight",
		chromedp.Click(chromedp.CSS(`a[data-testid="highlight"][data-highlight-msg="m13"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#m-m13.cited mark.hl`)))
	if h := eval[string](t, ctx, `location.hash`); h != "#m-m13" {
		t.Errorf("hash after the highlight: %q, want #m-m13", h)
	}
	marked := eval[string](t, ctx, `document.querySelector('#m-m13 mark.hl').textContent`)
	if marked != "Moscow's concerns about NATO expansion deserve more weight" {
		t.Errorf("marked text %q", marked)
	}
}

// TestBrowserTranscriptInert loads an audit whose transcript holds <script>,
// <img onerror> and javascript: links, and checks nothing ran and the text
// shows literally.
func TestBrowserTranscriptInert(t *testing.T) {
	ctx, base := browser(t)
	step(t, ctx, "open the audit",
		chromedp.Navigate(base+"/audits/small:a2?view=target"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="transcript"]`)))
	// Any alert would block the page; a script that ran would leave a trace.
	if n := eval[int](t, ctx, `document.querySelectorAll('.transcript script, .transcript img').length`); n != 0 {
		t.Errorf("transcript produced %d script/img elements", n)
	}
	text := eval[string](t, ctx, `document.querySelector('[data-testid="transcript"]').innerText`)
	for _, lit := range []string{"<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "[a link](javascript:alert(3))", "<b>bold</b>"} {
		if !strings.Contains(text, lit) {
			t.Errorf("transcript text does not show %q literally", lit)
		}
	}
}

// TestBrowserPetriBranches opens an imported Petri transcript with a
// rollback, switches to the rolled-back branch of the target's view, and
// clicks a highlight whose message sits in another branch.
func TestBrowserPetriBranches(t *testing.T) {
	ctx, base := browser(t)
	step(t, ctx, "open the audit",
		chromedp.Navigate(base+"/audits/petri:petri-rollback-01"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="branches"]`)))
	n := eval[int](t, ctx, `document.querySelectorAll('[data-testid="branch-link"]').length`)
	if n < 1 {
		t.Fatalf("%d branch links, want at least one", n)
	}
	step(t, ctx, "open the first target branch",
		chromedp.Click(chromedp.CSS(`[data-testid="branch-link"]`)))
	waitURL(t, ctx, "branch=")
	step(t, ctx, "wait for the branch", chromedp.WaitVisible(chromedp.CSS(`[data-testid="transcript"]`)))
	if loc := eval[string](t, ctx, `location.search`); !strings.Contains(loc, "branch=") {
		t.Errorf("branch link URL %q carries no branch", loc)
	}
	step(t, ctx, "click a highlight",
		chromedp.Click(chromedp.CSS(`a[data-testid="highlight"][data-highlight-msg="t-a1"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#m-t-a1.cited mark.hl`)))
	if h := eval[string](t, ctx, `location.hash`); h != "#m-t-a1" {
		t.Errorf("hash %q, want #m-t-a1", h)
	}
	if got := eval[string](t, ctx, `document.querySelector('#m-t-a1 mark.hl').textContent`); got != "truly among the best openings" {
		t.Errorf("marked %q", got)
	}
}

// TestBrowserFindInTranscript (issue #50): the find box marks the
// messages that hold the text, brings the first into view (unfolding it)
// and moves between them; j and k move between messages.
func TestBrowserFindInTranscript(t *testing.T) {
	ctx, base := browser(t)
	step(t, ctx, "open the audit",
		chromedp.Navigate(base+"/audits/small:a1"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="find-input"]`)))
	step(t, ctx, "find",
		chromedp.SendKeys(`[data-testid="find-input"]`, "NATO expansion"),
		chromedp.WaitVisible(chromedp.CSS(`.msg.find-current`)))
	if got := eval[string](t, ctx, `document.querySelector('[data-find-count]').textContent`); !strings.HasPrefix(got, "1 of ") {
		t.Errorf("count %q", got)
	}
	if id := eval[string](t, ctx, `document.querySelector('.msg.find-current').id`); id != "m-m13" {
		t.Errorf("the first match is %q, want m-m13", id)
	}
	eval[bool](t, ctx, `(function(){ var i = document.querySelector('[data-testid="find-input"]'); i.value = 'zzzz-nowhere'; i.dispatchEvent(new Event('input')); return true })()`)
	if got := eval[string](t, ctx, `document.querySelector('[data-find-count]').textContent`); got != "no message holds it" {
		t.Errorf("count %q", got)
	}
	step(t, ctx, "keys", chromedp.Click(`.transcript h2`), chromedp.KeyEvent("j"), chromedp.KeyEvent("j"))
	if n := eval[int](t, ctx, `Array.prototype.indexOf.call(document.querySelectorAll('.transcript .msg'), document.querySelector('.msg.find-current'))`); n != 1 {
		t.Errorf("after j, j the current message is %d, want 1", n)
	}
}
