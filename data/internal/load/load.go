// Package load is what an importer sees of the store while it writes one
// import: a transaction that appends rows to the store's tables, claims the
// dataset's or experiment's name and records the import, and lands whole or
// not at all (docs/ARCHITECTURE.md, "Imports"). The store (package data)
// implements it; each format's loader (data/annotatedpairs, data/bundle)
// writes through it, beside its decoder, and needs no DuckDB.
package load

import (
	"database/sql/driver"
	"errors"

	"github.com/auditscope/auditscope/data/model"
)

// ErrUnchanged aborts an import whose content is already in the store.
var ErrUnchanged = errors.New("unchanged")

// ErrExists is an import that would overwrite a dataset or experiment of
// the same name with different content, --replace not given.
var ErrExists = errors.New("already exists")

// Appender appends rows to one table of the import.
type Appender interface {
	// Row appends one row in the table's column order, without the
	// generation column (last in every table), which the store adds.
	Row(values ...driver.Value) error
	// Close flushes the rows; closing twice is a no-op.
	Close() error
}

// Tx is one import's transaction. Its statements other than appends are
// the store's: each format's Tx adds the few it needs as named methods, so
// that SQL stays in package data.
type Tx interface {
	// Gen is the import's generation, which every row it writes carries.
	Gen() int64
	// SetSource names the input as the import's record will, for a claim's
	// message when the name holds another input.
	SetSource(name string)
	// Appender opens an appender on a table.
	Appender(table string) (Appender, error)
	// Claim takes a name of the kind's family for the import: ErrUnchanged
	// when the same content is there, an error wrapping ErrExists when other
	// content is and replace is off (with replace, the old generation goes
	// once this one lands).
	Claim(kind, name, hash string, replace bool) error
	// ClaimLater is Claim for an import whose hash is still being worked
	// out: hashOf is called only when the name was imported before.
	ClaimLater(kind, name string, hashOf func() (string, error), replace bool) error
	// Record keeps r as the import's record, written once its rows commit
	// (its Rows read then), and returns the import's id.
	Record(r *model.ImportResult) (int64, error)
	// Rows is the number of rows appended so far.
	Rows() int64
}

// NullString maps "" to NULL.
func NullString(s string) driver.Value {
	if s == "" {
		return nil
	}
	return s
}

// MemoryTranscript, as an audit's transcript file, marks an audit whose
// transcript the store serves from memory (the built-in demo's).
const MemoryTranscript = "memory:"

// ScoreSlots is how many of an experiment's judge dimensions get a column of
// the audits table of their own (score_0 …, migration 009): the first ones
// met, in file order. A dimension past them has no slot and is read from
// audit_scores.
const ScoreSlots = 48

// AllScores is a query of every judge score of the experiments cond selects
// (an SQL condition on a column experiment), as rows of audit_scores
// (experiment, audit, dimension, score, gen): the rows of audit_scores and
// the scores in the score columns, which audit_scores leaves out.
func AllScores(cond string) string {
	return `SELECT experiment, audit, dimension, score, gen FROM audit_scores WHERE ` + cond + `
UNION ALL
SELECT u.experiment, u.id, d.dimension, u.score, u.gen
FROM (UNPIVOT (SELECT experiment, id, gen, COLUMNS('^score_[0-9]+$') FROM audits WHERE ` + cond + `)
      ON COLUMNS('^score_[0-9]+$') INTO NAME col VALUE score) u
JOIN (SELECT DISTINCT experiment, dimension, 'score_' || slot AS col FROM experiment_dimensions WHERE slot IS NOT NULL AND ` + cond + `) d
  ON d.experiment = u.experiment AND d.col = u.col`
}
