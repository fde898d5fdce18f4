// Package imports writes imports into the store's database so that each
// lands whole or not at all, even when the process is killed while DuckDB
// commits: the transaction an importer appends its rows in (Tx, which is
// the loaders' load.Tx), the claim of a dataset's or experiment's name, the
// generation protocol that marks an import complete only after its rows
// commit and removes what it replaces only after that (generations.go), and
// batches of imports that land together (batch.go). The store (package
// data) holds a Writer; nothing else writes imports.
package imports

import (
	"database/sql"
	"errors"

	"github.com/auditscope/auditscope/data/internal/memlimit"
)

// ErrReadOnly is returned by writes to a store opened read-only.
var ErrReadOnly = errors.New("database is read-only")

// Writer writes imports into one database.
type Writer struct {
	DB *sql.DB
	// Mem is the store's memory governor: an appender raises DuckDB's limit
	// for a row too large for an import's lowered one.
	Mem *memlimit.Governor
	// ReadOnly reports whether the store takes no writes.
	ReadOnly func() bool
	// Land holds the store's readers back until the returned function is
	// called: from an import's commit until it is marked and what it
	// replaces is gone.
	Land func() (release func())
	// Landed moves the version of a dataset or experiment whose data
	// changed.
	Landed func(name string)
}
