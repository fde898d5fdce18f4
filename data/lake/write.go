package lake

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"time"
)

// Generation is one dataset or experiment of a store with its lake
// generation and when its newest import landed (RFC 3339, UTC).
type Generation struct{ Family, Name, Gen, Imported string }

// What names the dataset or experiment: "dataset NAME".
func (g Generation) What() string { return g.Family + " " + g.Name }

// Result says what a lake write did.
type Result struct {
	Written, Unchanged []string // "dataset NAME" or "experiment NAME"
}

// WriteOptions control a lake write.
type WriteOptions struct {
	// Force writes a dataset or experiment even where the lake holds a newer
	// import of it (a roll-back the user means).
	Force bool
	// Log, when set, is told what the write did besides writing: a writer
	// lock taken over from a writer that is gone.
	Log func(string)
}

// RollbackError is a lake write refused because it would put an older
// import of a dataset or experiment in place of a newer one.
type RollbackError struct {
	What               string // "dataset NAME" or "experiment NAME"
	Gen, LakeGen       string // this store's generation and the lake's
	Imported, LakeTime string // when each was imported ("" not known)
	Superseded         bool   // the lake replaced Gen before
}

func (e *RollbackError) Error() string {
	mine := "generation " + e.Gen
	if e.Imported != "" {
		mine += " (imported " + e.Imported + ")"
	}
	lake := "generation " + e.LakeGen
	if e.LakeTime != "" {
		lake += " (imported " + e.LakeTime + ")"
	}
	why := "older than the lake's " + lake
	if e.Superseded {
		why = "which the lake has already replaced; it holds " + lake + " now"
	}
	return fmt.Sprintf("lake: %s: this data holds %s, %s. Writing it would roll the lake back, so nothing was written; use --force to write it anyway", e.What, mine, why)
}

// A Plan is one write into a lake: what its manifest held, the manifest
// the write makes (files still to be checksummed), the generations to
// write and the names left as they are.
type Plan struct {
	at        place
	old, next Manifest
	Write     []Generation
	Unchanged []string // "dataset NAME" or "experiment NAME"
}

// newPlan plans writing the store's generations gens into the lake at,
// whose manifest was old (zero when there is none). Datasets and
// experiments the store does not hold keep their entries: several machines
// can write their results into one lake. A generation that would replace
// a newer import than its own is refused before anything is written
// (RollbackError), unless force.
func newPlan(ctx context.Context, at place, old Manifest, gens []Generation, force bool) (*Plan, error) {
	if !force {
		for _, g := range gens {
			if err := old.rollback(g); err != nil {
				return nil, err
			}
		}
	}
	m := Manifest{Format: "auditscope-lake", Version: ManifestVersion, Written: time.Now().UTC().Format(time.RFC3339),
		Datasets: cloneMap(old.Datasets), Experiments: cloneMap(old.Experiments), Tables: map[string]Table{},
		Files: map[string]File{}, Imported: cloneMap(old.Imported), Superseded: map[string][]string{}}
	for k, v := range old.Superseded {
		m.Superseded[k] = slices.Clone(v)
	}
	for _, t := range Tables {
		m.Tables[t.Name] = Table{Partition: t.Family, Key: t.Key}
	}
	p := &Plan{at: at, old: old}
	for _, g := range gens {
		target := m.Datasets
		if g.Family == "experiment" {
			target = m.Experiments
		}
		what := g.What()
		if prev := target[g.Name]; prev != "" && prev != g.Gen {
			// The generation replaced is remembered, so it is not put back
			// by a later write of the older data; one named again (--force)
			// is current, not replaced.
			m.Superseded[what] = append(slices.DeleteFunc(m.Superseded[what], func(x string) bool { return x == prev }), prev)
			if n := len(m.Superseded[what]); n > maxSuperseded {
				m.Superseded[what] = m.Superseded[what][n-maxSuperseded:]
			}
		}
		m.Superseded[what] = slices.DeleteFunc(m.Superseded[what], func(x string) bool { return x == g.Gen })
		if len(m.Superseded[what]) == 0 {
			delete(m.Superseded, what)
		}
		target[g.Name] = g.Gen
		if g.Imported != "" {
			m.Imported[what] = g.Imported
		}
		if old.Gen(g.Family, g.Name) == g.Gen && complete(ctx, at, g) {
			p.Unchanged = append(p.Unchanged, what)
			continue
		}
		p.Write = append(p.Write, g)
	}
	p.next = m
	return p, nil
}

// manifest is the manifest the write makes, with every named generation's
// files and their checksums: those written now from sums (by path under the
// lake), those of the old manifest carried over, the rest (missing from a
// lake written before checksums) read from the lake. changed is false when
// nothing in it changed: readers then need not look again. written are the
// generations of p.Write that were written.
func (p *Plan) manifest(ctx context.Context, written []string, sums map[string]File) (m *Manifest, changed bool, err error) {
	m, old := &p.next, p.old
	for _, fam := range []string{"dataset", "experiment"} {
		for _, name := range m.Names(fam) {
			for _, t := range Tables {
				if t.Family != fam {
					continue
				}
				rel := FileRel(t.Name, fam, name, m.Gen(fam, name))
				f, ok := sums[rel]
				wrote := slices.Contains(written, fam+" "+name)
				if !ok && !wrote {
					f, ok = old.Files[rel]
				}
				if !ok {
					if f, err = p.at.sum(ctx, rel); err != nil {
						if errors.Is(err, fs.ErrNotExist) && !wrote && !slices.Contains(p.Unchanged, fam+" "+name) {
							continue // another writer's generation whose files are gone: its readers say so
						}
						return nil, false, fmt.Errorf("lake: %w", err)
					}
				}
				m.Files[rel] = f
			}
		}
	}
	if len(written) == 0 && maps.Equal(m.Datasets, old.Datasets) && maps.Equal(m.Experiments, old.Experiments) &&
		maps.Equal(m.Files, old.Files) && maps.Equal(m.Imported, old.Imported) {
		return m, false, nil
	}
	return m, true, nil
}

// maxSuperseded bounds the generations a manifest remembers per name.
const maxSuperseded = 64

func cloneMap[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	maps.Copy(out, m)
	return out
}

// rollback refuses g where the manifest names a newer generation of its
// dataset or experiment: one that replaced g, or one imported later.
func (m Manifest) rollback(g Generation) error {
	what := g.What()
	cur := m.Gen(g.Family, g.Name)
	if cur == "" || cur == g.Gen {
		return nil
	}
	e := &RollbackError{What: what, Gen: g.Gen, LakeGen: cur, Imported: g.Imported, LakeTime: m.Imported[what]}
	if slices.Contains(m.Superseded[what], g.Gen) {
		e.Superseded = true
		return e
	}
	if e.Imported != "" && e.LakeTime != "" {
		mine, err1 := time.Parse(time.RFC3339Nano, e.Imported)
		theirs, err2 := time.Parse(time.RFC3339Nano, e.LakeTime)
		if err1 == nil && err2 == nil && mine.Before(theirs) {
			return e
		}
	}
	return nil
}
