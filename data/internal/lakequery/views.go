package lakequery

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// FileView is a table served from Parquet files: one per dataset or
// experiment (Parts), named in the table's partition column Key.
type FileView struct {
	Table, Key string
	Parts      []FilePart
}

// FilePart is one dataset's or experiment's file of a table, with its
// lake generation (16 hex digits).
type FilePart struct{ Name, Gen, File string }

// GenID is a generation as the number the tables' generation columns hold:
// its first 7 hex digits, a positive INTEGER. Only a dataset's or
// experiment's own generations are compared (the pairs cache keys by it),
// so 28 bits of a hash tell them apart.
func GenID(gen string) int64 {
	v, _ := strconv.ParseInt(gen[:7], 16, 64)
	return v + 1
}

// Views are the statements that make each table a view over the named
// generations' files, with the table's own columns in their order: the
// partition key and the generation come from the manifest, the rest from
// the file; replacing says the tables are views already. A file that is
// missing or not Parquet fails here, named (dir is the lake's), before
// anything is swapped.
func (c *Columns) Views(ctx context.Context, db *sql.DB, dir string, views []FileView, replacing bool) ([]string, error) {
	var stmts []string
	for _, t := range views {
		cols, err := c.of(ctx, db, t.Table)
		if err != nil {
			return nil, err
		}
		var parts []string
		for _, part := range t.Parts {
			sel := make([]string, len(cols))
			for i, c := range cols {
				sel[i] = fileColumn(t, part, c)
			}
			parts = append(parts, "SELECT "+strings.Join(sel, ", ")+" FROM read_parquet("+Quote(globEscape(part.File))+")")
		}
		if replacing {
			stmts = append(stmts, "DROP VIEW "+t.Table)
		} else {
			stmts = append(stmts, "DROP TABLE "+t.Table)
		}
		if len(parts) == 0 {
			// Nothing of this family: an empty relation of the table's shape.
			sel := make([]string, len(cols))
			for i, c := range cols {
				sel[i] = "NULL::" + c.typ + " AS " + c.name
			}
			parts = []string{"SELECT " + strings.Join(sel, ", ") + " WHERE false"}
		}
		stmts = append(stmts, "CREATE VIEW "+t.Table+" AS "+strings.Join(parts, " UNION ALL "))
	}
	// Check every file once, outside the swap: a missing or corrupt file
	// is named here and nothing changes.
	for _, q := range stmts {
		if !strings.HasPrefix(q, "CREATE VIEW ") {
			continue
		}
		body := strings.TrimPrefix(q, "CREATE VIEW ")
		body = body[strings.Index(body, " AS ")+4:]
		if _, err := db.ExecContext(ctx, "SELECT count(*) FROM ("+body+")"); err != nil {
			// DuckDB's message names the file; the SQL it quotes after it
			// is ours, not the reader's business.
			msg, _, _ := strings.Cut(err.Error(), "\n\nLINE ")
			return nil, fmt.Errorf("lake %s: %s", dir, strings.TrimSpace(msg))
		}
	}
	return stmts, nil
}

// fileColumn is column c of table t as a view over part's file selects it.
func fileColumn(t FileView, part FilePart, c column) string {
	switch c.name {
	case t.Key:
		return Quote(part.Name) + " AS " + c.name
	case "gen", "import_id":
		return strconv.FormatInt(GenID(part.Gen), 10) + "::" + c.typ + " AS " + c.name
	case "zjson":
		// A lake holds transcripts as text (CopySQL).
		return "NULL::" + c.typ + " AS " + c.name
	case "slot":
		// Without score columns (storeOnlyColumns).
		return "NULL::" + c.typ + " AS " + c.name
	case "transcript_file":
		// A lake holds its transcripts; a path a writer put here would
		// make every server read that file off its disk.
		return "NULL::" + c.typ + " AS " + c.name
	}
	if t.Table == "audits" && strings.HasPrefix(c.name, "score_") {
		return "NULL::" + c.typ + " AS " + c.name
	}
	return c.name
}

// globEscape is a file path as DuckDB's file readers take it literally:
// read_parquet() reads a path with *, ? or [ as a glob pattern, so a lake
// in a folder named l*ke would read its neighbours' files too. Each such
// character is put in a bracket of its own ([*] matches only *).
func globEscape(p string) string {
	var b strings.Builder
	for _, r := range p {
		switch r {
		case '*', '?', '[':
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
