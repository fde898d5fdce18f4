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
	"strconv"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/web"
)

// scorerCase is one case of testdata/stats/inspect_scorers.json, computed by
// inspect_scorers.py from the fixture files with the Python standard library.
type scorerCase struct {
	Log      string             `json:"log"`
	Scorer   string             `json:"scorer"`
	N        int                `json:"n"`
	Rows     int                `json:"rows"`
	Reduced  bool               `json:"reduced"`
	Total    int                `json:"total"`
	Mean     float64            `json:"mean"`
	Stderr   float64            `json:"stderr"`
	Lower    *float64           `json:"lower"`
	Upper    *float64           `json:"upper"`
	Reported map[string]float64 `json:"reported"`
}

func loadScorerCases(t testing.TB) []scorerCase {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "testdata", "stats", "inspect_scorers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Cases []scorerCase }
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) < 5 {
		t.Fatalf("only %d reference cases", len(f.Cases))
	}
	return f.Cases
}

// TestScorersAgainstReference checks the scorer table of every real Inspect
// fixture against values computed independently from the files: n, the
// recomputed mean (epochs reduced per sample first, as Inspect does), its
// Wilson bounds, the reported accuracy and stderr, and that the
// recomputation equals the reported value when the file holds every
// sample.
func TestScorersAgainstReference(t *testing.T) {
	s := inspectServer(t)
	checked := 0
	for _, c := range loadScorerCases(t) {
		t.Run(c.Log, func(t *testing.T) {
			exp := model.Slugify(c.Log)
			r := mustGet(t, s, "/experiments/"+exp+"/scorers.csv", http.StatusOK, "text/csv")
			if !strings.HasPrefix(r.Body, "log,task,model,scorer,metric,n,value,lo,hi,reported,reported_stderr,sample_records,epochs,from,interval\n") {
				t.Fatalf("header: %q", strings.SplitN(r.Body, "\n", 2)[0])
			}
			var row map[string]string
			for _, m := range csvRows(t, r.Body) {
				if m["scorer"] == c.Scorer && m["metric"] == "accuracy" {
					row = m
				}
			}
			if row == nil {
				t.Fatalf("no accuracy row for %s in\n%s", c.Scorer, r.Body)
			}
			if n, _ := strconv.Atoi(row["n"]); n != c.N {
				t.Errorf("n = %s, want %d", row["n"], c.N)
			}
			if v := csvNum(t, row["value"]); !near(v, c.Mean) {
				t.Errorf("value = %v, want %v", v, c.Mean)
			}
			if c.Lower != nil {
				if lo, hi := csvNum(t, row["lo"]), csvNum(t, row["hi"]); !near(lo, *c.Lower) || !near(hi, *c.Upper) {
					t.Errorf("Wilson [%v, %v], want [%v, %v]", lo, hi, *c.Lower, *c.Upper)
				}
			}
			if v := csvNum(t, row["reported"]); v != c.Reported["accuracy"] {
				t.Errorf("reported = %v, want %v", v, c.Reported["accuracy"])
			}
			if v := csvNum(t, row["reported_stderr"]); v != c.Reported["stderr"] {
				t.Errorf("reported_stderr = %v, want %v", v, c.Reported["stderr"])
			}
			if want := map[bool]string{true: "reductions", false: "file"}[c.Reduced]; row["from"] != want {
				t.Errorf("from = %q, want %q", row["from"], want)
			}
			if lo, hi := csvNum(t, row["lo"]), csvNum(t, row["hi"]); lo < 0 || hi > 1 {
				t.Errorf("the interval [%v, %v] leaves [0, 1]", lo, hi)
			}
			if c.Rows == c.Total || c.Reduced {
				// The file holds every sample, or the log's own reductions of
				// every sample: auditscope's number is the log's.
				if v, rep := csvNum(t, row["value"]), csvNum(t, row["reported"]); !near(v, rep) {
					t.Errorf("recomputed %v != reported %v although the file holds all %d samples", v, rep, c.N)
				}
			}
			checked++
		})
	}
	if checked < 8 {
		t.Errorf("checked %d fixtures, want all 8 with scores", checked)
	}
}

// TestScorersByHand checks the Docent sample by hand: of the 15 sample
// records in the file (epoch 1 of 10 of 79 samples), 9 are scored C by
// includes (19, 31, 50, 61, 64, 65, 72, 93, 97). The table recomputes those
// 15: 9/15 = 0.6 with Wilson's [0.357, 0.802], beside the log's reported
// 0.676 over 790 results, and says the file holds 15 of them. (The log's
// reductions.json has every sample reduced over its epochs, but a number
// recomputed from it equals the reported one by construction; it is used
// only for a scorer the file holds no record of.)
func TestScorersByHand(t *testing.T) {
	s := inspectServer(t)
	r := mustGet(t, s, "/audits?exp=docent-sample.eval&score=includes>=1", http.StatusOK, "text/html")
	contains(t, "C samples", r.Body, "1–9 of 9 sample runs")
	// Sorted by the scorer, the C samples (1) come first and the I (0) last.
	csv := csvRows(t, mustGet(t, s, "/audits.csv?exp=docent-sample.eval&sort=score:includes&dir=desc", http.StatusOK, "text/csv").Body)
	if len(csv) != 15 || csv[0]["score:includes"] != "1" || csv[14]["score:includes"] != "0" {
		t.Errorf("sorted by includes: first %q, last %q of %d", csv[0]["score:includes"], csv[len(csv)-1]["score:includes"], len(csv))
	}
	r = mustGet(t, s, "/experiments/docent-sample.eval", http.StatusOK, "text/html")
	contains(t, "experiment page", r.Body, `data-testid="scorer-table"`, "0.600 [0.357, 0.802]", "0.676 ± 0.042",
		"over 790 sample × epoch results", "15 samples", "the file holds 15 of the log&#39;s 790 sample × epoch results", "inspect_evals/luce_intercode_ctf", "openai/gpt-4o")
	if strings.Contains(r.Body, "the log&#39;s reductions") {
		t.Error("the table says it read the log's reductions, though the file holds records of the scorer")
	}
	rows := csvRows(t, mustGet(t, s, "/experiments/docent-sample.eval/scorers.csv", http.StatusOK, "text/csv").Body)
	if m := rows[0]; m["n"] != "15" || m["sample_records"] != "15" || m["epochs"] != "" || m["from"] != "file" || m["value"] != "0.6" {
		t.Errorf("scorers.csv: %v", m)
	}
	// log_streaming: 2 samples × 2 epochs whose means are 0.5 and 1: the t
	// interval [−2.43, 3.93] is clipped to [0, 1].
	rows = csvRows(t, mustGet(t, s, "/experiments/log_streaming.eval/scorers.csv", http.StatusOK, "text/csv").Body)
	if m := rows[0]; m["n"] != "2" || m["epochs"] != "2" || csvNum(t, m["lo"]) != 0 || csvNum(t, m["hi"]) != 1 || m["value"] != "0.75" {
		t.Errorf("log_streaming: %v", m)
	}
	contains(t, "log_streaming", mustGet(t, s, "/experiments/log_streaming.eval", http.StatusOK, "text/html").Body, "over 2 samples × 2 epochs")
	// No table or figure of dashes: the suite is left out, with one line.
	for _, bad := range []string{`data-testid="scores-table"`, `data-testid="scores-figure"`, `data-testid="overview-filters"`} {
		if strings.Contains(r.Body, bad) {
			t.Errorf("the page of a plain Inspect log shows %s", bad)
		}
	}
	contains(t, "suite note", r.Body, `data-testid="no-suite"`)
	for _, f := range []string{"png", "svg", "pdf"} {
		mustGet(t, s, "/experiments/docent-sample.eval/figures/scorers."+f, http.StatusOK, "")
	}
}

// TestPlainSamplePages: no sample page of a non-Petri log uses the paper's
// terms, and each shows its scorer results first.
func TestPlainSamplePages(t *testing.T) {
	s := inspectServer(t)
	entries, _ := os.ReadDir(inspectFixtures(t))
	pages := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		exp := model.Slugify(e.Name())
		list := mustGet(t, s, "/audits.csv?exp="+exp, http.StatusOK, "text/csv")
		for _, row := range csvRows(t, list.Body) {
			r := mustGet(t, s, "/audits/"+exp+":"+row["id"], http.StatusOK, "text/html")
			pages++
			for _, bad := range []string{"audit_quality", "benign", ">Auditor<", ">Target<", ">Behavior<"} {
				if strings.Contains(r.Body, bad) {
					t.Errorf("%s:%s shows %q", exp, row["id"], bad)
				}
			}
			contains(t, exp+":"+row["id"], r.Body, "Sample "+row["id"], ">Task<", ">Model<")
			if i, j := strings.Index(r.Body, `data-testid="sample-scores"`), strings.Index(r.Body, `data-testid="transcript"`); i >= 0 && i > j {
				t.Errorf("%s:%s: the scores come after the transcript", exp, row["id"])
			}
		}
		r := mustGet(t, s, "/audits?exp="+exp, http.StatusOK, "text/html")
		for _, bad := range []string{"audit_quality", ">Eval<", ">Target<", "benign"} {
			if strings.Contains(r.Body, bad) {
				t.Errorf("the list of %s shows %q", exp, bad)
			}
		}
	}
	if pages < 30 {
		t.Errorf("checked %d sample pages, want every sample of every fixture", pages)
	}
	r := mustGet(t, s, "/audits/docent-sample.eval:19_epoch_1", http.StatusOK, "text/html")
	contains(t, "scores first", r.Body, `data-testid="sample-scores"`, "includes", "<strong>C</strong>", "= 1", "picoctf{101010}")
	// What Inspect's viewer shows besides: the target, each model's tokens,
	// the time; the Details rows one fact each.
	r = mustGet(t, s, "/audits/security-guide.json:1_epoch_1", http.StatusOK, "text/html")
	contains(t, "sample record", r.Body, `<pre class="sample-target" data-testid="sample-target">use parameterized queries and prepared statements</pre>`,
		`data-testid="sample-usage"`, "<td>openai/gpt-4o-mini</td>", `<td class="num">629</td>`, "Total time 6.3 s.", "Working time 6.2 s",
		`<tr><th>Turns</th><td colspan="3">1</td></tr>`)
	// Metadata floats at four significant digits, the full value on hover.
	r = mustGet(t, s, "/audits/log_read_sample.json:1_epoch_1", http.StatusOK, "text/html")
	contains(t, "metadata precision", r.Body, `label_confidence</th><td colspan="3" title="0.8860552919198255">0.8861</td>`)
}

// TestScorersAcrossModels: a folder of logs of one task across models
// compares in one table, a row per model, sortable.
func TestScorersAcrossModels(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, f := range []string{"popularity.json", "log_read_sample.json", "log_formats.json"} {
		b, err := os.ReadFile(filepath.Join(inspectFixtures(t), f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.Import(ctx, dir, data.ImportOptions{Name: "pop"}); err != nil {
		t.Fatal(err)
	}
	s := web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})
	models := func(q string) []string {
		var out []string
		for _, m := range csvRows(t, mustGet(t, s, "/experiments/pop/scorers.csv"+q, http.StatusOK, "text/csv").Body) {
			out = append(out, m["model"]+"="+m["value"])
		}
		return out
	}
	want := "ollama/gemma3=1 ollama/llama3.1=0 openai/gpt-4o-mini=0.6666666666666666"
	if got := strings.Join(models("?ssort=model"), " "); got != want {
		t.Errorf("by model: %s, want %s", got, want)
	}
	want = "ollama/gemma3=1 openai/gpt-4o-mini=0.6666666666666666 ollama/llama3.1=0"
	if got := strings.Join(models("?ssort=value"), " "); got != want {
		t.Errorf("by value: %s, want %s", got, want)
	}
	r := mustGet(t, s, "/experiments/pop?ssort=value&sdir=asc", http.StatusOK, "text/html")
	contains(t, "sorted page", r.Body, "Recomputed [95% CI]\u00a0▲", "cancelled")
	mustGet(t, s, "/experiments/pop?ssort=bogus", http.StatusBadRequest, "")
}
