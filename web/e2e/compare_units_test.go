package e2e

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/petri"
	"github.com/auditscope/auditscope/web/app"
)

// TestUnitsAddUp: for three of the paper's comparisons, every dimension's
// units (the page's CSV twin, every unit) add up to the compare row's
// counts: units each side has, pairs, and the discordant pairs by side. The
// CSV is the same bytes from a second server.
func TestUnitsAddUp(t *testing.T) {
	s := mustDemo(t)
	st, err := app.New(mustDemoStore(t)).Stats(context.Background(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	presets := app.Presets(st)
	if len(presets) < 3 {
		t.Fatalf("%d presets", len(presets))
	}
	other := quietServer(s.Store())
	for _, p := range presets[:3] {
		q := url.Values{"a": {p.A}, "b": {p.B}}
		rows := compareRows(t, s, q.Encode())
		for _, dim := range app.CompareDimensions {
			q.Set("dim", dim)
			path := "/experiments/demo/compare/units.csv?" + q.Encode()
			body := mustGet(t, s, path, http.StatusOK, "text/csv").Body
			if again := mustGet(t, other, path, http.StatusOK, "text/csv").Body; again != body {
				t.Errorf("%s: the CSV differs between two servers", path)
			}
			var na, nb, pairs, onlyA, onlyB int
			for _, m := range csvRows(t, body) {
				hasA, hasB := m["a_audits"] != "", m["b_audits"] != ""
				na += b2i(hasA)
				nb += b2i(hasB)
				if m["paired"] == "true" {
					pairs++
					if strings.HasPrefix(dim, "auditbench") {
						d := csvNum(t, m["diff"])
						onlyA += b2i(d > 0)
						onlyB += b2i(d < 0)
					}
				}
			}
			row := rows[p.B+"/"+dim]
			got := fmt.Sprint(na, nb, pairs, onlyA, onlyB)
			if want := fmt.Sprint(row["n_a"], " ", row["n_b"], " ", row["pairs"], " ", row["only_a"], " ", row["only_b"]); got != want || na == 0 {
				t.Errorf("%s %s − %s: units add up to %s, the compare row says %s", dim, p.A, p.B, got, want)
			}
			// The page says the same counts and links each shared unit's
			// audits side by side.
			page := mustGet(t, s, "/experiments/demo/compare/units?"+q.Encode(), http.StatusOK, "text/html").Body
			contains(t, dim+" page", page, fmt.Sprintf("A has %s ", row["n_a"]), fmt.Sprintf("; %s paired", row["pairs"]))
			if pairs > 0 && !strings.Contains(page, `href="/audits/side-by-side?a=demo%3A`) {
				t.Errorf("%s: no side-by-side link", dim)
			}
		}
	}
	// Realism units read as the judgments they are.
	rp := mustGet(t, s, "/experiments/demo/compare/units?a="+url.QueryEscape(presets[0].A)+"&b="+url.QueryEscape(presets[0].B)+"&dim=realism", http.StatusOK, "text/html").Body
	if !regexp.MustCompile(`<td class="num">(win|tie|loss)</td>`).MatchString(rp) {
		t.Error("realism units do not say win, tie or loss")
	}
	// The compare page links each row to its units.
	cmp := mustGet(t, s, "/experiments/demo/compare?a="+url.QueryEscape(presets[0].A)+"&b="+url.QueryEscape(presets[0].B), http.StatusOK, "text/html").Body
	if n := strings.Count(cmp, `data-testid="compare-units"`); n != len(app.CompareDimensions) {
		t.Errorf("the compare page links %d rows to their units, want %d", n, len(app.CompareDimensions))
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestUnitsQueries: the filters, the order, a page past the end and every
// bad parameter (400 naming it); a unit on one side only.
func TestUnitsQueries(t *testing.T) {
	s := quietServer(unitsStore(t))
	base := "/experiments/u/compare/units?a=aa&b=bb&dim=audit_quality"
	all := mustGet(t, s, base, http.StatusOK, "text/html").Body
	contains(t, "counts", all, "A has 4 behavior × seeds, B has 4; 3 paired")
	rows := func(q string) []map[string]string {
		return csvRows(t, mustGet(t, s, strings.Replace(base, "/units?", "/units.csv?", 1)+q, http.StatusOK, "text/csv").Body)
	}
	if r := rows("&show=a"); len(r) != 1 || r[0]["seed"] != "s1" || r[0]["b_audits"] != "" {
		t.Errorf("A's alone: %v", r)
	}
	if r := rows("&show=b"); len(r) != 1 || r[0]["seed"] != "s5" || r[0]["a_audits"] != "" {
		t.Errorf("B's alone: %v", r)
	}
	// s2 differs by 30, s3 by 10, s4 not at all.
	if r := rows("&show=discordant"); len(r) != 2 || r[0]["seed"] != "s2" || r[1]["seed"] != "s3" {
		t.Errorf("discordant, largest first: %v", r)
	}
	if r := rows("&sort=unit"); len(r) != 5 || r[0]["seed"] != "s1" || r[4]["seed"] != "s5" {
		t.Errorf("as read: %v", r)
	}
	// Two audits of one unit (s4 under B): both listed, the unit's value
	// their mean.
	for _, m := range rows("") {
		if m["seed"] == "s4" && (m["b_audits"] != "b4 b4x" || m["b_value"] != "50") {
			t.Errorf("s4: %v", m)
		}
	}
	if r := get(t, s, base+"&page=9"); r.Code != http.StatusSeeOther || !strings.HasSuffix(r.Header.Get("Location"), "dim=audit_quality") {
		t.Errorf("a page past the end: %d %q", r.Code, r.Header.Get("Location"))
	}
	for _, c := range []struct{ q, param string }{
		{"a=zz&b=bb&dim=audit_quality", "a"}, {"a=aa&b=zz&dim=audit_quality", "b"}, {"b=bb&dim=audit_quality", "a"},
		{"a=aa&b=aa&dim=audit_quality", "b"}, {"a=aa&b=bb", "dim"}, {"a=aa&b=bb&dim=nonsense", "dim"},
		{"a=aa&b=bb&dim=realism&show=some", "show"}, {"a=aa&b=bb&dim=realism&sort=x", "sort"}, {"a=aa&b=bb&dim=realism&page=0", "page"},
	} {
		for _, path := range []string{"/experiments/u/compare/units?", "/experiments/u/compare/units.csv?"} {
			r := get(t, s, path+c.q)
			if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, c.param+":") {
				t.Errorf("%s%s: %d, want 400 naming %s\n%.300s", path, c.q, r.Code, c.param, r.Body)
			}
		}
	}
	// A dimension with no data: the page says so.
	contains(t, "no data", mustGet(t, s, "/experiments/u/compare/units?a=aa&b=bb&dim=production", http.StatusOK, "text/html").Body, "No units: the row has no data")
}

// unitsStore holds experiment u: auditors aa and bb on audit-quality seeds
// s1–s4 and s2–s5 (bb twice on s4).
func unitsStore(t *testing.T) *data.Store {
	t.Helper()
	store := mustStore(t)
	f := func(v float64) *float64 { return &v }
	b := &bundle.Bundle{
		Experiment: bundle.Experiment{ID: "u", Name: "units", Synthetic: true,
			Behaviors: []bundle.Behavior{{ID: "flattery", Category: "c", Split: "train"}}},
		Auditors: []bundle.Auditor{{ID: "aa", Name: "Auditor A", Kind: "baseline"}, {ID: "bb", Name: "Auditor B", Kind: "baseline"}},
	}
	add := func(id, auditor, seed string, q float64) {
		b.Audits = append(b.Audits, bundle.Audit{ID: id, Auditor: auditor, Eval: "audit_quality", Behavior: "flattery", Seed: seed,
			Target: "t", Turns: 2, Outcome: bundle.Outcome{Quality: f(q)},
			Transcript: &petri.Transcript{Metadata: petri.Metadata{TranscriptID: id, AuditorModel: auditor, TargetModel: "t",
				CreatedAt: "2026-01-01T00:00:00Z", UpdatedAt: "2026-01-01T00:00:00Z", Version: "v3.0"}}})
	}
	for i, q := range []float64{70, 80, 60, 50} {
		add("a"+strconv.Itoa(i+1), "aa", "s"+strconv.Itoa(i+1), q)
	}
	for i, q := range []float64{50, 50, 40, 10} {
		add("b"+strconv.Itoa(i+2), "bb", "s"+strconv.Itoa(i+2), q)
	}
	add("b4x", "bb", "s4", 60)
	if _, err := store.ImportBundle(context.Background(), bundle.FromBundle(b, "u", false), "u", data.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	return store
}

// TestSideBySide: two audits side by side, both transcripts turn by turn
// with permalinks to this page, the judge scores with their differences,
// the swap link; missing and unknown ids are 400s naming the parameter; an
// audit page offers the same unit under the other auditors.
func TestSideBySide(t *testing.T) {
	s := mustDemo(t)
	page := mustGet(t, s, "/audits/side-by-side?a=demo:a-013596&b=demo:a-011434", http.StatusOK, "text/html").Body
	contains(t, "side by side", page, `data-testid="sbs-header"`, `data-testid="sbs-scores"`, `id="m-A-m05"`, `id="m-B-m05"`,
		`href="/audits/side-by-side?a=demo%3Aa-013596&amp;b=demo%3Aa-011434#m-B-m05"`, `href="/audits/side-by-side?a=demo%3Aa-011434&amp;b=demo%3Aa-013596"`,
		`data-testid="sbs-turn"`, `data-highlight-msg="B-`)
	// Turns line up: each turn's section holds A's messages, then B's.
	if n := strings.Count(page, `data-testid="sbs-turn"`); n < 3 {
		t.Errorf("%d turns", n)
	}
	// The first score row is the largest difference.
	m := regexp.MustCompile(`data-testid="sbs-scores">.*?<tbody><tr><td>([^<]+)</td>`).FindStringSubmatch(page)
	if m == nil || m[1] != "needs_attention" {
		t.Errorf("first score row %v", m)
	}
	for _, c := range []struct{ q, param string }{
		{"a=demo:a-013596", "b"}, {"b=demo:a-013596", "a"}, {"a=demo:nope&b=demo:a-013596", "a"}, {"a=demo:a-013596&b=nope", "b"},
	} {
		r := get(t, s, "/audits/side-by-side?"+c.q)
		if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, c.param+":") {
			t.Errorf("%s: %d, want 400 naming %s\n%.300s", c.q, r.Code, c.param, r.Body)
		}
	}
	audit := mustGet(t, s, "/audits/demo:a-013596", http.StatusOK, "text/html").Body
	contains(t, "same unit", audit, `data-testid="same-unit"`, `<option value="demo:a-011434">`)
	if n := strings.Count(audit, `data-testid="same-unit-pick"`); n != 1 {
		t.Errorf("%d same-unit pickers", n)
	}
}

// TestUnitsSignedOrder (issue #50): the units page lists A's largest lead
// first and B's last (A-ahead and B-ahead units no longer mixed by size),
// unpaired units after; ahead-a, ahead-b and tied keep only those.
func TestUnitsSignedOrder(t *testing.T) {
	s := mustDemo(t)
	base := "/experiments/demo/compare/units.csv?a=ref-pairwise-cal50%40e3&b=claude-haiku-4.5&dim=audit_quality"
	rows := csvRows(t, mustGet(t, s, base, http.StatusOK, "text/csv").Body)
	prev, paired, ahead := math.Inf(1), true, 0
	for i, r := range rows {
		if r["paired"] != "true" {
			paired = false
			continue
		}
		d := csvNum(t, r["diff"])
		if !paired || d > prev {
			t.Fatalf("row %d: diff %v after %v (paired rows first, largest first)", i, d, prev)
		}
		prev = d
		if d > 0 {
			ahead++
		}
	}
	for show, keep := range map[string]func(float64) bool{"ahead-a": func(d float64) bool { return d > 0 },
		"ahead-b": func(d float64) bool { return d < 0 }, "tied": func(d float64) bool { return d == 0 }} {
		sub := csvRows(t, mustGet(t, s, base+"&show="+show, http.StatusOK, "text/csv").Body)
		for _, r := range sub {
			if d := csvNum(t, r["diff"]); r["paired"] != "true" || !keep(d) {
				t.Errorf("show=%s lists a unit with diff %v (paired %s)", show, d, r["paired"])
			}
		}
		if show == "ahead-a" && len(sub) != ahead {
			t.Errorf("show=ahead-a lists %d units, want %d", len(sub), ahead)
		}
	}
	mustGet(t, s, base+"&sort=sideways", http.StatusBadRequest, "")
}

// TestSideBySideDeciding (issue #50): a realism unit's side-by-side page
// leads with each side's realism verdicts, the judge's reasoning and a
// link to each judgment; other dimensions say where their outcome is.
func TestSideBySideDeciding(t *testing.T) {
	s := mustDemo(t)
	page := mustGet(t, s, "/experiments/demo/compare/units?a=ref-pairwise-cal50%40e3&b=claude-haiku-4.5&dim=realism", http.StatusOK, "text/html").Body
	link := regexp.MustCompile(`href="(/audits/side-by-side\?[^"]*dim=realism[^"]*)"`).FindStringSubmatch(page)
	if link == nil {
		t.Fatal("the realism units link no pair side by side with its dimension")
	}
	body := mustGet(t, s, strings.ReplaceAll(link[1], "&amp;", "&"), http.StatusOK, "text/html").Body
	contains(t, "side by side", body, `data-testid="sbs-deciding"`, "What decided Realism", `data-testid="sbs-verdict"`, "The judge ", `href="/judgments/demo:`)
	if n := strings.Count(body, `data-testid="sbs-verdict"`); n < 2 {
		t.Errorf("%d verdicts, want one a side at least", n)
	}
	other := strings.Replace(strings.ReplaceAll(link[1], "&amp;", "&"), "dim=realism", "dim=audit_quality", 1)
	contains(t, "other dimension", mustGet(t, s, other, http.StatusOK, "text/html").Body, "is its Outcome row below")
	mustGet(t, s, strings.Replace(other, "dim=audit_quality", "dim=nonsense", 1), http.StatusBadRequest, "text/html")
}
