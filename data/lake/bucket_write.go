package lake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bucket"
)

// maxManifest bounds the manifest a server or a writer reads, from a
// folder or a bucket (a lake of thousands of experiments has a manifest of
// a few MB): a 300 MiB one raised a server from 100 MB to 1.3 GB, and kept
// it there.
const maxManifest = 64 << 20

// writeAttempts bounds how often a write re-reads the manifest after
// another writer replaced it first.
const writeAttempts = 32

// WriteBucket writes the store's datasets and experiments into the lake
// under a bucket prefix, as Write does into a folder, with no lock: many
// writers may write one lake at once.
//
// Data files are written once: a generation's key is a hash of the imports
// that made it (so the same key always holds the same data), and a file
// is written only if none is there (If-None-Match: *). Each carries its
// SHA-256 as metadata. The manifest is written last and only over the one
// the write read (If-Match on its ETag; If-None-Match: * when there was
// none). When another writer replaced it meanwhile, the write reads the
// new one, plans again against it (its datasets and experiments are kept;
// the roll-back rule is applied to it) and tries again: no writer loses
// another's update, and a reader sees one manifest or the next, never a
// mix. A writer killed at any point leaves the old manifest, and at most
// files no manifest names yet.
func WriteBucket(ctx context.Context, s *data.Store, b *bucket.Bucket, opts WriteOptions) (Result, error) {
	gens, err := storeGenerations(ctx, s)
	if err != nil {
		return Result{}, err
	}
	// Files are written here first, one at a time, then sent.
	tmp, err := os.MkdirTemp("", "auditscope-lake-")
	if err != nil {
		return Result{}, fmt.Errorf("lake: %w", err)
	}
	defer os.RemoveAll(tmp)
	at := prefix{b}
	sums := map[string]File{} // files in the bucket, by FileRel: written, or found there
	for attempt := 1; ; attempt++ {
		old, tag, err := readBucketManifest(ctx, b)
		if err != nil {
			return Result{}, err
		}
		plan, err := newPlan(ctx, at, old, gens, opts.Force)
		if err != nil {
			return Result{}, err
		}
		var res Result
		for _, g := range plan.Write {
			if err := sendGeneration(ctx, s, b, tmp, g, sums); err != nil {
				return Result{}, err
			}
			res.Written = append(res.Written, g.What())
		}
		res.Unchanged = plan.Unchanged
		m, changed, err := plan.manifest(ctx, res.Written, sums)
		if err != nil || !changed {
			return res, err
		}
		body, err := json.MarshalIndent(m, "", " ")
		if err != nil {
			return Result{}, err
		}
		body = append(body, '\n')
		if testHookBeforeManifest != nil {
			testHookBeforeManifest(attempt)
		}
		_, err = b.Put(ctx, "manifest.json", bytes.NewReader(body), int64(len(body)), bucket.PutOptions{IfMatch: tag, IfAbsent: tag == ""})
		if !errors.Is(err, bucket.ErrChanged) {
			return res, err
		}
		if attempt == writeAttempts {
			return Result{}, fmt.Errorf("lake %s: the manifest was replaced by other writers %d times while this write tried to replace it; nothing was changed, try again", b, attempt)
		}
		if opts.Log != nil {
			opts.Log(fmt.Sprintf("lake %s: another writer replaced the manifest first; reading it and trying again", b))
		}
		// Writers that lost together should not meet again at once.
		time.Sleep(time.Duration(rand.Int64N(int64(50*time.Millisecond) * int64(min(attempt, 8)))))
	}
}

// testHookBeforeManifest, set by tests, runs before each attempt to
// replace the manifest: another writer's write put there meets this one's
// on every run.
var testHookBeforeManifest func(attempt int)

// readBucketManifest reads the lake's manifest and its ETag; none is a zero
// manifest and an empty ETag.
func readBucketManifest(ctx context.Context, b *bucket.Bucket) (Manifest, string, error) {
	body, o, err := b.ReadAll(ctx, "manifest.json", maxManifest)
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, "", nil
	}
	if err != nil {
		return Manifest{}, "", fmt.Errorf("lake: %w", err)
	}
	m, err := ParseManifest(b.URL("manifest.json"), body)
	return m, o.ETag, err
}

// sendGeneration writes every table of one generation into the bucket that
// is not there yet, each file made in dir, checksummed, sent, and removed
// (one file on local disk at a time), and adds each file's checksum to sums.
// A file already there (the same generation written by another writer, or
// by a write killed before its manifest) is kept with its own checksum.
func sendGeneration(ctx context.Context, s *data.Store, b *bucket.Bucket, dir string, g Generation, sums map[string]File) error {
	for _, t := range Tables {
		if t.Family != g.Family {
			continue
		}
		rel := FileRel(t.Name, g.Family, g.Name, g.Gen)
		if _, ok := sums[rel]; ok {
			continue // sent in an earlier attempt
		}
		if f, err := (prefix{b}).sum(ctx, rel); err == nil {
			sums[rel] = f
			continue
		}
		local := filepath.Join(dir, "data.parquet")
		if err := s.CopyPartition(ctx, t.Name, t.Key, g.Name, local); err != nil {
			return fmt.Errorf("lake: write %s of %s %s: %w", t.Name, g.Family, g.Name, err)
		}
		f, err := checksum(local)
		if err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		_, err = b.PutFile(ctx, rel, local, bucket.PutOptions{IfAbsent: true, Meta: map[string]string{shaMeta: f.SHA256}})
		os.Remove(local)
		if errors.Is(err, bucket.ErrChanged) {
			// Another writer sent it meanwhile: keep theirs.
			if f, err = (prefix{b}).sum(ctx, rel); err != nil {
				return fmt.Errorf("lake: %w", err)
			}
		} else if err != nil {
			return fmt.Errorf("lake: %w", err)
		}
		sums[rel] = f
	}
	return nil
}
