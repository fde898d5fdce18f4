package lake

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestPlanRollback: a write of an older import than the lake's, or of a
// generation the lake replaced before, is refused naming both; --force
// writes it and remembers the generation it replaced; a newer import or
// the same generation is no roll-back.
func TestPlanRollback(t *testing.T) {
	dir := t.TempDir()
	old := Manifest{Datasets: map[string]string{"d": "bbbbbbbbbbbbbbbb"}, Experiments: map[string]string{},
		Imported:   map[string]string{"dataset d": "2026-06-02T00:00:00Z"},
		Superseded: map[string][]string{"dataset d": {"aaaaaaaaaaaaaaaa"}}}
	older := Generation{Family: "dataset", Name: "d", Gen: "cccccccccccccccc", Imported: "2026-06-01T00:00:00Z"}
	replaced := Generation{Family: "dataset", Name: "d", Gen: "aaaaaaaaaaaaaaaa", Imported: "2026-07-01T00:00:00Z"}
	newer := Generation{Family: "dataset", Name: "d", Gen: "dddddddddddddddd", Imported: "2026-06-03T00:00:00Z"}
	for _, c := range []struct {
		g          Generation
		superseded bool
	}{{older, false}, {replaced, true}} {
		_, err := newPlan(context.Background(), folder(dir), old, []Generation{c.g}, false)
		var re *RollbackError
		if !errors.As(err, &re) || re.Superseded != c.superseded || re.Gen != c.g.Gen || re.LakeGen != "bbbbbbbbbbbbbbbb" {
			t.Errorf("%s: got %v, want a roll-back (superseded %v)", c.g.Gen, err, c.superseded)
		}
	}
	p, err := newPlan(context.Background(), folder(dir), old, []Generation{older}, true)
	if err != nil || len(p.Write) != 1 || p.next.Datasets["d"] != older.Gen {
		t.Fatalf("forced: %+v, %v", p, err)
	}
	if got := p.next.Superseded["dataset d"]; !slices.Equal(got, []string{"aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"}) {
		t.Errorf("forced: superseded %v, want the lake's generation remembered after the older one", got)
	}
	p, err = newPlan(context.Background(), folder(dir), old, []Generation{replaced}, true)
	if err != nil || slices.Contains(p.next.Superseded["dataset d"], replaced.Gen) {
		t.Errorf("a generation named again is current, not superseded: %v, %v", p.next.Superseded, err)
	}
	for _, g := range []Generation{newer, {Family: "dataset", Name: "d", Gen: "bbbbbbbbbbbbbbbb"}, {Family: "dataset", Name: "e", Gen: "eeeeeeeeeeeeeeee"}} {
		if _, err := newPlan(context.Background(), folder(dir), old, []Generation{g}, false); err != nil {
			t.Errorf("%+v: %v, want no roll-back", g, err)
		}
	}
}
