package main

import (
	"context"
	"fmt"
	"io"
	"os"
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
	if err != nil || st.IsDir() || st.Size() <= 16<<20 {
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
