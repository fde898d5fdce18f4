package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data"
)

// summaries are the judge summaries of exp's audits, by audit id.
func summaries(t *testing.T, store *data.Store, exp string) map[string]string {
	t.Helper()
	rows, err := store.ListAudits(context.Background(), data.AuditFilter{Experiment: exp}, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rows {
		out[r.ID] = r.Summary
	}
	return out
}

// settled writes b to p with a time in the past, so a sync reads it at
// once (no settling), each write with its own time.
func settled(t *testing.T, p string, b []byte, age time.Duration) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-age)
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

// TestWatchKeepsImported: a transcript whose audit is in the experiment
// and that becomes empty, cut short or broken keeps its audit (and its
// problem says so) while another file's change would import the
// experiment whole; once it is readable again the put-off import runs,
// with the other file's change, and the problem clears. A renamed
// transcript keeps its audit under its new name with no problem left
// behind.
func TestWatchKeepsImported(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	os.Mkdir(dir, 0o755)
	src := map[string][]byte{}
	for i, f := range []string{"legacy.json", "reset.json", "rollback.json"} {
		b, err := os.ReadFile(petri + f)
		if err != nil {
			t.Fatal(err)
		}
		src[f] = b
		settled(t, filepath.Join(dir, f), b, time.Duration(100-i)*time.Second)
	}
	store := mustStore(t)
	// Polled once an hour: the test drives every scan with Sync.
	w := startWatch(t, store, dir, Options{Poll: time.Hour})
	ctx := context.Background()
	ids := []string{"petri-legacy-01", "petri-reset-01", "petri-rollback-01"}
	check := func(step string, want []string) map[string]string {
		t.Helper()
		if err := w.Sync(ctx); err != nil {
			t.Fatalf("%s: sync: %v", step, err)
		}
		got := summaries(t, store, "runs")
		keys := make([]string, 0, len(got))
		for k := range got {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, want) {
			t.Fatalf("%s: the audits are %v, want %v; problems:\n%s", step, keys, want, problemsText(w))
		}
		return got
	}
	have := check("start", ids)
	reset := filepath.Join(dir, "reset.json")
	legacy := filepath.Join(dir, "legacy.json")
	for i, broken := range [][]byte{nil, src["reset.json"][:len(src["reset.json"])/2], []byte(`{"metadata": {"transcript_id": 3}}`)} {
		settled(t, reset, broken, time.Duration(90-2*i)*time.Second)
		check("reset.json broken", ids)
		// Another transcript rewritten: an import of the whole folder would
		// leave reset.json's audit out.
		edited := strings.Replace(string(src["legacy.json"]), "correct, cautious", "correct, careful", 1)
		settled(t, legacy, []byte(edited), time.Duration(89-2*i)*time.Second)
		got := check("reset.json broken and legacy.json changed", ids)
		if got["petri-reset-01"] != have["petri-reset-01"] {
			t.Errorf("reset.json's audit changed while the file was broken: %q", got["petri-reset-01"])
		}
		if p := problemsText(w); !strings.Contains(p, reset+": ") || !strings.Contains(p, "are kept until it can be read again or is deleted") {
			t.Errorf("the problems do not say reset.json's audits are kept:\n%s", p)
		}
		settled(t, reset, src["reset.json"], time.Duration(80-2*i)*time.Second)
		got = check("reset.json readable again", ids)
		if p := problemsText(w); p != "" {
			t.Errorf("problems left once every file is readable:\n%s", p)
		}
		if !strings.Contains(got["petri-legacy-01"], "correct, careful") {
			t.Errorf("the import put off while reset.json was broken did not run: legacy's summary is %q", got["petri-legacy-01"])
		}
		settled(t, legacy, src["legacy.json"], time.Duration(79-2*i)*time.Second)
		check("legacy.json back", ids)
	}
	// Renamed: the audit (its id is the transcript's) now comes from the
	// new name; nothing is lost and no problem stays.
	if err := os.Rename(filepath.Join(dir, "rollback.json"), filepath.Join(dir, "renamed.json")); err != nil {
		t.Fatal(err)
	}
	check("rollback.json renamed", ids)
	if p := problemsText(w); p != "" {
		t.Errorf("problems after a rename:\n%s", p)
	}
	// A held file deleted: its audit goes with the whole import it held up.
	settled(t, reset, nil, 40*time.Second)
	settled(t, legacy, []byte(strings.Replace(string(src["legacy.json"]), "correct, cautious", "plain", 1)), 39*time.Second)
	check("reset.json emptied, legacy.json changed", ids)
	os.Remove(reset)
	got := check("reset.json deleted", []string{"petri-legacy-01", "petri-rollback-01"})
	if !strings.Contains(got["petri-legacy-01"], "plain") {
		t.Errorf("the put-off import did not run once the held file was deleted: %q", got["petri-legacy-01"])
	}
	if p := problemsText(w); p != "" {
		t.Errorf("problems after the held file was deleted:\n%s", p)
	}
}

// TestWatchRootRecreated: a watched folder deleted is a problem, and once
// it is made again it is followed again (notifications, not polling), from
// the first file written into it: the settling time is longer than the
// second between looks for the folder, so the look that finds it finds
// its files still settling, and no notification will name them.
func TestWatchRootRecreated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	os.Mkdir(dir, 0o755)
	copyTo(t, petri+"legacy.json", filepath.Join(dir, "legacy.json"))
	store := mustStore(t)
	w := startWatch(t, store, dir, Options{Settle: 2 * time.Second})
	if ids := auditIDs(t, store, "runs"); len(ids) != 1 {
		t.Fatalf("at start: %v", ids)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deleted folder as a problem", func() bool {
		return strings.Contains(problemsText(w), dir+": the watched folder is gone")
	})
	if ids := auditIDs(t, store, "runs"); len(ids) != 1 {
		t.Errorf("the deleted folder's audits: %v; want them kept", ids)
	}
	os.Mkdir(dir, 0o755)
	copyTo(t, petri+"legacy.json", filepath.Join(dir, "legacy.json"))
	copyTo(t, petri+"reset.json", filepath.Join(dir, "reset.json"))
	waitFor(t, "the folder followed again", func() bool {
		return len(auditIDs(t, store, "runs")) == 2 && problemsText(w) == ""
	})
	// And notifications work in it again.
	copyTo(t, petri+"rollback.json", filepath.Join(dir, "rollback.json"))
	waitFor(t, "a new file in the folder made again", func() bool { return len(auditIDs(t, store, "runs")) == 3 })
}

func mustStore(t *testing.T) *data.Store {
	t.Helper()
	store, err := data.Open(context.Background(), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}
