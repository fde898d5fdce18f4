package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/s3test"
)

// asProgram makes the test binary run as the auditscope program itself
// (main, with its signal handling, messages and exit code) when a test
// starts it with this variable set: the command-level tests below run the
// program as a user does, without linking DuckDB into a second binary.
const asProgram = "AUDITSCOPE_TEST_AS_PROGRAM"

func TestMain(m *testing.M) {
	if os.Getenv(asProgram) == "1" {
		os.Args = append([]string{"auditscope"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
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
