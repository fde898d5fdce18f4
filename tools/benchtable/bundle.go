package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
)

// readJSONArg, as benchtable's first argument, makes it the child process
// that times DuckDB's own reader: `benchtable read-json DB FILE` creates a
// table from FILE with read_json in a new database DB, through duckdb-go
// (the DuckDB the import links), and exits.
const readJSONArg = "read-json"

// readJSON is the read-json child's work.
func readJSON(db, file string) error {
	conn, err := sql.Open("duckdb", db)
	if err != nil {
		return err
	}
	defer conn.Close()
	// The file's name as a SQL string literal (it is benchtable's own).
	lit := "'" + strings.ReplaceAll(file, "'", "''") + "'"
	if _, err := conn.Exec(`CREATE TABLE audits AS SELECT * FROM read_json(` + lit + `)`); err != nil {
		return err
	}
	_, err = conn.Exec(`CHECKPOINT`)
	return err
}

// timeReadJSON runs the read-json child on file into a new database at db
// and measures it as timeImport measures an import.
func timeReadJSON(ctx context.Context, db, file string, stderr io.Writer) (importRun, error) {
	self, err := os.Executable()
	if err != nil {
		return importRun{}, err
	}
	cmd := exec.CommandContext(ctx, self, readJSONArg, db, file)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	return measure(cmd, db, "read_json")
}

// bundleRows times `auditscope import` of a demo bundle of n audits against
// DuckDB's read_json of its audits.jsonl, turn about, runs times each, and
// reports the medians, their ratio, peak memory and the database's size.
func bundleRows(ctx context.Context, bin, out string, n, runs int, log func(string, ...any), stderr io.Writer) ([]row, error) {
	dir, err := filepath.Abs(filepath.Join(out, "bundle-"+strconv.Itoa(n)))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "audits.jsonl")); err != nil {
		log("writing %s with auditscope demo --audits %d", dir, n)
		os.RemoveAll(dir)
		if err := runCmd(ctx, stderr, nil, bin, "demo", "--audits", strconv.Itoa(n), "--out", dir); err != nil {
			return nil, fmt.Errorf("generate the bundle: %w", err)
		}
	}
	st, err := os.Stat(filepath.Join(dir, "audits.jsonl"))
	if err != nil {
		return nil, err
	}
	fileMB := float64(st.Size()) / (1 << 20)
	db := filepath.Join(out, "bundle.duckdb")
	var ours, theirs []importRun
	var readErr error
	var dbMB float64
	for i := range runs {
		log("auditscope import of %d audits (run %d of %d)", n, i+1, runs)
		r, err := timeImport(ctx, bin, db, dir, stderr)
		if err != nil {
			return nil, err
		}
		ours = append(ours, r)
		if st, err := os.Stat(db); err == nil {
			dbMB = float64(st.Size()) / (1 << 20)
		}
		log("DuckDB's read_json of the same audits.jsonl (run %d of %d)", i+1, runs)
		t, err := timeReadJSON(ctx, filepath.Join(out, "readjson.duckdb"), filepath.Join(dir, "audits.jsonl"), stderr)
		if err != nil {
			// read_json infers the columns from the first 20,480 lines; in
			// the million-audit bundle a field first appears later, and it
			// refuses the file. The import's figures still stand.
			log("read_json failed: %v", err)
			readErr = err
			continue
		}
		theirs = append(theirs, t)
	}
	os.Remove(filepath.Join(out, "readjson.duckdb"))
	a := medianImport(ours)
	var rows []row
	if len(theirs) == 0 {
		rows = append(rows, row{What: fmt.Sprintf("bundle import (%d audits, audits.jsonl %.0f MiB) against DuckDB's read_json of its audits.jsonl", n, fileMB),
			Target: "≤ 100% of read_json's time, peak RSS ≤ 600 MB", NA: true,
			Measured: fmt.Sprintf("%.1f s, peak RSS %.0f MiB; read_json refused the file: %v", a.wall.Seconds(), a.rssMB, readErr)})
	} else {
		b := medianImport(theirs)
		ratio := a.wall.Seconds() / b.wall.Seconds()
		rows = append(rows, row{
			What:   fmt.Sprintf("bundle import (%d audits, audits.jsonl %.0f MiB) against DuckDB's read_json of its audits.jsonl (median of %d each)", n, fileMB, runs),
			Target: "≤ 100% of read_json's time, peak RSS ≤ 600 MB",
			Measured: fmt.Sprintf("%.0f%%: %.1f s against %.1f s; peak RSS %.0f MiB against %.0f MiB; database %.0f MiB",
				100*ratio, a.wall.Seconds(), b.wall.Seconds(), a.rssMB, b.rssMB, dbMB),
			OK: ratio <= 1 && a.rssMB <= 600,
		})
	}
	if n >= 1000000 {
		rows = append(rows, row{What: fmt.Sprintf("import of %d audits", n), Target: "≤ 5 min, peak RSS ≤ 1 GB",
			Measured: fmt.Sprintf("%.0f s, peak RSS %.0f MiB, database %.0f MiB", a.wall.Seconds(), a.rssMB, dbMB),
			OK:       a.wall <= 5*time.Minute && a.rssMB <= 1000})
	}
	return rows, nil
}
