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

// TestVotesPrepared: the decoding workers encode votes with the annotators
// declared before the comparisons; an annotator first named by a vote, or
// declared after the comparisons, or a second comparisons array, goes
// through the appending goroutine. The stored codes are what they would be
// if every vote were encoded there, in file order.
func TestVotesPrepared(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, doc string
		prefs     []string // by comparison idx
		annotator []string // by annotator idx
	}{
		{"declared first, one named later",
			`{"metadata":{"version":"2.0","dataset_name":"p1"},"annotators":{"h":{},"p":{}},"comparisons":[
			 {"id":"0","response_a":{"text":"x"},"response_b":{"text":"y"},"annotations":{"h":{"pref":"a"},"p":{"pref":"b"}}},
			 {"id":"1","response_a":{"text":"x"},"response_b":{"text":"y"},"annotations":{"h":{"pref":"tie"},"x":{"pref":"a"}}},
			 {"id":"2","response_a":{"text":"x"},"response_b":{"text":"y"},"annotations":{"h":{"pref":"b"},"p":{"pref":"tie"}}}]}`,
			[]string{"ab", "t-a", "bt-"}, []string{"h", "p", "x"}},
		{"declared after the comparisons",
			`{"metadata":{"version":"2.0","dataset_name":"p2"},"comparisons":[
			 {"id":"0","response_a":{"text":"x"},"response_b":{"text":"y"},"annotations":{"z":{"pref":"a"},"h":{"pref":"b"}}},
			 {"id":"1","response_a":{"text":"x"},"response_b":{"text":"y"},"annotations":{"h":{"pref":"tie"}}}],
			 "annotators":{"h":{},"p":{},"z":{}}}`,
			[]string{"ba", "t-"}, []string{"h", "z", "p"}},
		// (Two comparisons arrays, which this case had, are refused now:
		// TestBadInput.)
		{"an annotator first named in a comparison",
			`{"metadata":{"version":"2.0","dataset_name":"p3"},"annotators":{"h":{}},"comparisons":[
			 {"id":"0","response_a":{"text":"x"},"response_b":{"text":"y"},"annotations":{"h":{"pref":"a"},"q":{"pref":"b"}}},
			 {"id":"1","response_a":{"text":"x"},"response_b":{"text":"y"},"annotations":{"q":{"pref":"tie"},"h":{"pref":"b"}}}]}`,
			[]string{"ab", "bt"}, []string{"h", "q"}},
	}
	for _, c := range cases {
		s := mustOpenStore(t)
		r, err := s.ImportAnnotatedPairsBytes(ctx, []byte(c.doc), c.name, ImportOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var prefs []string
		rows, err := s.db.QueryContext(ctx, `SELECT prefs FROM ap_comparisons WHERE dataset = ? ORDER BY idx`, r.Name)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var p string
			if err := rows.Scan(&p); err != nil {
				t.Fatal(err)
			}
			prefs = append(prefs, p)
		}
		rows.Close()
		if !slices.Equal(prefs, c.prefs) {
			t.Errorf("%s: prefs %q, want %q", c.name, prefs, c.prefs)
		}
		var ids []string
		rows, err = s.db.QueryContext(ctx, `SELECT id FROM ap_annotators WHERE dataset = ? ORDER BY idx`, r.Name)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		if !slices.Equal(ids, c.annotator) {
			t.Errorf("%s: annotators by index %q, want %q", c.name, ids, c.annotator)
		}
	}
}
