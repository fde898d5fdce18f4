package data

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStrayEventsJSON: a JSON file with top-level events and no metadata
// (inspect_ai's and Inspect Scout's event timelines and test fixtures have
// this shape) is no Petri transcript: in a folder of transcripts it is
// skipped with a note naming it, and the folder imports; named alone it is
// refused saying what was expected. It was read as a broken transcript and
// refused the whole folder.
func TestStrayEventsJSON(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "lab")
	if err := os.CopyFS(dir, os.DirFS("testdata/petri")); err != nil {
		t.Fatal(err)
	}
	timeline := filepath.Join(dir, "timeline.json")
	body := `{"events": [{"timestamp": "2026-01-01T00:00:00Z", "event": "span_begin", "name": "solver"},
 {"timestamp": "2026-01-01T00:00:01Z", "event": "model", "model": "m", "output": {"choices": []}}]}`
	if err := os.WriteFile(timeline, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s := mustOpenStore(t)
	res, err := s.Import(ctx, dir, ImportOptions{})
	if err != nil {
		t.Fatalf("a folder with an event timeline in it: %v", err)
	}
	if len(res) != 1 || res[0].Counts["audits"] != 3 || !strings.Contains(strings.Join(res[0].Notes, " "), "timeline.json") {
		t.Errorf("import: %+v; want the three transcripts and a note naming timeline.json", res)
	}
	_, err = mustOpenStore(t).Import(ctx, timeline, ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "timeline.json") || !strings.Contains(err.Error(), "metadata beside events") {
		t.Errorf("the timeline alone: %v; want a refusal saying it is not a transcript or log", err)
	}
	// A real one: inspect_ai's skeleton fixture (testdata/fixtures/timeline).
	real := filepath.Join(dir, "empty.json")
	copyFile(t, filepath.Join("..", "testdata", "fixtures", "timeline", "empty.json"), real)
	res, err = mustOpenStore(t).Import(ctx, dir, ImportOptions{})
	if err != nil || res[0].Counts["audits"] != 3 || !strings.Contains(strings.Join(res[0].Notes, " "), "empty.json") {
		t.Errorf("a folder with inspect_ai's timeline fixture: %+v, %v", res, err)
	}
}

// TestCSVRepeatedHeader: Feedback Forensics' own 000_train_data.csv has
// the column index twice; pandas (and so csv_to_ap) names the second
// index.1, and so does the import, where it was refused as a duplicate.
func TestCSVRepeatedHeader(t *testing.T) {
	// The file itself, from Feedback Forensics' repository.
	p := filepath.Join("..", "testdata", "fixtures", "preference-csv", "000_train_data.csv")
	s := mustOpenStore(t)
	res, err := s.Import(context.Background(), p, ImportOptions{})
	if err != nil || len(res) != 1 || res[0].Counts["comparisons"] != 1 {
		t.Fatalf("import: %+v, %v", res, err)
	}
	var keys string
	if err := s.DB().QueryRow(`SELECT string_agg(DISTINCT key, ',' ORDER BY key) FROM ap_meta`).Scan(&keys); err != nil {
		t.Fatal(err)
	}
	if keys != "index,index.1" {
		t.Errorf("metadata keys %q, want index,index.1", keys)
	}
}
