package data

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/storetest"
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
	// The description counts what the experiment holds now, and still
	// says where it came from.
	if e, _ := s.Experiment(ctx, "w"); e.Description != "Imported from "+dir+": 3 Petri transcripts." {
		t.Errorf("description after the append: %q", e.Description)
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
	if e, _ := s.Experiment(ctx, "w"); e.Format != model.KindInspect || !strings.HasSuffix(e.Description, ": 3 Petri transcripts and 1 Inspect log (15 samples).") {
		t.Errorf("format %q, description %q", e.Format, e.Description)
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

// TestAppendScoreColumns: an append gives the judge dimensions it meets
// for the first time the next free score columns and keeps the columns of
// the others, and to an experiment imported before the columns existed it
// gives columns to its new dimensions alone.
func TestAppendScoreColumns(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, f := range []string{"legacy.json", "reset.json", "rollback.json"} {
		copyFile(t, filepath.Join("testdata", "petri", f), filepath.Join(dir, f))
	}
	copyFile(t, fixture(t, "inspect", "docent-sample.eval"), filepath.Join(dir, "ctf.eval"))
	s := mustOpenStore(t)
	opts := ImportOptions{Name: "w", PrefixLogs: true, Files: []string{"legacy.json"}}
	if _, err := s.ImportPetri(ctx, dir, opts); err != nil {
		t.Fatal(err)
	}
	slots := func() (slotted, without int64) {
		return count(t, s, `SELECT count(DISTINCT dimension) FILTER (slot IS NOT NULL) FROM experiment_dimensions WHERE experiment = 'w'`),
			count(t, s, `SELECT count(DISTINCT dimension) FILTER (slot IS NULL) FROM experiment_dimensions WHERE experiment = 'w'`)
	}
	first, _ := slots()
	if first == 0 {
		t.Fatal("legacy.json's judge dimensions have no score columns")
	}
	if _, err := s.AppendLogs(ctx, "w", dir, []string{"reset.json"}, opts); err != nil {
		t.Fatal(err)
	}
	storetest.CheckScoreColumns(t, s.db)
	// As a database made before migration 009 has it.
	var nulls []string
	for i := range load.ScoreSlots {
		nulls = append(nulls, "score_"+strconv.Itoa(i)+" = NULL")
	}
	for _, q := range []string{
		`INSERT INTO audit_scores SELECT * FROM (` + load.AllScores("true") + `) s
			SEMI JOIN experiment_dimensions d ON d.experiment = s.experiment AND d.dimension = s.dimension AND d.slot IS NOT NULL`,
		`UPDATE experiment_dimensions SET slot = NULL`, `UPDATE audits SET ` + strings.Join(nulls, ", "),
	} {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	_, before := slots()
	// A Petri log with the old dimensions, an Inspect log with new ones.
	if _, err := s.AppendLogs(ctx, "w", dir, []string{"rollback.json", "ctf.eval"}, opts); err != nil {
		t.Fatal(err)
	}
	storetest.CheckScoreColumns(t, s.db)
	slotted, without := slots()
	if without != before || slotted == 0 {
		t.Errorf("after the Inspect log: %d dimensions with columns, %d without (%d before); want the log's new ones with", slotted, without, before)
	}
	// Their filters and sorts, and the old dimensions', agree with the JSON.
	var dims []string
	rows, err := s.db.Query(`SELECT DISTINCT dimension, slot IS NULL FROM experiment_dimensions WHERE experiment = 'w' ORDER BY 2, 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var d string
		var old bool
		if err := rows.Scan(&d, &old); err != nil {
			t.Fatal(err)
		}
		dims = append(dims, d)
	}
	rows.Close()
	for _, d := range []string{dims[0], dims[len(dims)-1]} {
		f := model.AuditFilter{Experiment: "w", Sort: "score:" + d, Desc: true, Scores: []model.ScoreCond{{Dimension: d, Op: ">=", Value: 0}}}
		got, err := s.ListAudits(ctx, f, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		want := count(t, s, `SELECT count(*) FROM audits WHERE experiment = 'w' AND TRY_CAST(json_extract_string(scores, ?) AS DOUBLE) >= 0`, `$."`+d+`"`)
		if int64(len(got)) != want || want == 0 {
			t.Errorf("%s: %d audits, want %d (not 0)", d, len(got), want)
		}
		for i := 1; i < len(got); i++ {
			if *got[i].SortScore > *got[i-1].SortScore {
				t.Errorf("%s: not in descending order at %d", d, i)
			}
		}
	}
}
