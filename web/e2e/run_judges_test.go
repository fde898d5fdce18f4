package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// TestRunJudges (issue #51): the demo's training judge beside the held-out
// judge across each run's checkpoints. On the run whose auditors learned
// to please the training judge the page names the reward-hacking
// signature; on another run it does not; each table has its figure.
func TestRunJudges(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/runs/demo:binary-pointwise", http.StatusOK, "text/html")
	contains(t, "hacked run", r.Body, `data-testid="run-judges"`, "claude-sonnet-4 (training judge) beside the held-out judge: concerning",
		"This is the reward-hacking signature", `<th scope="row">epoch 3</th>`)
	other := mustGet(t, s, "/runs/demo:intragroup-cal0", http.StatusOK, "text/html")
	contains(t, "another run", other.Body, `data-testid="run-judges"`)
	if strings.Contains(other.Body, "reward-hacking signature") {
		t.Error("a run whose judges agree is said to show the reward-hacking signature")
	}
	for ext, ct := range map[string]string{"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf"} {
		mustGet(t, s, "/runs/demo:binary-pointwise/figures/judges-1."+ext, http.StatusOK, ct)
	}
	if r := get(t, s, "/runs/demo:binary-pointwise/figures/judges-9.png"); r.Code != http.StatusNotFound {
		t.Errorf("judges-9: %d, want 404", r.Code)
	}
}
