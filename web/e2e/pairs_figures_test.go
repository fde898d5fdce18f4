package e2e

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/views/figures"
)

func TestPairsFigures(t *testing.T) {
	s := mustPairs(t)
	for _, name := range []string{"strength", "heatmap", "length"} {
		for format, ct := range figures.Formats {
			path := "/pairs/hand/figures/" + name + "." + format
			r := mustGet(t, s, path, http.StatusOK, ct)
			if cd, want := r.Header.Get("Content-Disposition"), `filename="hand-`+name+`.`+format+`"`; !strings.Contains(cd, want) {
				t.Errorf("%s: Content-Disposition %q, want %s", path, cd, want)
			}
			if len(r.Body) < 500 {
				t.Errorf("%s: %d bytes", path, len(r.Body))
			}
		}
	}

	// Strength: every row against h, the title naming the reference.
	r := mustGet(t, s, "/pairs/hand/figures/strength.svg", http.StatusOK, "image/svg+xml")
	contains(t, "strength figure", r.Body, "Strength against Human (95% CI)", ">Friendly<", ">is more concise<", ">Y<", ">principle<", ">model<")
	// With a split, one series per column, named by the value.
	r = mustGet(t, s, "/pairs/hand/figures/strength.svg?split=topic&sort=v:t2", http.StatusOK, "image/svg+xml")
	contains(t, "strength by topic", r.Body, "Strength against Human by topic (95% CI)", ">t1<", ">t2<", ">t3<")
	// Model mode: traits against each model.
	r = mustGet(t, s, "/pairs/hand/figures/strength.svg?mode=models", http.StatusOK, "image/svg+xml")
	contains(t, "strength of traits", r.Body, "Strength of each trait against each model (95% CI)", ">X<", ">Z<")

	// Heat map: the table's values in the cells (p2 by topic: 0.33, -0.50,
	// 1.00) and a colour bar.
	r = mustGet(t, s, "/pairs/hand/figures/heatmap.svg?split=topic", http.StatusOK, "image/svg+xml")
	contains(t, "heat map", r.Body, "Strength against Human by topic", ">0.33<", ">-0.50<", ">1.00<", ">t3<", ">-1.00<")
	r = mustGet(t, s, "/pairs/hand/figures/heatmap.svg?metric=kept", http.StatusOK, "image/svg+xml")
	contains(t, "heat map of counts", r.Body, "Kept pairs against Human", ">6<")
	r = mustGet(t, s, "/pairs/hand/figures/heatmap.svg?mode=models&metric=accuracy", http.StatusOK, "image/svg+xml")
	contains(t, "heat map of models", r.Body, "Accuracy of each trait against each model", ">X<", ">Y<", ">Z<")

	// Length: h decides 6 comparisons; the preferred response is longer in
	// c1, c2, c6 and c7, and as long in c3.
	r = mustGet(t, s, "/pairs/hand/figures/length.svg", http.StatusOK, "image/svg+xml")
	contains(t, "length figure", r.Body, "in 66.7% of 6 pairs (equal lengths: 16.7%)", "rejected response (characters)")
	r = mustGet(t, s, "/pairs/hand/figures/length.svg?ref=model:X&refmodels=X", http.StatusOK, "image/svg+xml")
	contains(t, "length figure without votes", r.Body, "no text_a or text_b vote")

	// A dataset without response models: model mode has no columns.
	doc := `{"metadata":{"version":"2.0"},"annotators":{"p":{"description":"Select the response that is shorter.","type":"principle"}},
"comparisons":[{"id":"x","response_a":{"text":"x"},"response_b":{"text":"yy"},"annotations":{"h":{"pref":"a"},"p":{"pref":"a"}}}]}`
	if _, err := dataStore(t, s).ImportAnnotatedPairsBytes(context.Background(), []byte(doc), "nomodels.json", data.ImportOptions{Name: "nomodels"}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/pairs/nomodels/figures/strength.svg?mode=models", "/pairs/nomodels/figures/heatmap.svg?mode=models",
		"/pairs/nomodels/figures/models.svg", "/pairs/nomodels/figures/strength.svg", "/pairs/nomodels/figures/length.svg"} {
		mustGet(t, s, path, http.StatusOK, "image/svg+xml")
	}
	r = mustGet(t, s, "/pairs/nomodels/models", http.StatusOK, "text/html")
	contains(t, "models page without models", r.Body, "No response names its model", `<strong>0 comparisons</strong> between 0 models`)

	for path, status := range map[string]int{
		"/pairs/hand/figures/nope.svg":                         http.StatusNotFound,
		"/pairs/hand/figures/strength.gif":                     http.StatusNotFound,
		"/pairs/hand/figures/strength":                         http.StatusNotFound,
		"/pairs/nope/figures/strength.svg":                     http.StatusNotFound,
		"/pairs/hand/figures/strength.svg?metric=bogus":        http.StatusBadRequest,
		"/pairs/hand/figures/strength.svg?sort=bogus":          http.StatusBadRequest,
		"/pairs/hand/figures/heatmap.svg?split=nokey":          http.StatusBadRequest,
		"/pairs/hand/figures/heatmap.svg?split=topic&values=x": http.StatusBadRequest,
		"/pairs/hand/figures/length.svg?ref=nobody":            http.StatusBadRequest,
		"/pairs/hand/figures/length.svg?refmodels=W":           http.StatusBadRequest,
	} {
		if r := get(t, s, path); r.Code != status {
			t.Errorf("GET %s: status %d, want %d", path, r.Code, status)
		}
	}
}

// TestPairsExplorerFigureLinks checks the explorer links every figure in
// every format with the page's own query, shows the SVGs, and links the
// models page and table.csv.
func TestPairsExplorerFigureLinks(t *testing.T) {
	s := mustPairs(t)
	r := mustGet(t, s, "/pairs/hand?split=topic&sort=v:t2&dir=asc&metric=kappa", http.StatusOK, "text/html")
	for _, name := range []string{"strength", "heatmap"} {
		for _, f := range []string{"png", "svg", "pdf"} {
			contains(t, "explorer", r.Body, `href="/pairs/hand/figures/`+name+`.`+f+`?dir=asc&amp;metric=kappa&amp;ref=h&amp;sort=v%3At2&amp;split=topic"`)
		}
		contains(t, "explorer", r.Body, `data="/pairs/hand/figures/`+name+`.svg?dir=asc&amp;metric=kappa&amp;ref=h&amp;sort=v%3At2&amp;split=topic"`,
			`data-testid="figure-`+name+`"`)
	}
	contains(t, "explorer", r.Body, `data="/pairs/hand/figures/length.svg?ref=h"`, `href="/pairs/hand/figures/length.pdf?ref=h"`,
		`href="/pairs/hand/models?ref=h" data-testid="models-link"`,
		`href="/pairs/hand/table.csv?dir=asc&amp;metric=kappa&amp;ref=h&amp;sort=v%3At2&amp;split=topic" data-testid="table-csv"`)
	// Model mode has no reference, so no length figure.
	r = mustGet(t, s, "/pairs/hand?mode=models", http.StatusOK, "text/html")
	contains(t, "model mode", r.Body, `data-testid="figure-heatmap"`, `href="/pairs/hand/models" data-testid="models-link"`)
	if strings.Contains(r.Body, "figures/length.") {
		t.Error("model mode links the length figure")
	}
}

func TestPairsTableCSV(t *testing.T) {
	s := mustPairs(t)
	// Intervals are on by default; ci=0 leaves lo and hi empty.
	if recs := readRecords(t, mustGet(t, s, "/pairs/hand/table.csv?split=topic", http.StatusOK, "text/csv").Body); recs[0]["lo"] == "" || recs[0]["hi"] == "" {
		t.Errorf("the default table.csv has no intervals: %v", recs[0])
	}
	r := mustGet(t, s, "/pairs/hand/table.csv?split=topic&ci=0", http.StatusOK, "text/csv")
	if got, want := firstLine(r.Body), "annotator,name,kind,column,dataset,reference,split,split_value,metric,value,lo,hi,pairs,interval"; got != want {
		t.Fatalf("header = %q, want %q", got, want)
	}
	recs := readRecords(t, r.Body)
	// p2 by topic: 1/3 on t1 (3 pairs), -1/2 on t2 (2), 1 on t3 (1).
	want := map[string][2]float64{"t1": {1.0 / 3, 3}, "t2": {-0.5, 2}, "t3": {1, 1}}
	n := 0
	for _, rec := range recs {
		if rec["annotator"] != "p2" {
			continue
		}
		n++
		w, ok := want[rec["split_value"]]
		if !ok || rec["split"] != "topic" || rec["reference"] != "h" || rec["metric"] != "strength" || rec["lo"] != "" {
			t.Errorf("p2 row %v", rec)
			continue
		}
		wantFloat(t, "p2 "+rec["split_value"], rec["value"], w[0])
		wantFloat(t, "p2 pairs "+rec["split_value"], rec["pairs"], w[1])
	}
	if n != 3 {
		t.Errorf("%d rows of p2, want 3", n)
	}
	// Rows follow the table's sort: strength on t1, descending; model:Y
	// (-1 on t1: it loses c1, c2 and c7 to h) last.
	if last := recs[len(recs)-1]; last["annotator"] != "model:Y" {
		t.Errorf("last row %v, want model:Y", last)
	}
	// With intervals.
	r = mustGet(t, s, "/pairs/hand/table.csv?ci=1&metric=accuracy", http.StatusOK, "text/csv")
	for _, rec := range readRecords(t, r.Body) {
		if rec["annotator"] == "p2" {
			// Wilson 95% for 3 of 5.
			wantFloat(t, "p2 accuracy", rec["value"], 0.6)
			if lo := rec["lo"]; !strings.HasPrefix(lo, "0.2307") {
				t.Errorf("p2 accuracy lo = %s, want 0.2307…", lo)
			}
		}
	}
	if r := get(t, s, "/pairs/hand/table.csv?metric=bogus"); r.Code != http.StatusBadRequest {
		t.Errorf("bad metric: status %d", r.Code)
	}
}

// readRecords parses a CSV body into rows keyed by the header, in order.
func readRecords(t *testing.T, body string) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("csv: %v\n%s", err, body)
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, h := range recs[0] {
			row[h] = rec[i]
		}
		out = append(out, row)
	}
	return out
}
