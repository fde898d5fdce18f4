package data

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data/model"
)

// TestAppendLogs: a folder's experiment grows by appends, each its own
// generation extending the full import; an append adds only new audits and
// changed log headers, survives reopening, and goes with its base when the
// experiment is imported again.
func TestAppendLogs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, f := range []string{"legacy.json", "reset.json", "rollback.json"} {
		copyFile(t, filepath.Join("testdata", "petri", f), filepath.Join(dir, f))
	}
	dbPath := filepath.Join(t.TempDir(), "a.duckdb")
	s, err := Open(ctx, Options{Path: dbPath})
	if err != nil {
		t.Fatal(err)
	}
	opts := ImportOptions{Name: "w", PrefixLogs: true}
	o := opts
	o.Files = []string{"legacy.json", "reset.json"}
	if _, err := s.ImportPetri(ctx, dir, o); err != nil {
		t.Fatal(err)
	}
	v0 := s.Version()
	audits := func(s *Store) int64 { return count(t, s, `SELECT count(*) FROM audits WHERE experiment = 'w'`) }
	if n := audits(s); n != 2 {
		t.Fatalf("base: %d audits", n)
	}
	r, err := s.AppendLogs(ctx, "w", dir, []string{"rollback.json"}, opts)
	if err != nil || r.Unchanged || r.Counts["audits"] != 1 {
		t.Fatalf("append: %v, %v", r, err)
	}
	if n := audits(s); n != 3 || s.Version() != v0+1 || s.NameVersion("w") != s.Version() {
		t.Fatalf("after append: %d audits, version %d (was %d)", n, s.Version(), v0)
	}
	// The same files again add nothing and land nothing.
	if r, err := s.AppendLogs(ctx, "w", dir, []string{"rollback.json", "legacy.json"}, opts); err != nil || !r.Unchanged || s.Version() != v0+1 {
		t.Fatalf("again: %v, %v", r, err)
	}
	// An Inspect log switches the experiment to Inspect's terms; its
	// samples' ids carry its path.
	copyFile(t, fixture(t, "inspect", "docent-sample.eval"), filepath.Join(dir, "ctf.eval"))
	if _, err := s.AppendLogs(ctx, "w", dir, []string{"ctf.eval"}, opts); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT count(*) FROM audits WHERE experiment = 'w' AND id LIKE 'ctf.eval--%'`); n != 15 {
		t.Errorf("inspect samples: %d", n)
	}
	if e, _ := s.Experiment(ctx, "w"); e.Format != model.KindInspect {
		t.Errorf("format %q", e.Format)
	}
	logs, err := s.InspectLogs(ctx, "w")
	if err != nil || len(logs) != 1 || logs[0].Samples != 15 {
		t.Fatalf("inspect logs: %+v, %v", logs, err)
	}
	s.Close()
	// Appends survive reopening (open-time clean-up keeps them).
	s, err = Open(ctx, Options{Path: dbPath})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := audits(s); n != 18 {
		t.Fatalf("reopened: %d audits", n)
	}
	// A full import again replaces the base and its appends.
	o.Files, o.Replace = []string{"legacy.json"}, true
	if _, err := s.ImportPetri(ctx, dir, o); err != nil {
		t.Fatal(err)
	}
	if n := audits(s); n != 1 {
		t.Errorf("replaced: %d audits", n)
	}
	if n := count(t, s, `SELECT count(*) FROM imports WHERE name = 'w'`); n != 1 {
		t.Errorf("imports rows for w: %d", n)
	}
	if n := count(t, s, `SELECT count(*) FROM inspect_logs WHERE experiment = 'w'`); n != 0 {
		t.Errorf("inspect_logs rows left: %d", n)
	}
	// Appending to an experiment that does not exist or is a bundle fails.
	if _, err := s.AppendLogs(ctx, "nope", dir, []string{"reset.json"}, opts); err == nil {
		t.Error("append to a missing experiment: no error")
	}
	os.Remove(filepath.Join(dir, "ctf.eval"))
}

// TestViewHoldsOffLanding: while a reader holds View, an import does not
// land (its rows stay invisible and the version does not move); it lands
// as soon as the reader is done.
func TestViewHoldsOffLanding(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, f := range []string{"legacy.json", "reset.json"} {
		copyFile(t, filepath.Join("testdata", "petri", f), filepath.Join(dir, f))
	}
	s := mustOpenStore(t)
	if _, err := s.ImportPetri(ctx, dir, ImportOptions{Name: "w", Files: []string{"legacy.json"}, PrefixLogs: true}); err != nil {
		t.Fatal(err)
	}
	v := s.Version()
	release := s.View()
	done := make(chan error, 1)
	go func() {
		_, err := s.AppendLogs(ctx, "w", dir, []string{"reset.json"}, ImportOptions{PrefixLogs: true})
		done <- err
	}()
	// The append has written its rows and waits to land behind the view.
	for s.ver.landing.Load() == 0 {
		select {
		case err := <-done:
			t.Fatalf("the append finished during the view: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	if n := count(t, s, `SELECT count(*) FROM audits WHERE experiment = 'w'`); n != 1 || s.Version() != v {
		t.Fatalf("during the view: %d audits, version %d (was %d)", n, s.Version(), v)
	}
	select {
	case err := <-done:
		t.Fatalf("the append landed during the view: %v", err)
	default:
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT count(*) FROM audits WHERE experiment = 'w'`); n != 2 || s.Version() != v+1 {
		t.Fatalf("after the view: %d audits, version %d", n, s.Version())
	}
}
