package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// child is a running auditscope program whose output lines a test reads
// as they come.
type child struct {
	cmd       *exec.Cmd
	in        io.WriteCloser
	out, errs chan string // stdout's and stderr's lines (no order between them)
}

func startChild(t *testing.T, env []string, args ...string) *child {
	t.Helper()
	c := &child{cmd: exec.Command(os.Args[0], args...), out: make(chan string, 1000), errs: make(chan string, 1000)}
	c.cmd.Env = append(append(os.Environ(), asProgram+"=1"), env...)
	c.in, _ = c.cmd.StdinPipe()
	outp, _ := c.cmd.StdoutPipe()
	errp, _ := c.cmd.StderrPipe()
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.cmd.Process.Kill(); c.cmd.Wait() })
	for r, ch := range map[io.Reader]chan string{outp: c.out, errp: c.errs} {
		go func() {
			s := bufio.NewScanner(r)
			for s.Scan() {
				ch <- s.Text()
			}
		}()
	}
	return c
}

// expect reads lines of ch until one holds want and returns it (and those
// before).
func expect(t *testing.T, ch chan string, want string) (string, []string) {
	t.Helper()
	var before []string
	deadline := time.After(5 * time.Minute) // a limit on a hang, not a timing
	for {
		select {
		case l := <-ch:
			if strings.Contains(l, want) {
				return l, before
			}
			before = append(before, l)
		case <-deadline:
			t.Fatalf("no line with %q; lines: %q", want, before)
		}
	}
}

// TestDemoKeptBetweenStarts: the demo's first start says it is building
// and, while it builds, that it still is; once serving it keeps the demo in
// the user's cache folder; a second start opens that copy (its first line
// says so) and serves every page, the transcripts generated in memory
// included.
func TestDemoKeptBetweenStarts(t *testing.T) {
	cache := t.TempDir()
	env := []string{"XDG_CACHE_HOME=" + cache, holdDemo + "=1", demoEvery + "=10ms"}
	first := startChild(t, env, "serve", "--addr", "127.0.0.1:0")
	if l, _ := expect(t, first.errs, "auditscope:"); !strings.Contains(l, "building the built-in demo") {
		t.Fatalf("first start's first line: %q", l)
	}
	expect(t, first.errs, "auditscope: still building the demo (")
	io.WriteString(first.in, "go\n") // the build goes on
	expect(t, first.out, "serving on http://")
	kept, _ := expect(t, first.errs, "demo kept for the next start")
	first.cmd.Process.Signal(syscall.SIGINT)
	first.cmd.Wait()
	files, _ := filepath.Glob(filepath.Join(cache, "auditscope", "demo-*.duckdb"))
	if len(files) != 1 || !strings.Contains(kept, files[0]) {
		t.Fatalf("kept %q; the cache folder has %v", kept, files)
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "auditscope", "*.part*")); len(left) > 0 {
		t.Errorf("a partial copy is left: %v", left)
	}

	second := startChild(t, []string{"XDG_CACHE_HOME=" + cache}, "serve", "--addr", "127.0.0.1:0")
	if l, _ := expect(t, second.errs, "auditscope:"); !strings.Contains(l, "as built on an earlier start") {
		t.Fatalf("second start's first line: %q", l)
	}
	l, _ := expect(t, second.out, "serving on http://")
	base := strings.Fields(l[strings.Index(l, "http://"):])[0]
	for path, want := range map[string]string{
		"/":                                      "62438 audits",
		"/audits/demo:a-000047":                  `data-testid="message"`,
		"/experiments/petri-demo/dimensions.csv": "concerning",
	} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) || strings.Contains(string(b), "could not be read") {
			t.Errorf("GET %s from the kept demo: %d, lacks %q:\n%.400s", path, resp.StatusCode, want, b)
		}
	}
}
