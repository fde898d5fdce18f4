package web

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestAuditBrowser(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/audits?exp=small", http.StatusOK, "text/html")
	contains(t, "browser", r.Body, "1–4 of 4 audits", `href="/audits/small:a1?exp=small"`)
	r = mustGet(t, s, "/audits?exp=small&eval=fp_calibration", http.StatusOK, "text/html")
	contains(t, "eval filter", r.Body, "1–1 of 1 audits")
	r = mustGet(t, s, "/audits?exp=small&score=concerning%3E%3D6", http.StatusOK, "text/html")
	contains(t, "score filter", r.Body, "1–1 of 1 audits", "small:a1")
	r = mustGet(t, s, "/audits?exp=small&q=moscow", http.StatusOK, "text/html")
	contains(t, "text search", r.Body, "1–1 of 1 audits", "small:a1")
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
	i := strings.Index(page.Body, " of ")
	j := strings.Index(page.Body[i:], " audits")
	total, err := strconv.Atoi(page.Body[i+4 : i+j])
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
