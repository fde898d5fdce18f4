package main

import (
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/auditscope/auditscope/data"
)

// demoBuildEvery is how often a first start says the demo is still being
// built (a test shortens it).
var demoBuildEvery = 2 * time.Second

// demoCachePath is where the built demo is kept between starts: a DuckDB
// file in the user's cache folder ($XDG_CACHE_HOME/auditscope, else
// ~/.cache/auditscope), named by this program's build: the demo is made by
// the program's code, so any change to the code is a new name and a stale
// demo is never served. "" when there is no cache folder.
func demoCachePath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	id, err := buildID(exe)
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "auditscope", "demo-"+id+".duckdb")
}

// buildID names the program's build: Go's build ID note (which changes
// with any input of the build), read in microseconds; else a digest of the
// whole file (a third of a second for 100 MB).
func buildID(exe string) (string, error) {
	if f, err := elf.Open(exe); err == nil {
		defer f.Close()
		for _, name := range []string{".note.go.buildid", ".note.gnu.build-id"} {
			if s := f.Section(name); s != nil {
				if b, err := s.Data(); err == nil && len(b) > 16 {
					sum := sha256.Sum256(b)
					return hex.EncodeToString(sum[:12]), nil
				}
			}
		}
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}

// openDemo opens the built-in demo: the copy an earlier start of the same
// build kept (read-only, in well under a second), else built in memory,
// saying every demoBuildEvery that it still is, and kept for the next start
// once it is served (save runs it; nil when nothing is to be kept).
func openDemo(ctx context.Context, cache string, memLimit string, stderr io.Writer, logger *slog.Logger) (store *data.Store, save func(context.Context), err error) {
	if cache != "" {
		if _, err := os.Stat(cache); err == nil {
			store, err := data.Open(ctx, data.Options{Path: cache, ReadOnly: true, MemoryLimit: memLimit})
			if err == nil {
				reopenDemo(store)
				fmt.Fprintf(stderr, "auditscope: starting: the built-in demo, as built on an earlier start (%s)\n", cache)
				return store, nil, nil
			}
			// Unreadable (another DuckDB, a disk error): built again.
			logger.Warn("the kept demo cannot be opened; building it again", "file", cache, "err", err)
			os.Remove(cache)
		}
	}
	fmt.Fprintln(stderr, "auditscope: starting: building the built-in demo in memory (a few seconds, once: later starts reuse it); auditscope --help for your own data")
	if store, err = data.Open(ctx, data.Options{MemoryLimit: memLimit}); err != nil {
		return nil, nil, err
	}
	// A server's queries free buffers the next ones need again: kept, not
	// returned to the system and faulted in anew.
	data.KeepFreedPages() // before the import: it puts back what it found
	start := time.Now()
	tick := time.NewTicker(demoBuildEvery)
	built := make(chan struct{})
	go func() {
		for {
			select {
			case <-built:
				return
			case <-tick.C:
				fmt.Fprintf(stderr, "auditscope: still building the demo (%s)\n", time.Since(start).Round(time.Second))
			}
		}
	}()
	results, err := loadDemo(ctx, store)
	tick.Stop()
	close(built)
	if err != nil {
		store.Close()
		return nil, nil, fmt.Errorf("load demo: %w", err)
	}
	for _, r := range results {
		logger.Info("demo loaded", "what", r.String())
	}
	return store, func(ctx context.Context) { keepDemo(ctx, store, cache, logger) }, nil
}

// keepDemo finishes the demo's derived tables and saves it for the next
// start; older builds' demos in the folder go.
func keepDemo(ctx context.Context, store *data.Store, cache string, logger *slog.Logger) {
	if err := store.BuildPendingScores(ctx); err != nil {
		if ctx.Err() == nil {
			logger.Warn("build the demo's score table", "err", err)
		}
		return
	}
	if cache == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(cache), 0o755); err != nil {
		logger.Warn("keep the demo for the next start", "err", err)
		return
	}
	if err := store.SaveCopy(ctx, cache); err != nil {
		if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
			logger.Warn("keep the demo for the next start", "err", err)
		}
		return
	}
	// Older builds' demos, and what their starts left (a copy cut short
	// by a kill, spill files), go.
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(cache), "demo-*"))
	for _, p := range old {
		if p != cache && p != cache+".tmp" {
			os.RemoveAll(p)
		}
	}
	logger.Info("demo kept for the next start", "file", cache)
}
