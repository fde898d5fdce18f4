package data

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestVotesView checks that ap_votes gives every vote of every kind, from
// rows stored the current way (votes the prefs codes do not tell whole in
// JSON, the rest as codes only) and from rows stored the way before
// migration 007 (every vote in JSON as well as in prefs).
func TestVotesView(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	doc := `{"metadata":{"version":"2.0","dataset_name":"v"},"annotators":{},"comparisons":[
 {"id":"c0","response_a":{"text":"x"},"response_b":{"text":"y"},"annotations":{
   "a1":{"pref":"a"},"a2":{"pref":"b"},"a3":{"pref":"tie"},"a4":{"pref":null},"a5":{"pref":""},
   "a6":{"pref":"both"},"a7":{"pref":"a","no_pref_reason":"why"},"a8":{"pref":null,"no_pref_reason":"n/a"},
   "a9":{"no_pref_reason":"skipped: no pref key"},"b0":{"pref":"text_b"}}},
 {"id":"c1","response_a":{"text":"x"},"response_b":{"text":"y"},"annotations":{"a3":{"pref":"b"},"b1":{"pref":"tie"}}}
]}`
	if _, err := s.ImportAnnotatedPairsBytes(ctx, []byte(doc), "v.json", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0 a1 text_a <nil>", "0 a2 text_b <nil>", "0 a3 tie <nil>", "0 a4 <nil> <nil>", "0 a5  <nil>",
		"0 a6 both <nil>", "0 a7 text_a why", "0 a8 <nil> n/a", "0 b0 text_b <nil>",
		"1 a3 text_b <nil>", "1 b1 tie <nil>",
	}
	votes := func() []string {
		t.Helper()
		rows, err := s.db.QueryContext(ctx, `SELECT v.cmp, a.id, v.pref, v.reason FROM ap_votes v JOIN ap_annotators a ON a.dataset = v.dataset AND a.idx = v.annotator WHERE v.dataset = 'v'`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []string
		for rows.Next() {
			var cmp int
			var id string
			var pref, reason any
			if err := rows.Scan(&cmp, &id, &pref, &reason); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprint(cmp, " ", id, " ", pref, " ", reason))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		return got
	}
	if got := votes(); !slices.Equal(got, want) {
		t.Errorf("ap_votes =\n%q\nwant\n%q", got, want)
	}
	// Only the votes the codes do not tell whole are in JSON.
	var js string
	if err := s.db.QueryRowContext(ctx, `SELECT votes FROM ap_comparisons WHERE dataset = 'v' AND idx = 0`).Scan(&js); err != nil {
		t.Fatal(err)
	}
	if want := `[[3,null,null],[4,"",null],[5,"both",null],[6,"text_a","why"],[7,null,"n/a"]]`; js != want {
		t.Errorf("votes JSON = %s, want %s", js, want)
	}
	// Rows stored before migration 007 carry every vote in JSON too.
	if _, err := s.db.ExecContext(ctx, `UPDATE ap_comparisons SET votes = CASE idx
		WHEN 0 THEN '[[0,"text_a",null],[1,"text_b",null],[2,"tie",null],[3,null,null],[4,"",null],[5,"both",null],[6,"text_a","why"],[7,null,"n/a"],[8,"text_b",null]]'
		ELSE '[[2,"text_b",null],[9,"tie",null]]' END WHERE dataset = 'v'`); err != nil {
		t.Fatal(err)
	}
	if got := votes(); !slices.Equal(got, want) {
		t.Errorf("ap_votes over rows stored the old way =\n%q\nwant\n%q", got, want)
	}
}
