package data_test

import (
	"context"
	"encoding/json"
	"maps"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/demo"
)

// TestAuditPageReads: an audit's scores read from the score columns are
// the ones its scores JSON holds (each present or absent), for experiments
// whose dimensions all have columns and for one whose do not (60
// dimensions: the JSON is read); a key whose experiment has a colon in its
// name resolves and reads (keyCond tries each colon); TranscriptOfKey
// reads what Transcript does.
func TestAuditPageReads(t *testing.T) {
	ctx := context.Background()
	s, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, name := range []string{"ex:p", "wide"} {
		b := demo.Experiment(demo.Options{Audits: 1})
		audits := b.Audits[:120]
		for i := range audits {
			a := &audits[i]
			switch {
			case i%7 == 3:
				a.Scores = nil
			case i%5 == 1:
				for d := range a.Scores {
					delete(a.Scores, d) // absent here, present in others
					break
				}
			}
			if name == "wide" && i == 0 {
				for j := range 60 {
					a.Scores["extra_"+string(rune('a'+j/26))+string(rune('a'+j%26))] = float64(j%10 + 1)
				}
			}
		}
		b.Audits, b.Judgments, b.Verdicts = audits, nil, nil
		opts := data.ImportOptions{Name: name,
			Transcripts: func(id string) ([]byte, error) { return []byte(`{"metadata":{"transcript_id":"` + id + `"}}`), nil }}
		if _, err := s.ImportBundle(ctx, bundle.FromBundle(b, name, false), name, opts); err != nil {
			t.Fatal(err)
		}
	}
	var slotted [2]int
	for i, exp := range []string{"ex:p", "wide"} {
		if err := s.DB().QueryRow(`SELECT count(*) FILTER (slot IS NOT NULL) FROM experiment_dimensions WHERE experiment = ?`, exp).Scan(&slotted[i]); err != nil {
			t.Fatal(err)
		}
	}
	if slotted[0] == 0 || slotted[1] != 48 {
		t.Fatalf("slotted dimensions %v: want some in ex:p and 48 of wide's 98", slotted)
	}
	rows, err := s.DB().Query(`SELECT key, experiment, id, scores FROM audits ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var key, exp, id string
		var scores *string
		if err := rows.Scan(&key, &exp, &id, &scores); err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{}
		if scores != nil {
			if err := json.Unmarshal([]byte(*scores), &want); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := s.ResolveAuditKey(ctx, key); err != nil || got != key {
			t.Fatalf("ResolveAuditKey(%q) = %q, %v", key, got, err)
		}
		d, err := s.Audit(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]float64{}
		for _, sc := range d.Scores {
			have[sc.Dimension] = sc.Value
		}
		if !maps.Equal(have, want) {
			t.Fatalf("%s: scores %v, want the JSON's %v", key, have, want)
		}
		t1, err1 := s.Transcript(ctx, exp, id)
		t2, err2 := s.TranscriptOfKey(ctx, key)
		if err1 != nil || err2 != nil || string(t1) != string(t2) || len(t1) == 0 {
			t.Fatalf("%s: Transcript %q %v, TranscriptOfKey %q %v", key, t1, err1, t2, err2)
		}
		n++
	}
	if n != 240 {
		t.Fatalf("%d audits checked, want 240", n)
	}
	if _, err := s.TranscriptOfKey(ctx, "ex:p:nope"); err == nil {
		t.Fatal("TranscriptOfKey of a missing audit: no error")
	}
}
