package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWatchRenameWhilePutOff: a transcript renamed while the folder's
// whole re-import is put off (another imported file was replaced by a named
// pipe) keeps its audit: the put-off import takes the folder as it is then,
// the renamed file included, and no problem naming the old name stays.
func TestWatchRenameWhilePutOff(t *testing.T) {
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
	w := startWatch(t, store, dir, Options{Poll: time.Hour}) // every scan is a Sync
	ids := []string{"petri-legacy-01", "petri-reset-01", "petri-rollback-01"}
	check := func(step string) map[string]string {
		t.Helper()
		if err := w.Sync(context.Background()); err != nil {
			t.Fatalf("%s: sync: %v", step, err)
		}
		got := summaries(t, store, "runs")
		var keys []string
		for k := range got {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, ids) {
			t.Fatalf("%s: the audits are %v, want %v; problems:\n%s", step, keys, ids, problemsText(w))
		}
		return got
	}
	check("start")
	reset := filepath.Join(dir, "reset.json")
	os.Remove(reset)
	if err := syscall.Mkfifo(reset, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	edited := strings.Replace(string(src["legacy.json"]), "correct, cautious", "correct, careful", 1)
	settled(t, filepath.Join(dir, "legacy.json"), []byte(edited), 90*time.Second)
	check("reset.json a pipe, legacy.json changed")
	if p := problemsText(w); !strings.Contains(p, reset+": a named pipe") || !strings.Contains(p, "are kept until") {
		t.Fatalf("the pipe is not a problem that keeps its audits:\n%s", p)
	}
	if err := os.Rename(filepath.Join(dir, "rollback.json"), filepath.Join(dir, "moved.json")); err != nil {
		t.Fatal(err)
	}
	check("rollback.json renamed while the import is put off")
	os.Remove(reset)
	settled(t, reset, src["reset.json"], 80*time.Second)
	got := check("reset.json a file again")
	if !strings.Contains(got["petri-legacy-01"], "correct, careful") {
		t.Errorf("the put-off import did not run: legacy's summary is %q", got["petri-legacy-01"])
	}
	if p := problemsText(w); p != "" {
		t.Errorf("problems left once every file is readable:\n%s", p)
	}
	// The audit now comes from the new name: deleting it drops it.
	os.Remove(filepath.Join(dir, "moved.json"))
	settled(t, filepath.Join(dir, "legacy.json"), src["legacy.json"], 70*time.Second)
	if err := w.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := auditIDs(t, store, "runs"); len(got) != 2 || slices.Contains(got, "petri-rollback-01") {
		t.Errorf("after moved.json was deleted and legacy changed: %v", got)
	}
}
