package e2e

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// In the hand-worked dataset (see handDoc) the human h decides these
// comparisons between two different models: c1 X>Y, c2 X>Y (X is text_b,
// h votes text_b), c3 X>Z, c4 Y>Z (Y is text_b), c7 Z>Y. c5 is X against X
// and c6 has a response without a model, so 5 comparisons count, X beats
// both others, and Y and Z split 1–1: no majority cycle, and no
// Bradley–Terry fit (X never loses).
func TestPairsModels(t *testing.T) {
	s := mustPairs(t)
	r := mustGet(t, s, "/pairs/hand/models", http.StatusOK, "text/html")
	contains(t, "models page", r.Body,
		`data-testid="models-pairs"><strong>5 comparisons</strong> between 3 models`,
		`data-testid="win-matrix"`, `data-testid="cycle-counts"`, `data-testid="ranking"`, `data-testid="cycles-figure"`,
		// Cells link to the comparisons between the two models.
		`href="/pairs/hand/comparisons?models=X%2CY&amp;ref=h" data-testid="win-cell">2</a>`,
		`href="/pairs/hand/comparisons?models=Y%2CX&amp;ref=h" data-testid="win-cell">0</a>`,
		// X: 3 wins, 0 losses; Wilson 95% for 3 of 3 is [0.44, 1].
		`data-testid="win-rate">1.00 [0.44, 1.00]</td>`,
		"No Bradley–Terry ranking", "No cycles",
		`href="/pairs/hand/models.csv?ref=h"`, `href="/pairs/hand/ranking.csv?ref=h"`, `href="/pairs/hand/cycles.csv?max=4&amp;ref=h"`,
		`data="/pairs/hand/figures/models.svg?max=4&amp;ref=h"`, `href="/pairs/hand/models?max=5&amp;ref=h"`,
		`href="/pairs/hand?ref=h" data-testid="explorer-link"`)
	rows := regexp.MustCompile(`data-testid="win-row" data-model="([^"]+)"`).FindAllStringSubmatch(r.Body, -1)
	if len(rows) != 3 || rows[0][1] != "X" || rows[2][1] != "Z" {
		t.Errorf("matrix rows %v, want X Y Z", rows)
	}
	// The cell links open exactly the comparisons between the two models.
	for query, ids := range map[string]string{
		"models=X%2CY&ref=h": "c1 c2",
		"models=Y,Z":         "c4 c7",
		"models=Y":           "c1 c2 c4 c6 c7",
		"models=X&models=X":  "c1 c2 c3 c5",
		"models=X,Z&q=aa":    "c3",
	} {
		r := mustGet(t, s, "/pairs/hand/comparisons?"+query, http.StatusOK, "text/html")
		var got []string
		for _, m := range regexp.MustCompile(`data-testid="comparison-link">([^<]*)<`).FindAllStringSubmatch(r.Body, -1) {
			got = append(got, m[1])
		}
		if strings.Join(got, " ") != ids {
			t.Errorf("comparisons?%s = %v, want %s", query, got, ids)
		}
	}
	r = mustGet(t, s, "/pairs/hand/comparisons?models=X,Y", http.StatusOK, "text/html")
	contains(t, "pair list", r.Body, "</strong> between X and Y", `name="models" value="X,Y"`)

	// CSV twins.
	r = mustGet(t, s, "/pairs/hand/models.csv", http.StatusOK, "text/csv")
	if want := "model_a,model_b,wins_a,wins_b\nX,Y,2,0\nX,Z,1,0\nY,Z,1,1\n"; strings.ReplaceAll(r.Body, "\r", "") != want {
		t.Errorf("models.csv = %q, want %q", r.Body, want)
	}
	if cd := r.Header.Get("Content-Disposition"); !strings.Contains(cd, `filename="hand-models.csv"`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	r = mustGet(t, s, "/pairs/hand/ranking.csv", http.StatusOK, "text/csv")
	if got, want := firstLine(r.Body), "model,log_strength,lo,hi,wins,losses,in_cycle,rank,anchor,interval"; got != want {
		t.Errorf("ranking.csv header %q, want %q", got, want)
	}
	contains(t, "ranking.csv", r.Body, "X,,,,3,0,false,,false")
	r = mustGet(t, s, "/pairs/hand/cycles.csv?max=3", http.StatusOK, "text/csv")
	if got := strings.TrimSpace(r.Body); got != "length,cycle,edge_records,edge_p,p,finding,count_p" {
		t.Errorf("cycles.csv = %q, want the header only", got)
	}

	// Another reference: model:X prefers X's responses, so it only votes
	// on comparisons with X.
	r = mustGet(t, s, "/pairs/hand/models.csv?ref=model:X", http.StatusOK, "text/csv")
	if want := "model_a,model_b,wins_a,wins_b\nX,Y,2,0\nX,Z,1,0\nY,Z,0,0\n"; strings.ReplaceAll(r.Body, "\r", "") != want {
		t.Errorf("models.csv?ref=model:X = %q, want %q", r.Body, want)
	}

	mustGet(t, s, "/pairs/hand/figures/models.svg?max=3", http.StatusOK, "image/svg+xml")
	mustGet(t, s, "/pairs/hand/figures/models.png", http.StatusOK, "image/png")
	mustGet(t, s, "/pairs/hand/figures/models.pdf", http.StatusOK, "application/pdf")

	for path, status := range map[string]int{
		"/pairs/nope/models":                       http.StatusNotFound,
		"/pairs/nope/models.csv":                   http.StatusNotFound,
		"/pairs/nope/ranking.csv":                  http.StatusNotFound,
		"/pairs/nope/cycles.csv":                   http.StatusNotFound,
		"/pairs/hand/models?max=9":                 http.StatusBadRequest,
		"/pairs/hand/models?max=2":                 http.StatusBadRequest,
		"/pairs/hand/models?max=four":              http.StatusBadRequest,
		"/pairs/hand/models?ref=nobody":            http.StatusBadRequest,
		"/pairs/hand/models?refmodels=W":           http.StatusBadRequest,
		"/pairs/hand/models.csv?ref=nobody":        http.StatusBadRequest,
		"/pairs/hand/ranking.csv?ref=nobody":       http.StatusBadRequest,
		"/pairs/hand/cycles.csv?max=50":            http.StatusBadRequest,
		"/pairs/hand/figures/models.svg?max=9":     http.StatusBadRequest,
		"/pairs/hand/comparisons?models=W":         http.StatusBadRequest,
		"/pairs/hand/comparisons?models=X,Y,Z":     http.StatusBadRequest,
		"/pairs/hand/comparisons?models=X&models=": http.StatusOK,
	} {
		if r := get(t, s, path); r.Code != status {
			t.Errorf("GET %s: status %d, want %d", path, r.Code, status)
		}
	}
}

// TestPairsModelsDemo checks the demo's intransitive model preferences
// show as cycles.
func TestPairsModelsDemo(t *testing.T) {
	s := mustDemo(t)
	r := mustGet(t, s, "/pairs/synthetic-personality-demo/models", http.StatusOK, "text/html")
	contains(t, "demo models", r.Body, `data-testid="win-matrix"`, "10 models", `data-testid="cycles-figure"`)
	if strings.Contains(r.Body, "<strong>0 3-cycles</strong>") || !strings.Contains(r.Body, `<ol data-testid="cycles"><li>`) {
		t.Error("the demo's model cycle is missing")
	}
	contains(t, "demo models", r.Body, "cirrus-large", "delta-mini", "ember-2")
	r = mustGet(t, s, "/pairs/synthetic-personality-demo/cycles.csv?max=3", http.StatusOK, "text/csv")
	if n := strings.Count(strings.TrimSpace(r.Body), "\n"); n == 0 {
		t.Error("cycles.csv lists no cycle")
	}
	r = mustGet(t, s, "/pairs/synthetic-personality-demo/ranking.csv", http.StatusOK, "text/csv")
	if !strings.Contains(r.Body, ",true,") {
		t.Errorf("ranking.csv flags no model in a cycle:\n%s", r.Body)
	}
	mustGet(t, s, "/pairs/synthetic-personality-demo/figures/models.svg?max=5", http.StatusOK, "image/svg+xml")
}
