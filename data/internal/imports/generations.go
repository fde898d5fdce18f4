package imports

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Imports are crash-safe by design, not by DuckDB's recovery alone (which
// can bring back bulk-appended blocks of a transaction killed while it
// committed, duckdb/duckdb#25931):
//
//  1. every row an import writes carries its generation, gen: the id its
//     imports row will have (dataset and experiment rows keep it in
//     import_id);
//  2. the rows go in one transaction, and only once it has committed does a
//     second, small transaction insert the imports row: that row marks the
//     generation complete;
//  3. --replace writes the new generation beside the old one, marks it, and
//     only then deletes the old generation;
//  4. opening a database deletes every row whose generation has no imports
//     row and every generation superseded by a newer one of the same name,
//     so a kill at any point leaves exactly the old state or the new one.

// genTables are the tables whose rows carry a gen column.
var genTables = []string{
	"ap_annotators", "ap_comparisons", "ap_meta",
	"behaviors", "runs", "auditors", "audits", "audit_scores", "audit_transcripts",
	"judgments", "crux", "metrics", "experiment_dimensions",
	"inspect_logs", "sample_scores", "verdicts", "verdict_scores", "verdict_outcomes",
}

// rootTables hold one row per dataset or experiment, with the generation in
// import_id.
var rootTables = []string{"ap_datasets", "experiments"}

// FamilySQL names an import's namespace: datasets and experiments are named
// separately (see Family).
const FamilySQL = `CASE WHEN kind IN ('bundle', 'petri', 'inspect') THEN 'experiment' ELSE 'dataset' END`

// incompleteSQL selects, per table, the rows of generations that are not
// complete: never marked, or superseded by a newer generation of the same
// name.
func incompleteSQL(table string) string {
	col := "gen"
	if table == "ap_datasets" || table == "experiments" {
		col = "import_id"
	}
	// Table and column names come from the fixed lists above, never from input.
	return ` FROM ` + table + ` WHERE ` + col + ` IS NULL OR ` + col + ` NOT IN (SELECT id FROM live_imports)`
}

// LiveImportsCTE defines live_imports: the newest complete full import of
// each name, and the appends that extend it (imports.base).
const LiveImportsCTE = `WITH heads AS (SELECT max(id) AS id FROM imports WHERE base IS NULL GROUP BY name, ` + FamilySQL + `), ` +
	`live_imports AS (SELECT id FROM heads UNION ALL SELECT i.id FROM imports i JOIN heads h ON i.base = h.id) `

// Collect deletes the rows of incomplete and superseded
// generations and the imports rows of superseded ones, in one transaction.
// It is meant for Open, when no import is running: an import in flight has
// committed rows that are not marked yet.
func Collect(ctx context.Context, db *sql.DB) (removed int64, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	for _, t := range append(append([]string{}, genTables...), rootTables...) {
		res, err := tx.ExecContext(ctx, LiveImportsCTE+`DELETE`+incompleteSQL(t))
		if err != nil {
			return 0, fmt.Errorf("remove incomplete imports from %s: %w", t, err)
		}
		n, _ := res.RowsAffected()
		removed += n
	}
	res, err := tx.ExecContext(ctx, LiveImportsCTE+`DELETE FROM imports WHERE id NOT IN (SELECT id FROM live_imports)`)
	if err != nil {
		return 0, fmt.Errorf("remove superseded imports: %w", err)
	}
	n, _ := res.RowsAffected()
	removed += n
	if removed == 0 {
		return 0, nil // nothing written: skip the commit
	}
	return removed, tx.Commit()
}

// Incomplete counts the rows a read-write open would remove, for
// a read-only open, which cannot remove them.
func Incomplete(ctx context.Context, db *sql.DB) (int64, error) {
	var parts []string
	for _, t := range append(append([]string{}, genTables...), rootTables...) {
		parts = append(parts, `(SELECT count(*)`+incompleteSQL(t)+`)`)
	}
	var n int64
	err := db.QueryRowContext(ctx, LiveImportsCTE+`SELECT `+strings.Join(parts, " + ")).Scan(&n)
	return n, err
}

// drop deletes the given generations' rows (superseded by a
// --replace that has been marked complete, or a generation whose marker
// could not be written) and their imports rows, in one transaction.
func (w *Writer) drop(ctx context.Context, gens []int64) error {
	if len(gens) == 0 {
		return nil
	}
	tx, err := w.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range append(append([]string{"imports"}, genTables...), rootTables...) {
		col := "gen"
		switch t {
		case "imports":
			col = "id"
		case "ap_datasets", "experiments":
			col = "import_id"
		}
		// Table and column names come from the fixed lists above.
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE `+col+` IN (SELECT unnest(?::BIGINT[]))`, gens); err != nil {
			return fmt.Errorf("remove generation from %s: %w", t, err)
		}
	}
	return tx.Commit()
}
