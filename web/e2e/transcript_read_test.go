package e2e

import (
	"math"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestTranscriptsAsWritten (issue #50): the docent log's sample pages show
// no \u00xx escape; sample 50's python argument keeps its own line breaks
// and its ">>" and "&"; the assistant's markdown renders (a list, inline
// code); a long tool output is folded with "show all (N lines …)".
func TestTranscriptsAsWritten(t *testing.T) {
	s := inspectServer(t)
	ids := regexp.MustCompile(`href="/audits/(docent-sample\.eval:[^"?#]*)`).FindAllStringSubmatch(
		mustGet(t, s, "/audits?exp=docent-sample.eval", http.StatusOK, "text/html").Body, -1)
	if len(ids) < 10 {
		t.Fatalf("%d samples listed", len(ids))
	}
	for _, m := range ids {
		body := mustGet(t, s, "/audits/"+m[1], http.StatusOK, "text/html").Body
		if e := regexp.MustCompile(`\\u00[0-9a-fA-F]{2}`).FindString(body); e != "" {
			t.Errorf("%s shows the escape %s", m[1], e)
		}
	}
	body := mustGet(t, s, "/audits/docent-sample.eval:50_epoch_1", http.StatusOK, "text/html").Body
	contains(t, "sample 50", body, `data-testid="tool-arg-code"`, `class="code chroma language-python"`, `<span class="nb">chr</span>`,
		`data-testid="markdown"`, "<li>", "<code>VaultDoor7.java</code>", `data-testid="folded"`, "show all (68 lines")
	// The python argument as written, once its highlighting is taken off:
	// its own line breaks, ">>" and "&" (escaped in HTML, not in JSON).
	plain := regexp.MustCompile(`<[^>]+>`).ReplaceAllString(body, "")
	if !strings.Contains(plain, "chr((number &gt;&gt; 24) &amp; 0xFF)\n") {
		t.Error("sample 50's python argument is not as written")
	}
	if strings.Contains(body, `\n`) {
		t.Error("sample 50 shows a literal \\n")
	}
}

// TestTransferMatchesScores: an auditor's overall AuditBench rate has one
// interval wherever it is shown: the transfer table's (a share) and the
// overview's scores (in percent), both clustered by behavior.
func TestTransferMatchesScores(t *testing.T) {
	s := mustDemo(t)
	scores := map[string][2]float64{}
	for _, m := range csvRows(t, mustGet(t, s, "/experiments/demo/scores.csv", http.StatusOK, "text/csv").Body) {
		if strings.HasPrefix(m["dimension"], "auditbench") && m["lo"] != "" {
			scores[m["auditor"]+"/"+m["dimension"]] = [2]float64{csvNum(t, m["lo"]), csvNum(t, m["hi"])}
		}
	}
	n := 0
	for _, m := range csvRows(t, mustGet(t, s, "/experiments/demo/transfer.csv", http.StatusOK, "text/csv").Body) {
		want, ok := scores[m["auditor"]+"/"+m["eval"]]
		if m["behavior"] != "" || !ok {
			continue
		}
		n++
		if lo, hi := 100*csvNum(t, m["lo"]), 100*csvNum(t, m["hi"]); math.Abs(lo-want[0]) > 1e-9 || math.Abs(hi-want[1]) > 1e-9 {
			t.Errorf("%s %s: transfer [%v, %v], scores %v", m["auditor"], m["eval"], lo, hi, want)
		}
	}
	if n < 50 {
		t.Errorf("%d rows compared", n)
	}
}
