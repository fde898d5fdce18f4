package lake

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/auditscope/auditscope/data/bucket"
	"github.com/auditscope/auditscope/data/model"
)

// BucketOptions are how a server reads a lake in a bucket.
type BucketOptions struct {
	// Cache is the local folder the lake's files are copied into (each
	// named by its SHA-256, so a file is fetched once however many
	// generations name it, and a restarted server starts warm). One server
	// at a time uses a cache folder.
	Cache string
	// CacheSize bounds the cache in bytes: after a manifest is served, the
	// files it does not name are removed, least recently used first, until
	// the cache is within it. A manifest whose files alone are more is
	// refused (the last good state serves on). While a new manifest's files
	// are fetched the cache holds the old files and the new.
	CacheSize int64
	// Every is how often the manifest is read again: a request never waits
	// for the bucket; the one after Every has passed starts a refresh in the
	// background, and the ones after it are served the new state once it is
	// ready.
	Every time.Duration
}

// cache is a lake in a bucket, served from local copies of its files.
type cache struct {
	b     *bucket.Bucket
	dir   string
	limit int64
	lock  *os.File
	// checked are the copies read through and found good by this process:
	// a copy left by an earlier one (a restart) is checked once, as a
	// folder lake's files are, so one damaged on disk is fetched again
	// rather than served.
	checked map[string]bool
	tag     string // the manifest's ETag, to read it only when it changed
	body    []byte
}

// openCache takes the cache folder dir for the lake in b: one server at a
// time (a second one would remove files the first serves).
func openCache(b *bucket.Bucket, dir string, limit int64) (*cache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lake cache: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lake cache: %w", err)
	}
	held, err := tryFlock(f)
	if err != nil || held {
		f.Close()
		if err == nil {
			err = errors.New("another auditscope server uses it; give each server its own --lake-cache")
		}
		return nil, fmt.Errorf("lake cache %s: %w", dir, err)
	}
	// Copies a server killed mid-fetch left (the folder is ours now).
	if left, err := filepath.Glob(filepath.Join(dir, ".fetch-*")); err == nil {
		for _, p := range left {
			os.Remove(p)
		}
	}
	return &cache{b: b, dir: dir, limit: limit, lock: f, checked: map[string]bool{}}, nil
}

func (c *cache) close() { c.lock.Close() }

// intact reports whether the copy is there: copies are private, named by
// their checksum and checked as they are written.
func (c *cache) intact(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (c *cache) String() string       { return strings.TrimSuffix(c.b.String(), "/") }
func (c *cache) manifestName() string { return c.b.URL("manifest.json") }

// readManifest reads the manifest, sending its ETag: an unchanged manifest
// costs a request and no body.
func (c *cache) readManifest(ctx context.Context) ([]byte, error) {
	body, o, err := c.b.Get(ctx, "manifest.json", c.tag)
	if errors.Is(err, bucket.ErrNotModified) {
		return c.body, nil
	}
	if err != nil {
		return nil, err
	}
	defer body.Close()
	if o.Size > maxManifest {
		return nil, fmt.Errorf("%d bytes, more than a manifest's %d", o.Size, maxManifest)
	}
	b, err := io.ReadAll(io.LimitReader(body, maxManifest))
	if err != nil {
		return nil, err
	}
	c.tag, c.body = o.ETag, b
	return b, nil
}

func (c *cache) path(want File) string { return filepath.Join(c.dir, want.SHA256+".parquet") }

func (c *cache) prepare(want map[string]File) error {
	var total int64
	for _, f := range want {
		total += f.Size
	}
	if total > c.limit {
		return &model.InputError{File: c.manifestName(), Offset: -1, Msg: fmt.Sprintf("its files are %s, more than the local cache's %s: serve it with a larger --lake-cache-size", bytesText(total), bytesText(c.limit))}
	}
	return nil
}

// file is the cached copy of rel, fetched first if the cache has none.
// The copy is checked as it is written (size and SHA-256) and named only
// once whole, so a copy in the cache is always a good one.
func (c *cache) file(ctx context.Context, rel string, want *File) (string, error) {
	url := c.b.URL(rel)
	if want == nil {
		return "", &model.InputError{File: url, Offset: -1, Msg: "the manifest records no checksums: a lake in a bucket is served only with them (write it again with this auditscope)"}
	}
	p := c.path(*want)
	if st, err := os.Stat(p); err == nil && st.Size() == want.Size {
		if !c.checked[p] {
			if got, err := checksum(p); err != nil || got != *want {
				os.Remove(p)
				return c.fetch(ctx, rel, *want, p)
			}
			c.checked[p] = true
		}
		now := time.Now()
		os.Chtimes(p, now, now) // recently used
		return p, nil
	}
	return c.fetch(ctx, rel, *want, p)
}

// fetch copies the object rel into the cache as p, checking it against
// want as it is written.
func (c *cache) fetch(ctx context.Context, rel string, want File, p string) (string, error) {
	url := c.b.URL(rel)
	body, _, err := c.b.Get(ctx, rel, "")
	if errors.Is(err, fs.ErrNotExist) {
		return "", &model.InputError{File: url, Offset: -1, Msg: "missing: the manifest names this generation, but its file is not there (a write not finished, or files removed)"}
	}
	if err != nil {
		return "", &transient{&model.InputError{File: url, Offset: -1, Msg: "cannot be read: " + errText(err)}}
	}
	defer body.Close()
	tmp, err := os.CreateTemp(c.dir, ".fetch-*")
	if err != nil {
		return "", fmt.Errorf("lake cache: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(body, want.Size+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return "", &transient{&model.InputError{File: url, Offset: -1, Msg: "cannot be read: " + errText(err)}}
	case n != want.Size:
		return "", &model.InputError{File: url, Offset: -1, Msg: sizeMismatch(n, want.Size)}
	case hex.EncodeToString(h.Sum(nil)) != want.SHA256:
		return "", &model.InputError{File: url, Offset: -1, Msg: shaMismatch}
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return "", fmt.Errorf("lake cache: %w", err)
	}
	c.checked[p] = true
	return p, nil
}

// served removes the cached files the served manifest does not name, least
// recently used first, until the cache is within its size.
func (c *cache) served(paths []string) {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type cached struct {
		path string
		size int64
		used time.Time
	}
	var others []cached
	var total int64
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".parquet") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		p := filepath.Join(c.dir, e.Name())
		total += info.Size()
		if !slices.Contains(paths, p) {
			others = append(others, cached{p, info.Size(), info.ModTime()})
		}
	}
	slices.SortFunc(others, func(a, b cached) int { return a.used.Compare(b.used) })
	for _, o := range others {
		if total <= c.limit {
			break
		}
		if os.Remove(o.path) == nil {
			total -= o.size
			delete(c.checked, o.path)
		}
	}
}

// bytesText is n bytes for people: "1.5 GiB".
func bytesText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
