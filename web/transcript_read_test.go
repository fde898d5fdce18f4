package web

import (
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
	contains(t, "sample 50", body, `data-testid="tool-arg-code"`, `class="code language-python"`,
		"chr((number &gt;&gt; 24) &amp; 0xFF)\n", `data-testid="markdown"`, "<li>", "<code>VaultDoor7.java</code>",
		`data-testid="folded"`, "show all (68 lines")
	if strings.Contains(body, `\n`) {
		t.Error("sample 50 shows a literal \\n")
	}
}
