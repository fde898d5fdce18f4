package data

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/auditscope/auditscope/data/model"
)

// A batch makes several imports (auditscope import with many PATHs) land
// whole or not at all, as one import does. Each import commits its rows as
// usual, but its generation is not marked (its imports row is not written)
// until every import of the batch has committed; then all are marked in one
// transaction. An import that fails drops the generations committed before
// it; a process killed in between leaves unmarked generations, which the
// next Open removes, as it does a single killed import's (generations.go).
type importBatch struct {
	mu     sync.Mutex
	landed []batchImport
	names  map[string]bool // family + "\x00" + name, claimed in this batch
}

// batchImport is one import of a batch, committed and waiting to be marked.
type batchImport struct {
	gen        int64
	marker     *importMarker
	superseded []int64
}

type batchKey struct{}

func batchOf(ctx context.Context) *importBatch {
	b, _ := ctx.Value(batchKey{}).(*importBatch)
	return b
}

// errBatchName is a name two imports of one batch would both take.
var errBatchName = errors.New("another file of this import takes the same name")

// claimName records that an import of the batch takes name; a name taken
// already by another import of the batch is errBatchName.
func (b *importBatch) claimName(kind, name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := familySQLName(kind) + "\x00" + name
	if b.names[k] {
		return errBatchName
	}
	b.names[k] = true
	return nil
}

// familySQLName is the kind family an import's name lives in: datasets and
// experiments have names of their own.
func familySQLName(kind string) string {
	if isExperimentKind(kind) {
		return "experiment"
	}
	return "dataset"
}

// ImportAll imports every path, each with the options opts gives it, as one
// batch: all of them land, or none does.
func (s *Store) ImportAll(ctx context.Context, paths []string, opts func(path string) ImportOptions) ([]model.ImportResult, error) {
	b := &importBatch{names: map[string]bool{}}
	bctx := context.WithValue(ctx, batchKey{}, b)
	var out []model.ImportResult
	for _, p := range paths {
		rs, err := s.Import(bctx, p, opts(p))
		if err != nil {
			return nil, errors.Join(err, s.dropBatch(ctx, b))
		}
		out = append(out, rs...)
	}
	if err := s.markBatch(ctx, b); err != nil {
		return nil, err
	}
	return out, nil
}

// dropBatch removes the rows of a failed batch's committed imports.
func (s *Store) dropBatch(ctx context.Context, b *importBatch) error {
	var gens []int64
	for _, l := range b.landed {
		gens = append(gens, l.gen)
	}
	if len(gens) == 0 {
		return nil
	}
	if err := s.dropGenerations(context.WithoutCancel(ctx), gens); err != nil {
		return fmt.Errorf("the rows of the files imported before it are removed when the database is next opened: %w", err)
	}
	return nil
}

// markBatch marks every import of b in one transaction, then deletes what
// they replace.
func (s *Store) markBatch(ctx context.Context, b *importBatch) error {
	if len(b.landed) == 0 {
		return nil
	}
	bg := context.WithoutCancel(ctx)
	defer s.ver.land()()
	tx, err := s.db.BeginTx(bg, nil)
	if err != nil {
		return errors.Join(fmt.Errorf("data: import: %w", err), s.dropBatch(ctx, b))
	}
	for _, l := range b.landed {
		m := l.marker
		if _, err := tx.ExecContext(bg, `INSERT INTO imports (id, kind, name, source, hash, rows, detail, imported_at, base) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			l.gen, m.kind, m.name, m.source, m.hash, m.result.Rows, m.detail, m.at, m.base); err != nil {
			tx.Rollback()
			return errors.Join(fmt.Errorf("data: import: %w: record import: %w", errCommit, err), s.dropBatch(ctx, b))
		}
	}
	if err := tx.Commit(); err != nil {
		return errors.Join(fmt.Errorf("data: import: %w: %w", errCommit, err), s.dropBatch(ctx, b))
	}
	var superseded []int64
	for _, l := range b.landed {
		superseded = append(superseded, l.superseded...)
		s.landed(l.marker.name)
	}
	if err := s.dropGenerations(bg, superseded); err != nil {
		return fmt.Errorf("data: the imports landed, but the rows they replace were not removed (they are when the database is next opened): %w", err)
	}
	return nil
}
