package imports

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// A batch makes several imports (auditscope import with many PATHs) land
// whole or not at all, as one import does. Each import commits its rows as
// usual, but its generation is not marked (its imports row is not written)
// until every import of the batch has committed; then all are marked in one
// transaction. An import that fails drops the generations committed before
// it; a process killed in between leaves unmarked generations, which the
// next Open removes, as it does a single killed import's (generations.go).
type Batch struct {
	mu     sync.Mutex
	landed []batchImport
	names  map[string]bool // family + "\x00" + name, claimed in this batch
}

// batchImport is one import of a batch, committed and waiting to be marked.
type batchImport struct {
	gen        int64
	marker     *marker
	superseded []int64
}

type batchKey struct{}

// WithBatch starts a batch: the imports run with the context it returns
// land together when MarkBatch marks them (or none, after DropBatch).
func WithBatch(ctx context.Context) (context.Context, *Batch) {
	b := &Batch{names: map[string]bool{}}
	return context.WithValue(ctx, batchKey{}, b), b
}

func batchOf(ctx context.Context) *Batch {
	b, _ := ctx.Value(batchKey{}).(*Batch)
	return b
}

// errBatchName is a name two imports of one batch would both take.
var errBatchName = errors.New("another file of this import takes the same name")

// claimName records that an import of the batch takes name; a name taken
// already by another import of the batch is errBatchName.
func (b *Batch) claimName(kind, name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := familyName(kind) + "\x00" + name
	if b.names[k] {
		return errBatchName
	}
	b.names[k] = true
	return nil
}

// familyName is the kind family an import's name lives in: datasets and
// experiments have names of their own.
func familyName(kind string) string {
	if isExperiment(kind) {
		return "experiment"
	}
	return "dataset"
}

// DropBatch removes the rows of a failed batch's committed imports.
func (w *Writer) DropBatch(ctx context.Context, b *Batch) error {
	var gens []int64
	for _, l := range b.landed {
		gens = append(gens, l.gen)
	}
	if len(gens) == 0 {
		return nil
	}
	if err := w.drop(context.WithoutCancel(ctx), gens); err != nil {
		return fmt.Errorf("the rows of the files imported before it are removed when the database is next opened: %w", err)
	}
	return nil
}

// MarkBatch marks every import of b in one transaction, then deletes what
// they replace.
func (w *Writer) MarkBatch(ctx context.Context, b *Batch) error {
	if len(b.landed) == 0 {
		return nil
	}
	bg := context.WithoutCancel(ctx)
	defer w.Land()()
	tx, err := w.DB.BeginTx(bg, nil)
	if err != nil {
		return errors.Join(fmt.Errorf("data: import: %w", err), w.DropBatch(ctx, b))
	}
	for _, l := range b.landed {
		if err := insertMark(bg, tx, l.gen, l.marker); err != nil {
			tx.Rollback()
			return errors.Join(fmt.Errorf("data: import: %w: record import: %w", ErrCommit, err), w.DropBatch(ctx, b))
		}
	}
	if err := tx.Commit(); err != nil {
		return errors.Join(fmt.Errorf("data: import: %w: %w", ErrCommit, err), w.DropBatch(ctx, b))
	}
	var superseded []int64
	for _, l := range b.landed {
		superseded = append(superseded, l.superseded...)
		w.Landed(l.marker.name)
	}
	if err := w.drop(bg, superseded); err != nil {
		return fmt.Errorf("data: the imports landed, but the rows they replace were not removed (they are when the database is next opened): %w", err)
	}
	return nil
}
