package imports

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/model"
)

// Claim decides what an import may do with the name it targets: a no-op when
// the same content is there (load.ErrUnchanged), an error when other content is
// there and replace is off. With replace on, the old generation stays until
// the new one is marked complete, and inImport deletes it then.
func (tx *Tx) Claim(kind, name, hash string, replace bool) error {
	return tx.ClaimLater(kind, name, func() (string, error) { return hash, nil }, replace)
}

// ClaimLater is claim for an import whose hash is still being worked out:
// it waits for it only when the name was imported before.
func (tx *Tx) ClaimLater(kind, name string, hashOf func() (string, error), replace bool) error {
	if b := batchOf(tx.ctx); b != nil {
		if err := b.claimName(kind, name); err != nil {
			return fmt.Errorf("%w: %s %q: %w; give one of them another name (import it alone with --name)", load.ErrExists, familyName(kind), name, err)
		}
	}
	var oldHash, oldSource string
	var oldID int64
	err := tx.conn.QueryRowContext(tx.ctx,
		`SELECT id, hash, source FROM imports WHERE name = ? AND base IS NULL AND kind IN (SELECT unnest(?::VARCHAR[])) ORDER BY id DESC LIMIT 1`,
		name, Family(kind)).Scan(&oldID, &oldHash, &oldSource)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("check existing %s: %w", name, err)
	}
	var appends int
	if err := tx.conn.QueryRowContext(tx.ctx, `SELECT count(*) FROM imports WHERE base = ?`, oldID).Scan(&appends); err != nil {
		return fmt.Errorf("check existing %s: %w", name, err)
	}
	hash, err := hashOf()
	if err != nil {
		return err
	}
	// Appends make the content differ from the base's hash.
	if oldHash == hash && appends == 0 {
		return load.ErrUnchanged
	}
	if !replace {
		// --replace is offered only for a new version of the same input:
		// for another input that happens to take the name (another run of
		// a task, a folder of the same name elsewhere) it would drop that
		// one's data.
		what := familyName(kind)
		if !sameSource(oldSource, tx.source) {
			return fmt.Errorf("%w: %s %q holds another input already (%s); import this one under another name with --name (--replace would drop that %s)", load.ErrExists, what, name, oldSource, what)
		}
		return fmt.Errorf("%w: %s %q was imported before from %s with different content; use --replace to replace it", load.ErrExists, what, name, oldSource)
	}
	tx.superseded = append(tx.superseded, oldID)
	// Its appends go with it.
	rows, err := tx.conn.QueryContext(tx.ctx, `SELECT id FROM imports WHERE base = ?`, oldID)
	if err != nil {
		return fmt.Errorf("check existing %s: %w", name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		tx.superseded = append(tx.superseded, id)
	}
	return rows.Err()
}

func isExperiment(kind string) bool {
	return kind == model.KindBundle || kind == model.KindPetri || kind == model.KindInspect
}

// Family lists the kinds that share a namespace with kind: datasets and
// experiments are named separately.
func Family(kind string) []string {
	if isExperiment(kind) {
		return []string{model.KindBundle, model.KindPetri, model.KindInspect}
	}
	return []string{model.KindAnnotatedPairs, model.KindPreferenceCSV}
}

// Record keeps the imports row, which inImport writes once the import's
// rows have committed, and returns its id: the import's generation. The
// row count is read from r then, as the importer sets it last.
func (tx *Tx) Record(r *model.ImportResult) (int64, error) {
	detail, err := json.Marshal(map[string]any{"counts": r.Counts, "notes": r.Notes})
	if err != nil {
		return 0, err
	}
	if tx.as != "" {
		r.Source = tx.as
	}
	tx.marker = &marker{kind: r.Kind, name: r.Name, source: r.Source, hash: r.Hash, result: r, detail: string(detail), at: time.Now().UTC()}
	return tx.gen, nil
}

// sameSource reports whether two import sources name the same input: the
// same path, or the same file or folder reached another way.
func sameSource(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
