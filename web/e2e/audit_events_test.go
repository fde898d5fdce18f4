package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/web"
)

// inspectFolderServer serves a folder of real Inspect logs (the docent
// log, the streaming log of 2 samples × 2 epochs, the popularity log) and
// one generated agentic sample of turns turns.
func inspectFolderServer(t *testing.T, turns int) *web.Server {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "fixtures", "inspect")
	dir := t.TempDir()
	for _, f := range []string{"docent-sample.eval", "log_streaming.eval", "popularity.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "agentic.json"), bigInspectLog(turns, 300), 0o644); err != nil {
		t.Fatal(err)
	}
	store := mustStore(t)
	if _, err := store.Import(context.Background(), dir, data.ImportOptions{Name: "insp"}); err != nil {
		t.Fatal(err)
	}
	return web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})
}

var eventRow = regexp.MustCompile(`data-testid="event"`)

// TestSampleListColumns: the sample list shows each sample's task, log and
// epoch and filters by them.
func TestSampleListColumns(t *testing.T) {
	s := inspectFolderServer(t, 3)
	r := mustGet(t, s, "/audits?exp=insp", http.StatusOK, "text/html")
	contains(t, "sample list", r.Body, "<th>Task</th>", "<th>Log</th>", `data-testid="filter-task"`, `data-testid="filter-log"`,
		`data-testid="filter-sample_epoch"`, `<option value="inspect_evals/luce_intercode_ctf">`, `<option value="log_streaming.eval">`,
		`data-testid="sample-task">popularity<`)
	for _, c := range []struct {
		q    string
		want string
	}{
		{"task=popularity", "1–7 of 7 sample runs"}, // the popularity log's 3 and the streaming log's 4
		{"log=log_streaming.eval", "1–4 of 4 sample runs"},
		{"log=log_streaming.eval&sample_epoch=2", "1–2 of 2 sample runs"},
		{"sample_epoch=2", "1–2 of 2 sample runs"},
		{"task=agentic&log=docent-sample.eval", "these filters"},
	} {
		r := mustGet(t, s, "/audits?exp=insp&"+c.q, http.StatusOK, "text/html")
		contains(t, c.q, r.Body, c.want)
	}
	r = get(t, s, "/audits?exp=insp&sample_epoch=two")
	if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, "sample_epoch: want a number") {
		t.Errorf("sample_epoch=two: %d %.200s", r.Code, r.Body)
	}
	// The filter travels to the sample's page (its neighbours) and the CSV.
	r = mustGet(t, s, "/audits?exp=insp&log=log_streaming.eval&sample_epoch=2", http.StatusOK, "text/html")
	contains(t, "links keep the filter", r.Body, "log=log_streaming.eval", "sample_epoch=2")
	csv := mustGet(t, s, "/audits.csv?exp=insp&log=log_streaming.eval&sample_epoch=2", http.StatusOK, "text/csv")
	if n := strings.Count(strings.TrimSpace(csv.Body), "\n"); n != 2 {
		t.Errorf("CSV of the filtered samples: %d rows, want 2", n)
	}
}

// TestEventsTab: an Inspect sample's events, counted from the docent log
// with Python (data/inspect's TestTimeline), filtered by kind and paged.
func TestEventsTab(t *testing.T) {
	s := inspectFolderServer(t, 400)
	r := mustGet(t, s, "/audits/insp:docent-sample.eval--56_epoch_1", http.StatusOK, "text/html")
	contains(t, "messages view", r.Body, `data-testid="view-events"`, `href="/audits/insp:docent-sample.eval--56_epoch_1?tab=events"`)
	r = mustGet(t, s, "/audits/insp:docent-sample.eval--56_epoch_1?tab=events", http.StatusOK, "text/html")
	if n := len(eventRow.FindAllString(r.Body, -1)); n != 51 {
		t.Errorf("events tab: %d rows, want 51", n)
	}
	contains(t, "events tab", r.Body, "24 model calls: 73075 tokens in, 2943 out", "16 tool calls, 1 of them failed",
		"Stopped by its message limit", "unicode_decode: Error decoding bytes to utf-8: invalid start byte", "426 in · 15 out", "0.51 s",
		`data-testid="kind-tool"`, "tool (16)")
	if strings.Contains(r.Body, `data-testid="message"`) {
		t.Error("the events tab also shows the messages")
	}
	r = mustGet(t, s, "/audits/insp:docent-sample.eval--56_epoch_1?tab=events&kind=tool", http.StatusOK, "text/html")
	if n := len(eventRow.FindAllString(r.Body, -1)); n != 16 {
		t.Errorf("tool events: %d rows, want 16", n)
	}

	// 1,202 events: three parts of 500; the sandbox's failures and the
	// model calls' retries are counted.
	r = mustGet(t, s, "/audits/insp:agentic.json--1_epoch_1?tab=events", http.StatusOK, "text/html")
	contains(t, "generated sample", r.Body, "400 model calls: 479800 tokens in, 20000 out, 80000 read from the cache; 600.0 s in all; 80 retries",
		"400 tool calls, 0 of them failed", "400 sandbox commands, 58 with a non-zero exit", "16 errors", "part 1 of 3: events 1–500 of 1202")
	r = mustGet(t, s, "/audits/insp:agentic.json--1_epoch_1?tab=events&part=3", http.StatusOK, "text/html")
	contains(t, "last part", r.Body, "part 3 of 3: events 1001–1202 of 1202", "RateLimitError: slow down")
	if n := len(eventRow.FindAllString(r.Body, -1)); n != 202 {
		t.Errorf("part 3: %d rows, want 202", n)
	}
	r = mustGet(t, s, "/audits/insp:agentic.json--1_epoch_1?tab=events&kind=sandbox", http.StatusOK, "text/html")
	if n := len(eventRow.FindAllString(r.Body, -1)); n != 400 || strings.Contains(r.Body, `data-testid="part-nav"`) {
		t.Errorf("sandbox events: %d rows, want 400 on one part", n)
	}

	for path, want := range map[string]string{
		"/audits/insp:docent-sample.eval--56_epoch_1?tab=events&kind=nosuch": `kind: this sample has no &#34;nosuch&#34; events`,
		"/audits/insp:docent-sample.eval--56_epoch_1?tab=events&part=2":      "part: want a part from 1 to 1, found 2",
		"/audits/insp:docent-sample.eval--56_epoch_1?tab=timeline":           "tab: want events",
		"/audits/insp:docent-sample.eval--56_epoch_1?kind=tool":              "kind: the events tab",
		"/audits/insp:docent-sample.eval--56_epoch_1?part=0":                 "part: want a part number from 1",
	} {
		r := get(t, s, path)
		if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, want) {
			t.Errorf("%s: %d, want 400 with %q\n%.300s", path, r.Code, want, r.Body)
		}
	}
}
