package bucket_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/bucket"
	"github.com/auditscope/auditscope/data/s3test"
)

func TestParse(t *testing.T) {
	for _, c := range []struct{ in, name, prefix string }{
		{"s3://lakes/team", "lakes", "team"},
		{"s3://lakes/team/", "lakes", "team"},
		{"s3://lakes", "lakes", ""},
		{"s3://lakes/a/b", "lakes", "a/b"},
	} {
		n, p, err := bucket.Parse(c.in)
		if err != nil || n != c.name || p != c.prefix {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q", c.in, n, p, err, c.name, c.prefix)
		}
	}
	for _, bad := range []string{"s3://", "s3:///x", "s3://b/a//c", "s3://b/../x", "lakes/team", "s3://b?x/y"} {
		if _, _, err := bucket.Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestLocalName(t *testing.T) {
	for _, bad := range []string{"../x", "a/../../x", "/x", "a//b", "", "a\\..\\x", "."} {
		if p, err := bucket.LocalName("/d", bad); err == nil {
			t.Errorf("LocalName(%q) = %q, want a refusal", bad, p)
		}
	}
	if p, err := bucket.LocalName("/d", "runs/a.eval"); err != nil || p != "/d/runs/a.eval" {
		t.Errorf("LocalName = %q, %v", p, err)
	}
}

// TestConditionalPut: against a real S3-compatible server, a write made
// to create refuses an object that is there, a write made over an ETag
// refuses an object that changed since (or is gone), and reads and lists
// see what was written.
func TestConditionalPut(t *testing.T) {
	s3test.Start(t, "lakes")
	ctx := context.Background()
	b, err := bucket.Open(ctx, "s3://lakes/team")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.ReadAll(ctx, "manifest.json", 1<<20); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing object: %v, want fs.ErrNotExist", err)
	}
	put := func(body string, opts bucket.PutOptions) (string, error) {
		return b.Put(ctx, "manifest.json", strings.NewReader(body), int64(len(body)), opts)
	}
	tag1, err := put("one", bucket.PutOptions{IfAbsent: true, Meta: map[string]string{"sha256": "abc"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := put("two", bucket.PutOptions{IfAbsent: true}); !errors.Is(err, bucket.ErrChanged) {
		t.Errorf("create over an object: %v, want ErrChanged", err)
	}
	tag2, err := put("two", bucket.PutOptions{IfMatch: tag1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := put("three", bucket.PutOptions{IfMatch: tag1}); !errors.Is(err, bucket.ErrChanged) {
		t.Errorf("write over a stale ETag: %v, want ErrChanged", err)
	}
	data, o, err := b.ReadAll(ctx, "manifest.json", 1<<20)
	if err != nil || string(data) != "two" || o.ETag != tag2 {
		t.Errorf("read %q (ETag %s), %v; want two (%s)", data, o.ETag, err, tag2)
	}
	if _, _, err := b.Get(ctx, "manifest.json", tag2); !errors.Is(err, bucket.ErrNotModified) {
		t.Errorf("get with the current ETag: %v, want ErrNotModified", err)
	}
	body, _, err := b.Get(ctx, "manifest.json", tag1)
	if err != nil {
		t.Fatalf("get with an old ETag: %v", err)
	}
	got, _ := io.ReadAll(body)
	body.Close()
	if string(got) != "two" {
		t.Errorf("get with an old ETag read %q", got)
	}
	if _, err := b.Put(ctx, "gone.json", strings.NewReader("x"), 1, bucket.PutOptions{IfMatch: tag2}); !errors.Is(err, bucket.ErrChanged) {
		t.Errorf("If-Match on a missing object: %v, want ErrChanged", err)
	}
	h, err := b.Head(ctx, "manifest.json")
	if err != nil || h.Size != 3 {
		t.Errorf("head: %+v, %v", h, err)
	}
	if _, err := put("x", bucket.PutOptions{Meta: map[string]string{"sha256": "abc"}}); err != nil {
		t.Fatal(err)
	}
	if h, _ := b.Head(ctx, "manifest.json"); h.Meta["sha256"] != "abc" {
		t.Errorf("metadata read back: %v", h.Meta)
	}
	list, err := b.List(ctx, "")
	if err != nil || len(list) != 1 || list[0].Rel != "manifest.json" {
		t.Errorf("list: %+v, %v", list, err)
	}
}

// TestConfigFiles: with no AWS variables set, the endpoint, region and
// credentials come from the AWS config and credentials files, as the AWS
// CLI reads them (a profile chosen by AWS_PROFILE).
func TestConfigFiles(t *testing.T) {
	srv := s3test.Start(t, "lakes")
	dir := t.TempDir()
	config := filepath.Join(dir, "config")
	creds := filepath.Join(dir, "credentials")
	os.WriteFile(config, []byte("[profile team]\nregion = us-east-1\nendpoint_url = "+srv.Endpoint+"\n"), 0o600)
	os.WriteFile(creds, []byte("[team]\naws_access_key_id = "+s3test.AccessKey+"\naws_secret_access_key = "+s3test.SecretKey+"\n"), 0o600)
	t.Setenv("AWS_CONFIG_FILE", config)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", creds)
	t.Setenv("AWS_PROFILE", "team")
	for _, v := range []string{"AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_SESSION_TOKEN"} {
		os.Unsetenv(v) // Start set them; t.Setenv puts them back after the test
	}
	b, err := bucket.Open(context.Background(), "s3://lakes/team")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(context.Background(), "x.json", strings.NewReader("{}"), 2, bucket.PutOptions{IfAbsent: true}); err != nil {
		t.Fatalf("a write with the config files' settings: %v", err)
	}
	if _, err := os.Stat(filepath.Join(srv.Root, "lakes", "team", "x.json")); err != nil {
		t.Errorf("the object is not on the server: %v", err)
	}
}
