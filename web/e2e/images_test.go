package e2e

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/web"
)

// TestMessageImages: log_images.json (inspect_ai's own test log) shows its
// image as an image, resolved from the sample's attachments, and no page
// of it shows base64 as text; an SVG, a remote image and a data: URL that
// tries to leave its attribute are named, never shown or run.
func TestMessageImages(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "fixtures", "inspect", "log_images.json")
	dir := t.TempDir()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "log_images.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	hostile := []map[string]any{
		{"type": "text", "text": "Three pictures:"},
		{"type": "image", "image": "data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+"},
		{"type": "image", "image": "https://example.org/cat.png"},
		{"type": "image", "image": `data:image/png;base64,AAAA"><script>alert(1)</script>`},
	}
	log := map[string]any{"version": 2, "status": "success",
		"eval":    map[string]any{"run_id": "r", "created": "2026-01-01T00:00:00Z", "task": "pics", "task_id": "t", "dataset": map[string]any{"name": "d", "samples": 1}, "model": "m/m"},
		"stats":   map[string]any{"started_at": "2026-01-01T00:00:00Z", "completed_at": "2026-01-01T00:00:01Z"},
		"samples": []map[string]any{{"id": 1, "epoch": 1, "input": "x", "target": "y", "messages": []map[string]any{{"role": "user", "content": hostile}}}}}
	raw, _ := json.Marshal(log)
	if err := os.WriteFile(filepath.Join(dir, "hostile.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	store := mustStore(t)
	if _, err := store.Import(context.Background(), dir, data.ImportOptions{Name: "img"}); err != nil {
		t.Fatal(err)
	}
	s := web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})
	r := mustGet(t, s, "/audits/img:log_images.json--1_epoch_1", http.StatusOK, "text/html")
	contains(t, "log_images page", r.Body, `data-testid="message-image"`, `<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACIAAAAe`)
	if n := strings.Count(r.Body, "base64,"); n != 1 {
		t.Errorf("base64 appears %d times on the page; want once, in the image's src", n)
	}
	for _, p := range []string{"/audits/img:log_images.json--1_epoch_1?tab=events", "/audits?exp=img", "/experiments/img",
		"/audits/img:log_images.json--1_epoch_1?view=combined"} {
		if body := get(t, s, p).Body; strings.Contains(body, "base64,") && !strings.Contains(body, `<img src="data:image/png;base64,`) {
			t.Errorf("%s shows base64 as text", p)
		}
	}
	r = mustGet(t, s, "/audits/img:hostile.json--1_epoch_1", http.StatusOK, "text/html")
	contains(t, "hostile images", r.Body, "image part, image (", "image part at https://example.org/cat.png (not fetched)")
	for _, bad := range []string{"<script>alert(1)", "data:image/svg", `src="https://example.org`} {
		if strings.Contains(r.Body, bad) {
			t.Errorf("hostile images: the page holds %q", bad)
		}
	}
}
