package watch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/logs"
	"github.com/auditscope/auditscope/data/model"
)

const petri = "../testdata/petri/"

// startWatch watches dir into store until the test ends.
func startWatch(t *testing.T, store *data.Store, dir string, opts Options) *Watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if opts.Settle == 0 {
		opts.Settle = 50 * time.Millisecond
	}
	w, err := New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), []string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { cancel(); <-w.Done() })
	return w
}

func auditIDs(t *testing.T, store *data.Store, exp string) []string {
	t.Helper()
	rows, err := store.ListAudits(context.Background(), data.AuditFilter{Experiment: exp}, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	// Generous: a busy machine (CI with other work beside it) must not
	// fail a condition that holds a little later.
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func problemsText(w *Watcher) string {
	var b strings.Builder
	for _, p := range w.Problems() {
		fmt.Fprintf(&b, "%s: %s\n", p.File, p.Msg)
	}
	return b.String()
}

func copyTo(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWatchLinks: a symbolic link in a watched folder (to a file, a
// transcript or a folder outside it) is never followed, whether it was
// there at start or made while the watcher runs, with notifications or
// polling; each is a problem that says so, and goes when the link does.
func TestWatchLinks(t *testing.T) {
	for _, poll := range []time.Duration{0, 100 * time.Millisecond} {
		t.Run(fmt.Sprintf("poll=%v", poll), func(t *testing.T) {
			base := t.TempDir()
			dir, outside := filepath.Join(base, "runs"), filepath.Join(base, "outside")
			os.Mkdir(dir, 0o755)
			os.Mkdir(outside, 0o755)
			copyTo(t, petri+"legacy.json", filepath.Join(dir, "legacy.json"))
			copyTo(t, petri+"reset.json", filepath.Join(outside, "reset.json"))
			copyTo(t, petri+"rollback.json", filepath.Join(outside, "rollback.json"))
			secret := filepath.Join(base, "secret.txt")
			os.WriteFile(secret, []byte("TOP-SECRET-BYTES"), 0o644)
			// One link there at start.
			os.Symlink(filepath.Join(outside, "rollback.json"), filepath.Join(dir, "early.json"))
			store, err := data.Open(context.Background(), data.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			w := startWatch(t, store, dir, Options{Poll: poll})
			if ids := auditIDs(t, store, "runs"); len(ids) != 1 {
				t.Fatalf("at start: %v", ids)
			}
			if p := problemsText(w); !strings.Contains(p, "early.json: a symbolic link") {
				t.Errorf("the link at start is not a problem:\n%s", p)
			}
			// Links made while it runs: to a secret, a transcript, a folder.
			os.Symlink(secret, filepath.Join(dir, "host.json"))
			os.Symlink(filepath.Join(outside, "reset.json"), filepath.Join(dir, "out.json"))
			os.Symlink(outside, filepath.Join(dir, "linked"))
			// And a real file after them, to know the watcher has looked.
			copyTo(t, petri+"reset.json", filepath.Join(dir, "real.json"))
			waitFor(t, "the real file", func() bool { return len(auditIDs(t, store, "runs")) == 2 })
			waitFor(t, "the links as problems", func() bool {
				p := problemsText(w)
				return strings.Contains(p, "host.json: a symbolic link") && strings.Contains(p, "out.json: a symbolic link") && strings.Contains(p, "linked: a symbolic link")
			})
			// The watcher has seen each link and made it a problem instead
			// of importing it: nothing more is coming.
			if ids := auditIDs(t, store, "runs"); len(ids) != 2 {
				t.Errorf("audits %v: a link was followed", ids)
			}
			if p := problemsText(w); strings.Contains(p, "TOP-SECRET") {
				t.Errorf("a problem shows the linked file's bytes:\n%s", p)
			}
			// A link removed: its problem goes.
			os.Remove(filepath.Join(dir, "host.json"))
			waitFor(t, "the removed link's problem to go", func() bool { return !strings.Contains(problemsText(w), "host.json") })
			// A restart sees the same: the links are problems, the audits as they were.
			store2, err := data.Open(context.Background(), data.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store2.Close()
			w2 := startWatch(t, store2, dir, Options{Poll: poll})
			if ids := auditIDs(t, store2, "runs"); len(ids) != 2 {
				t.Errorf("after a restart: %v", ids)
			}
			if p := problemsText(w2); strings.Count(p, "a symbolic link") != 3 {
				t.Errorf("after a restart:\n%s", p)
			}
		})
	}
}

// TestCheckWithin: the files an import of named files reads must lie in
// the folder: a link, or a folder link leading out, is refused.
func TestCheckWithin(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "d")
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.Mkdir(filepath.Join(base, "out"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "a.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(base, "out", "a.json"), []byte("{}"), 0o644)
	os.Symlink(filepath.Join(base, "out"), filepath.Join(dir, "up"))
	os.Symlink(filepath.Join(dir, "sub", "a.json"), filepath.Join(dir, "in.json"))
	if err := logs.CheckWithin(dir, []string{"sub/a.json"}); err != nil {
		t.Errorf("a plain file: %v", err)
	}
	for _, rel := range []string{"up/a.json", "in.json"} {
		if err := logs.CheckWithin(dir, []string{rel}); err == nil || !model.IsInputError(err) {
			t.Errorf("%s: %v", rel, err)
		}
	}
}

// permHelperEnv, when set (to a watched folder), makes TestWatchUnreadable
// the child: it watches the folder and reports what it sees at each step
// its parent announces on standard input.
const permHelperEnv = "AUDITSCOPE_WATCH_PERM_HELPER"

// TestWatchUnreadable: a folder or file the server cannot read does not
// keep it from starting; it is a problem on the list, one made later is
// too, and each is imported once it is readable again. As root (CI), the
// watcher runs in a child process as the user nobody, for whom the
// permissions hold.
func TestWatchUnreadable(t *testing.T) {
	if dir := os.Getenv(permHelperEnv); dir != "" {
		permChild(t, dir)
		return
	}
	base, err := os.MkdirTemp("", "watchperm")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	os.Chmod(base, 0o755)
	dir := filepath.Join(base, "runs")
	os.MkdirAll(filepath.Join(dir, "locked"), 0o755)
	copyTo(t, petri+"legacy.json", filepath.Join(dir, "legacy.json"))
	copyTo(t, petri+"reset.json", filepath.Join(dir, "locked", "reset.json"))
	copyTo(t, petri+"rollback.json", filepath.Join(dir, "secret.json"))
	os.Chmod(filepath.Join(dir, "locked"), 0o000)
	os.Chmod(filepath.Join(dir, "secret.json"), 0o000)
	// The child runs a copy of this test binary that nobody can read.
	bin := filepath.Join(base, "watch.test")
	copyTo(t, os.Args[0], bin)
	os.Chmod(bin, 0o755)
	cmd := exec.Command(bin, "-test.run=^TestWatchUnreadable$", "-test.v")
	cmd.Env = append(os.Environ(), permHelperEnv+"="+dir, "TMPDIR="+base, "HOME="+base)
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	expect := func(prefix string) string {
		t.Helper()
		for lines.Scan() {
			if l := lines.Text(); strings.HasPrefix(l, prefix) {
				return l
			} else if strings.Contains(l, "FAIL") || strings.Contains(l, "_test.go:") {
				t.Errorf("child: %s", l)
			} else if !strings.HasPrefix(l, "=== RUN") {
				t.Logf("child: %s", l)
			}
		}
		cmd.Wait()
		t.Fatalf("the child ended before %q", prefix)
		return ""
	}
	expect("started")
	// A folder made unreadable after the start.
	later := filepath.Join(dir, "later")
	os.Mkdir(later, 0o755)
	b, _ := os.ReadFile(petri + "reset.json")
	os.WriteFile(filepath.Join(later, "again.json"), []byte(strings.Replace(string(b), `"petri-reset-01"`, `"petri-later-01"`, 1)), 0o644)
	os.Chmod(later, 0o000)
	fmt.Fprintln(stdin, "later")
	expect("later seen")
	for _, p := range []string{filepath.Join(dir, "locked"), filepath.Join(dir, "secret.json"), later} {
		os.Chmod(p, 0o755)
	}
	fmt.Fprintln(stdin, "readable")
	expect("all imported")
	// An imported transcript made unreadable, then another changed: the
	// whole import that change calls for would drop secret.json's audit,
	// so it waits until secret.json can be read again.
	os.Chmod(filepath.Join(dir, "secret.json"), 0o000)
	b, _ = os.ReadFile(filepath.Join(dir, "legacy.json"))
	os.WriteFile(filepath.Join(dir, "legacy.json"), []byte(strings.Replace(string(b), "correct, cautious", "correct, careful", 1)), 0o644)
	fmt.Fprintln(stdin, "locked again")
	expect("kept")
	os.Chmod(filepath.Join(dir, "secret.json"), 0o644)
	fmt.Fprintln(stdin, "open")
	expect("imported again")
	// Made unreadable again, another file changed, then renamed while the
	// re-import waits: the unreadable new name cannot be told from a new
	// file, and may hold audits in the experiment, so it still waits.
	os.Chmod(filepath.Join(dir, "secret.json"), 0o000)
	os.WriteFile(filepath.Join(dir, "legacy.json"), b, 0o644)
	fmt.Fprintln(stdin, "locked, changed")
	expect("held")
	os.Rename(filepath.Join(dir, "secret.json"), filepath.Join(dir, "moved.json"))
	fmt.Fprintln(stdin, "renamed")
	expect("waits")
	os.Chmod(filepath.Join(dir, "moved.json"), 0o644)
	fmt.Fprintln(stdin, "open again")
	expect("all back")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("child: %v", err)
	}
}

// permChild is the watcher of TestWatchUnreadable.
func permChild(t *testing.T, dir string) {
	store, err := data.Open(context.Background(), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	w := startWatch(t, store, dir, Options{}) // starts: the unreadable paths are problems
	if ids := auditIDs(t, store, "runs"); len(ids) != 1 {
		t.Fatalf("at start: %v", ids)
	}
	p := problemsText(w)
	if !strings.Contains(p, filepath.Join(dir, "locked")+": cannot be read") || !strings.Contains(p, "secret.json") {
		t.Fatalf("at start, the problems are:\n%s", p)
	}
	fmt.Println("started")
	in := bufio.NewScanner(os.Stdin)
	in.Scan() // later
	waitFor(t, "the later folder as a problem", func() bool {
		return strings.Contains(problemsText(w), filepath.Join(dir, "later")+": cannot be read")
	})
	fmt.Println("later seen")
	in.Scan() // readable
	waitFor(t, "every file imported", func() bool {
		ids := auditIDs(t, store, "runs")
		if len(ids) == 4 && len(w.Problems()) == 0 {
			return true
		}
		return false
	})
	fmt.Println("all imported")
	in.Scan() // locked again
	secret := filepath.Join(dir, "secret.json")
	waitFor(t, "secret.json held", func() bool {
		return strings.Contains(problemsText(w), secret+": ") && strings.Contains(problemsText(w), "permission denied") && strings.Contains(problemsText(w), "are kept until")
	})
	if ids := auditIDs(t, store, "runs"); len(ids) != 4 {
		t.Errorf("with secret.json unreadable and legacy.json changed: %v; want the 4 audits kept", ids)
	}
	fmt.Println("kept")
	in.Scan() // open
	waitFor(t, "the put-off import", func() bool {
		rows, err := store.ListAudits(context.Background(), data.AuditFilter{Experiment: "runs", Text: "correct, careful"}, 0, 10)
		return err == nil && len(rows) == 1 && len(auditIDs(t, store, "runs")) == 4 && len(w.Problems()) == 0
	})
	fmt.Println("imported again")
	in.Scan() // locked, changed
	waitFor(t, "secret.json held again", func() bool {
		p := problemsText(w)
		return strings.Contains(p, secret+": ") && strings.Contains(p, "are kept until")
	})
	fmt.Println("held")
	in.Scan() // renamed
	moved := filepath.Join(dir, "moved.json")
	waitFor(t, "moved.json holding the re-import up", func() bool {
		p := problemsText(w)
		return strings.Contains(p, moved+": ") && strings.Contains(p, "re-import waits") && !strings.Contains(p, secret)
	})
	if ids := auditIDs(t, store, "runs"); len(ids) != 4 {
		t.Errorf("secret.json renamed while unreadable: %v; want the 4 audits kept", ids)
	}
	fmt.Println("waits")
	in.Scan() // open again
	waitFor(t, "the re-import with moved.json", func() bool {
		rows, err := store.ListAudits(context.Background(), data.AuditFilter{Experiment: "runs", Text: "correct, careful"}, 0, 10)
		return err == nil && len(rows) == 0 && len(auditIDs(t, store, "runs")) == 4 && len(w.Problems()) == 0
	})
	fmt.Println("all back")
}
