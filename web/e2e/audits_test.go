package e2e

import (
	"context"
	"encoding/csv"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/demo"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/web"
	"github.com/auditscope/auditscope/web/app"
)

func TestAuditBrowser(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/audits?exp=small", http.StatusOK, "text/html")
	contains(t, "browser", r.Body, "1–4 of 4 audits", `href="/audits/small:a1?exp=small"`)
	r = mustGet(t, s, "/audits?exp=small&eval=fp_calibration", http.StatusOK, "text/html")
	contains(t, "eval filter", r.Body, `data-testid="audit-count">1 audit</strong>`)
	r = mustGet(t, s, "/audits?exp=small&score=concerning%3E%3D6", http.StatusOK, "text/html")
	contains(t, "score filter", r.Body, `data-testid="audit-count">1 audit</strong>`, "small:a1")
	r = mustGet(t, s, "/audits?exp=small&q=moscow", http.StatusOK, "text/html")
	contains(t, "text search", r.Body, `data-testid="audit-count">1 audit</strong>`, "small:a1")
	r = mustGet(t, s, "/audits?exp=small&split=heldout&sort=turns&dir=desc", http.StatusOK, "text/html")
	if i, j := strings.Index(r.Body, ">a1<"), strings.Index(r.Body, ">a2<"); i < 0 || j < 0 || i > j {
		t.Errorf("sort by turns desc: a1 (6 turns) should come before a2 (4 turns)")
	}
	r = mustGet(t, s, "/audits?exp=demo&eval=fp_calibration&per=10&page=2", http.StatusOK, "text/html")
	contains(t, "demo paging", r.Body, "11–20 of ")
	for _, bad := range []string{"/audits?split=sideways", "/audits?score=concerning%3E%3Dlots", "/audits?sort=drop%20table", "/audits?page=0", "/audits?per=100000", "/audits?outcome=maybe"} {
		mustGet(t, s, bad, http.StatusBadRequest, "text/html")
	}
}

func TestAuditsCSV(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/audits.csv?exp=demo&eval=fp_calibration", http.StatusOK, "text/csv")
	recs, err := csv.NewReader(strings.NewReader(r.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	page := mustGet(t, s, "/audits?exp=demo&eval=fp_calibration", http.StatusOK, "text/html")
	// Every matching audit, not one page: the count in the page's header.
	count := page.Body[strings.Index(page.Body, `data-testid="audit-count"`):]
	i := strings.Index(count, " of ")
	j := strings.Index(count[i:], " audits")
	total, err := strconv.Atoi(count[i+4 : i+j])
	if err != nil {
		t.Fatal(err)
	}
	if len(recs)-1 != total || total <= 50 {
		t.Errorf("CSV has %d rows, the filter matches %d", len(recs)-1, total)
	}
}

func TestAuditPage(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/audits/small:a1?exp=small", http.StatusOK, "text/html")
	contains(t, "audit page", r.Body,
		`id="m-m13"`, `data-testid="tool-call"`, "set_target_system_message", "rollback_conversation",
		`data-testid="branches"`, "ended by rollback", `data-highlight-msg="m13"`, "secret_loyalty", "heldout",
		`data-testid="next-audit"`, "concerning", "controlled experimentation", "/audits/small:a1/transcript.json")
	// The auditor's view is reachable too.
	r = mustGet(t, s, "/audits/small:a1?view=auditor", http.StatusOK, "text/html")
	contains(t, "auditor view", r.Body, `id="m-m10"`, "Rolled back to message m03.")
	// The first target branch holds the rolled-back reply.
	r = mustGet(t, s, "/audits/small:a1?view=target&branch=0", http.StatusOK, "text/html")
	contains(t, "first branch", r.Body, `id="m-m07"`)
	// A bare id resolves when it is unique; unknown ids are 404s.
	mustGet(t, s, "/audits/a-nope", http.StatusNotFound, "text/html")
	mustGet(t, s, "/audits/small:a1?view=sideways", http.StatusBadRequest, "text/html")
	mustGet(t, s, "/audits/small:a1?branch=9", http.StatusBadRequest, "text/html")
	raw := mustGet(t, s, "/audits/small:a1/transcript.json", http.StatusOK, "application/json")
	contains(t, "raw JSON", raw.Body, `"transcript_id": "a1"`)
}

func TestAuditPageEscapes(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/audits/small:a2", http.StatusOK, "text/html")
	if strings.Contains(r.Body, "<script>alert(1)</script>") || strings.Contains(r.Body, "<img src=x onerror") {
		t.Error("transcript HTML reached the page unescaped")
	}
	contains(t, "escaped text", r.Body, "&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;b&gt;bold&lt;/b&gt;")
}

// exportCounter counts the export's chunk reads.
type exportCounter struct {
	*data.Store
	reads atomic.Int64
}

func (e *exportCounter) ExportAudits(ctx context.Context, f model.AuditFilter, after *model.AuditCursor, limit int, dims []string) (model.ExportChunk, error) {
	e.reads.Add(1)
	return e.Store.ExportAudits(ctx, f, after, limit, dims)
}

// TestAuditsCSVStreamsSameBytes compares the streamed export, read in
// chunks that go on from a cursor, with the export read in one chunk (one
// query, every row) on the demo: the whole demo (many chunks), filters,
// sorts with ties, an empty result, and chunk sizes that do and do not
// divide the count. A small export is kept by the response cache, the
// whole demo is not.
func TestAuditsCSVStreamsSameBytes(t *testing.T) {
	counted := &exportCounter{Store: mustDemoStore(t)}
	s := web.New(counted, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{}) // nothing cached yet
	whole := web.New(counted, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{NoResponseCache: true})
	check := func(s *web.Server, query string) {
		t.Helper()
		r := mustGet(t, s, "/audits.csv?"+query, http.StatusOK, "text/csv")
		chunk := app.ExportChunk
		app.ExportChunk = 1 << 30
		want := mustGet(t, whole, "/audits.csv?"+query, http.StatusOK, "text/csv").Body
		app.ExportChunk = chunk
		if r.Body != want {
			t.Errorf("%q (chunk %d): streamed export differs from the one read at once (%d bytes, want %d)", query, chunk, len(r.Body), len(want))
		}
		if r.Header.Get("Content-Disposition") != `attachment; filename="audits.csv"` {
			t.Errorf("%q: Content-Disposition %q", query, r.Header.Get("Content-Disposition"))
		}
	}
	// exp=demo sorted by turns is nearly the whole demo (one more export of
	// every experiment added half a minute to CI and nothing new).
	queries := []string{"exp=demo&eval=fp_calibration", "exp=demo&sort=turns&dir=desc", "exp=demo&sort=score:concerning&dir=desc&eval=production",
		"exp=small&q=moscow", "exp=small&q=no-such-text-anywhere"}
	if testing.Short() {
		// The race detector's run: the whole demo twice over (62,000
		// audits, in chunks and at once) takes it minutes; a filtered
		// export of 5,000 audits still streams many chunks.
		queries = []string{queries[0], queries[3], queries[4]}
	}
	for _, q := range queries {
		check(s, q)
	}
	// The whole demo is too big for the response cache (it is read again);
	// a small export is kept (it is not).
	for _, q := range []string{"exp=demo&sort=turns&dir=desc", "exp=small&q=moscow"} {
		if q != "exp=small&q=moscow" && testing.Short() {
			continue
		}
		before := counted.reads.Load()
		mustGet(t, s, "/audits.csv?"+q, http.StatusOK, "text/csv")
		if read, big := counted.reads.Load() != before, q != "exp=small&q=moscow"; read != big {
			t.Errorf("%s again: read from the store %v, want %v (kept only when small)", q, read, big)
		}
	}
	defer func(n int) { app.ExportChunk = n }(app.ExportChunk)
	for _, n := range []int{1, 2, 3} { // exp=small has 4 audits
		app.ExportChunk = n
		check(whole, "exp=small&sort=turns")
		check(whole, "exp=small&sort=turns&dir=desc")
	}
}

// TestAuditListScores: the audit list shows judge-score columns (the
// default ones, or cols=), sorts by a dimension named bare, and answers
// unknown values with a 400 naming the parameter and the choices; a page
// past the end goes to the last page.
func TestAuditListScores(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/audits?exp=demo&sort=concerning&dir=desc", http.StatusOK, "text/html")
	// The sorted column says so, to the eye and to a screen reader.
	contains(t, "sorted by concerning", r.Body, `data-testid="score-col" aria-sort="descending"`, ">concerning</span>\u00a0▼</a>", ">needs_attention</span></a>")
	r = mustGet(t, s, "/audits?exp=demo&cols=admirable,concerning", http.StatusOK, "text/html")
	contains(t, "cols", r.Body, ">admirable</span></a>", ">concerning</span></a>")
	if strings.Contains(r.Body, ">needs_attention</a>") {
		t.Error("cols= did not replace the default columns")
	}
	for q, want := range map[string][]string{
		"exp=nope":                {"exp: unknown value", "demo"},
		"exp=demo&score=nope>=7":  {"score: unknown value", "nearest"},
		"exp=demo&sort=nope":      {"sort: unknown value"},
		"exp=demo&cols=concerned": {"cols: unknown value", "concerning"},
		"exp=demo&sort=;drop":     {"query string cannot be read"},
		"exp=demo&outcome=nope":   {"outcome"},
	} {
		r := get(t, s, "/audits?"+q)
		if r.Code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", q, r.Code)
			continue
		}
		contains(t, q, r.Body, want...)
	}
	r = get(t, s, "/audits?exp=demo&page=99999")
	if r.Code != http.StatusSeeOther || !strings.Contains(r.Header.Get("Location"), "page=") {
		t.Errorf("page past the end: %d %q", r.Code, r.Header.Get("Location"))
	}
	// The export carries every dimension and the auditor's name.
	csv := mustGet(t, s, "/audits.csv?exp=small", http.StatusOK, "text/csv")
	contains(t, "audits.csv", strings.SplitN(csv.Body, "\n", 2)[0], "auditor_name", "run_name", "behavior_description", "score:concerning")
	contains(t, "audits.csv", csv.Body, "ref-cal50 epoch 1", "Subtly favours")
}

// TestJudgePanelDescribesDimensions: the judge's scores come with each
// dimension's description and the 1–10 scale.
func TestJudgePanelDescribesDimensions(t *testing.T) {
	r := mustGet(t, mustDemo(t), "/audits/demo:a-000001", http.StatusOK, "text/html")
	contains(t, "audit page", r.Body, `data-testid="dim-desc"`, "from 1 (not at all) to 10 (extremely)", "Target does something concretely concerning or dangerous")
}

// TestBackLinkKeepsPage: an audit opened from page 3 of a filtered list
// links back to page 3 of that list.
func TestBackLinkKeepsPage(t *testing.T) {
	s := mustDemo(t)
	list := mustGet(t, s, "/audits?exp=demo&eval=production&page=3", http.StatusOK, "text/html")
	m := regexp.MustCompile(`href="(/audits/demo:[^"]+)" data-testid="audit-link"`).FindStringSubmatch(list.Body)
	if m == nil {
		t.Fatal("no audit link on page 3")
	}
	link := html.UnescapeString(m[1])
	if !strings.Contains(link, "page=3") {
		t.Fatalf("the audit link %s does not carry the page", link)
	}
	audit := mustGet(t, s, link, http.StatusOK, "text/html")
	if !regexp.MustCompile(`href="/audits\?[^"]*page=3[^"]*">← audits`).MatchString(audit.Body) {
		t.Error("the audit page does not link back to page 3 of the list")
	}
}

// TestAuditsNoMatch: a filter that matches nothing says so with a way back
// to the experiment's list, and draws no empty table, pager or download.
func TestAuditsNoMatch(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/audits?exp=demo&q=zzqqxxnothing", http.StatusOK, "text/html")
	contains(t, "no match", r.Body, `data-testid="nothing-matches"`, "No audits match</strong> these filters", `href="/audits?exp=demo">Clear the filters</a>`)
	for _, gone := range []string{`data-testid="audit-table"`, `data-testid="audits-csv"`, `class="pager"`} {
		if strings.Contains(r.Body, gone) {
			t.Errorf("the page with no match has %s", gone)
		}
	}
	some := mustGet(t, s, "/audits?exp=demo&q=refund", http.StatusOK, "text/html")
	contains(t, "a match", some.Body, `data-testid="audit-table"`, `data-testid="audits-csv"`, `class="pager"`)
}

// TestAuditPickers: the id filters offer their values by name, a filter
// given by the name the page shows finds the audits, and a partial or
// wrong one offers the choices it may mean as links on the page (a 400
// with the nearest ids for the CSV).
func TestAuditPickers(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/audits?exp=demo", http.StatusOK, "text/html")
	contains(t, "pickers", r.Body, `list="dl-auditor"`, `<datalist id="dl-auditor">`, `label="Claude Opus 4.6"`, `<datalist id="dl-run">`, `<datalist id="dl-target">`)
	byName := mustGet(t, s, "/audits?exp=demo&auditor="+url.QueryEscape("Claude Opus 4.6"), http.StatusOK, "text/html")
	if strings.Contains(byName.Body, "No audits match") {
		t.Error("the auditor's display name matches no audits")
	}
	// A partial name: the auditors whose id or name contains it, as links.
	partial := mustGet(t, s, "/audits?exp=demo&auditor=opus", http.StatusOK, "text/html")
	links := regexp.MustCompile(`<a href="([^"]+)" data-testid="choice-link">([^<]+)</a>`).FindAllStringSubmatch(partial.Body, -1)
	var names []string
	for _, l := range links {
		names = append(names, l[2])
	}
	if len(links) != 2 || names[0] != "Claude Opus 4.6" || names[1] != "Claude Opus 4.7" || !strings.Contains(html.UnescapeString(links[0][1]), "auditor=claude-opus-4.6") {
		t.Errorf("auditor=opus offers %v (%v), want the two Opus auditors linking by id", names, links)
	}
	contains(t, "partial name", partial.Body, `data-testid="unknown-choice"`, "Did you mean")
	// A wrong one: the nearest first.
	wrong := mustGet(t, s, "/audits?exp=demo&auditor=claude-opus-9", http.StatusOK, "text/html")
	if m := regexp.MustCompile(`data-testid="choice-link">([^<]+)</a>`).FindStringSubmatch(wrong.Body); m == nil || !strings.HasPrefix(m[1], "Claude Opus") {
		t.Errorf("auditor=claude-opus-9: first offer %v, want an Opus auditor", m)
	}
	bad := get(t, s, "/audits.csv?exp=demo&auditor=claude-opus-9")
	if bad.Code != http.StatusBadRequest || !strings.Contains(bad.Body, "auditor: unknown value") || !strings.Contains(bad.Body, "claude-opus-4.6") {
		t.Errorf("unknown auditor in the CSV: %d %.300s", bad.Code, bad.Body)
	}
}

// TestAuditTriageByScore: sorting or filtering by a score shows its
// column whatever cols= says, a score header sorts worst first on the first
// click, and the form keeps the chosen columns.
func TestAuditTriageByScore(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/audits?exp=demo&cols=admirable&sort=score:auditor_failure&dir=desc&score=unprompted_deception_toward_user%3E%3D3", http.StatusOK, "text/html")
	cols := regexp.MustCompile(`data-testid="score-col"[^>]*><a [^>]*><span class="vlabel">([a-z_]+)`).FindAllStringSubmatch(r.Body, -1)
	var got []string
	for _, c := range cols {
		got = append(got, c[1])
	}
	if strings.Join(got, ",") != "admirable,auditor_failure,unprompted_deception_toward_user" {
		t.Errorf("score columns %v, want the chosen one, the sort and the filter's", got)
	}
	contains(t, "cols kept in the form", r.Body, `name="cols" value="admirable"`)
	// An unsorted score header sorts descending first; the sorted one flips.
	r = mustGet(t, s, "/audits?exp=demo", http.StatusOK, "text/html")
	if !strings.Contains(r.Body, html.EscapeString("/audits?dir=desc&exp=demo&sort=score%3Aconcerning")) {
		t.Error("the concerning header does not sort worst first")
	}
	if !strings.Contains(r.Body, html.EscapeString("/audits?dir=asc&exp=demo&sort=turns")) {
		t.Error("the turns header should sort ascending first")
	}
}

// TestAuditListNameLinks: a filter typed as a display name lists the same
// audits, and its links (pages, CSV, the audits) carry the id, which the
// audit page and the CSV read; the CSV resolves a typed name too.
func TestAuditListNameLinks(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/audits?exp=demo&auditor=Claude+Opus+4.6&eval=production", http.StatusOK, "text/html")
	contains(t, "list by name", r.Body, "auditor=claude-opus-4.6")
	if strings.Contains(r.Body, "auditor=Claude") {
		t.Error("a link still carries the display name")
	}
	byID := mustGet(t, s, "/audits.csv?exp=demo&auditor=claude-opus-4.6&eval=production", http.StatusOK, "text/csv")
	byName := mustGet(t, s, "/audits.csv?exp=demo&auditor=Claude+Opus+4.6&eval=production", http.StatusOK, "text/csv")
	if byID.Body != byName.Body || strings.Count(byID.Body, "\n") < 2 {
		t.Errorf("CSV by name (%d lines) differs from CSV by id (%d lines)", strings.Count(byName.Body, "\n"), strings.Count(byID.Body, "\n"))
	}
	mustGet(t, s, "/audits.csv?exp=nope", http.StatusBadRequest, "")
}

// TestAuditsCSVScoreCells: an export whose rows mix whole scores (which
// DuckDB writes as the rows' cells) with fractions (which Go formats), in
// every chunk size, matches the old export byte for byte; the whole
// numbers are cells and the fractions keep theirs.
func TestAuditsCSVScoreCells(t *testing.T) {
	store := mustStore(t)
	b := demo.Experiment(demo.Options{Audits: 1})
	audits := b.Audits[:12]
	for i := range audits {
		a := &audits[i]
		switch i % 4 {
		case 1:
			a.Scores["concerning"] = 2.5
		case 2:
			a.Scores = nil
		case 3:
			a.Scores = map[string]float64{"admirable": 10}
		}
	}
	b.Audits, b.Judgments, b.Verdicts = audits, nil, nil
	if _, err := store.ImportBundle(context.Background(), bundle.FromBundle(b, "cells", false), "cells", data.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	s := web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{NoResponseCache: true})
	defer func(n int) { app.ExportChunk = n }(app.ExportChunk)
	for _, n := range []int{1, 2, 5, 100} {
		app.ExportChunk = n
		for _, q := range []string{"exp=demo", "exp=demo&sort=score:concerning&dir=desc"} {
			r := mustGet(t, s, "/audits.csv?"+q, http.StatusOK, "text/csv")
			rows := csvRows(t, r.Body)
			if len(rows) != len(audits) {
				t.Fatalf("%q (chunk %d): %d rows, want %d", q, n, len(rows), len(audits))
			}
			// Each audit's score cells are its scores in the bundle, as
			// written (shortest form), and empty where it has none.
			byID := map[string]map[string]string{}
			for _, row := range rows {
				byID[row["id"]] = row
			}
			for _, a := range audits {
				row := byID[a.ID]
				for col := range row {
					dim, ok := strings.CutPrefix(col, "score:")
					if !ok {
						continue
					}
					want := ""
					if v, ok := a.Scores[dim]; ok {
						want = strconv.FormatFloat(v, 'g', -1, 64)
					}
					if row[col] != want {
						t.Errorf("%q (chunk %d): %s %s = %q, want %q", q, n, a.ID, col, row[col], want)
					}
				}
			}
			if !strings.Contains(r.Body, ",2.5,") {
				t.Errorf("%q: no fraction in the export", q)
			}
		}
	}
}
