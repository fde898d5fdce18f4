package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/model"
)

// progressEvery is how often an import off a terminal says how far it is
// (a test shortens it).
var progressEvery = 5 * time.Second

// importWithProgress imports path, saying how far it is for inputs over
// 16 MB: a bar when stderr is a terminal, else a line every progressEvery
// (a log file or a CI job showed nothing until the end). The formats that
// read one file as a stream report it (AnnotatedPairs, preference CSV).
func importWithProgress(ctx context.Context, store *data.Store, path string, opts data.ImportOptions, stderr io.Writer) ([]model.ImportResult, error) {
	st, err := os.Stat(path)
	if err != nil || st.Size() <= 16<<20 && !st.IsDir() {
		return store.Import(ctx, path, opts)
	}
	if st.IsDir() {
		// A folder (a bundle, Petri transcripts, Inspect logs): no byte
		// count to show, only that it goes on.
		defer working(stderr, "importing "+path)()
		return store.Import(ctx, path, opts)
	}
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		bar := progressbar.NewOptions64(st.Size(),
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("importing "+path),
			progressbar.OptionShowBytes(true),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond))
		opts.Progress = func(done, total int64) { bar.Set64(done) }
		defer bar.Finish()
		return store.Import(ctx, path, opts)
	}
	last := time.Now()
	opts.Progress = func(done, total int64) {
		if now := time.Now(); now.Sub(last) >= progressEvery && done < total {
			last = now
			fmt.Fprintf(stderr, "auditscope: importing %s: %s of %s (%d%%)\n", path, humanSize(done), humanSize(total), done*100/max(total, 1))
		}
	}
	return store.Import(ctx, path, opts)
}

// working says that a long piece of work with no byte count to show (a
// folder imported, a lake written, a demo or an export made, a watched
// folder's first import) is going on: on a terminal a spinner with the
// time taken, else a line every progressEvery ("auditscope: still
// importing runs (15s)"), so a log or a CI job shows the command alive.
// stop ends it, before the command's own last line.
func working(stderr io.Writer, what string) (stop func()) {
	start := time.Now()
	done := make(chan struct{})
	ended := make(chan struct{})
	var tick func()
	finish := func() {}
	every := max(progressEvery, time.Millisecond)
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		bar := progressbar.NewOptions64(-1,
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription(what),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionClearOnFinish())
		every = 100 * time.Millisecond
		tick = func() { bar.Add(1) }
		finish = func() { bar.Finish() }
	} else {
		tick = func() {
			fmt.Fprintf(stderr, "auditscope: still %s (%s)\n", what, time.Since(start).Round(time.Second))
		}
	}
	go func() {
		defer close(ended)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				tick()
			}
		}
	}()
	var once sync.Once // stop may be deferred and called too
	return func() { once.Do(func() { close(done); <-ended; finish() }) }
}
