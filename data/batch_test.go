package data

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportAllInspectRuns is issue #27's trap: several Inspect logs of one
// task imported in one command. Two runs named alike both land, each under
// a name that tells it apart (task file name, then the model); a failing
// file lands nothing of the others; and no message offers --replace where
// replacing would drop another run.
func TestImportAllInspectRuns(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "input-task.eval"), filepath.Join(dir, "input-task.json")
	copyFile(t, fixture(t, "inspect", "log_formats.eval"), a)     // popularity on ollama/llama3.1
	copyFile(t, fixture(t, "inspect", "log_read_sample.json"), b) // popularity on ollama/gemma3
	s := mustOpenStore(t)
	res, err := s.ImportAll(ctx, []string{a, b}, func(string) ImportOptions { return ImportOptions{} })
	if err != nil {
		t.Fatalf("two runs of one task: %v", err)
	}
	if len(res) != 2 || res[0].Name != "input-task" || res[1].Name != "input-task-ollama-gemma3" {
		t.Fatalf("names: %+v", res)
	}
	for _, r := range res {
		if _, err := s.Experiment(ctx, r.Name); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
	}
	// Again: both unchanged, nothing new.
	if res, err := s.ImportAll(ctx, []string{a, b}, func(string) ImportOptions { return ImportOptions{} }); err != nil || !res[0].Unchanged || !res[1].Unchanged {
		t.Fatalf("again: %+v %v", res, err)
	}

	// A rerun of the task elsewhere, imported alone later: another name.
	rerun := filepath.Join(t.TempDir(), "input-task.eval")
	copyFile(t, fixture(t, "inspect", "log_read_sample.eval"), rerun) // gemma3 again, another run id
	r, err := s.Import(ctx, rerun, ImportOptions{})
	if err != nil {
		t.Fatalf("a rerun: %v", err)
	}
	if !strings.HasPrefix(r[0].Name, "input-task-ollama-gemma3-") {
		t.Errorf("a rerun is named %q", r[0].Name)
	}

	// Atomic: a broken file among them lands nothing.
	s2 := mustOpenStore(t)
	before := contentState(t, s2)
	bad := filepath.Join(dir, "zz-broken.json")
	os.WriteFile(bad, []byte(`{"version": 2, "eval": {"task": "t"`), 0o644)
	_, err = s2.ImportAll(ctx, []string{a, "testdata/bundle-small", bad}, func(string) ImportOptions { return ImportOptions{} })
	if err == nil || !strings.Contains(err.Error(), "zz-broken.json") {
		t.Fatalf("broken file: %v", err)
	}
	if got := contentState(t, s2); !sameState(got, before) {
		t.Errorf("a failed several-file import left rows: %s", diffState(before, got))
	}
	// Two files of one command that would take one name: refused whole.
	p1, p2 := filepath.Join(t.TempDir(), "prefs.json"), filepath.Join(t.TempDir(), "prefs.json")
	os.WriteFile(p1, []byte(`{"comparisons":[{"id":"1","text_a":"A","text_b":"B","annotations":{"h":{"pref":"text_a"}}}]}`), 0o644)
	os.WriteFile(p2, []byte(`{"comparisons":[{"id":"1","text_a":"C","text_b":"D","annotations":{"h":{"pref":"text_a"}}}]}`), 0o644)
	if _, err := s2.ImportAll(ctx, []string{p1, "testdata/bundle-small", p2}, func(string) ImportOptions { return ImportOptions{} }); err == nil {
		t.Error("two files taking one name were imported")
	} else if strings.Contains(err.Error(), "use --replace") || !strings.Contains(err.Error(), "same name") {
		t.Errorf("two files taking one name: %v", err)
	}
	if got := contentState(t, s2); !sameState(got, before) {
		t.Errorf("a refused several-file import left rows: %s", diffState(before, got))
	}
}

// TestClaimMessages: a name that holds another input is refused with
// --name offered, never --replace (it would drop that input); a new
// version of the same input offers --replace.
func TestClaimMessages(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	doc := func(text string) []byte {
		return []byte(`{"comparisons":[{"id":"1","text_a":"` + text + `","text_b":"B","annotations":{"h":{"pref":"text_a"}}}]}`)
	}
	d1, d2 := t.TempDir(), t.TempDir()
	p1, p2 := filepath.Join(d1, "prefs.json"), filepath.Join(d2, "prefs.json")
	os.WriteFile(p1, doc("A"), 0o644)
	os.WriteFile(p2, doc("other"), 0o644)
	if _, err := s.Import(ctx, p1, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Import(ctx, p2, ImportOptions{})
	if !errors.Is(err, ErrExists) || strings.Contains(err.Error(), "use --replace") || !strings.Contains(err.Error(), "--name") || !strings.Contains(err.Error(), p1) {
		t.Errorf("another input of the same name: %v", err)
	}
	os.WriteFile(p1, doc("changed"), 0o644)
	_, err = s.Import(ctx, p1, ImportOptions{})
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "use --replace") {
		t.Errorf("a new version of the same input: %v", err)
	}
}

// TestCancelledImportConn: a cancelled import's connection goes back to
// the pool without a transaction, so the next import runs (a connection
// left inside a transaction failed a later import with "cannot start a
// transaction within a transaction", found by the fuzzer; rollback itself:
// imports.TestRollbackConn).
func TestCancelledImportConn(t *testing.T) {
	ctx := context.Background()
	s := mustOpenStore(t)
	// A cancelled import's context: the import fails and its connection
	// goes back without a transaction, so the next import runs.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.ImportAnnotatedPairsBytes(cctx, []byte(`{"comparisons":[{"id":"1","text_a":"A","text_b":"B"}]}`), "c.json", ImportOptions{}); err == nil {
		t.Fatal("a cancelled import landed")
	}
	for i := range 4 {
		if _, err := s.ImportAnnotatedPairsBytes(ctx, []byte(`{"comparisons":[{"id":"1","text_a":"A`+strconv.Itoa(i)+`","text_b":"B"}]}`), "n"+strconv.Itoa(i)+".json", ImportOptions{}); err != nil {
			t.Fatalf("import %d after a cancelled one: %v", i, err)
		}
	}
}
