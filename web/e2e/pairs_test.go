package e2e

import (
	"context"
	"encoding/csv"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/web"
)

// handDoc is a small AnnotatedPairs file whose metrics are worked out by
// hand below. Responses (length in characters, model), votes and topic:
//
//	id  A        B        h    p1       p2    g   topic
//	c1  4 X      2 Y      a    a        b     a   t1
//	c2  1 Y      3 X      b    b        b     -   t1
//	c3  2 X      2 Z      a    b        null  -   t2
//	c4  3 Z      1 Y      b    b        a     -   t2
//	c5  5 X      2 X      tie  a        a     -   t1
//	c6  1 (none) 6 Y      b    tie      b     -   t3
//	c7  2 Y      4 Z      b    invalid  b     b   t1
//
// The reference h (the default annotator) votes text_a or text_b on all but
// c5, so 6 comparisons are kept.
//
// Overall statistics over the 6: text_a preferred in c1, c3: 2/6.
// len_a 4+1+2+3+1+2 = 13 → 13/6; len_b 2+3+2+1+6+4 = 18 → 3;
// preferred 4+3+2+1+6+4 = 20 → 10/3; rejected 2+1+2+3+1+2 = 11 → 11/6.
// The longer response (text_b when equal) is a, b, b, a, b, b; h picks it in
// c1, c2, c6, c7: 4/6.
//
// p1 against h: agree c1 c2 c4, disagree c3, not applicable c6 (tie) and c7
// (invalid): relevance 4/6, accuracy 3/4, kappa 0.5, strength 1/3,
// agreement 3/6. Unadjusted kappa over c1..c4: p1 = a b b b, h = a b a b;
// po = 3/4, pe = 1/4·2/4 + 3/4·2/4 = 1/2, kappa = 0.5.
//
// p2 against h: agree c2 c6 c7, disagree c1 c4, not applicable c3:
// relevance 5/6, accuracy 3/5, kappa 0.2, strength 1/6, agreement 1/2.
// Unadjusted kappa over c1 c2 c4 c6 c7: p2 = b b a b b, h = a b b b b;
// po = 3/5, pe = 1/5·1/5 + 4/5·4/5 = 17/25, kappa = -0.08/0.32 = -0.25.
//
// g (undeclared, so typed unknown) agrees in c1 and c7: relevance 1/3,
// accuracy 1, kappa 1, strength 1/3; unadjusted kappa 1.
//
// Model annotators (model:M prefers M's response when the other response
// is another model's): model:X votes a, b, a on c1, c2, c3 and agrees with h
// each time: strength 3/6, unadjusted kappa 1. model:Y votes b, a, b, a on
// c1, c2, c4, c7: agrees only in c4: relevance 4/6, accuracy 1/4, strength
// -2/6; unadjusted kappa: po 1/4, pe 1/2·1/4 + 1/2·3/4 = 1/2, kappa -0.5.
// model:Z votes b, a, b on c3, c4, c7, agreeing in c7: accuracy 1/3,
// strength -1/6; unadjusted kappa: po 1/3, pe 1/3·1/3 + 2/3·2/3 = 5/9,
// kappa (3/9 - 5/9)/(4/9) = -0.5.
// With refmodels=Y only comparisons against Y count: model:X votes on c1
// and c2 only, strength 2/6.
//
// Split by topic (t1: c1 c2 c5 c7, t2: c3 c4, t3: c6): p2's strength is
// (2-1)/3 = 1/3 on t1 (c5 dropped), (0-1)/2 = -1/2 on t2 and 1 on t3, a
// spread of 1.5.
const handDoc = `{"metadata":{"version":"2.0","dataset_name":"hand","default_annotator":"h",
 "available_metadata_keys_per_comparison":["topic"]},
"annotators":{"h":{"name":"Human","type":"human"},
 "p1":{"description":"Select the response that is more concise.","type":"principle"},
 "p2":{"name":"Friendly","description":"Select the response that is friendlier.","type":"principle"}},
"comparisons":[
 {"id":"c1","prompt":"p","response_a":{"text":"aaaa","model":"X"},"response_b":{"text":"bb","model":"Y"},
  "annotations":{"h":{"pref":"a"},"p1":{"pref":"a"},"p2":{"pref":"b"},"g":{"pref":"a"}},"metadata":{"topic":"t1"}},
 {"id":"c2","prompt":"p","response_a":{"text":"a","model":"Y"},"response_b":{"text":"bbb","model":"X"},
  "annotations":{"h":{"pref":"b"},"p1":{"pref":"b"},"p2":{"pref":"b"}},"metadata":{"topic":"t1"}},
 {"id":"c3","prompt":"p","response_a":{"text":"aa","model":"X"},"response_b":{"text":"bb","model":"Z"},
  "annotations":{"h":{"pref":"a"},"p1":{"pref":"b"},"p2":{"pref":null,"no_pref_reason":"not_applicable"}},"metadata":{"topic":"t2"}},
 {"id":"c4","prompt":"p","response_a":{"text":"aaa","model":"Z"},"response_b":{"text":"b","model":"Y"},
  "annotations":{"h":{"pref":"b"},"p1":{"pref":"b"},"p2":{"pref":"a"}},"metadata":{"topic":"t2"}},
 {"id":"c5","prompt":"p","response_a":{"text":"aaaaa","model":"X"},"response_b":{"text":"bb","model":"X"},
  "annotations":{"h":{"pref":"tie"},"p1":{"pref":"a"},"p2":{"pref":"a"}},"metadata":{"topic":"t1"}},
 {"id":"c6","prompt":"p","response_a":{"text":"a"},"response_b":{"text":"bbbbbb","model":"Y"},
  "annotations":{"h":{"pref":"b"},"p1":{"pref":"tie"},"p2":{"pref":"b"}},"metadata":{"topic":"t3"}},
 {"id":"c7","prompt":"<script>alert(1)</script>","response_a":{"text":"aa","model":"Y","temperature":0.7},"response_b":{"text":"bbbb","model":"Z"},
  "annotations":{"h":{"pref":"b"},"p1":{"pref":"invalid"},"p2":{"pref":"b"},"g":{"pref":"b"}},"metadata":{"topic":"t1"}}
]}`

// mustPairs is a server of its own with the hand-worked dataset and the
// ICAI models fixture (a small store, made for each test: some tests import
// more into it).
func mustPairs(t testing.TB) *web.Server {
	t.Helper()
	ctx := context.Background()
	store := mustStore(t)
	if _, err := store.ImportAnnotatedPairs(ctx, "../../data/demo/fixtures/icai-example-v2-models.json", data.ImportOptions{Name: "icai"}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.ImportAnnotatedPairsBytes(ctx, []byte(handDoc), "hand.json", data.ImportOptions{Name: "hand"}); err != nil {
		t.Fatal(err)
	}
	return web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})
}

// readCSV parses a CSV response into a header and rows keyed by the first
// column.
func readCSV(t *testing.T, body string) ([]string, map[string]map[string]string, []string) {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v\n%s", err, body)
	}
	if len(recs) == 0 {
		t.Fatal("csv: empty")
	}
	rows := map[string]map[string]string{}
	var order []string
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, h := range recs[0] {
			row[h] = rec[i]
		}
		rows[rec[0]] = row
		order = append(order, rec[0])
	}
	return recs[0], rows, order
}

func wantFloat(t *testing.T, what, got string, want float64) {
	t.Helper()
	if math.IsNaN(want) {
		if got != "" {
			t.Errorf("%s = %q, want empty (undefined)", what, got)
		}
		return
	}
	v, err := strconv.ParseFloat(got, 64)
	if err != nil {
		t.Errorf("%s = %q, want %v", what, got, want)
		return
	}
	if math.Abs(v-want) > 1e-9 {
		t.Errorf("%s = %v, want %v", what, v, want)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimRight(line, "\r")
}

func TestPairsAnnotatorsCSV(t *testing.T) {
	s := mustPairs(t)
	r := mustGet(t, s, "/pairs/hand/annotators.csv", http.StatusOK, "text/csv")
	if got, want := firstLine(r.Body), "annotator,name,kind,kept,agree,disagree,not_applicable,relevance,accuracy,agreement,kappa,kappa_unadjusted,strength,strength_lo,strength_hi"; got != want {
		t.Fatalf("header = %q, want %q", got, want)
	}
	if cd := r.Header.Get("Content-Disposition"); !strings.Contains(cd, "attachment") {
		t.Errorf("Content-Disposition = %q", cd)
	}
	_, rows, order := readCSV(t, r.Body)
	if got, want := strings.Join(order, " "), "p1 p2 g model:X model:Y model:Z"; got != want {
		t.Errorf("rows = %s, want %s (the reference h left out)", got, want)
	}
	type want struct {
		name, kind                             string
		kept, agree, disagree, na              int
		rel, acc, agr, kappa, kappaU, strength float64
	}
	tests := map[string]want{
		"p1":      {"is more concise", "principle", 6, 3, 1, 2, 4.0 / 6, 0.75, 0.5, 0.5, 0.5, 1.0 / 3},
		"p2":      {"Friendly", "principle", 6, 3, 2, 1, 5.0 / 6, 0.6, 0.5, 0.2, -0.25, 1.0 / 6},
		"g":       {"g", "unknown", 6, 2, 0, 4, 1.0 / 3, 1, 1.0 / 3, 1, 1, 1.0 / 3},
		"model:X": {"X", "model", 6, 3, 0, 3, 0.5, 1, 0.5, 1, 1, 0.5},
		"model:Y": {"Y", "model", 6, 1, 3, 2, 4.0 / 6, 0.25, 1.0 / 6, -0.5, -0.5, -2.0 / 6},
		"model:Z": {"Z", "model", 6, 1, 2, 3, 0.5, 1.0 / 3, 1.0 / 6, -1.0 / 3, -0.5, -1.0 / 6},
	}
	for key, w := range tests {
		row := rows[key]
		if row == nil {
			t.Errorf("no row %s", key)
			continue
		}
		if row["name"] != w.name || row["kind"] != w.kind {
			t.Errorf("%s: name, kind = %q, %q; want %q, %q", key, row["name"], row["kind"], w.name, w.kind)
		}
		for col, n := range map[string]int{"kept": w.kept, "agree": w.agree, "disagree": w.disagree, "not_applicable": w.na} {
			if row[col] != strconv.Itoa(n) {
				t.Errorf("%s %s = %q, want %d", key, col, row[col], n)
			}
		}
		wantFloat(t, key+" relevance", row["relevance"], w.rel)
		wantFloat(t, key+" accuracy", row["accuracy"], w.acc)
		wantFloat(t, key+" agreement", row["agreement"], w.agr)
		wantFloat(t, key+" kappa", row["kappa"], w.kappa)
		wantFloat(t, key+" kappa_unadjusted", row["kappa_unadjusted"], w.kappaU)
		wantFloat(t, key+" strength", row["strength"], w.strength)
		lo, err1 := strconv.ParseFloat(row["strength_lo"], 64)
		hi, err2 := strconv.ParseFloat(row["strength_hi"], 64)
		if err1 != nil || err2 != nil || lo > w.strength+1e-12 || hi < w.strength-1e-12 || lo < -1 || hi > 1 {
			t.Errorf("%s strength interval [%s, %s] does not hold %v within [-1, 1]", key, row["strength_lo"], row["strength_hi"], w.strength)
		}
	}

	// The same request gives the same bootstrap interval (seeded).
	again := mustGet(t, s, "/pairs/hand/annotators.csv", http.StatusOK, "text/csv")
	if again.Body != r.Body {
		t.Error("annotators.csv differs between two requests: the bootstrap is not seeded")
	}

	// Reference models restrict model annotators to comparisons against them.
	r = mustGet(t, s, "/pairs/hand/annotators.csv?refmodels=Y", http.StatusOK, "text/csv")
	_, rows, _ = readCSV(t, r.Body)
	wantFloat(t, "model:X strength with refmodels=Y", rows["model:X"]["strength"], 2.0/6)
	if rows["model:Y"]["agree"] != "0" || rows["model:Y"]["disagree"] != "0" {
		t.Errorf("model:Y against reference models {Y} has votes: %v", rows["model:Y"])
	}

	// Another reference: a model annotator.
	r = mustGet(t, s, "/pairs/hand/annotators.csv?ref=model:X", http.StatusOK, "text/csv")
	_, rows, order = readCSV(t, r.Body)
	if strings.Contains(strings.Join(order, " "), "model:X") || rows["h"] == nil {
		t.Errorf("ref model:X: rows %v, want h and no model:X", order)
	}
	// h against model:X (kept c1 c2 c3, where X votes a b a): all agree.
	wantFloat(t, "h strength against model:X", rows["h"]["strength"], 1)
}

func TestPairsOverviewCSV(t *testing.T) {
	s := mustPairs(t)
	r := mustGet(t, s, "/pairs/hand/overview.csv", http.StatusOK, "text/csv")
	if got, want := firstLine(r.Body), "pairs,prop_a,avg_len_a,avg_len_b,avg_len_preferred,avg_len_rejected,prop_longer"; got != want {
		t.Fatalf("header = %q, want %q", got, want)
	}
	recs, err := csv.NewReader(strings.NewReader(r.Body)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("overview.csv: %v, %d records", err, len(recs))
	}
	row := recs[1]
	if row[0] != "6" {
		t.Errorf("pairs = %s, want 6", row[0])
	}
	for i, want := range []float64{2.0 / 6, 13.0 / 6, 3, 20.0 / 6, 11.0 / 6, 4.0 / 6} {
		wantFloat(t, recs[0][i+1], row[i+1], want)
	}

	// A reference with no decisive vote: every ratio is undefined.
	r = mustGet(t, s, "/pairs/hand/overview.csv?ref=model:X&refmodels=X", http.StatusOK, "text/csv")
	if got := strings.Split(strings.TrimSpace(r.Body), "\n")[1]; got != "0,,,,,," {
		t.Errorf("empty overview row = %q, want 0,,,,,,", got)
	}
}

// cells returns the texts of the explorer table's cells in the row of key.
func cells(t *testing.T, body, key string) []string {
	t.Helper()
	row := regexp.MustCompile(`(?s)<tr data-testid="pairs-row" data-key="` + regexp.QuoteMeta(key) + `">(.*?)</tr>`).FindStringSubmatch(body)
	if row == nil {
		t.Fatalf("no table row %s", key)
	}
	var out []string
	for _, m := range regexp.MustCompile(`data-testid="pairs-cell">([^<]*)</a>`).FindAllStringSubmatch(row[1], -1) {
		out = append(out, m[1])
	}
	return out
}

func TestPairsExplorer(t *testing.T) {
	s := mustPairs(t)
	r := mustGet(t, s, "/pairs/hand", http.StatusOK, "text/html")
	contains(t, "explorer", r.Body,
		`data-testid="pairs-table"`, `href="/static/pairs.css"`,
		// Wilson 95% of 2 and of 4 in 6 (by hand): [0.0968, 0.7001], [0.2999, 0.9032].
		`data-testid="overview-pairs">6<`, `data-testid="overview-prop-a">33.3% <span class="ci">[9.7, 70.0]</span>`,
		`data-testid="overview-len-preferred">3.3<`, `data-testid="overview-prop-longer">66.7% <span class="ci">[30.0, 90.3]</span>`,
		`href="/pairs/hand/annotators.csv?ref=h"`, `href="/pairs/hand/overview.csv?ref=h"`)
	if got := cells(t, r.Body, "p2"); len(got) != 1 || got[0] != "0.17" {
		t.Errorf("p2 strength cells = %v, want [0.17]", got)
	}
	if got := cells(t, r.Body, "model:Y"); len(got) != 1 || got[0] != "-0.33" {
		t.Errorf("model:Y strength cells = %v, want [-0.33]", got)
	}
	if strings.Contains(r.Body, `data-key="h"`) {
		t.Error("the reference h has a row of its own")
	}
	// Sorted by strength, descending: model:X (0.5) first, model:Y (-1/3) last.
	keys := regexp.MustCompile(`data-testid="pairs-row" data-key="([^"]+)"`).FindAllStringSubmatch(r.Body, -1)
	if len(keys) != 6 || keys[0][1] != "model:X" || keys[5][1] != "model:Y" {
		t.Errorf("row order = %v, want model:X first and model:Y last", keys)
	}
	// Each cell links to the comparisons behind it.
	contains(t, "explorer", r.Body, `href="/pairs/hand/comparisons?ann=p2&amp;ref=h"`)
	// Shading: a strength of 0.5 gets the strongest positive class (faded
	// as a small sample: the hand dataset has 6 pairs).
	if !regexp.MustCompile(`<td class="num thin div-p4"[^>]*><a href="/pairs/hand/comparisons\?ann=model%3AX`).MatchString(r.Body) {
		t.Error("model:X's cell is not shaded div-p4")
	}

	// Other metrics.
	for metric, want := range map[string]string{"relevance": "0.83", "accuracy": "0.60", "agreement": "0.50",
		"kappa": "0.20", "kappa_unadjusted": "-0.25", "kept": "6", "agree": "3", "disagree": "2", "not_applicable": "1"} {
		r := mustGet(t, s, "/pairs/hand?metric="+metric, http.StatusOK, "text/html")
		if got := cells(t, r.Body, "p2"); len(got) != 1 || got[0] != want {
			t.Errorf("metric %s: p2 cells = %v, want [%s]", metric, got, want)
		}
	}

	// Intervals.
	r = mustGet(t, s, "/pairs/hand?ci=1&metric=accuracy", http.StatusOK, "text/html")
	// Wilson 95% for 3 of 5: [0.2307..., 0.8824...].
	contains(t, "accuracy with ci", r.Body, `<span class="ci">[0.23, 0.88]</span>`)
	r = mustGet(t, s, "/pairs/hand?ci=1", http.StatusOK, "text/html")
	// Six in the table, and the overview's two shares always have theirs.
	if n := strings.Count(r.Body, `<span class="ci">`); n != 8 {
		t.Errorf("strength with ci: %d intervals, want 6 in the table and 2 in the overview", n)
	}

	// Split by topic: one column per value, most comparisons first.
	r = mustGet(t, s, "/pairs/hand?split=topic", http.StatusOK, "text/html")
	cols := regexp.MustCompile(`data-testid="pairs-col" data-key="([^"]+)"`).FindAllStringSubmatch(r.Body, -1)
	if len(cols) != 3 || cols[0][1] != "v:t1" || cols[1][1] != "v:t2" || cols[2][1] != "v:t3" {
		t.Errorf("split columns = %v, want v:t1 v:t2 v:t3", cols)
	}
	if got := strings.Join(cells(t, r.Body, "p2"), " "); got != "0.33 -0.50 1.00" {
		t.Errorf("p2 by topic = %s, want 0.33 -0.50 1.00", got)
	}
	contains(t, "split", r.Body, `href="/pairs/hand/comparisons?ann=p2&amp;ref=h&amp;split=topic&amp;value=t2"`, `<td class="num">1.50</td>`)
	r = mustGet(t, s, "/pairs/hand?split=topic&values=t3,t1&sort=spread&dir=asc", http.StatusOK, "text/html")
	if got := strings.Join(cells(t, r.Body, "p2"), " "); got != "1.00 0.33" {
		t.Errorf("p2 on t3,t1 = %s, want 1.00 0.33", got)
	}

	// Model analysis: traits against model annotators.
	r = mustGet(t, s, "/pairs/hand?mode=models", http.StatusOK, "text/html")
	cols = regexp.MustCompile(`data-testid="pairs-col" data-key="([^"]+)"`).FindAllStringSubmatch(r.Body, -1)
	if len(cols) != 3 || cols[0][1] != "model:X" {
		t.Errorf("model columns = %v", cols)
	}
	// p2 against model:X: disagree c1, agree c2, n/a c3: 0; against model:Y:
	// agree c1, disagree c2 c4 c7: -0.5; against model:Z (b a b on c3 c4
	// c7): n/a, agree, agree: 2/3.
	if got := strings.Join(cells(t, r.Body, "p2"), " "); got != "0.00 -0.50 0.67" {
		t.Errorf("p2 against models = %s, want 0.00 -0.50 0.67", got)
	}
	if strings.Contains(r.Body, `data-key="g"`) {
		t.Error("model mode lists a non-principle annotator as a trait")
	}

	// The fixture: the default annotator ba751e7b is the reference.
	r = mustGet(t, s, "/pairs/icai", http.StatusOK, "text/html")
	contains(t, "icai explorer", r.Body, `data-key="2f45a6d0"`, `data-key="model:Model X"`, `data-testid="overview-pairs">1<`)
}

func TestPairsExplorerErrors(t *testing.T) {
	s := mustPairs(t)
	for path, status := range map[string]int{
		"/pairs/nope":                                           http.StatusNotFound,
		"/pairs/nope/annotators.csv":                            http.StatusNotFound,
		"/pairs/nope/overview.csv":                              http.StatusNotFound,
		"/pairs/nope/comparisons":                               http.StatusNotFound,
		"/pairs/hand/comparisons/nope":                          http.StatusNotFound,
		"/pairs/hand/comparisons?ann=nobody":                    http.StatusBadRequest,
		"/pairs/hand?metric=bogus":                              http.StatusBadRequest,
		"/pairs/hand?sort=bogus":                                http.StatusBadRequest,
		"/pairs/hand?dir=up":                                    http.StatusBadRequest,
		"/pairs/hand?ref=nobody":                                http.StatusBadRequest,
		"/pairs/hand?ref=model:W":                               http.StatusBadRequest,
		"/pairs/hand?mode=x":                                    http.StatusBadRequest,
		"/pairs/hand?ci=yes":                                    http.StatusBadRequest,
		"/pairs/hand?split=nokey":                               http.StatusBadRequest,
		"/pairs/hand?split=topic&values=t9":                     http.StatusBadRequest,
		"/pairs/hand?values=t1":                                 http.StatusBadRequest,
		"/pairs/hand?refmodels=W":                               http.StatusBadRequest,
		"/pairs/hand/annotators.csv?ref=nobody":                 http.StatusBadRequest,
		"/pairs/hand/overview.csv?ref=nobody":                   http.StatusBadRequest,
		"/pairs/hand/comparisons?filter=some":                   http.StatusBadRequest,
		"/pairs/hand/comparisons?filter=agree":                  http.StatusBadRequest,
		"/pairs/hand/comparisons?page=x":                        http.StatusBadRequest,
		"/pairs/hand/comparisons?split=topic":                   http.StatusBadRequest,
		"/pairs/hand/comparisons?value=t1":                      http.StatusBadRequest,
		"/pairs/hand/comparisons?ref=nobody":                    http.StatusBadRequest,
		"/pairs/hand/comparisons?q=" + strings.Repeat("x", 600): http.StatusBadRequest,
	} {
		r := get(t, s, path)
		if r.Code != status {
			t.Errorf("GET %s: status %d, want %d", path, r.Code, status)
		}
	}
	r := get(t, s, "/pairs/hand?metric=bogus")
	contains(t, "bad metric page", r.Body, "metric: &#34;bogus&#34; is not one of strength")
}

func TestPairsComparisonList(t *testing.T) {
	s := mustPairs(t)
	r := mustGet(t, s, "/pairs/hand/comparisons", http.StatusOK, "text/html")
	contains(t, "list", r.Body, `data-testid="comparisons-count"><strong>7 comparisons</strong>`, `href="/pairs/hand/comparisons/c1"`,
		"&lt;script&gt;alert(1)&lt;/script&gt;")
	if strings.Contains(r.Body, "<script>alert(1)") {
		t.Error("the list shows a prompt unescaped")
	}
	for _, tt := range []struct {
		query string
		ids   []string
	}{
		{"ann=p2&filter=agree", []string{"c2", "c6", "c7"}},
		{"ann=p2&filter=disagree", []string{"c1", "c4"}},
		{"ann=p2&filter=one", []string{"c3", "c5"}}, // p2 null on c3; h tie on c5
		{"ann=p1&filter=neither", nil},
		{"ann=g&filter=neither", []string{"c5"}}, // g has no vote on c5, h a tie
		{"ann=model:X&filter=agree", []string{"c1", "c2", "c3"}},
		{"ann=model:X&filter=agree&refmodels=Y", []string{"c1", "c2"}},
		{"split=topic&value=t2", []string{"c3", "c4"}},
		{"ann=p2&filter=agree&split=topic&value=t1", []string{"c2", "c7"}},
		{"q=SCRIPT", []string{"c7"}},
		{"q=bbbbbb", []string{"c6"}},
		{"q=%25", nil}, // a literal %, not a wildcard
	} {
		r := mustGet(t, s, "/pairs/hand/comparisons?"+tt.query, http.StatusOK, "text/html")
		var ids []string
		for _, m := range regexp.MustCompile(`data-testid="comparison-link">([^<]*)<`).FindAllStringSubmatch(r.Body, -1) {
			ids = append(ids, m[1])
		}
		if strings.Join(ids, " ") != strings.Join(tt.ids, " ") {
			t.Errorf("%s: comparisons %v, want %v", tt.query, ids, tt.ids)
		}
	}
	r = mustGet(t, s, "/pairs/hand/comparisons?ann=model:Y&ref=h&split=topic&value=t1", http.StatusOK, "text/html")
	contains(t, "votes", r.Body, `data-testid="ann-vote">Y: <strong>text_b</strong>`, `data-testid="ref-vote">Human (reference): <strong>text_a</strong>`,
		"<strong>not applicable</strong>")
	// A page past the end goes to the last page, as on every list.
	r = get(t, s, "/pairs/hand/comparisons?page=99")
	if r.Code != http.StatusSeeOther || r.Header.Get("Location") != "/pairs/hand/comparisons?ref=h" {
		t.Errorf("page 99: %d %q", r.Code, r.Header.Get("Location"))
	}
}

func TestPairsComparisonPage(t *testing.T) {
	s := mustPairs(t)
	r := mustGet(t, s, "/pairs/hand/comparisons/c7", http.StatusOK, "text/html")
	contains(t, "comparison", r.Body,
		`<pre class="pair-prompt" data-testid="prompt">&lt;script&gt;alert(1)&lt;/script&gt;</pre>`,
		`data-testid="response-a-model">Y<`, `data-testid="response-b-model">Z<`, "<th>temperature</th><td>0.7</td>",
		`data-annotator="p1"`, "<td>invalid</td>", `data-annotator="g"`, "<th>topic</th><td>t1</td>")
	if strings.Contains(r.Body, "<script>alert") {
		t.Error("the prompt is not escaped")
	}
	r = mustGet(t, s, "/pairs/hand/comparisons/c3", http.StatusOK, "text/html")
	contains(t, "null vote", r.Body, "<td>no preference</td>", "<td>not_applicable</td>")

	// Ids that need escaping in a path round-trip through the link.
	doc := `{"metadata":{"version":"2.0"},"comparisons":[{"id":"a/b %20c","response_a":{"text":"x"},"response_b":{"text":"y"},"annotations":{"h":{"pref":"a"}}}]}`
	if _, err := dataStore(t, s).ImportAnnotatedPairsBytes(context.Background(), []byte(doc), "odd.json", data.ImportOptions{Name: "odd"}); err != nil {
		t.Fatal(err)
	}
	list := mustGet(t, s, "/pairs/odd/comparisons", http.StatusOK, "text/html")
	m := regexp.MustCompile(`href="(/pairs/odd/comparisons/[^"]+)" data-testid="comparison-link"`).FindStringSubmatch(list.Body)
	if m == nil {
		t.Fatal("no comparison link")
	}
	r = mustGet(t, s, strings.ReplaceAll(m[1], "&amp;", "&"), http.StatusOK, "text/html")
	contains(t, "odd id", r.Body, `data-testid="comparison-id">Comparison a/b %20c<`)
	u, _ := url.Parse(m[1])
	if u.RawPath == "" {
		t.Errorf("link %s does not escape the id", m[1])
	}
}

// matrixCounter counts the vote matrices read from the store.
type matrixCounter struct {
	*data.Store
	reads atomic.Int64
}

func (m *matrixCounter) PairsVoteMatrix(ctx context.Context, dataset string) (model.VoteMatrix, error) {
	m.reads.Add(1)
	return m.Store.PairsVoteMatrix(ctx, dataset)
}

// TestPairsConcurrent loads a dataset's votes from several requests at once:
// they share one read of the votes and get the same page.
func TestPairsConcurrent(t *testing.T) {
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.ImportAnnotatedPairsBytes(ctx, []byte(handDoc), "hand.json", data.ImportOptions{Name: "hand"}); err != nil {
		t.Fatal(err)
	}
	counted := &matrixCounter{Store: store}
	s := web.New(counted, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})
	bodies := make([]string, 8)
	var wg sync.WaitGroup
	for i := range bodies {
		wg.Go(func() {
			path := "/pairs/hand?ci=1"
			if i%2 == 1 {
				path = "/pairs/hand/annotators.csv"
			}
			r := get(t, s, path)
			if r.Code != http.StatusOK {
				t.Errorf("GET %s: %d", path, r.Code)
			}
			bodies[i] = r.Body
		})
	}
	wg.Wait()
	for i := 2; i < len(bodies); i++ {
		if bodies[i] != bodies[i%2] {
			t.Errorf("response %d differs from response %d", i, i%2)
		}
	}
	if n := counted.reads.Load(); n != 1 {
		t.Errorf("the votes were read %d times, want once", n)
	}
}

// TestComparisonPath: an unknown comparison or dataset is the store's 404.
func TestComparisonPath(t *testing.T) {
	s := mustPairs(t)
	for path, status := range map[string]int{
		"/pairs/hand/comparisons/nope": http.StatusNotFound,
		"/pairs/nope/comparisons/c1":   http.StatusNotFound,
		"/pairs/hand/comparisons/c1":   http.StatusOK,
	} {
		if r := get(t, s, path); r.Code != status {
			t.Errorf("GET %s: %d, want %d", path, r.Code, status)
		}
	}
}
