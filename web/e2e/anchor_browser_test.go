package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserMessageLinks copies message links from the target view, the
// auditor view, a rolled-back branch and a judgment page, opens each in a
// fresh tab, and checks the linked message is marked and in the window.
func TestBrowserMessageLinks(t *testing.T) {
	// Independent of the other tests (a server of its own on the
	// read-only demo): run beside them, on the other core.
	t.Parallel()
	ctx, base := browser(t)
	audit := "/audits/petri:petri-rollback-01"
	linkOn := func(page string) string {
		step(t, ctx, "open "+page, chromedp.Navigate(base+page), chromedp.WaitReady(chromedp.CSS("body")))
		// The last message's link: far down the page, so landing on it
		// means the page scrolled there.
		return eval[string](t, ctx, `(() => { const b = [...document.querySelectorAll(".msg .copy-link")]; return b.length ? new URL(b[b.length-1].dataset.copy, location.href).href : ""; })()`)
	}
	var pages []string
	for _, v := range []string{"target", "auditor"} {
		pages = append(pages, audit+"?view="+v)
	}
	// A rolled-back branch: the first branch of the target view.
	pages = append(pages, audit+"?view=target&branch=0", "/judgments/demo:j-000001", "/audits/demo:a-002420?view=target", "/audits/demo:a-002420?view=auditor")
	for _, page := range pages {
		link := linkOn(page)
		t.Logf("%s -> %s", page, link)
		if link == "" || !strings.Contains(link, "#m-") {
			t.Errorf("%s: no message link (%q)", page, link)
			continue
		}
		tab, cancel := chromedp.NewContext(ctx)
		c, cancelT := context.WithTimeout(tab, time.Minute)
		err := chromedp.Do(c, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(link), chromedp.WaitReady(chromedp.CSS("body")))
		// The page scrolls to the message and marks it once loaded: wait
		// for that, up to the tab's deadline.
		ok := err == nil
		if ok {
			_, err = chromedp.Run(c, chromedp.Poll[bool](`(() => {
				const el = document.getElementById(decodeURIComponent(location.hash.slice(1)));
				if (!el || !el.classList.contains("cited")) return false;
				const r = el.getBoundingClientRect();
				return r.bottom > 0 && r.top < window.innerHeight;
			})()`, chromedp.WithPollingTimeout(15*time.Second)))
			ok = err == nil
		}
		cancelT()
		cancel()
		if err != nil || !ok {
			t.Errorf("%s: the link %s does not land on its message (%v)", page, link, err)
		}
	}
}
