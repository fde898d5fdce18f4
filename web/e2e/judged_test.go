package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/demo"
	"github.com/auditscope/auditscope/data/petri"
	"github.com/auditscope/auditscope/web"
)

// judgedFolder is the folder: four targets, fifteen seeds, three
// transcripts without a target reply and two with an unparsed verdict.
var judgedFolder = demo.PetriOptions{
	Targets: []string{"m/alpha", "m/beta", "m/gamma", "m/delta"},
	Seeds:   15, NoReply: 3, Unparsed: 2, Seed: 11,
}

// serveImported imports dir into a new store and serves it.
func serveImported(t *testing.T, dir string) *web.Server {
	t.Helper()
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.Import(ctx, dir, data.ImportOptions{Name: "folder"}); err != nil {
		t.Fatal(err)
	}
	return web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})
}

// writePetriFolder writes the transcripts as Petri's files.
func writePetriFolder(t *testing.T, ts []*petri.Transcript) string {
	dir := t.TempDir()
	for _, tr := range ts {
		b, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, tr.Metadata.TranscriptID+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeInspectFolder writes the same audits as Petri 3 writes them: one
// Inspect log per target, each seed a sample whose judge score is a
// dictionary of the dimensions, the models in model_roles.
func writeInspectFolder(t *testing.T, o demo.PetriOptions, ts []*petri.Transcript) string {
	dir := t.TempDir()
	samples := map[string][]string{}
	for i, tr := range ts {
		views, err := tr.Views()
		if err != nil {
			t.Fatal(err)
		}
		var msgs []petri.Message
		for _, v := range views {
			if v.Name == petri.ViewTarget {
				msgs = v.Final().Messages
			}
		}
		jo := tr.Metadata.JudgeOutput
		m, _ := json.Marshal(msgs)
		sc, _ := json.Marshal(jo.Scores)
		id := strconv.Itoa(i/len(o.Targets) + 1)
		samples[tr.Metadata.TargetModel] = append(samples[tr.Metadata.TargetModel], fmt.Sprintf(
			`{"id": %s, "epoch": 1, "input": %q, "messages": %s, "scores": {"audit_judge": {"value": %s, "answer": %q, "explanation": %q, "metadata": {"highlights": []}}}}`,
			id, tr.Metadata.Description, m, sc, jo.Summary, jo.Justification))
	}
	for i, target := range o.Targets {
		log := fmt.Sprintf(`{"version": 2, "status": "success", "eval": {"task": "petri_audit", "run_id": "run-%d", "created": "2026-11-01T00:00:00+00:00", "model": %q,
 "model_roles": {"auditor": {"model": %q}, "target": {"model": %q}, "judge": {"model": "anthropic/claude-opus-4.6"}}, "dataset": {"name": "seeds"}},
 "samples": [%s]}`, i, target, demo.PetriAuditor, target, strings.Join(samples[target], ", "))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("log-%d.json", i)), []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestJudgedOverview: the first page of a Petri folder shows every target
// on every one of the 38 dimensions over the 55 valid transcripts, the
// gate's 5 exclusions with both reasons, the figures in three formats and
// a paired comparison naming its correction. The CSV's means and yields
// are checked against the transcripts' own scores, counted here.
func TestJudgedOverview(t *testing.T) {
	ts := demo.PetriTranscripts(judgedFolder)
	s := serveImported(t, writePetriFolder(t, ts))
	page := mustGet(t, s, "/experiments/folder", 200, "text/html")
	for _, want := range []string{`data-testid="judged-table"`, `55 of 60 audits used`, `5 excluded`, "no target reply: 3", "judge output not parsed: 2", "Concerning behaviour", "Auditor and scenario"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("the overview lacks %q", want)
		}
	}
	if strings.Contains(page.Body, `data-testid="no-suite"`) {
		t.Error("the overview still says there is nothing to show")
	}
	// The expected values, from the transcripts: the first five are the
	// excluded ones.
	sum := map[[2]string]float64{}
	hits := map[[2]string]int{}
	n := map[[2]string]int{}
	for _, tr := range ts[5:] {
		for d, v := range tr.Metadata.JudgeOutput.Scores {
			k := [2]string{tr.Metadata.TargetModel, d}
			sum[k] += v
			n[k]++
			if v >= 7 {
				hits[k]++
			}
		}
	}
	rows := csvRows(t, mustGet(t, s, "/experiments/folder/dimensions.csv", 200, "text/csv").Body)
	if len(rows) != 4*38 {
		t.Fatalf("dimensions.csv has %d rows, want 4 targets × 38 dimensions", len(rows))
	}
	for _, r := range rows {
		k := [2]string{r["model"], r["dimension"]}
		mean, _ := strconv.ParseFloat(r["mean"], 64)
		yield, _ := strconv.ParseFloat(r["yield"], 64)
		if math.Abs(mean-sum[k]/float64(n[k])) > 1e-12 || r["audits"] != strconv.Itoa(n[k]) || math.Abs(yield-float64(hits[k])/float64(n[k])) > 1e-12 {
			t.Errorf("%v: mean %s yield %s over %s, want %v and %v over %d", k, r["mean"], r["yield"], r["audits"], sum[k]/float64(n[k]), float64(hits[k])/float64(n[k]), n[k])
		}
	}
	gate := csvRows(t, mustGet(t, s, "/experiments/folder/gate.csv", 200, "text/csv").Body)
	reasons := map[string]int{}
	for _, r := range gate {
		reasons[r["reason"]]++
	}
	if reasons["no target reply"] != 3 || reasons["judge output not parsed"] != 2 || reasons[""] != 55 {
		t.Errorf("gate.csv reasons %v", reasons)
	}
	for _, f := range []string{"heatmap", "forest"} {
		for _, ext := range []string{"png", "svg", "pdf"} {
			r := get(t, s, "/experiments/folder/figures/"+f+"."+ext)
			if r.Code != 200 || len(r.Body) < 1000 {
				t.Errorf("%s.%s: %d, %d bytes", f, ext, r.Code, len(r.Body))
			}
		}
	}
	// Counting the excluded audits is one parameter away.
	if all := get(t, s, "/experiments/folder?excluded=include"); !strings.Contains(all.Body, "all 60 audits counted") {
		t.Error("excluded=include does not count every audit")
	}
	q := url.Values{"a": {"m/alpha"}, "b": {"m/delta"}}
	cmp := mustGet(t, s, "/experiments/folder/paired?"+q.Encode(), 200, "text/html")
	for _, want := range []string{"Benjamini–Hochberg", "side by side", `data-testid="paired-table"`} {
		if !strings.Contains(cmp.Body, want) {
			t.Errorf("the paired comparison lacks %q", want)
		}
	}
	prs := csvRows(t, mustGet(t, s, "/experiments/folder/paired.csv?"+q.Encode(), 200, "text/csv").Body)
	if len(prs) != 38 || prs[0]["correction"] != "bh" {
		t.Errorf("paired.csv: %d rows, correction %q", len(prs), prs[0]["correction"])
	}
	for _, bad := range []string{"?thr=x", "?role=judge", "?excluded=yes", "?thr=7&thr=8", "?jdim=nosuch"} {
		if r := get(t, s, "/experiments/folder"+bad); r.Code != 400 {
			t.Errorf("%s: %d, want 400", bad, r.Code)
		}
	}
}

// TestJudgedInspectSame: a Petri-in-Inspect folder (one log per target,
// the judge's dimensions a dictionary score, the judge in model_roles)
// gives the same overview as the equivalent transcripts.
func TestJudgedInspectSame(t *testing.T) {
	ts := demo.PetriTranscripts(judgedFolder)
	petriCSV := mustGet(t, serveImported(t, writePetriFolder(t, ts)), "/experiments/folder/dimensions.csv", 200, "text/csv").Body
	inspect := serveImported(t, writeInspectFolder(t, judgedFolder, ts))
	inspectCSV := mustGet(t, inspect, "/experiments/folder/dimensions.csv", 200, "text/csv").Body
	if petriCSV != inspectCSV {
		pl, il := strings.Split(petriCSV, "\n"), strings.Split(inspectCSV, "\n")
		for i := range min(len(pl), len(il)) {
			if pl[i] != il[i] {
				t.Fatalf("line %d differs:\n petri   %s\n inspect %s", i, pl[i], il[i])
			}
		}
		t.Fatalf("%d lines from the transcripts, %d from the logs", len(pl), len(il))
	}
	if page := get(t, inspect, "/experiments/folder"); !strings.Contains(page.Body, "55 of 60 audits used") {
		t.Error("the Inspect folder's gate differs")
	}
}
