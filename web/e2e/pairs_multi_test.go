package e2e

import (
	"context"
	"encoding/csv"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/web"
)

// multiADoc and multiBDoc are two small datasets for the multi-column
// explorer, without response models (so without model annotators).
//
// multi-a (default h):   c1  c2  c3  c4
//
//	h                      a   b   a   b
//	p1                     a   b   b   b
//	p2                     b   b   a   a
//
// Against h: p1 agrees in c1 c2 c4 and disagrees in c3: strength (3-1)/4 =
// 1/2; p2 agrees in c2 c3, disagrees in c1 c4: 0. Against p1 (all four
// decisive): h agrees three times, disagrees once: 1/2; p2 agrees only in
// c2: (1-3)/4 = -1/2. Spread: p2 1/2; h and p1 have one value each: 0.
//
// multi-b (default r, no h): d1 d2 d3
//
//	r                      a   b   a
//	p1                     a   a   a
//	q                      a   b   -
//
// Against r: p1 agrees in d1 d3, disagrees in d2: 1/3; q agrees in d1 d2,
// has no vote on d3: 2/3.
const multiADoc = `{"metadata":{"version":"2.0","dataset_name":"multi-a","default_annotator":"h",
 "available_metadata_keys_per_comparison":["topic"]},
"annotators":{"h":{"name":"Human","type":"human"},"p1":{"name":"P one","type":"principle"},"p2":{"name":"P two","type":"principle"}},
"comparisons":[
 {"id":"c1","prompt":"p","response_a":{"text":"a"},"response_b":{"text":"b"},"annotations":{"h":{"pref":"a"},"p1":{"pref":"a"},"p2":{"pref":"b"}},"metadata":{"topic":"t1"}},
 {"id":"c2","prompt":"p","response_a":{"text":"a"},"response_b":{"text":"b"},"annotations":{"h":{"pref":"b"},"p1":{"pref":"b"},"p2":{"pref":"b"}},"metadata":{"topic":"t1"}},
 {"id":"c3","prompt":"p","response_a":{"text":"a"},"response_b":{"text":"b"},"annotations":{"h":{"pref":"a"},"p1":{"pref":"b"},"p2":{"pref":"a"}},"metadata":{"topic":"t2"}},
 {"id":"c4","prompt":"p","response_a":{"text":"a"},"response_b":{"text":"b"},"annotations":{"h":{"pref":"b"},"p1":{"pref":"b"},"p2":{"pref":"a"}},"metadata":{"topic":"t2"}}
]}`

const multiBDoc = `{"metadata":{"version":"2.0","dataset_name":"multi-b","default_annotator":"r"},
"annotators":{"r":{"name":"Rater","type":"human"},"p1":{"name":"P one","type":"principle"},"q":{"name":"Q","type":"principle"}},
"comparisons":[
 {"id":"d1","prompt":"p","response_a":{"text":"a"},"response_b":{"text":"b"},"annotations":{"r":{"pref":"a"},"p1":{"pref":"a"},"q":{"pref":"a"}}},
 {"id":"d2","prompt":"p","response_a":{"text":"a"},"response_b":{"text":"b"},"annotations":{"r":{"pref":"b"},"p1":{"pref":"a"},"q":{"pref":"b"}}},
 {"id":"d3","prompt":"p","response_a":{"text":"a"},"response_b":{"text":"b"},"annotations":{"r":{"pref":"a"},"p1":{"pref":"a"}}}
]}`

// mustPairsMulti is a server of its own with the two multi datasets.
func mustPairsMulti(t *testing.T) *web.Server {
	t.Helper()
	ctx := context.Background()
	store := mustStore(t)
	if _, err := store.ImportAnnotatedPairsBytes(ctx, []byte(multiADoc), "multi-a.json", data.ImportOptions{Name: "multi-a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.ImportAnnotatedPairsBytes(ctx, []byte(multiBDoc), "multi-b.json", data.ImportOptions{Name: "multi-b"}); err != nil {
		t.Fatal(err)
	}
	return web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})
}

// tableCells reads table.csv rows by "annotator|reference" and by
// "annotator|reference|column",
// and the annotators in order of first appearance.
func tableCells(t *testing.T, s *web.Server, path string) (map[string]map[string]string, []string) {
	t.Helper()
	r := mustGet(t, s, path, http.StatusOK, "text/csv")
	recs, err := csv.NewReader(strings.NewReader(r.Body)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("csv: %v\n%s", err, r.Body)
	}
	out := map[string]map[string]string{}
	var order []string
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, h := range recs[0] {
			row[h] = rec[i]
		}
		out[row["annotator"]+"|"+row["reference"]] = row
		out[row["annotator"]+"|"+row["reference"]+"|"+row["column"]] = row
		if len(order) == 0 || order[len(order)-1] != row["annotator"] {
			order = append(order, row["annotator"])
		}
	}
	return out, order
}

func TestPairsMultiRefColumns(t *testing.T) {
	s := mustPairsMulti(t)
	for _, q := range []string{"ref=h&ref=p1", "ref=h,p1"} {
		cells, order := tableCells(t, s, "/pairs/multi-a/table.csv?"+q+"&sort=name&dir=asc")
		if got, want := strings.Join(order, " "), "h p1 p2"; got != want {
			t.Errorf("%s: rows %q, want %q", q, got, want)
		}
		want := map[string]float64{"h|h": math.NaN(), "p1|h": 0.5, "p2|h": 0,
			"h|p1": 0.5, "p1|p1": math.NaN(), "p2|p1": -0.5}
		for k, v := range want {
			c, ok := cells[k]
			if !ok {
				t.Errorf("%s: no cell %s", q, k)
				continue
			}
			wantFloat(t, q+" "+k, c["value"], v)
		}
		if c := cells["h|h"]; c["pairs"] != "" {
			t.Errorf("%s: h against itself has pairs %q, want empty", q, c["pairs"])
		}
		if c := cells["p2|p1"]; c["pairs"] != "4" || c["column"] != "P one" {
			t.Errorf("%s: p2|p1 = %v", q, c)
		}
	}

	page := mustGet(t, s, "/pairs/multi-a?ref=h&ref=p1", http.StatusOK, "text/html").Body
	contains(t, "page", page, `data-testid="pairs-cell-empty"`, `name="ref" value="h" checked>`, `name="ref" value="p1" checked>`, "ref%3Ah", "ref%3Ap1",
		`/pairs/multi-a/comparisons?ann=p2&amp;ref=p1`)
	// Overall statistics and annotators.csv use the first reference.
	_, rows, order := readCSV(t, mustGet(t, s, "/pairs/multi-a/annotators.csv?ref=h&ref=p1", http.StatusOK, "text/csv").Body)
	if got := strings.Join(order, " "); got != "p1 p2" {
		t.Errorf("annotators.csv rows %q, want p1 p2", got)
	}
	wantFloat(t, "annotators.csv p1 strength", rows["p1"]["strength"], 0.5)
}

func TestPairsMultiSortSpread(t *testing.T) {
	s := mustPairsMulti(t)
	_, order := tableCells(t, s, "/pairs/multi-a/table.csv?ref=h&ref=p1&sort=spread&dir=desc")
	if got, want := strings.Join(order, " "), "p2 h p1"; got != want {
		t.Errorf("sort=spread desc: %q, want %q", got, want)
	}
	_, order = tableCells(t, s, "/pairs/multi-a/table.csv?ref=h&ref=p1&sort=spread&dir=asc")
	if got, want := strings.Join(order, " "), "h p1 p2"; got != want {
		t.Errorf("sort=spread asc: %q, want %q", got, want)
	}
	// By the p1 column ascending: p2 (-1/2), h (1/2), then p1's empty cell.
	_, order = tableCells(t, s, "/pairs/multi-a/table.csv?ref=h&ref=p1&sort=ref:p1&dir=asc")
	if got, want := strings.Join(order, " "), "p2 h p1"; got != want {
		t.Errorf("sort=ref:p1 asc: %q, want %q", got, want)
	}
	page := mustGet(t, s, "/pairs/multi-a?ref=h&ref=p1&sort=spread&metric=kept", http.StatusOK, "text/html").Body
	contains(t, "page", page, "Range across columns")
	mustGet(t, s, "/pairs/multi-a?ref=h&ref=p1&with=multi-b&ci=1", http.StatusOK, "text/html")
	mustGet(t, s, "/pairs/multi-a?ref=h&ref=p1&with=multi-b&metric=accuracy&ci=1&sort=ds:multi-b", http.StatusOK, "text/html")
	for _, fig := range []string{"strength.png", "heatmap.svg"} {
		mustGet(t, s, "/pairs/multi-a/figures/"+fig+"?ref=h&ref=p1&with=multi-b", http.StatusOK, "")
	}
}

func TestPairsMultiWith(t *testing.T) {
	s := mustPairsMulti(t)
	cells, order := tableCells(t, s, "/pairs/multi-a/table.csv?with=multi-b")
	if got, want := strings.Join(order, " "), "p1 p2 q"; got != want {
		t.Errorf("rows %q, want %q", got, want)
	}
	want := map[string]float64{"p1|h": 0.5, "p2|h": 0, "q|h": math.NaN(), "p1|r": 1.0 / 3, "p2|r": math.NaN(), "q|r": 2.0 / 3}
	for k, v := range want {
		c, ok := cells[k]
		if !ok {
			t.Errorf("no cell %s", k)
			continue
		}
		wantFloat(t, k, c["value"], v)
	}
	if c := cells["p1|r"]; c["column"] != "multi-b" || c["dataset"] != "multi-b" || c["pairs"] != "3" {
		t.Errorf("p1|r = %v", c)
	}
	if c := cells["p1|h"]; c["dataset"] != "multi-a" {
		t.Errorf("p1|h is of dataset %q, want multi-a", c["dataset"])
	}
	// Model analysis has no columns per dataset; the page says so.
	models := mustGet(t, s, "/pairs/multi-a?mode=models&with=multi-b", http.StatusOK, "text/html").Body
	contains(t, "model mode with with=", models, "other datasets (with) and splits (split) apply to the feedback view")
	if plain := mustGet(t, s, "/pairs/multi-a?mode=models&ref=h", http.StatusOK, "text/html").Body; strings.Contains(plain, "apply to the feedback view") {
		t.Error("model mode reached from the form (which sends ref) shows the note")
	}
	page := mustGet(t, s, "/pairs/multi-a?with=multi-b&sort=ds:multi-b", http.StatusOK, "text/html").Body
	contains(t, "page", page, `/pairs/multi-b/comparisons?ann=p1&amp;ref=r`, `/pairs/multi-a/comparisons?ann=p1&amp;ref=h`, `value="multi-b"`)
	// The same reference id is used when the other dataset has it.
	cells, _ = tableCells(t, s, "/pairs/multi-b/table.csv?ref=p1&with=multi-a")
	wantFloat(t, "h|p1 in multi-a", cells["h|p1|multi-a"]["value"], 0.5)
	wantFloat(t, "r|p1 in multi-b", cells["r|p1|multi-b"]["value"], 1.0/3)
	wantFloat(t, "r|p1 absent in multi-a", cells["r|p1|multi-a"]["value"], math.NaN())
}

func TestPairsMultiBadRequests(t *testing.T) {
	s := mustPairsMulti(t)
	for _, q := range []string{
		"with=nope",
		"ref=h&ref=p1&split=topic",
		"ref=h,p1&split=topic",
		"with=multi-b&split=topic",
		"ref=h&ref=nope",
	} {
		for _, path := range []string{"/pairs/multi-a?", "/pairs/multi-a/table.csv?"} {
			if r := get(t, s, path+q); r.Code != http.StatusBadRequest {
				t.Errorf("GET %s%s: status %d, want 400", path, q, r.Code)
			}
		}
	}
	if r := get(t, s, "/pairs/multi-a?ref=h&ref=p1&split=topic"); !strings.Contains(r.Body, "choose one of split, several references, or other datasets") {
		t.Errorf("400 body does not explain: %.300s", r.Body)
	}
}
