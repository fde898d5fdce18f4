package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/web"
)

// TestSlashIDsAndNUL: ids holding a "/" (a Petri transcript id such as
// run1/sample-3, a metric such as train/loss) are linked as one escaped
// segment and their pages answer; a NUL in a text reaches no page or CSV.
func TestSlashIDsAndNUL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	if err := os.CopyFS(dir, os.DirFS("../../data/testdata/bundle-small")); err != nil {
		t.Fatal(err)
	}
	edit := func(name string, pairs ...string) {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.NewReplacer(pairs...).Replace(string(b))
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("audits.jsonl", `"id": "a1"`, `"id": "run1/a1"`, `"summary": "Found the pro-Russia tilt after rolling back."`, `"summary": "Found the tilt\u0000 after rolling back."`)
	edit("judgments.jsonl", `"left": "a1"`, `"left": "run1/a1"`)
	edit("metrics.jsonl", `"name": "reward"`, `"name": "train/reward"`)
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.Import(ctx, dir, data.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	s := web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})

	audit := string(links.Audit("small:run1/a1", nil))
	if !strings.Contains(audit, "%2F") {
		t.Fatalf("the link %s does not escape the slash", audit)
	}
	r := mustGet(t, s, audit, 200, "text/html")
	contains(t, audit, r.Body, "run1/a1")
	list := mustGet(t, s, "/audits?exp=small", 200, "text/html")
	contains(t, "the audit list", list.Body, "Found the tilt\uFFFD after", string(links.Audit("small:run1/a1", nil)))
	for _, page := range []string{audit, "/audits?exp=small", "/audits.csv?exp=small", "/experiments/small/judgments"} {
		if r := get(t, s, page); r.Code != 200 || strings.ContainsRune(r.Body, 0) {
			t.Errorf("%s: status %d, NUL in the body: %v", page, r.Code, strings.ContainsRune(r.Body, 0))
		}
	}
	// The run page links the metric's figure, and the link answers.
	run := mustGet(t, s, "/runs/small:ref-cal50", 200, "text/html")
	m := regexp.MustCompile(`data="(/runs/[^"]*metric-train[^"]*\.svg)"`).FindStringSubmatch(run.Body)
	if m == nil {
		t.Fatalf("no figure of train/reward on the run page")
	}
	fig := strings.ReplaceAll(m[1], "&amp;", "&")
	mustGet(t, s, fig, 200, "image/svg+xml")
}

// TestHeadAndStatic: HEAD answers wherever GET does, with GET's status and
// headers and no body; /static/ lists nothing and a missing static file
// gets the app's error page.
func TestHeadAndStatic(t *testing.T) {
	s := mustDemo(t)
	for _, p := range []string{"/", "/audits?exp=demo", "/experiments/demo/scores.csv", "/static/style.css", "/nope"} {
		g := get(t, s, p)
		req := httptest.NewRequest(http.MethodHead, p, nil)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != g.Code || rec.Body.Len() != 0 || rec.Header().Get("Content-Type") != g.Header.Get("Content-Type") {
			t.Errorf("HEAD %s: %d, %d body bytes, %q; GET gave %d, %q", p, rec.Code, rec.Body.Len(), rec.Header().Get("Content-Type"), g.Code, g.Header.Get("Content-Type"))
		}
	}
	for _, p := range []string{"/static/", "/static/missing.css", "/static/../go.mod"} {
		r := get(t, s, p)
		if r.Code != 404 || !strings.Contains(r.Body, "auditscope") || strings.Contains(r.Body, "style.css</a>") {
			t.Errorf("%s: %d %.200s", p, r.Code, r.Body)
		}
	}
	mustGet(t, s, "/static/style.css", 200, "text/css")
}
