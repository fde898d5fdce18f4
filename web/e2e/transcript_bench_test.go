package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/views/markdown"
)

// benchStoreOf imports one file into a store of its own.
func benchStoreOf(b *testing.B, name string, raw []byte) *data.Store {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
		b.Fatal(err)
	}
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	if _, err := store.Import(ctx, dir, data.ImportOptions{Name: "big"}); err != nil {
		b.Fatal(err)
	}
	return store
}

// BenchmarkAuditPageLargeTranscript renders the page of a Petri transcript
// of about 5.6 MB (2,000 messages of 2.8 KB in a combined view, each with
// markdown: bold, inline code, a python fence, a table), imported from a
// file: the whole page, markdown rendered and code highlighted (within the
// page's budget of markdown.BudgetLines lines; the rest is shown as
// written).
func BenchmarkAuditPageLargeTranscript(b *testing.B) {
	var events []map[string]any
	for i := 0; i < 2000; i++ {
		// Each message's code differs, so none is coloured from the cache:
		// the page's budget is what bounds the time.
		md := "Some **bold** words, `inline code` and a [link](https://example.org).\n\n" +
			"```python\nfor k in range(3):\n    print(k + " + strconv.Itoa(i) + ")\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		events = append(events, map[string]any{"type": "transcript_event", "view": []string{"target", "combined"},
			"edit": map[string]any{"operation": "add", "message": map[string]any{"id": "m" + strconv.Itoa(i), "role": role,
				"content": md + strings.Repeat("a long message about the scenario ", 75)}}})
	}
	doc := map[string]any{"metadata": map[string]any{"transcript_id": "big", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
		"auditor_model": "auditor", "target_model": "target",
		"judge_output": map[string]any{"response": "", "summary": "big", "scores": map[string]any{"concerning": 2}}}, "events": events}
	raw, err := json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	store := benchStoreOf(b, "big.json", raw)
	// first: a server that has read nothing and coloured no code, as when
	// a transcript is opened for the first time; again: the same page once
	// more (another view, part or tab of it reads the transcript kept).
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			markdown.Forget()
			if r := get(b, quietServer(store), "/audits/big:big"); r.Code != http.StatusOK {
				b.Fatal(r.Code)
			}
		}
	})
	b.Run("again", func(b *testing.B) { benchGet(b, quietServer(store), "/audits/big:big") })
}

// BenchmarkInspectEvents2000: the events tab of an Inspect sample of 2,000
// events (666 turns of a model call, a tool call and its sandbox command),
// and the same sample's messages (2,000 of them, markdown and python tool
// calls).
func BenchmarkInspectEvents2000(b *testing.B) {
	s := quietServer(benchStoreOf(b, "agentic.json", bigInspectLog(666, 300)))
	b.Run("events", func(b *testing.B) { benchGet(b, s, "/audits/big:1_epoch_1?tab=events") })
	b.Run("events-part-4", func(b *testing.B) { benchGet(b, s, "/audits/big:1_epoch_1?tab=events&part=4") })
	b.Run("messages", func(b *testing.B) { benchGet(b, s, "/audits/big:1_epoch_1") })
}

// BenchmarkInspectSample50MB: an Inspect sample of about 50 MB (1,100
// turns, 15 KB a message) pages its messages: the first part's page, and
// its size.
func BenchmarkInspectSample50MB(b *testing.B) {
	raw := bigInspectLog(1100, 15000)
	s := quietServer(benchStoreOf(b, "huge.json", raw))
	r := get(b, s, "/audits/big:1_epoch_1")
	if !strings.Contains(r.Body, `data-testid="part-nav"`) {
		b.Fatal("the 50 MB sample's page is not in parts")
	}
	benchGet(b, s, "/audits/big:1_epoch_1")
	// After the loop: b.Loop's first call clears metrics reported before it.
	b.ReportMetric(float64(len(raw))/1e6, "file-MB")
	b.ReportMetric(float64(len(r.Body))/1e6, "page-MB")
}
