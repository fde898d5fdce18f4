package data_test

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/demo"
	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/storetest"
)

// TestScoreColumns checks the score columns (migration 009) against each
// audit's scores JSON, and score filters and sorts against the same
// selection worked out here from the JSON: in one experiment and across
// experiments whose dimensions have different columns, for dimensions past
// the 48 columns (read from audit_scores), for an experiment imported before
// the columns (no slots: audit_scores), and for one whose audit_scores is
// still being built (the JSON).
func TestScoreColumns(t *testing.T) {
	ctx := context.Background()
	s, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dims := make([]string, 60)
	for i := range dims {
		dims[i] = fmt.Sprintf("d%02d", i)
	}
	importScoreExperiments(t, s, dims)
	db := s.DB()
	storetest.CheckScoreColumns(t, db)
	checkScoreSlots(t, db)

	// The reference: every audit in the default order, with its JSON scores.
	all, err := s.ListAudits(ctx, model.AuditFilter{}, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, len(all))
	for i, r := range all {
		keys[i] = r.Key
	}
	scores, err := s.AuditScores(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	var fromCells, fromList int // the export's rows of each kind
	for _, f := range scoreColumnFilters() {
		cells, list := checkScoreFilter(t, s, f, wantScoreKeys(all, scores, f), scores)
		fromCells += cells
		fromList += list
	}
	if fromCells == 0 || fromList == 0 {
		t.Errorf("the export gave %d rows their cells and %d their scores: one way is untested", fromCells, fromList)
	}
	if err := s.BuildPendingScores(ctx); err != nil {
		t.Fatal(err)
	}
	storetest.CheckScoreColumns(t, db)
}

// importScoreExperiments imports TestScoreColumns' four experiments, one,
// two, old and pending, of 150 audits each scored on dims at random, and
// makes "old" as a database made before migration 009 has it: apart, so
// the test reads as its checks.
func importScoreExperiments(t *testing.T, s *data.Store, dims []string) {
	t.Helper()
	ctx := context.Background()
	// Whole numbers, which the export has DuckDB write as its cells, and
	// fractions, which it leaves to Go.
	values := []float64{1, 2, 2.5, 3, 5, 5, 7, 10, 9.75}
	for n, name := range []string{"one", "two", "old", "pending"} {
		b := demo.Experiment(demo.Options{Audits: 1})
		rng := rand.New(rand.NewPCG(uint64(n), 9))
		audits := b.Audits[:150]
		for i := range audits {
			a := &audits[i]
			a.Scores = map[string]float64{}
			for j, d := range dims {
				// "two" meets d30 … d59 first, so they take the first
				// columns there, and d18 … d29 none.
				if name == "two" && i == 0 && j < 30 {
					continue
				}
				// "old" has d50 … d59 alone: filters across experiments
				// on the others read the columns, on these audit_scores.
				if name == "old" && j < 50 {
					continue
				}
				if rng.IntN(3) > 0 || i < 3 {
					a.Scores[d] = values[rng.IntN(len(values))]
				}
			}
			if i%11 == 5 {
				a.Scores = nil
			}
		}
		b.Audits, b.Judgments, b.Verdicts = audits, nil, nil
		opts := data.ImportOptions{Name: name, DeferScores: name == "pending",
			Transcripts: func(string) ([]byte, error) { return []byte(`{"metadata":{}}`), nil }}
		if _, err := s.ImportBundle(ctx, bundle.FromBundle(b, name, false), name, opts); err != nil {
			t.Fatal(err)
		}
	}
	db := s.DB()
	// "old" as a database made before migration 009 has it.
	var nulls []string
	for i := range 48 {
		nulls = append(nulls, "score_"+strconv.Itoa(i)+" = NULL")
	}
	for _, q := range []string{
		`INSERT INTO audit_scores SELECT * FROM (` + load.AllScores("experiment = 'old'") + `) s
			SEMI JOIN experiment_dimensions d ON d.experiment = s.experiment AND d.dimension = s.dimension AND d.slot IS NOT NULL`,
		`UPDATE experiment_dimensions SET slot = NULL WHERE experiment = 'old'`,
		`UPDATE audits SET ` + strings.Join(nulls, ", ") + ` WHERE experiment = 'old'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// checkScoreSlots checks the columns "one" and "two" took: 48 each, and
// "two", which meets d30 … d59 first, gives them the first columns.
func checkScoreSlots(t *testing.T, db *sql.DB) {
	t.Helper()
	var slots [2]map[string]int
	for i, exp := range []string{"one", "two"} {
		slots[i] = map[string]int{}
		rows, err := db.Query(`SELECT dimension, slot FROM experiment_dimensions WHERE experiment = ? AND slot IS NOT NULL`, exp)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var d string
			var n int
			if err := rows.Scan(&d, &n); err != nil {
				t.Fatal(err)
			}
			slots[i][d] = n
		}
		rows.Close()
	}
	if len(slots[0]) != 48 || len(slots[1]) != 48 || slots[1]["d30"] != 0 || slots[1]["d00"] != 30 {
		t.Fatalf("slots: one %v, two %v; want 48 each, two's first d30, then d00", slots[0], slots[1])
	}
}

// wantScoreKeys is the reference TestScoreColumns checks against: the keys
// of the audits of all (every audit in the default order) that f selects,
// in f's order, worked out from their JSON scores.
func wantScoreKeys(all []model.AuditRow, scores map[string]map[string]float64, f model.AuditFilter) []string {
	type row struct {
		key string
		v   *float64
		i   int
	}
	var sel []row
audits:
	for i, r := range all {
		if f.Experiment != "" && r.Experiment != f.Experiment {
			continue
		}
		for _, c := range f.Scores {
			v, ok := scores[r.Key][c.Dimension]
			if !ok || !map[string]bool{">=": v >= c.Value, "<=": v <= c.Value, ">": v > c.Value, "<": v < c.Value, "=": v == c.Value}[c.Op] {
				continue audits
			}
		}
		var sv *float64
		if d, ok := strings.CutPrefix(f.Sort, "score:"); ok {
			if v, ok := scores[r.Key][d]; ok {
				sv = &v
			}
		}
		sel = append(sel, row{r.Key, sv, i})
	}
	slices.SortStableFunc(sel, func(a, b row) int {
		switch {
		case a.v == nil && b.v == nil:
		case a.v == nil:
			return 1
		case b.v == nil:
			return -1
		case *a.v != *b.v:
			if f.Desc {
				return cmp.Compare(*b.v, *a.v)
			}
			return cmp.Compare(*a.v, *b.v)
		}
		return cmp.Compare(a.i, b.i)
	})
	out := make([]string, len(sel))
	for i, r := range sel {
		out[i] = r.key
	}
	return out
}

// scoreColumnFilters are the filters TestScoreColumns checks: in every
// experiment and across them, sorted by a dimension with a column, one
// past the columns, one no experiment has and none, with score conditions
// on such dimensions.
func scoreColumnFilters() []model.AuditFilter {
	var filters []model.AuditFilter
	for _, exp := range []string{"", "one", "two", "old", "pending"} {
		for _, sort := range []string{"score:d00", "score:d55", "score:d59", "score:nosuch", ""} {
			for _, desc := range []bool{false, true} {
				filters = append(filters, model.AuditFilter{Experiment: exp, Sort: sort, Desc: desc})
			}
			filters = append(filters,
				model.AuditFilter{Experiment: exp, Sort: sort, Scores: []model.ScoreCond{{Dimension: "d00", Op: ">=", Value: 5}}},
				model.AuditFilter{Experiment: exp, Sort: sort, Desc: true, Scores: []model.ScoreCond{{Dimension: "d57", Op: "<", Value: 3}, {Dimension: "d01", Op: "=", Value: 2.5}}},
				model.AuditFilter{Experiment: exp, Sort: sort, Scores: []model.ScoreCond{{Dimension: "d59", Op: ">", Value: 2}, {Dimension: "d30", Op: "<=", Value: 5}}},
				model.AuditFilter{Experiment: exp, Sort: sort, Scores: []model.ScoreCond{{Dimension: "nosuch", Op: ">", Value: 0}}})
		}
	}
	return filters
}

// checkScoreFilter checks f's list, sort scores, page, count and export in
// chunks against w, the keys worked out from the JSON scores; it returns
// the export's rows given their cells and given their scores, which the
// test adds up over every filter to see both ways taken.
func checkScoreFilter(t *testing.T, s *data.Store, f model.AuditFilter, w []string, scores map[string]map[string]float64) (fromCells, fromList int) {
	t.Helper()
	ctx := context.Background()
	got, err := s.ListAudits(ctx, f, 0, -1)
	if err != nil {
		t.Fatalf("%+v: %v", f, err)
	}
	g := make([]string, len(got))
	for i, r := range got {
		g[i] = r.Key
		if d, ok := strings.CutPrefix(f.Sort, "score:"); ok {
			v, has := scores[r.Key][d]
			if has != (r.SortScore != nil) || (has && *r.SortScore != v) {
				t.Fatalf("%+v: %s sort score %v, want %v (%v)", f, r.Key, r.SortScore, v, has)
			}
		}
	}
	if !slices.Equal(g, w) {
		t.Fatalf("%+v: %d audits, want %d; first difference at %d", f, len(g), len(w), firstDiffKeys(g, w))
	}
	page, err := s.ListAuditsPage(ctx, f, 7, 20)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range page {
		if r.Key != w[7+i] {
			t.Fatalf("%+v: page row %d is %s, want %s", f, 7+i, r.Key, w[7+i])
		}
	}
	if n, err := s.CountAudits(ctx, f); err != nil || n != len(w) {
		t.Fatalf("%+v: count %d (%v), want %d", f, n, err, len(w))
	}
	// The export in chunks, its scores read from the columns (d00 and
	// d30 have one in every experiment that has them, another in
	// "two") or, with d59, from the JSON.
	for _, dims := range [][]string{{"d00", "d30"}, {"d30", "d59"}} {
		var keys []string
		var cur *model.AuditCursor
		for {
			c, err := s.ExportAudits(ctx, f, cur, 37, dims)
			if err != nil {
				t.Fatalf("%+v: export: %v", f, err)
			}
			for i, r := range c.Rows {
				keys = append(keys, r.Key)
				got := storetest.ExportScores(t, c, i, len(dims))
				if c.Scores[i] == nil {
					fromCells++
				} else {
					fromList++
				}
				for j, d := range dims {
					v, has := scores[r.Key][d]
					if g := got[j]; has == math.IsNaN(g) || (has && g != v) {
						t.Fatalf("%+v: export's %s of %s = %v, want %v (%v)", f, d, r.Key, g, v, has)
					}
				}
			}
			if cur = c.Next; cur == nil {
				break
			}
		}
		if !slices.Equal(keys, w) {
			t.Fatalf("%+v: export of %v has %d audits, want %d; first difference at %d", f, dims, len(keys), len(w), firstDiffKeys(keys, w))
		}
	}
	return fromCells, fromList
}

func firstDiffKeys(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestRunEpochFilters: a filter by run or epoch (which joins the auditors;
// other filters do not) selects the audits of the auditors with that run or
// epoch, in the list, its pages and its count.
func TestRunEpochFilters(t *testing.T) {
	ctx := context.Background()
	s, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := demo.Experiment(demo.Options{Audits: 1})
	var audits []bundle.Audit
	for i := 0; i < len(b.Audits); i += len(b.Audits) / 600 {
		audits = append(audits, b.Audits[i])
	}
	b.Audits, b.Judgments, b.Verdicts = audits, nil, nil
	if _, err := s.ImportBundle(ctx, bundle.FromBundle(b, "runs", false), "runs", data.ImportOptions{Name: "runs",
		Transcripts: func(string) ([]byte, error) { return []byte(`{"metadata":{}}`), nil }}); err != nil {
		t.Fatal(err)
	}
	auditors, err := s.Auditors(ctx, "runs")
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.ListAudits(ctx, model.AuditFilter{Experiment: "runs"}, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	epoch := 2
	var runFilter string
	for _, a := range auditors {
		if a.Run != "" {
			runFilter = a.Run
			break
		}
	}
	for _, f := range []model.AuditFilter{
		{Experiment: "runs", Run: runFilter},
		{Experiment: "runs", Epoch: &epoch, Sort: "score:concerning", Desc: true},
		{Experiment: "runs", Run: runFilter, Epoch: &epoch, Scores: []model.ScoreCond{{Dimension: "concerning", Op: ">=", Value: 1}}},
	} {
		in := map[string]bool{}
		for _, a := range auditors {
			in[a.ID] = (f.Run == "" || a.Run == f.Run) && (f.Epoch == nil || (a.Epoch != nil && *a.Epoch == int64(*f.Epoch)))
		}
		full, err := s.ListAudits(ctx, model.AuditFilter{Experiment: "runs", Scores: f.Scores}, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, r := range full {
			if in[r.Auditor] {
				want++
			}
		}
		got, err := s.ListAudits(ctx, f, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range got {
			if !in[r.Auditor] {
				t.Errorf("%+v: %s by %s, which is not of that run or epoch", f, r.Key, r.Auditor)
			}
		}
		n, err := s.CountAudits(ctx, f)
		if err != nil || len(got) != want || n != want || want == 0 || want == len(all) {
			t.Errorf("%+v: %d listed, %d counted (%v), want %d of %d (neither none nor all)", f, len(got), n, err, want, len(all))
		}
		page, err := s.ListAuditsPage(ctx, f, 3, 10)
		if err != nil || len(page) == 0 || page[0].Key != got[3].Key {
			t.Errorf("%+v: page %v, %v", f, page, err)
		}
	}
}
