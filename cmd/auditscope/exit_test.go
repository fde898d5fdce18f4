package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/s3test"
)

// asProgram makes the test binary run as the auditscope program itself
// (main, with its signal handling, messages and exit code) when a test
// starts it with this variable set: the command-level tests below run the
// program as a user does, without linking DuckDB into a second binary.
const asProgram = "AUDITSCOPE_TEST_AS_PROGRAM"

// holdDemo makes such a program wait for a line on its standard input
// before it builds the demo.
const holdDemo = "AUDITSCOPE_TEST_HOLD_DEMO"

// demoEvery sets how often such a program says it is still building the
// demo.
const demoEvery = "AUDITSCOPE_TEST_DEMO_EVERY"

func TestMain(m *testing.M) {
	if os.Getenv(asProgram) == "1" {
		if d, err := time.ParseDuration(os.Getenv(demoEvery)); err == nil {
			demoBuildEvery = d
		}
		if os.Getenv(holdDemo) == "1" {
			// The demo is built only once the test has read the first
			// line, so a line printed after the build cannot pass.
			load := loadDemo
			loadDemo = func(ctx context.Context, s *data.Store) ([]model.ImportResult, error) {
				bufio.NewReader(os.Stdin).ReadString('\n')
				return load(ctx, s)
			}
		}
		os.Args = append([]string{"auditscope"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	// The tests' demos are kept in a folder of their own, never in the
	// user's cache (a test that needs a first start gives its own).
	cache, err := os.MkdirTemp("", "auditscope-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}

// program runs the auditscope program with args in a child process and
// returns its stdout, stderr and exit code.
func program(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), asProgram+"=1"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%v: %v", args, err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// TestLakeWriteBucketFails: a lake write to a bucket that cannot be
// written exits non-zero, naming the cause, whatever the cause; it used
// to print "0 written, 0 unchanged" and exit 0 for all of them.
func TestLakeWriteBucketFails(t *testing.T) {
	s3test.Start(t, "lakes")
	bundle := filepath.Join("..", "..", "data", "testdata", "bundle-small")
	// An endpoint nothing listens on: a port just closed.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	cases := []struct {
		name string
		env  []string
		lake string
		want string
	}{
		{"unreachable endpoint", []string{"AWS_ENDPOINT_URL=" + closed}, "s3://lakes/team", "cannot be reached"},
		{"bad credentials", []string{"AWS_SECRET_ACCESS_KEY=wrong"}, "s3://lakes/team", "refused the credentials"},
		{"missing bucket", nil, "s3://nosuchbucket/team", `the bucket "nosuchbucket" does not exist`},
	}
	for _, c := range cases {
		out, stderr, rc := program(t, c.env, "lake", "write", "--lake", c.lake, bundle)
		t.Logf("%s: exit %d: %s", c.name, rc, strings.TrimSpace(stderr))
		if rc == 0 || !strings.Contains(stderr, c.want) || strings.Contains(out, "written") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want a non-zero exit naming %q", c.name, rc, out, stderr, c.want)
		}
	}
	// A roll-back: a database with an older import of a dataset than the
	// one the lake holds.
	ap := filepath.Join(apFixtures(t), "icai-example-v2-models.json")
	olderDB := filepath.Join(t.TempDir(), "older.duckdb")
	if _, _, err := runCmd(t, "import", "--db", olderDB, ap); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(ap)
	if err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(t.TempDir(), filepath.Base(ap))
	if err := os.WriteFile(changed, append(b, "\n\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, "lake", "write", "--lake", "s3://lakes/team", changed); err != nil {
		t.Fatal(err)
	}
	out, stderr, rc := program(t, nil, "lake", "write", "--lake", "s3://lakes/team", "--db", olderDB)
	if rc == 0 || !strings.Contains(stderr, "roll the lake back") || strings.Contains(out, "written") {
		t.Errorf("a refused roll-back: exit %d, stdout %q, stderr %q; want a non-zero exit saying it would roll the lake back", rc, out, stderr)
	}
}

// TestVersion: auditscope --version and auditscope version print the
// module version, the Go and the DuckDB the program was built with, and
// exit 0 (--version was refused as an unknown flag of serve).
func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		out, stderr, rc := program(t, nil, arg)
		if rc != 0 || !strings.HasPrefix(out, "auditscope ") || !strings.Contains(out, "\ngo1.") || !strings.Contains(out, "\nDuckDB v1.") || stderr != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, rc, out, stderr)
		}
	}
}

// TestUsageErrorOnce: a bad command line prints its error once, the
// command's one-line usage and where its flags are, and exits 2 (the
// error came twice, around the whole list of flags).
func TestUsageErrorOnce(t *testing.T) {
	cases := [][]string{{"serve", "--db"}, {"import", "--frob", "x"}, {"lake", "write", "--lake"}}
	for _, args := range cases {
		out, stderr, rc := program(t, nil, args...)
		if rc != 2 || out != "" || strings.Count(stderr, "auditscope: ") != 1 || !strings.Contains(stderr, "Usage: auditscope "+args[0]) ||
			strings.Contains(stderr, "-max-value") || !strings.Contains(stderr, "--help' for its flags") {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s", args, rc, out, stderr)
		}
	}
	if _, stderr, rc := program(t, nil, "frob"); rc != 2 || strings.Count(stderr, "frob") != 1 || strings.Contains(stderr, "Usage:\n") {
		t.Errorf("an unknown command: exit %d, stderr:\n%s", rc, stderr)
	}
}

// TestFailedImportLeavesNoFile: a failed import into a database that did
// not exist leaves no file, nor a write-ahead log (it left an empty 800 KB
// database); into an existing one it leaves it as it was.
func TestFailedImportLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"metadata": {"version": "2.0"}, "comparisons": [`), 0o644)
	db := filepath.Join(dir, "new.duckdb")
	if _, stderr, rc := program(t, nil, "import", "--db", db, bad); rc != 1 || !strings.Contains(stderr, "bad.json") {
		t.Fatalf("a bad import: exit %d, %s", rc, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		names := []string{}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left %v beside the input", names)
	}
	good := filepath.Join(apFixtures(t), "icai-example-v2-models.json")
	if _, _, rc := program(t, nil, "import", "--db", db, good); rc != 0 {
		t.Fatal("a good import failed")
	}
	before := tableDigest(t, db)
	if _, _, rc := program(t, nil, "import", "--db", db, bad); rc != 1 {
		t.Fatal("the bad import into an existing database did not fail")
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("a failed import removed an existing database: %v", err)
	}
	if after := tableDigest(t, db); !maps.Equal(before, after) {
		t.Errorf("the failed import changed the existing database:\nbefore %v\nafter  %v", before, after)
	}
}

// TestDemoStartSpeaksAtOnce: the demo's start says what it is doing before
// it builds the demo (it was silent for seconds, up to 45 on a busy
// machine), then where it serves.
func TestDemoStartSpeaksAtOnce(t *testing.T) {
	cmd := exec.Command(os.Args[0], "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), asProgram+"=1", holdDemo+"=1", "XDG_CACHE_HOME="+t.TempDir())
	inp, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	errp, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Killed whatever happens, which ends the reads below.
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	first := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(errp)
		lines.Scan()
		first <- lines.Text()
		io.Copy(io.Discard, errp)
	}()
	serving := make(chan bool, 1)
	go func() {
		lines := bufio.NewScanner(outp)
		for lines.Scan() {
			if strings.Contains(lines.Text(), "serving on http://") {
				serving <- true
				return
			}
		}
		serving <- false
	}()
	select {
	case l := <-first:
		if !strings.Contains(l, "building the built-in demo") {
			t.Fatalf("the first line is %q, want what is starting", l)
		}
		io.WriteString(inp, "go\n") // the demo may be built now
	case <-serving:
		t.Fatal("it served before saying anything")
	case <-time.After(2 * time.Minute):
		t.Fatal("nothing said in two minutes")
	}
	select {
	case ok := <-serving:
		if !ok {
			t.Fatal("no line says where it serves")
		}
	case <-time.After(5 * time.Minute):
		t.Fatal("not serving after five minutes")
	}
}

// TestExportSaysWhatItWrote: export to a file ends with one line saying
// what it wrote (it was silent), and the file is whole.
func TestExportSaysWhatItWrote(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.duckdb")
	if _, _, err := runCmd(t, "import", "--db", db, filepath.Join("..", "..", "data", "testdata", "bundle-small")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "audits.csv")
	stdout, stderr, rc := program(t, nil, "export", "--db", db, "/audits.csv?exp=small", "--out", out)
	b, err := os.ReadFile(out)
	if rc != 0 || err != nil || stdout != "" || stderr != "auditscope: wrote "+out+" ("+humanSize(int64(len(b)))+", CSV, 4 rows and a header)\n" {
		t.Errorf("exit %d, stdout %q, stderr %q, file %d bytes (%v)", rc, stdout, stderr, len(b), err)
	}
}
