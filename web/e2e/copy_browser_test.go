package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserCopyLink: without the clipboard API (plain HTTP on a LAN
// address), "copy link" copies another way or says it failed and shows the
// link to copy by hand; when every way is refused, it never says "copied".
func TestBrowserCopyLink(t *testing.T) {
	ctx, base := browser(t)
	step(t, ctx, "open an audit", chromedp.Navigate(base+"/audits/demo:a-000001"), chromedp.WaitReady(chromedp.CSS(".copy-link")))
	click := func() string {
		// The button says what happened once the copy has been tried, for
		// 2.5 s: the page records the first thing it says (an observer of
		// the button), so a busy machine that polls late still reads it.
		eval[bool](t, ctx, `(() => {
			const b = document.querySelector(".copy-link");
			window.__said = "";
			new MutationObserver(() => { if (!window.__said && b.textContent !== "copy link") window.__said = b.textContent; })
				.observe(b, {childList: true, characterData: true, subtree: true});
			b.click();
			return true;
		})()`)
		c, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		got, err := chromedp.Run(c, chromedp.Poll[string](`window.__said`))
		if err != nil {
			t.Fatalf("the button never said what happened: %v", err)
		}
		return got
	}
	// No clipboard API.
	eval[bool](t, ctx, `Object.defineProperty(navigator, "clipboard", {value: undefined, configurable: true}); true`)
	got := click()
	switch {
	case got == "copied":
	case strings.HasPrefix(got, "copy failed"):
		if v := eval[string](t, ctx, `(document.querySelector("[data-testid=copy-box]")||{}).value || ""`); !strings.Contains(v, "/audits/demo:a-000001") {
			t.Errorf("the failure shows no link to copy: %q", v)
		}
	default:
		t.Errorf("after a click without the clipboard API the button says %q", got)
	}
	// Every way refused: the button must say so, and show the link.
	step(t, ctx, "reload", chromedp.Navigate(base+"/audits/demo:a-000001"), chromedp.WaitReady(chromedp.CSS(".copy-link")))
	eval[bool](t, ctx, `Object.defineProperty(navigator, "clipboard", {value: undefined, configurable: true}); document.execCommand = () => false; true`)
	if got := click(); !strings.HasPrefix(got, "copy failed") {
		t.Errorf("with copying refused the button says %q", got)
	}
	if v := eval[string](t, ctx, `(document.querySelector("[data-testid=copy-box]")||{}).value || ""`); !strings.Contains(v, "/audits/demo:a-000001") {
		t.Errorf("the refused copy shows no link: %q", v)
	}
}
