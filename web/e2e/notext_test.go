package e2e

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/demo"
	"github.com/auditscope/auditscope/web"
)

// TestAnnotationOnly imports an AnnotatedPairs 2.0 file whose comparisons
// carry no prompt and responses with a model but no text (as the Feedback
// Forensics Annotations v2.0 dataset does), beside the same file with its
// texts: every vote-based number is identical, the lengths are "–" with a
// note, and the comparison viewer says the texts are not in the file.
func TestAnnotationOnly(t *testing.T) {
	var full bytes.Buffer
	if err := demo.ScaleAnnotatedPairs(&full, demo.ScaleOptions{Comparisons: 300, Traits: 6, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	// The texts and prompts removed in place, so the file keeps its order.
	bare := regexp.MustCompile(`"prompt": "[^"]*", |"text": "[^"]*", `).ReplaceAll(full.Bytes(), nil)
	if bytes.Contains(bare, []byte(`"text"`)) || bytes.Contains(bare, []byte(`"prompt"`)) {
		t.Fatal("texts left in the annotation-only file")
	}
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.ImportAnnotatedPairsBytes(ctx, full.Bytes(), "full.json", data.ImportOptions{Name: "full"}); err != nil {
		t.Fatal(err)
	}
	res, err := store.ImportAnnotatedPairsBytes(ctx, bare, "notext.json", data.ImportOptions{Name: "notext"})
	if err != nil {
		t.Fatalf("an annotation-only file is refused: %v", err)
	}
	if !strings.Contains(res.String(), "no prompts or response texts") {
		t.Errorf("the import does not say there are no texts: %s", res)
	}
	s := web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})
	for _, p := range []string{"annotators.csv", "annotators.csv?ref=model:model-03", "table.csv?split=topic&ci=1", "models.csv", "ranking.csv"} {
		a := mustGet(t, s, "/pairs/full/"+p, http.StatusOK, "text/csv").Body
		b := mustGet(t, s, "/pairs/notext/"+p, http.StatusOK, "text/csv").Body
		a = strings.ReplaceAll(a, ",full,", ",notext,")
		if a != b {
			t.Errorf("%s differs between the file with texts and without:\n%.400s\n---\n%.400s", p, a, b)
		}
	}
	ov := strings.Split(strings.TrimSpace(mustGet(t, s, "/pairs/notext/overview.csv", http.StatusOK, "text/csv").Body), "\n")[1]
	full0 := strings.Split(strings.TrimSpace(mustGet(t, s, "/pairs/full/overview.csv", http.StatusOK, "text/csv").Body), "\n")[1]
	if f, n := strings.Split(full0, ","), strings.Split(ov, ","); f[0] != n[0] || f[1] != n[1] || n[2] != "" || n[6] != "" {
		t.Errorf("overview.csv without texts %q (with texts %q): want the same pairs and prop_a, empty lengths", ov, full0)
	}
	page := mustGet(t, s, "/pairs/notext", http.StatusOK, "text/html")
	contains(t, "explorer", page.Body, `data-testid="no-texts"`, `data-testid="overview-prop-longer">– </dd>`)
	list := mustGet(t, s, "/pairs/notext/comparisons", http.StatusOK, "text/html")
	contains(t, "comparisons", list.Body, `/pairs/notext/comparisons/c00000000`)
	cmp := mustGet(t, s, "/pairs/notext/comparisons/c00000000", http.StatusOK, "text/html")
	contains(t, "comparison", cmp.Body, `data-testid="no-texts"`, "model-")
	mustGet(t, s, "/pairs/notext/figures/length.svg", http.StatusOK, "image/svg+xml")
}
