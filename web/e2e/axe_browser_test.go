package e2e

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// axeSource is axe-core's script: the file $AXE_CORE names (.ci/run
// installs axe-core from npm and sets it). The test is skipped without it,
// except in CI, where it must run.
func axeSource(t *testing.T) string {
	t.Helper()
	path := os.Getenv("AXE_CORE")
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI needs axe-core for the accessibility test: set AXE_CORE to its axe.min.js (.ci/run installs it)")
		}
		t.Skip("AXE_CORE not set (the path of axe-core's axe.min.js)")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// axeViolation is one rule a page breaks, with a few of its elements.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Nodes  []string `json:"nodes"`
}

// axeCheck opens each page and runs axe-core on it at 1,280 px; a
// critical or serious violation fails the test, naming the page, the rule
// and its first elements.
func axeCheck(t *testing.T, ctx context.Context, base, axe string, pages []string) {
	t.Helper()
	for _, p := range pages {
		step(t, ctx, "open "+p, chromedp.Navigate(base+p))
		step(t, ctx, "load axe on "+p, chromedp.Evaluate[chromedp.Void](axe))
		c, cancel := context.WithTimeout(ctx, 60*time.Second)
		vs, err := chromedp.Run(c, chromedp.Evaluate[[]axeViolation](`axe.run(document, {resultTypes: ['violations']}).then(r =>
			r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.html.slice(0, 160))})))`,
			chromedp.EvalAwaitPromise))
		cancel()
		if err != nil {
			t.Fatalf("axe on %s: %v", p, err)
		}
		for _, v := range vs {
			if v.Impact == "critical" || v.Impact == "serious" {
				t.Errorf("%s: %s violation %s, e.g. %s", p, v.Impact, v.ID, strings.Join(v.Nodes, " | "))
			}
		}
	}
}

// TestBrowserAxe runs axe-core on every page type of the demo and of an
// Inspect import: no critical or serious violation (WCAG 2 A and AA).
func TestBrowserAxe(t *testing.T) {
	if testing.Short() {
		// CI's race pass (-short): the pages' accessibility was checked in
		// the full pass, and reading 23 pages adds nothing the race
		// detector looks for but a minute and a half.
		t.Skip("checked in the full test pass")
	}
	axe := axeSource(t)
	ctx, base := browser(t)
	step(t, ctx, "window", chromedp.EmulateViewport(1280, 900))
	axeCheck(t, ctx, base, axe, []string{
		"/",
		"/experiments/demo",
		"/experiments/demo/compare",
		"/experiments/demo/compare?a=binary-pointwise%40e3&b=binary-pointwise%40e1",
		"/experiments/demo/compare?a=claude-opus-4.6&b=claude-haiku-4.5&b=gpt-5.4-mini&judge=claude-opus-4.6+%28second+judge%29",
		"/experiments/demo?judge=claude-opus-4.6+%28second+judge%29",
		"/audits?exp=demo&judge=claude-opus-4.6+%28second+judge%29&sort=eval_awareness&dir=desc",
		"/runs/demo:binary-pointwise?judge=claude-sonnet-4+%28training+judge%29",
		"/experiments/demo/transfer?judge=claude-opus-4.6+%28second+judge%29",
		"/experiments/demo/compare/units?a=binary-pointwise%40e3&b=binary-pointwise%40e1&dim=auditbench_stc",
		"/experiments/demo/compare/units?a=binary-pointwise%40e3&b=binary-pointwise%40e1&dim=composite",
		"/audits/side-by-side?a=demo:a-013596&b=demo:a-011434",
		"/experiments/demo/crux",
		"/experiments/demo/rwr",
		"/experiments/demo/transfer",
		"/experiments/demo/cycles",
		"/experiments/demo/judgments",
		"/experiments/petri-demo",
		"/experiments/petri-demo/paired?a=anthropic%2Fclaude-haiku-4.5&b=x-ai%2Fgrok-4.1",
		"/experiments/demo/judges",
		"/judgments/demo:j-000001",
		"/runs/demo:binary-pointwise",
		"/audits?exp=demo&sort=score:concerning&dir=desc",
		"/audits/demo:a-000001?exp=demo",
		"/audits/demo:a-000001?view=target",
		"/audits/demo:a-000001?view=auditor",
		"/pairs/icai-example-v2-40-principles",
		"/pairs/icai-example-v2-40-principles?mode=models",
		"/pairs/icai-example",
		"/pairs/icai-example/models",
		"/pairs/icai-example-v2-40-principles/comparisons",
		"/pairs/icai-example/comparisons/0",
		"/pairs/icai-example-v2-40-principles/compare",
	})

	// An Inspect import: its experiment page (the scorer table) and a
	// sample's page.
	ictx, ibase := browserOn(t, func() http.Handler { return inspectServer(t).Handler() })
	step(t, ictx, "window", chromedp.EmulateViewport(1280, 900))
	axeCheck(t, ictx, ibase, axe, []string{"/experiments/security-guide.json", "/audits?exp=security-guide.json"})
	sample := eval[string](t, ictx, `document.querySelector('a[href^="/audits/security-guide.json:"]').getAttribute('href')`)
	axeCheck(t, ictx, ibase, axe, []string{sample})
	// Markdown, highlighted python and folded output.
	axeCheck(t, ictx, ibase, axe, []string{"/audits/docent-sample.eval:50_epoch_1"})
	// An agentic sample's events tab, all kinds and one, and the sample
	// list filtered by task.
	axeCheck(t, ictx, ibase, axe, []string{"/audits/docent-sample.eval:56_epoch_1?tab=events",
		"/audits/docent-sample.eval:56_epoch_1?tab=events&kind=tool", "/audits?exp=docent-sample.eval&task=inspect_evals%2Fluce_intercode_ctf"})

	// A folder of logs of one task on three models: its models' compare,
	// units and side-by-side pages.
	sctx, sbase := browserOn(t, func() http.Handler { return samplesServer(t).Handler() })
	step(t, sctx, "window", chromedp.EmulateViewport(1280, 900))
	axeCheck(t, sctx, sbase, axe, []string{"/experiments/pop/compare?a=openai%2Fgpt-4o-mini&b=ollama%2Fllama3.1&b=ollama%2Fgemma3",
		"/experiments/pop/compare/units?a=openai%2Fgpt-4o-mini&b=ollama%2Fllama3.1&dim=match",
		"/audits/side-by-side?a=pop:popularity.json--1_epoch_1&b=pop:log_formats.json--1_epoch_1"})
}
