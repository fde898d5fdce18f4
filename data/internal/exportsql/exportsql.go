// Package exportsql builds the SQL of the audit export's chunks: the
// keyset that starts a chunk after the last audit of the one before, and
// the chunk's scores, packed where they fit. Pure string building, apart
// from the store (package data), which runs it (issue #52).
package exportsql

import (
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/model"
)

// Keyset is the condition "after c" in the order key dir NULLS LAST,
// experiment, ord. key is the sort expression ("" for the default order,
// experiment and ord alone) and keyArgs its arguments, given again for
// each use of it in the condition. oneExp says the filter selects one
// experiment: the order is then by ord alone (auditQuery.orderBy), and so
// is the condition, which DuckDB can then test against each row group's
// range of ord.
func Keyset(c model.AuditCursor, key string, desc bool, keyArgs []any, oneExp bool) (string, []any) {
	tie := "(a.experiment > ? OR (a.experiment = ? AND a.ord > ?))"
	tieArgs := []any{c.Experiment, c.Experiment, c.Ord}
	if oneExp {
		tie, tieArgs = "a.ord > ?", []any{c.Ord}
	}
	if key == "" {
		return tie, tieArgs
	}
	if c.Sort == nil { // among the audits without a value, at the end
		return "(" + key + " IS NULL AND " + tie + ")", append(append([]any{}, keyArgs...), tieArgs...)
	}
	op := " > ?"
	if desc {
		op = " < ?"
	}
	var args []any
	args = append(args, keyArgs...)
	args = append(args, keyArgs...)
	args = append(args, c.Sort)
	args = append(args, keyArgs...)
	args = append(args, c.Sort)
	args = append(args, tieArgs...)
	return "(" + key + " IS NULL OR " + key + op + " OR (" + key + " = ? AND " + tie + "))", args
}

// PerPack is how many scores a BIGINT of an export's chunk holds: 4 bits
// each, its sign bit clear.
const PerPack = model.ScoresPerWord

// ChunkScores is the chunk's query with its audits' scores in dims, from
// src (the chunk's audits, with extra columns): from scores, their SQL
// expressions (with scoreArgs), when every dimension has one, else from
// each audit's JSON.
func ChunkScores(scores []string, scoreArgs []any, n int, dims []string, src func(extra string, extraArgs []any) (string, []any, error)) (string, []any, error) {
	if len(scores) == 0 {
		from, fargs, err := src(`json_transform(a.scores, '"MAP(VARCHAR, DOUBLE)"') AS m`, nil)
		if err != nil {
			return "", nil, err
		}
		return `SELECT c.* EXCLUDE (m), false` + strings.Repeat(", NULL::BIGINT", (n+PerPack-1)/PerPack) +
			`, list_transform(?::VARCHAR[], d -> c.m[d]) FROM (` + from + `) c`, append([]any{dims}, fargs...), nil
	}
	// A row whose scores are all whole numbers from 1 to 15 (judge
	// scores are 1 to 10), or none, gets them packed four bits each
	// into BIGINTs, 15 a number (0 for none), which Go writes as the
	// export's cells (packedCells): the driver hands Go a few numbers
	// instead of a list whose every value it boxes, and the CSV writer
	// has one piece to copy (these 38 or more numbers a row were the
	// export's slowest part; DuckDB writing them as text itself took it
	// 20 ms a chunk). Any other row gets its list, for Go to format.
	named := make([]string, len(scores))
	bare := make([]string, len(scores))
	fits := make([]string, len(scores))
	cols := make([]string, len(scores))
	packs := make([]string, (len(scores)+PerPack-1)/PerPack)
	for i, sc := range scores {
		c := "s" + strconv.Itoa(i)
		named[i], bare[i] = sc+" AS "+c, c
		cols[i] = "c." + c
		fits[i] = "(b." + c + " IS NULL OR (b." + c + " BETWEEN 1 AND 15 AND b." + c + " = trunc(b." + c + ")))"
		// A row that does not fit has its list, and its packs are
		// ignored: TRY_CAST and the mask keep its numbers (NaN, 1e300,
		// -4, which DuckDB refuses to shift) from failing the query.
		term := "coalesce(TRY_CAST(c." + c + " AS BIGINT) & 15, 0)"
		if k := i % PerPack; k > 0 {
			packs[i/PerPack] += " + (" + term + " << " + strconv.Itoa(4*k) + ")"
		} else {
			packs[i/PerPack] = term
		}
	}
	from, fargs, err := src(strings.Join(named, ", "), scoreArgs)
	if err != nil {
		return "", nil, err
	}
	// packed is a column of a query of its own: named in the same select,
	// DuckDB copies its expression into each use, and planning the copies
	// took 30 ms a chunk.
	return `SELECT c.* EXCLUDE (` + strings.Join(bare, ", ") + `, packed), c.packed, ` + strings.Join(packs, ", ") + `,
			CASE WHEN NOT c.packed THEN list_value(` + strings.Join(cols, ", ") + `) END
		FROM (SELECT b.*, ` + strings.Join(fits, " AND ") + ` AS packed FROM (` + from + `) b) c`, fargs, nil
}
