package data_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/demo"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/storetest"
)

// TestExportAuditsChunks reads every filter's audits chunk by chunk (the
// export's keyset reads) and checks they are ListAudits' audits in its
// order, with their scores, for every sort key, both directions, scores
// from the JSON (while audit_scores is being built) and from audit_scores,
// and chunk sizes that split ties and the NULLs at the end.
func TestExportAuditsChunks(t *testing.T) {
	ctx := context.Background()
	s, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := demo.Experiment(demo.Options{Audits: 1})
	// 400 audits spread over the experiment, some with no scores, a
	// dimension some lack, no behavior, and the outcomes' NULLs: ties and
	// NULLs in every sort key.
	var audits []bundle.Audit
	for i := 0; i < len(b.Audits) && len(audits) < 400; i += len(b.Audits) / 400 {
		a := b.Audits[i]
		switch len(audits) % 7 {
		case 0:
			a.Scores = nil
		case 1:
			a.Scores = map[string]float64{"concerning": a.Scores["concerning"]}
		case 2:
			a.Behavior = ""
		}
		audits = append(audits, a)
	}
	b.Audits, b.Judgments, b.Verdicts = audits, nil, nil
	if _, err := s.ImportBundle(ctx, bundle.FromBundle(b, "export", false), "export", data.ImportOptions{DeferScores: true,
		Transcripts: func(string) ([]byte, error) { return []byte(`{"metadata":{}}`), nil }}); err != nil {
		t.Fatal(err)
	}
	dims, err := s.ScoreDimensions(ctx, "demo")
	if err != nil || len(dims) < 3 {
		t.Fatal(dims, err)
	}
	dims = append(dims, "no_such_dimension")
	filters := exportChunkFilters(dims)
	// The chunks must split ties and the NULLs that sort last.
	nulls := map[string]int{}
	rows, err := s.ListAudits(ctx, model.AuditFilter{Experiment: "demo", Sort: "score:" + dims[2]}, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		nulls["quality"] += map[bool]int{true: 1}[r.Quality == nil]
		nulls["outcome"] += map[bool]int{true: 1}[r.Detected == nil]
		nulls["behavior"] += map[bool]int{true: 1}[r.Behavior == ""]
		nulls["score"] += map[bool]int{true: 1}[r.SortScore == nil]
	}
	for _, k := range []string{"quality", "outcome", "behavior", "score"} {
		if nulls[k] < 30 {
			t.Errorf("%d audits without %s: the chunks do not cross the NULLs", nulls[k], k)
		}
	}
	checkExportChunks(t, s, filters, dims, "JSON")
	if err := s.BuildPendingScores(ctx); err != nil {
		t.Fatal(err)
	}
	checkExportChunks(t, s, filters, dims, "audit_scores")
}

// exportChunkFilters are the filters TestExportAuditsChunks reads chunk
// by chunk, dims the experiment's score dimensions.
func exportChunkFilters(dims []string) []model.AuditFilter {
	var filters []model.AuditFilter
	// Every sort key in one direction or the other (each query costs a few
	// ms), the judge scores in both.
	for i, sort := range model.AuditSortKeys {
		filters = append(filters, model.AuditFilter{Experiment: "demo", Sort: sort, Desc: i%2 == 1})
	}
	for _, sort := range []string{"", "score:concerning", "score:" + dims[2]} {
		filters = append(filters, model.AuditFilter{Experiment: "demo", Sort: sort}, model.AuditFilter{Experiment: "demo", Sort: sort, Desc: true})
	}
	return append(filters,
		model.AuditFilter{Sort: "turns", Desc: true},
		model.AuditFilter{Experiment: "demo", Eval: "production", Sort: "score:concerning", Scores: []model.ScoreCond{{Dimension: "concerning", Op: ">=", Value: 3}}},
		model.AuditFilter{Experiment: "demo", Outcome: "missed", Sort: "quality", Desc: true},
		model.AuditFilter{Experiment: "demo", Text: "no such text anywhere"})
}

// checkExportChunks reads each filter's audits with ExportAudits in
// chunks of 41, of all of them and of one more, and checks they are
// ListAudits' audits in its order with AuditScores' scores; source names
// where the scores come from (the JSON or audit_scores), so the test can
// check both without repeating it.
func checkExportChunks(t *testing.T, s *data.Store, filters []model.AuditFilter, dims []string, source string) {
	t.Helper()
	ctx := context.Background()
	for _, f := range filters {
		want, err := s.ListAudits(ctx, f, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		keys := make([]string, len(want))
		for i, r := range want {
			keys[i] = r.Key
		}
		scores, err := s.AuditScores(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{41, len(want), len(want) + 1} {
			if n == 0 {
				continue
			}
			name := fmt.Sprintf("%s %+v chunks of %d", source, f, n)
			var got []model.AuditRow
			var cur *model.AuditCursor
			for chunks := 0; ; chunks++ {
				c, err := s.ExportAudits(ctx, f, cur, n, dims)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(c.Rows) > n || len(c.Scores) != len(c.Rows) || (c.Next != nil && len(c.Rows) < n) || chunks > len(want)/n+1 {
					t.Fatalf("%s: chunk %d has %d rows, %d scores, next %v", name, chunks, len(c.Rows), len(c.Scores), c.Next)
				}
				for i, r := range c.Rows {
					got := storetest.ExportScores(t, c, i, len(dims))
					for j, d := range dims {
						w, ok := scores[r.Key][d]
						if g := got[j]; ok != !math.IsNaN(g) || (ok && g != w) {
							t.Fatalf("%s: %s %s = %v, want %v (%v)", name, r.Key, d, g, w, ok)
						}
					}
				}
				got = append(got, c.Rows...)
				if cur = c.Next; cur == nil {
					break
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %d audits, want %d; first difference at %d", name, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

func firstDiff(a, b []model.AuditRow) int {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestExportAcrossImport: an experiment imported again (replaced) between
// two chunks of its export, and another appended to the store, change
// nothing of what it sends: every audit once, in file order, with the
// chunks ranges of ord found at the first.
func TestExportAcrossImport(t *testing.T) {
	ctx := context.Background()
	s, b := exportStore(t)
	f := model.AuditFilter{Experiment: "demo"}
	want, err := s.ListAudits(ctx, f, 0, -1)
	if err != nil || len(want) < 60 {
		t.Fatal(len(want), err)
	}
	var got []string
	c, err := s.ExportAudits(ctx, f, nil, 20, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Next == nil || len(c.Next.Until) == 0 {
		t.Fatalf("the first chunk's cursor %+v has no ranges", c.Next)
	}
	for i := 0; ; i++ {
		for _, r := range c.Rows {
			got = append(got, r.Key)
		}
		if c.Next == nil {
			break
		}
		if i == 0 {
			if _, err := s.ImportBundle(ctx, bundle.FromBundle(b, "x", false), "x2", data.ImportOptions{Transcripts: emptyTranscript, Replace: true}); err != nil {
				t.Fatal(err)
			}
			other := demo.Experiment(demo.Options{Audits: 1})
			other.Experiment.ID, other.Audits, other.Judgments, other.Verdicts = "other", other.Audits[:50], nil, nil
			if _, err := s.ImportBundle(ctx, bundle.FromBundle(other, "o", false), "o", data.ImportOptions{Transcripts: emptyTranscript}); err != nil {
				t.Fatal(err)
			}
		}
		if c, err = s.ExportAudits(ctx, f, c.Next, 20, nil); err != nil {
			t.Fatal(err)
		}
		if len(c.Rows) > 20 {
			t.Fatalf("chunk of %d rows", len(c.Rows))
		}
	}
	keys := make([]string, len(want))
	for i, r := range want {
		keys[i] = r.Key
	}
	if !slices.Equal(got, keys) {
		t.Fatalf("export across an import: %d audits, want %d", len(got), len(keys))
	}
}

// TestExportRangeGrows: when an import between two chunks puts more of the
// filter's audits into a range than its bounds counted (an experiment
// replaced by one whose audits all match), the chunks stay at their limit,
// and every audit after the first chunk's last comes once, in file order.
func TestExportRangeGrows(t *testing.T) {
	ctx := context.Background()
	s, b := exportStore(t)
	eval := b.Audits[0].Eval
	f := model.AuditFilter{Experiment: "demo", Eval: eval}
	const limit = 7
	c, err := s.ExportAudits(ctx, f, nil, limit, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Next == nil || len(c.Next.Until) < 3 {
		t.Fatalf("the first chunk's cursor %+v has too few ranges", c.Next)
	}
	var got []string
	for _, r := range c.Rows {
		got = append(got, r.Key)
	}
	first := got[len(got)-1]
	all := slices.Clone(b.Audits)
	for i := range all {
		all[i].Eval = eval
	}
	b.Audits = all
	if _, err := s.ImportBundle(ctx, bundle.FromBundle(b, "x", false), "x2", data.ImportOptions{Transcripts: emptyTranscript, Replace: true}); err != nil {
		t.Fatal(err)
	}
	for c.Next != nil {
		if c, err = s.ExportAudits(ctx, f, c.Next, limit, nil); err != nil {
			t.Fatal(err)
		}
		if len(c.Rows) > limit {
			t.Fatalf("chunk of %d rows, limit %d", len(c.Rows), limit)
		}
		for _, r := range c.Rows {
			got = append(got, r.Key)
		}
	}
	now, err := s.ListAudits(ctx, f, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, r := range now {
		if r.Key == first {
			for _, r := range now[i+1:] {
				want = append(want, r.Key)
			}
		}
	}
	if len(want) < 200 || !slices.Equal(got[limit:], want) {
		t.Fatalf("after the first chunk: %d audits, want %d (first difference at %d)", len(got)-limit, len(want), firstDiffKeys(got[limit:], want))
	}
}

// TestExportStorageOrder: a file-order chunk is read without an ORDER BY,
// in the order DuckDB stored the rows. Rows stored out of the order of ord
// (a third of them deleted and put back at the end, reversed) are read
// again sorted: the export is still every audit once, in file order, with
// its scores.
func TestExportStorageOrder(t *testing.T) {
	ctx := context.Background()
	s, _ := exportStore(t)
	f := model.AuditFilter{Experiment: "demo"}
	want, err := s.ListAudits(ctx, f, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	dims, err := s.ScoreDimensions(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	wantScores := exportScores(t, s, f, len(want), dims)
	db := s.DB()
	for _, q := range []string{
		`CREATE TEMP TABLE moved AS SELECT * FROM audits WHERE experiment = 'demo' AND ord % 3 = 1`,
		`DELETE FROM audits WHERE experiment = 'demo' AND ord % 3 = 1`,
		`INSERT INTO audits SELECT * FROM moved ORDER BY ord DESC`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var stored []int64
	rows, err := db.QueryContext(ctx, `SELECT ord FROM audits WHERE experiment = 'demo'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var o int64
		rows.Scan(&o)
		stored = append(stored, o)
	}
	if rows.Close(); slices.IsSorted(stored) {
		t.Fatal("the rows are still stored in the order of ord: the test tests nothing")
	}
	for _, limit := range []int{7, 100, 1000} {
		var got []string
		var c model.ExportChunk
		for i := 0; i == 0 || c.Next != nil; i++ {
			if c, err = s.ExportAudits(ctx, f, c.Next, limit, dims); err != nil {
				t.Fatal(err)
			}
			if len(c.Rows) > limit {
				t.Fatalf("limit %d: a chunk of %d", limit, len(c.Rows))
			}
			for j, r := range c.Rows {
				got = append(got, r.Key)
				if g, w := storetest.ExportScores(t, c, j, len(dims)), wantScores[r.Key]; !sameScores(g, w) {
					t.Fatalf("limit %d: %s scores %v, want %v", limit, r.Key, g, w)
				}
			}
		}
		keys := make([]string, len(want))
		for i, r := range want {
			keys[i] = r.Key
		}
		if !slices.Equal(got, keys) {
			t.Fatalf("limit %d: %d audits, want %d (first difference at %d)", limit, len(got), len(keys), firstDiffKeys(got, keys))
		}
	}
}

// exportScores reads every audit's scores by one export of n audits in a
// single chunk, by key.
func exportScores(t *testing.T, s *data.Store, f model.AuditFilter, n int, dims []string) map[string][]float64 {
	t.Helper()
	c, err := s.ExportAudits(context.Background(), f, nil, n+1, dims)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]float64{}
	for i, r := range c.Rows {
		out[r.Key] = storetest.ExportScores(t, c, i, len(dims))
	}
	if len(out) != n || len(dims) == 0 {
		t.Fatalf("%d audits' scores in %d dimensions, want %d audits", len(out), len(dims), n)
	}
	return out
}

// sameScores compares scores with NaN equal to NaN.
func sameScores(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
}

// exportStore is a store holding the demo's first 300 audits (experiment
// "demo"), and the bundle they came from.
func exportStore(t *testing.T) (*data.Store, *bundle.Bundle) {
	t.Helper()
	s, err := data.Open(context.Background(), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	b := demo.Experiment(demo.Options{Audits: 1})
	b.Audits, b.Judgments, b.Verdicts = b.Audits[:300], nil, nil
	if _, err := s.ImportBundle(context.Background(), bundle.FromBundle(b, "x", false), "x", data.ImportOptions{Transcripts: emptyTranscript}); err != nil {
		t.Fatal(err)
	}
	return s, b
}

func emptyTranscript(string) ([]byte, error) { return []byte(`{"metadata":{}}`), nil }

// TestExportOddScores: score columns holding what no bundle import writes
// (negative, past 15, huge, NaN, infinite, -0, 0, a fraction) are exported
// as they are, from each row's list, and do not fail the query that packs
// the whole ones.
func TestExportOddScores(t *testing.T) {
	ctx := context.Background()
	s, _ := exportStore(t)
	db := s.DB()
	var slots []int
	rows, err := db.Query(`SELECT slot FROM experiment_dimensions WHERE experiment = 'demo' AND slot IS NOT NULL ORDER BY slot`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		slots = append(slots, n)
	}
	if rows.Close(); len(slots) < 2 {
		t.Fatalf("%d score columns", len(slots))
	}
	odd := []float64{-4, 16, 1e300, math.NaN(), math.Inf(1), math.Copysign(0, -1), 0, 2.5, 1e15}
	oddOf := map[string]float64{} // by key
	for i, v := range odd {
		set := make([]string, len(slots))
		args := make([]any, 0, len(slots)+1)
		for j, n := range slots {
			set[j] = "score_" + strconv.Itoa(n) + " = ?"
			args = append(args, v)
		}
		var key string
		if err := db.QueryRow(`UPDATE audits SET `+strings.Join(set, ", ")+` WHERE experiment = 'demo' AND ord = ? RETURNING key`,
			append(args, 10*i+3)...).Scan(&key); err != nil {
			t.Fatal(err)
		}
		oddOf[key] = v
	}
	dims, err := s.ScoreDimensions(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, sort := range []string{"", "turns"} {
		f := model.AuditFilter{Experiment: "demo", Sort: sort}
		for c, err := s.ExportAudits(ctx, f, nil, 25, dims); ; c, err = s.ExportAudits(ctx, f, c.Next, 25, dims) {
			if err != nil {
				t.Fatalf("sort %q: %v", sort, err)
			}
			for i, r := range c.Rows {
				v, ok := oddOf[r.Key]
				if !ok {
					continue
				}
				seen++
				if c.Scores[i] == nil {
					t.Fatalf("%s (every score %v) was packed as %x", r.Key, v, c.Packed[i])
				}
				for j, g := range c.Scores[i] {
					if g != v && !(math.IsNaN(g) && math.IsNaN(v)) || math.Signbit(g) != math.Signbit(v) {
						t.Fatalf("%s: %s = %v, want %v", r.Key, dims[j], g, v)
					}
				}
			}
			if c.Next == nil {
				break
			}
		}
	}
	if seen != 2*len(odd) {
		t.Fatalf("saw %d of the odd audits, want %d", seen, 2*len(odd))
	}
}
