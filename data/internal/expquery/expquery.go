// Package expquery holds the store's reads of an experiment's runs,
// scorers, Inspect samples and the home page's summary. The store embeds
// its Experiments, so they are the store's methods; they live here so
// that the store's root package keeps to its own jobs (issue #52).
package expquery

import (
	"database/sql"

	"github.com/auditscope/auditscope/data/model"
)

// The model's types, by the names the queries use.
type (
	Run          = model.Run
	SideJudgment = model.SideJudgment
)

// Experiments reads from the store's database.
type Experiments struct{ db *sql.DB }

// New is an Experiments of db.
func New(db *sql.DB) Experiments { return Experiments{db: db} }
