package data

import (
	"context"
	"database/sql"
	"reflect"
	"strconv"
	"testing"

	"github.com/auditscope/auditscope/data/internal/expquery"
	"github.com/auditscope/auditscope/data/storetest"
)

// TestEvalAudits: the outcome rows, read in two halves of the file order at
// once, are the rows one plain query reads, in file order, with every
// NULL kept: for experiments of 0, 1, 2, an odd and an even number of
// audits, and one with ord gaps.
func TestEvalAudits(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	for _, p := range []string{"testdata/bundle-small", storetest.Fixture(t, "inspect", "docent-sample.eval")} {
		if _, err := s.Import(ctx, p, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	want := func(exp string) []EvalAudit {
		rows, err := s.db.Query(`SELECT id, auditor, eval, seed, coalesce(behavior, ''), quality, production_value, false_positive, detected
			FROM audits WHERE experiment = ? AND eval <> 'training' ORDER BY ord`, exp)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := []EvalAudit{}
		for rows.Next() {
			var a EvalAudit
			var q, pv sql.NullFloat64
			var f, d sql.NullBool
			if err := rows.Scan(&a.ID, &a.Auditor, &a.Eval, &a.Seed, &a.Behavior, &q, &pv, &f, &d); err != nil {
				t.Fatal(err)
			}
			if q.Valid {
				a.Quality = &q.Float64
			}
			if pv.Valid {
				a.ProductionValue = &pv.Float64
			}
			if f.Valid {
				a.FalsePositive = &f.Bool
			}
			if d.Valid {
				a.Detected = &d.Bool
			}
			out = append(out, a)
		}
		return out
	}
	exps := []string{"small", "docent-sample", "nothing"}
	// Experiments cut down to 0, 1 and 2 audits, and one with gaps in ord.
	for _, keep := range []int{1, 2, 3} {
		name := "small" + strconv.Itoa(keep)
		if _, err := s.db.Exec(`INSERT INTO audits SELECT * REPLACE (? AS experiment, ? || id AS key) FROM audits WHERE experiment = 'small' AND ord < ?`, name, name+":", keep); err != nil {
			t.Fatal(err)
		}
		exps = append(exps, name)
	}
	if _, err := s.db.Exec(`INSERT INTO audits SELECT * REPLACE ('gaps' AS experiment, 'gaps:' || id AS key, ord * 7 + 3 AS ord) FROM audits WHERE experiment = 'docent-sample'`); err != nil {
		t.Fatal(err)
	}
	exps = append(exps, "gaps")
	// Stored out of the order of ord (as no import stores them): read in
	// storage order, they are sorted.
	for _, order := range []string{"hash(id)", "ord DESC"} {
		name := "shuffled" + strconv.Itoa(len(exps))
		if _, err := s.db.Exec(`INSERT INTO audits SELECT * REPLACE (? AS experiment, ? || id AS key) FROM audits WHERE experiment = 'small' ORDER BY `+order, name, name+":"); err != nil {
			t.Fatal(err)
		}
		exps = append(exps, name)
	}
	check(t, s, exps, want)
	// Names that share a hash: the strings are read instead.
	defer func(h func(string) string) { expquery.NameHash = h }(expquery.NameHash)
	expquery.NameHash = func(string) string { return "0::BIGINT" }
	check(t, s, exps, want)
}

func check(t *testing.T, s *Store, exps []string, want func(string) []EvalAudit) {
	t.Helper()
	ctx := context.Background()
	for _, exp := range exps {
		got, err := s.EvalAudits(ctx, exp)
		if err != nil {
			t.Fatalf("%s: %v", exp, err)
		}
		w := want(exp)
		t.Logf("%s: %d audits", exp, len(w))
		if len(got) == 0 && len(w) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s: %d rows, want %d; first difference in %s", exp, len(got), len(w), firstEvalDiff(got, w))
		}
	}
}

func firstEvalDiff(a, b []EvalAudit) string {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return "row " + strconv.Itoa(i) + ": " + a[i].ID + " / " + b[i].ID
		}
	}
	return "the length"
}
