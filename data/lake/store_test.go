package lake_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/lake"
	"github.com/auditscope/auditscope/data/model"
)

// TestWriteLake writes a store of one dataset and two experiments as a
// lake, reads every table back with plain SQL over the Parquet files (a
// DuckDB of its own, read_parquet with hive partitioning, the manifest's
// generations), and checks that an unchanged store writes nothing and a
// replaced dataset gets a generation of its own.
func TestWriteLake(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	for _, in := range []struct {
		path string
		opts data.ImportOptions
	}{
		{fixture(t, "annotated-pairs", "icai-example-v2-models.json"), data.ImportOptions{}},
		{"../testdata/bundle-small", data.ImportOptions{}},
		{fixture(t, "inspect", "docent-sample.eval"), data.ImportOptions{Name: "ctf"}},
	} {
		if _, err := s.Import(ctx, in.path, in.opts); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	res, err := lake.Write(ctx, s, dir, lake.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 3 || len(res.Unchanged) != 0 {
		t.Fatalf("first write: %+v", res)
	}
	m, err := lake.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Datasets) != 1 || len(m.Experiments) != 2 {
		t.Fatalf("manifest: %+v", m)
	}
	// Another engine's view: plain SQL over the files.
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkLakeCounts(t, db, s, dir, m)
	// The lake carries the values, not just the counts.
	var quality float64
	if err := db.QueryRowContext(ctx, `SELECT sum(quality) FROM read_parquet(?, hive_partitioning = true) WHERE experiment = 'small' AND gen = ?`,
		filepath.Join(dir, "audits", "*", "*", "*.parquet"), m.Experiments["small"]).Scan(&quality); err != nil {
		t.Fatal(err)
	}
	var want float64
	s.DB().QueryRow(`SELECT sum(quality) FROM audits WHERE experiment = 'small'`).Scan(&want)
	if quality != want {
		t.Errorf("sum of quality: lake %v, store %v", quality, want)
	}
	// Unchanged: nothing written.
	if res, err := lake.Write(ctx, s, dir, lake.WriteOptions{}); err != nil || len(res.Written) != 0 || len(res.Unchanged) != 3 {
		t.Fatalf("second write: %+v, %v", res, err)
	}
	// A replaced dataset: a new generation beside the old one.
	b, _ := os.ReadFile(fixture(t, "annotated-pairs", "icai-example-v2-models.json"))
	changed := filepath.Join(t.TempDir(), "icai-example-v2-models.json")
	os.WriteFile(changed, append(b[:len(b)-2:len(b)-2], []byte("\n}\n")...), 0o644)
	name := m.Names("dataset")[0]
	if _, err := s.Import(ctx, changed, data.ImportOptions{Name: name, Replace: true}); err != nil {
		t.Fatal(err)
	}
	res, err = lake.Write(ctx, s, dir, lake.WriteOptions{})
	if err != nil || len(res.Written) != 1 || res.Written[0] != "dataset "+name {
		t.Fatalf("after the replace: %+v, %v", res, err)
	}
	m2, _ := lake.ReadManifest(dir)
	if m2.Datasets[name] == m.Datasets[name] {
		t.Error("the replaced dataset kept its generation")
	}
	if _, err := os.Stat(lake.GenDir(dir, "ap_comparisons", "dataset", name, m.Datasets[name])); err != nil {
		t.Errorf("the old generation was removed under readers of the old manifest: %v", err)
	}
	checkLakeCounts(t, db, s, dir, m2)
	// A corrupt manifest is an error naming it.
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte("{"), 0o644)
	if _, err := lake.ReadManifest(dir); err == nil || !model.IsInputError(err) {
		t.Errorf("corrupt manifest: %v", err)
	}
}

// checkLakeCounts counts the rows of every table's generation that the
// manifest m names in the lake in dir, with plain SQL on db, against the
// store s's; TestWriteLake checks each manifest it writes with it.
func checkLakeCounts(t *testing.T, db *sql.DB, s *data.Store, dir string, m lake.Manifest) {
	t.Helper()
	ctx := context.Background()
	for _, tb := range lake.Tables {
		for _, name := range m.Names(tb.Family) {
			gen := m.Experiments[name]
			if tb.Family == "dataset" {
				gen = m.Datasets[name]
			}
			var got int64
			q := `SELECT count(*) FROM read_parquet(?, hive_partitioning = true) WHERE ` + tb.Family + ` = ? AND gen = ?`
			if err := db.QueryRowContext(ctx, q, filepath.Join(dir, tb.Name, "*", "*", "*.parquet"), name, gen).Scan(&got); err != nil {
				t.Fatalf("%s of %s: %v", tb.Name, name, err)
			}
			from := tb.Name
			if from == "audit_scores" {
				// The store keeps some in its score columns.
				from = "(" + load.AllScores("true") + ")"
			}
			if want := count(t, s, `SELECT count(*) FROM `+from+` WHERE `+tb.Key+` = ?`, name); got != want {
				t.Errorf("%s of %s: %d rows in the lake, %d in the store", tb.Name, name, got, want)
			}
		}
	}
}

// TestOpenLake serves a lake: every table reads back as the store it was
// written from (rows and content), a new manifest is followed on Refresh
// with the changed names' versions moved, and a broken manifest or a
// missing file is an error that leaves the last good state serving.
func TestOpenLake(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	for _, p := range []string{"../testdata/bundle-small", fixture(t, "inspect", "docent-sample.eval")} {
		if _, err := s.Import(ctx, p, data.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ap := fixture(t, "annotated-pairs", "icai-example-v2-models.json")
	if _, err := s.Import(ctx, ap, data.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := lake.Write(ctx, s, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	l, err := lake.Open(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// Content of every table, generation columns aside, as in the kill
	// test's state.
	same := func() {
		t.Helper()
		want, got := contentState(t, s), contentState(t, l)
		for _, tb := range lake.Tables {
			if want[tb.Name] != got[tb.Name] {
				t.Errorf("table %s differs between the store and the lake", tb.Name)
			}
		}
	}
	same()
	if _, err := l.Import(ctx, ap, data.ImportOptions{}); err == nil {
		t.Error("a lake store imported")
	}
	// A new generation of the dataset: followed on Refresh.
	b, _ := os.ReadFile(ap)
	changed := filepath.Join(t.TempDir(), filepath.Base(ap))
	os.WriteFile(changed, append(b[:len(b)-2:len(b)-2], []byte("\n}\n")...), 0o644)
	m, _ := lake.ReadManifest(dir)
	name := m.Names("dataset")[0]
	if _, err := s.Import(ctx, changed, data.ImportOptions{Name: name, Replace: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := lake.Write(ctx, s, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	vd, ve := l.NameVersion(name), l.NameVersion("small")
	if ok, err := l.Refresh(ctx); err != nil || !ok {
		t.Fatalf("refresh: %v %v", ok, err)
	}
	if l.NameVersion(name) == vd || l.NameVersion("small") != ve {
		t.Errorf("versions: dataset %d -> %d, experiment %d -> %d", vd, l.NameVersion(name), ve, l.NameVersion("small"))
	}
	same()
	if ok, _ := l.Refresh(ctx); ok {
		t.Error("an unchanged manifest refreshed")
	}
	// Broken manifest: an error naming it; the last good state serves on.
	good, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"format":`), 0o644)
	if _, err := l.Refresh(ctx); err == nil || !strings.Contains(err.Error(), "manifest.json") {
		t.Errorf("corrupt manifest: %v", err)
	}
	same()
	// A manifest naming a generation whose files are gone.
	bad := strings.Replace(string(good), m.Experiments["small"], "0123456789abcdef", 1)
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(bad), 0o644)
	if _, err := l.Refresh(ctx); err == nil || !strings.Contains(err.Error(), "gen=0123456789abcdef") {
		t.Errorf("missing generation: %v", err)
	}
	same()
}

// TestLakeManifestVersions: this build writes version 2 (sparse votes,
// migration 007) and reads 1 and 2; a lake of a newer version is refused
// with a message that says so, not read wrongly.
func TestLakeManifestVersions(t *testing.T) {
	for v, ok := range map[int]bool{1: true, 2: true, 3: false, 0: false} {
		b := []byte(fmt.Sprintf(`{"format":"auditscope-lake","version":%d,"datasets":{},"experiments":{},"tables":{}}`, v))
		_, err := lake.ParseManifest("m.json", b)
		if ok != (err == nil) {
			t.Errorf("version %d: err = %v, want accepted %v", v, err, ok)
		}
		if err != nil && !strings.Contains(err.Error(), "newer auditscope") {
			t.Errorf("version %d: %v does not say a newer auditscope reads it", v, err)
		}
	}
	s := mustOpenStore(t)
	doc := `{"comparisons":[{"id":"1","text_a":"A","text_b":"B","annotations":{"h":{"pref":"text_a"}}}]}`
	if _, err := s.ImportAnnotatedPairsBytes(context.Background(), []byte(doc), "v.json", data.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := lake.Write(context.Background(), s, dir, lake.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	m, err := lake.ReadManifest(dir)
	if err != nil || m.Version != 2 {
		t.Errorf("written manifest version %d, %v; want 2", m.Version, err)
	}
}
