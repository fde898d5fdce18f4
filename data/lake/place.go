package lake

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/auditscope/auditscope/data/bucket"
)

// A place holds a lake's data files: a local folder or a bucket prefix.
type place interface {
	// has reports whether the data file rel (FileRel) is there.
	has(ctx context.Context, rel string) bool
	// sum is the size and SHA-256 of the data file rel as the lake holds it;
	// fs.ErrNotExist when it is not there.
	sum(ctx context.Context, rel string) (File, error)
}

// folder is a lake in a local folder.
type folder string

func (d folder) path(rel string) string { return filepath.Join(string(d), filepath.FromSlash(rel)) }

func (d folder) has(_ context.Context, rel string) bool {
	_, err := os.Stat(d.path(rel))
	return err == nil
}

func (d folder) sum(_ context.Context, rel string) (File, error) { return checksum(d.path(rel)) }

// prefix is a lake under a bucket prefix. Each data file carries its
// SHA-256 as user metadata (shaMeta), set when it is written: a writer that
// finds a generation's file already there (written by another writer, or by
// one killed before its manifest) records that file's checksum without
// reading it back.
type prefix struct{ b *bucket.Bucket }

// shaMeta is the user metadata (x-amz-meta-sha256) that holds a data file's
// SHA-256 in hex.
const shaMeta = "sha256"

func (p prefix) has(ctx context.Context, rel string) bool {
	_, err := p.sum(ctx, rel)
	return err == nil
}

func (p prefix) sum(ctx context.Context, rel string) (File, error) {
	o, err := p.b.Head(ctx, rel)
	if err != nil {
		return File{}, err
	}
	sha := o.Meta[shaMeta]
	if !isHexSHA(sha) {
		return File{}, fmt.Errorf("%s: no SHA-256 in its metadata (x-amz-meta-%s): not written by auditscope lake write", p.b.URL(rel), shaMeta)
	}
	return File{Size: o.Size, SHA256: sha}, nil
}

// complete reports whether every table's file of generation g is there (a
// write killed half-way leaves some out).
func complete(ctx context.Context, at place, g Generation) bool {
	for _, t := range Tables {
		if t.Family == g.Family && !at.has(ctx, FileRel(t.Name, g.Family, g.Name, g.Gen)) {
			return false
		}
	}
	return true
}

func isHexSHA(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
