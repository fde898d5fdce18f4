// Package s3test starts a real S3-compatible server for tests: versitygw
// (github.com/versity/versitygw, Apache 2.0) serving a temporary folder,
// each bucket a folder in it. Tests that need it skip when its program is
// not found, except in CI (CI=true), where .ci/run builds it and a missing
// server fails the test.
//
// The program is AUDITSCOPE_VERSITYGW, else versitygw on the PATH. To run
// these tests locally:
//
//	GOBIN=$HOME/bin CGO_ENABLED=0 go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
package s3test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Version is the versitygw release the tests are run against.
const Version = "v1.8.0"

// Program is the server's program, "" when there is none.
func Program() string {
	if p := os.Getenv("AUDITSCOPE_VERSITYGW"); p != "" {
		return p
	}
	p, _ := exec.LookPath("versitygw")
	return p
}

// Server is a running S3-compatible server.
type Server struct {
	t        testing.TB
	prog     string
	Root     string // the folder it serves: a bucket is a folder in it
	Endpoint string // http://127.0.0.1:PORT
	addr     string
	cmd      *exec.Cmd
}

// The server's credentials, which Start puts in the environment.
const (
	AccessKey = "auditscope-test"
	SecretKey = "auditscope-test-secret"
)

// Start starts a server for the test, with one bucket (name), and points
// the AWS environment at it (endpoint, credentials, region; no config
// files). It stops when the test ends.
func Start(t testing.TB, buckets ...string) *Server {
	t.Helper()
	prog := Program()
	awaitBuild(t, prog)
	if prog == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no S3-compatible server: .ci/run builds versitygw and sets AUDITSCOPE_VERSITYGW")
		}
		t.Skip("no S3-compatible server (versitygw " + Version + "); see package s3test to run these tests")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := &Server{t: t, prog: prog, Root: t.TempDir(), Endpoint: "http://" + addr, addr: addr}
	for _, b := range buckets {
		if err := os.Mkdir(filepath.Join(s.Root, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("AWS_ENDPOINT_URL", s.Endpoint)
	t.Setenv("AWS_ACCESS_KEY_ID", AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", SecretKey)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	none := filepath.Join(s.Root, ".no-aws-config")
	t.Setenv("AWS_CONFIG_FILE", none)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
	s.start()
	t.Cleanup(s.Stop)
	return s
}

// awaitBuild waits while the program is being built: .ci/run builds
// versitygw beside the first checks and the tests, and marks the build with
// a file PROGRAM.building that it removes when the build ends. The wait is
// on that event; the deadline is a guard against a hang.
func awaitBuild(t testing.TB, prog string) {
	t.Helper()
	if prog == "" {
		return
	}
	deadline := time.Now().Add(10 * time.Minute)
	for {
		if _, err := os.Stat(prog + ".building"); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is still being built after ten minutes", prog)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(prog); err != nil && os.Getenv("CI") == "true" {
		t.Fatalf("no S3-compatible server at %s: its build failed (.ci/run's log says why)", prog)
	}
}

func (s *Server) start() {
	s.t.Helper()
	cmd := exec.Command(s.prog, "--port", s.addr, "--region", "us-east-1", "--quiet", "posix", s.Root)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+AccessKey, "ROOT_SECRET_ACCESS_KEY="+SecretKey)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.cmd = cmd
	deadline := time.Now().Add(time.Minute) // a guard against a hang
	for {
		c, err := net.DialTimeout("tcp", s.addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			s.Stop()
			s.t.Fatalf("versitygw did not start: %v\n%s", err, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops the server (the bucket cannot be reached until Restart).
func (s *Server) Stop() {
	if s.cmd != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

// Restart starts the stopped server again on the same address and folder.
func (s *Server) Restart() { s.start() }

// URL is s3://bucket/prefix.
func URL(bucket, prefix string) string { return fmt.Sprintf("s3://%s/%s", bucket, prefix) }
