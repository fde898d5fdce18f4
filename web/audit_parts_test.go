package web

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/web/app"
)

// TestMessageParts: a transcript longer than a part is sent in parts, each
// message on exactly one, and a judge's highlight links to the part that
// holds its message.
func TestMessageParts(t *testing.T) {
	// Pages are kept by URL: the whole transcript is read from a server of
	// its own.
	r := mustGet(t, rollbackServer(t), "/audits/x:rollback?view=target&branch=1", http.StatusOK, "text/html")
	if n := strings.Count(r.Body, `data-testid="message"`); n != 5 || strings.Contains(r.Body, `data-testid="part-nav"`) {
		t.Errorf("whole: %d messages, want 5 on one page", n)
	}
	r = get(t, rollbackServer(t), "/audits/x:rollback?tab=events")
	if r.Code != http.StatusBadRequest || !strings.Contains(r.Body, "tab: this audit records no events") {
		t.Errorf("events of a Petri transcript: %d %.300s", r.Code, r.Body)
	}
	s := rollbackServer(t)
	defer func(b, m int) { partBytes, partMessages = b, m }(partBytes, partMessages)
	partMessages = 2
	whole := 0
	for part := 1; ; part++ {
		path := "/audits/x:rollback?view=target&branch=1"
		if part > 1 {
			path += "&part=" + string(rune('0'+part))
		}
		r := mustGet(t, s, path, http.StatusOK, "text/html")
		n := strings.Count(r.Body, `data-testid="message"`)
		if n == 0 || n > 2 {
			t.Fatalf("part %d: %d messages", part, n)
		}
		whole += n
		contains(t, "part nav", r.Body, `data-testid="part-nav"`, "find searches this part")
		if !strings.Contains(r.Body, `data-testid="part-next"`) {
			break
		}
	}
	if whole != 5 {
		t.Errorf("the parts held %d messages, want 5", whole)
	}
	r = mustGet(t, s, "/audits/x:rollback", http.StatusOK, "text/html")
	contains(t, "highlight into part 2", r.Body, `href="/audits/x:rollback?branch=1&amp;part=`)
}

// TestMessagePartsBySize: parts end before the message that would take
// them past partBytes; a message larger than a part is a part alone.
func TestMessagePartsBySize(t *testing.T) {
	defer func(b int) { partBytes = b }(partBytes)
	partBytes = 100
	msg := func(n int) app.Message { return app.Message{Text: strings.Repeat("x", n)} }
	got := messageParts([]app.Message{msg(60), msg(30), msg(20), msg(500), msg(10), msg(10)})
	if want := []int{0, 2, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("parts start at %v, want %v", got, want)
	}
	if p := partOf(got, 3); p != 3 {
		t.Errorf("message 3 is on part %d, want 3", p)
	}
	if got := messageParts(nil); !slices.Equal(got, []int{0}) {
		t.Errorf("no messages: %v", got)
	}
}

// rollbackServer serves the hand-made experiment with one audit, x:rollback,
// whose transcript is Petri's rollback example (data/testdata/petri): a
// branch of five target messages.
func rollbackServer(t *testing.T) *Server {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "data", "testdata", "petri", "rollback.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := handMade()
	f.audits = map[string]model.AuditDetail{"x:rollback": {AuditRow: model.AuditRow{Key: "x:rollback", Experiment: "x", ID: "rollback", Auditor: "alpha"}, TranscriptFile: "rollback.json"}}
	f.transcripts = map[string][]byte{"x:rollback": b}
	return fakeServer(t, f, Config{})
}
