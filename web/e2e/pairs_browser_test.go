package e2e

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserPairsExplorer opens the explorer on the demo, changes the
// reference and the split, sorts by a column, opens a cell's comparisons
// and one comparison, then reloads the URL it copied and checks the same
// view comes back.
func TestBrowserPairsExplorer(t *testing.T) {
	ctx, base := browser(t)
	const dataset = "/pairs/synthetic-personality-demo"
	step(t, ctx, "open the explorer",
		chromedp.Navigate(base+dataset),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="pairs-table"]`)))
	const checkedRef = `[...document.querySelectorAll('[data-testid="select-ref"] input:checked')].map(c => c.value).join()`
	defaultRef := eval[string](t, ctx, checkedRef)

	// Another reference, found by typing in the picker's filter: the
	// first principle that is not the default.
	step(t, ctx, "filter the references", chromedp.SendKeys(chromedp.CSS(`[data-testid="select-ref"] [data-picker-filter]`), "principle"))
	if n := eval[int](t, ctx, `[...document.querySelectorAll('[data-testid="select-ref"] label')].filter(l => !l.hidden && !l.textContent.includes("principle")).length`); n != 1 {
		t.Errorf("after typing principle %d shown choices are not principles, want only the checked default", n)
	}
	ref := eval[string](t, ctx, `[...document.querySelectorAll('[data-testid="select-ref"] label')].filter(l => !l.hidden).map(l => l.querySelector("input").value).find(v => v !== `+jsString(defaultRef)+`)`)
	if ref == "" || ref == defaultRef {
		t.Fatalf("no second reference to choose (default %q)", defaultRef)
	}
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="select-ref"] [data-picker-count]').textContent`); !strings.HasPrefix(got, "chosen: ") || !strings.Contains(got, " shown") {
		t.Errorf("the picker says %q, want the chosen names and how many are shown", got)
	}
	step(t, ctx, "change the reference and the split",
		chromedp.Click(chromedp.CSS(`[data-testid="select-ref"] input[value="`+defaultRef+`"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="select-ref"] input[value="`+ref+`"]`)),
		chromedp.SetValue(chromedp.CSS(`[data-testid="select-split"]`), "source"))
	follow(t, ctx, "submit the form", chromedp.Click(chromedp.CSS(`[data-testid="pairs-form"] button[type="submit"]`)))
	step(t, ctx, "wait for the split table", chromedp.WaitVisible(chromedp.CSS(`[data-testid="pairs-col"][data-key="v:multipref"]`)))
	q := query(t, eval[string](t, ctx, `location.search`))
	if q.Get("ref") != ref || q.Get("split") != "source" {
		t.Fatalf("after submitting: query %v, want ref=%s and split=source", q, ref)
	}

	// The split's values are a select; choosing another split leaves them
	// out of the next URL rather than sending values of the old one.
	checkSplitValues(t, ctx)

	follow(t, ctx, "sort by a split column", chromedp.Click(chromedp.CSS(`[data-testid="pairs-col"][data-key="v:multipref"] a`)))
	step(t, ctx, "wait for the sorted table", chromedp.WaitVisible(chromedp.CSS(`[data-testid="pairs-table"]`)))
	copied := eval[string](t, ctx, `location.href`)
	q = query(t, copied)
	if q.Get("sort") != "v:multipref" || q.Get("ref") != ref || q.Get("split") != "source" {
		t.Fatalf("copied URL %s: want sort=v:multipref with the reference and split", copied)
	}
	table := eval[string](t, ctx, `document.querySelector('[data-testid="pairs-table"]').innerText`)
	sortMark := eval[string](t, ctx, `document.querySelector('[data-testid="pairs-col"][data-key="v:multipref"]').innerText`)
	if !strings.ContainsAny(sortMark, "▲▼") {
		t.Errorf("sorted column header %q has no sort mark", sortMark)
	}

	follow(t, ctx, "open a cell's comparisons", chromedp.Click(chromedp.CSS(`a[data-testid="pairs-cell"]`)))
	step(t, ctx, "wait for the comparisons",
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="comparisons-count"]`)))
	loc := eval[string](t, ctx, `location.pathname + location.search`)
	q = query(t, loc)
	if !strings.HasPrefix(loc, dataset+"/comparisons?") || q.Get("ref") != ref || q.Get("split") != "source" || q.Get("ann") == "" || q.Get("value") == "" {
		t.Fatalf("cell link %s: want the comparisons of an annotator against %s on a source", loc, ref)
	}
	follow(t, ctx, "open a comparison", chromedp.Click(chromedp.CSS(`a[data-testid="comparison-link"]`)))
	step(t, ctx, "wait for the comparison",
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="comparison-id"]`)))
	if p := eval[string](t, ctx, `location.pathname`); !strings.HasPrefix(p, dataset+"/comparisons/") {
		t.Fatalf("comparison URL %s", p)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('[data-testid="vote"]').length`); n == 0 {
		t.Error("the comparison shows no votes")
	}

	step(t, ctx, "reload the copied URL",
		chromedp.Navigate(copied),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="pairs-table"]`)))
	if got := eval[string](t, ctx, `location.href`); got != copied {
		t.Errorf("reloaded URL %s, want %s", got, copied)
	}
	if got := eval[string](t, ctx, checkedRef); got != ref {
		t.Errorf("reference after reload %q, want %q", got, ref)
	}
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="select-split"]').value`); got != "source" {
		t.Errorf("split after reload %q, want source", got)
	}
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="pairs-col"][data-key="v:multipref"]').innerText`); got != sortMark {
		t.Errorf("sorted column after reload %q, want %q", got, sortMark)
	}
	if got := eval[string](t, ctx, `document.querySelector('[data-testid="pairs-table"]').innerText`); got != table {
		t.Error("the table after reload differs from the one copied")
	}
}

// checkSplitValues checks, from the explorer with the source split shown,
// that choosing another split disables the split's values (so the next URL
// leaves them out), that choosing the shown split again enables them, and
// that the submitted URL has the new split and no values; then it goes
// back to the source split. TestBrowserPairsExplorer's middle, apart so the
// test stays short.
func checkSplitValues(t *testing.T, ctx context.Context) {
	t.Helper()
	splitURL := eval[string](t, ctx, `location.href`)
	// Choose a value explicitly, so the form has one to send.
	eval[bool](t, ctx, `(document.querySelector('[data-testid="select-values"] input').checked = true)`)
	chooseSplit := func(split string) {
		t.Helper()
		step(t, ctx, "choose the split "+split, chromedp.SetValue(chromedp.CSS(`[data-testid="select-split"]`), split))
		eval[bool](t, ctx, `document.querySelector('[data-testid="select-split"]').dispatchEvent(new Event("change", {bubbles: true}))`)
	}
	valuesDisabled := func() bool {
		return eval[bool](t, ctx, `[...document.querySelectorAll('[data-testid="select-values"] input')].every(c => c.disabled)`)
	}
	chooseSplit("topic")
	if !valuesDisabled() {
		t.Error("the source values are still sent with the topic split")
	}
	chooseSplit("source")
	if valuesDisabled() {
		t.Error("the values select stays disabled with the shown split chosen again")
	}
	chooseSplit("topic")
	follow(t, ctx, "submit the new split", chromedp.Click(chromedp.CSS(`[data-testid="pairs-form"] button[type="submit"]`)))
	step(t, ctx, "wait for the topic table", chromedp.WaitVisible(chromedp.CSS(`[data-testid="pairs-table"]`)))
	if q := query(t, eval[string](t, ctx, `location.search`)); q.Get("split") != "topic" || q.Has("values") {
		t.Fatalf("after changing the split: query %v, want split=topic and no values", q)
	}
	step(t, ctx, "back to the source split", chromedp.Navigate(splitURL), chromedp.WaitVisible(chromedp.CSS(`[data-testid="pairs-col"][data-key="v:multipref"]`)))
}

// follow runs actions that load another page and waits until it has
// loaded with status 200.
func follow(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	resp, err := chromedp.RunResponse(c, actions...)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if resp.Status != 200 {
		t.Fatalf("%s: %s answered %d", what, resp.URL, resp.Status)
	}
}

// query parses the query of a URL, or of a path with a query, or a bare
// query string.
func query(t *testing.T, s string) url.Values {
	t.Helper()
	_, raw, _ := strings.Cut(s, "?")
	q, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatalf("query of %s: %v", s, err)
	}
	return q
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
