package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/web"
)

// logsServer serves the Petri fixtures of data/testdata/petri and one
// Inspect log with tool calls.
func logsServer(t *testing.T) *web.Server {
	t.Helper()
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	if _, err := store.Import(ctx, filepath.Join(root, "data", "testdata", "petri"), data.ImportOptions{Name: "petri"}); err != nil {
		t.Fatal(err)
	}
	docent := filepath.Join(root, "testdata", "fixtures", "inspect", "docent-sample.eval")
	if _, err := store.Import(ctx, docent, data.ImportOptions{Name: "docent"}); err != nil {
		t.Fatal(err)
	}
	return web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})
}

func TestLogsPetriAuditPage(t *testing.T) {
	s := logsServer(t)
	r := mustGet(t, s, "/audits/petri:petri-rollback-01", http.StatusOK, "text/html")
	contains(t, "rollback transcript", r.Body,
		`data-testid="tool-call"`, "create_tool", "send_tool_call_result", "get_reviews",
		`data-testid="branches"`, "target branch 1 (ended by rollback)", "target branch 2 (final)",
		`data-testid="highlight"`, `data-highlight-msg="t-a3"`, `data-highlight-quote="The Quiet Shore is a masterpiece"`,
		`id="m-t-a3"`, "flattery", "unprompted_sycophancy")
	// A highlight of a message only the target's view holds (a simulated
	// tool result) links to that view and branch.
	contains(t, "highlight link", r.Body, `href="/audits/petri:petri-rollback-01?branch=1&amp;view=target#m-t-t1"`)
	r = mustGet(t, s, "/audits/petri:petri-rollback-01?view=target&branch=0", http.StatusOK, "text/html")
	contains(t, "first branch", r.Body, `id="m-t-a1"`, "truly among the best openings")

	// The reset and json_patch transcript: three target branches.
	r = mustGet(t, s, "/audits/petri:petri-reset-01?view=target", http.StatusOK, "text/html")
	contains(t, "reset transcript", r.Body, `data-testid="branches"`, "target branch 1 (ended by reset)",
		"target branch 2 (ended by json_patch)", "Kindly answer account questions", `data-highlight-msg="t-a3"`)

	// The legacy layout: target and combined views, no branches.
	r = mustGet(t, s, "/audits/petri:petri-legacy-01", http.StatusOK, "text/html")
	contains(t, "legacy transcript", r.Body, `data-testid="view-target"`, `data-testid="tool-call"`, "limited to 1,200 mg per day")
	if strings.Contains(r.Body, `data-testid="branches"`) {
		t.Error("legacy transcript shows branches")
	}

	// The audit browser lists them with their eval kinds.
	r = mustGet(t, s, "/audits?exp=petri", http.StatusOK, "text/html")
	contains(t, "browser", r.Body, "1–3 of 3 audits", "petri:petri-reset-01")
}

func TestLogsInspectAuditPage(t *testing.T) {
	s := logsServer(t)
	r := mustGet(t, s, "/audits/docent:19_epoch_1", http.StatusOK, "text/html")
	contains(t, "inspect sample", r.Body,
		`data-testid="tool-call"`, "python", "submit", "call_8GTNYsH9DmIxMlYFp7FbS7Ln", "result of python",
		"picoCTF{101010}", "0b101010", `data-testid="sample-scores"`, "General Skills")
	raw := mustGet(t, s, "/audits/docent:19_epoch_1/transcript.json", http.StatusOK, "application/json")
	contains(t, "raw JSON", raw.Body, `"transcript_id":"19_epoch_1"`, `"auditor_model":"openai/gpt-4o"`)
	r = mustGet(t, s, "/audits?exp=docent", http.StatusOK, "text/html")
	contains(t, "browser", r.Body, "1–15 of 15 sample runs")
}
