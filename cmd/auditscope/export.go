package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/web"
)

func exportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("export", "Usage: auditscope export [--db FILE] URLPATH --out FILE\n\nWrites what the dashboard serves at URLPATH (a figure or a CSV, e.g.\n/experiments/demo/scores.csv) to FILE, without starting a server.\nWith no --db it exports from the built-in demo.\n", stdout, stderr)
	dbPath := fs.String("db", "", "DuckDB database `file` (read-only); empty: the built-in demo")
	out := fs.String("out", "", "output `file` (required; - for stdout)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	paths, err := interleave(fs, args)
	if err != nil {
		return err
	}
	if len(paths) != 1 || *out == "" {
		return usageError{"export needs one URLPATH and --out FILE"}
	}
	stop := working(stderr, "exporting "+paths[0])
	defer stop()
	var store *data.Store
	var keep func(context.Context)
	if *dbPath == "" {
		// The demo an earlier start (serve's or export's) kept, else built
		// now and kept after the export for the next: each export built
		// the whole demo again, seconds each.
		store, keep, err = openDemo(ctx, demoCachePath(), "", io.Discard, slog.New(slog.NewTextHandler(io.Discard, nil)))
	} else {
		store, err = data.Open(ctx, data.Options{Path: *dbPath, ReadOnly: true})
	}
	if err != nil {
		return err
	}
	defer store.Close()
	if keep != nil {
		defer keep(ctx) // after the export is written, before the store closes
	}
	srv := web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})
	body, status, ctype, err := web.Get(srv.Handler(), paths[0])
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d %s", paths[0], status, strings.Join(strings.Fields(string(body)), " "))
	}
	// A page is not what export is for; it is written only when asked for
	// by name.
	if strings.HasPrefix(ctype, "text/html") && !strings.HasSuffix(strings.ToLower(*out), ".html") {
		return fmt.Errorf("%s is a page, not a figure or a table: export the figures (.png, .svg, .pdf) and tables (.csv) it links to, or give --out FILE.html to save the page", paths[0])
	}
	if *out == "-" {
		_, err = stdout.Write(body)
		return err
	}
	// Written beside and renamed: a failed write leaves no half file.
	if err := writeFileAtomic(*out, func(w io.Writer) error { _, err := w.Write(body); return err }); err != nil {
		return err
	}
	// One line saying what was done: the export was silent on success.
	what := ctype
	if strings.HasPrefix(ctype, "text/csv") {
		if rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll(); err == nil && len(rows) > 0 {
			what = fmt.Sprintf("CSV, %d rows and a header", len(rows)-1)
		}
	}
	stop()
	fmt.Fprintf(stderr, "auditscope: wrote %s (%s, %s)\n", *out, humanSize(int64(len(body))), what)
	return nil
}
