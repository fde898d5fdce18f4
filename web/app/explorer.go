package app

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/explorer"
	"github.com/auditscope/auditscope/data/model"
)

// The explorer's table: every annotator (or trait) against one or more
// references, columns by reference, by a metadata key's values or by
// dataset. The explorer page, its table.csv and its figures share it.

// ExplorerQuery is the explorer's validated query; its figures and
// table.csv read the same one.
type ExplorerQuery struct {
	RefModels []string
	Models    bool // mode=models: traits against each model annotator
	// Refs are the reference keys, a column each when several. In model
	// analysis, which has no reference, a bad ref falls back to the
	// default (only the form shows it).
	Refs []string
	// With are other datasets shown side by side; they are checked when
	// the table is built, which loads them. Split is a metadata key and
	// Values its chosen values (none: the largest, explorer.DefaultSplitValues).
	// Model analysis neither checks nor uses With and Split: the page only
	// says they apply to the feedback view.
	With   []string
	Split  string
	Values []string
	Metric string // a key of Metrics
	CI     bool
	// Sort is a column key, "name" or "spread", checked against the
	// table's columns once they are laid out; "" sorts by the first
	// column. Dir is "", "asc" or "desc".
	Sort, Dir string
}

// Purpose is what a table is computed for, which decides its costlier
// numbers.
type Purpose int

const (
	ForPage     Purpose = iota // the metric, with its interval when CI is on
	ForStrength                // strength intervals whatever the metric (the strength figure)
	ForHeatMap                 // the metric without intervals
)

// needs are the costlier numbers a table for purpose computes.
func (q ExplorerQuery) needs(purpose Purpose) explorer.Needs {
	switch purpose {
	case ForStrength:
		return explorer.Needs{StrengthCI: true}
	case ForHeatMap:
		return explorer.Needs{KappaUnadjusted: q.Metric == "kappa_unadjusted"}
	}
	return explorer.Needs{KappaUnadjusted: q.Metric == "kappa_unadjusted",
		StrengthCI: q.CI && q.Metric == "strength",
		Wilson:     q.CI && (q.Metric == "accuracy" || q.Metric == "relevance")}
}

// Column is one column of the explorer table: a reference and the kept
// comparisons it is compared on.
type Column struct {
	Key, Label, Note string
	Ref              explorer.Annotator
	Split, Value     string // the split value, for links
	refVotes         []analysis.Vote
	keep             []int32
	p                *Pairs // the column's dataset; nil means the table's own
}

// Dataset is the column's dataset: another one for a column of With.
func (c Column) Dataset(p *Pairs) *Pairs {
	if c.p != nil {
		return c.p
	}
	return p
}

// pairsNote is a column's count of the pairs it rests on.
func pairsNote(n int) string {
	if n == 1 {
		return "1 pair"
	}
	return fmt.Sprintf("%d pairs", n)
}

// newColumn is a column comparing with ref on the comparisons ref decides.
func newColumn(key, label string, ref explorer.Annotator, votes []analysis.Vote) Column {
	keep := explorer.Decisive(votes)
	return Column{Key: key, Label: label, Note: pairsNote(len(keep)), Ref: ref, refVotes: votes, keep: keep}
}

// Table is the explorer's table before display: the query, what it
// resolved to, the columns and rows, and every row's statistics per
// column.
type Table struct {
	Q      ExplorerQuery
	Metric Metric
	Sort   string // a column key, "name" or "spread"
	Desc   bool
	Ref    explorer.Annotator   // the first reference: overall statistics, annotators.csv
	Refs   []explorer.Annotator // every reference; several make a column each
	// The feedback view's split and other datasets (none in model analysis).
	Split  string
	With   []string
	Values []string // the split values shown: the chosen ones or the largest
	MV     model.MetaValues
	Notes  []string

	Columns []Column
	Rows    []explorer.Annotator
	Stats   [][]Cell // Stats[column][row]
}

// ExplorerTable lays out and computes the explorer's table for a parsed
// query on p (whose reference models q chose).
func (s *Service) ExplorerTable(ctx context.Context, p *Pairs, q ExplorerQuery, purpose Purpose) (*Table, error) {
	t := &Table{Q: q}
	t.Metric, _ = LookupMetric(q.Metric)
	if q.Metric == "kappa" || q.Metric == "kappa_unadjusted" {
		// Feedback Forensics shows 0 where kappa is undefined; a blank says
		// what is so (a 0 would read as agreement no better than chance).
		t.Notes = append(t.Notes, "Cohen's kappa is undefined, and left blank, where the chance disagreement is 0: the annotator or the reference gives one label only (or no comparison is left). Feedback Forensics shows 0 there; 0 means agreement no better than chance, which such a cell does not say.")
	}
	for _, key := range q.Refs {
		t.Refs = append(t.Refs, p.lookup(key))
	}
	if len(t.Refs) > 0 {
		t.Ref = t.Refs[0]
	}
	var err error
	switch {
	case q.Models:
		t.modelsLayout(p)
	case q.Split != "":
		t.Split = q.Split
		err = t.splitLayout(ctx, p)
	case len(t.Refs) > 1 || len(q.With) > 0:
		t.With = q.With
		err = t.multiLayout(ctx, s, p)
	default:
		c := newColumn("all", "All", t.Ref, p.votesOf(t.Ref))
		t.noteUndecided(c.keep)
		t.Columns, t.Rows = []Column{c}, p.d.FeedbackRows(t.Ref.Key)
	}
	if err != nil {
		return t, err
	}
	if t.Sort, t.Desc, err = q.sortOrder(t.Columns); err != nil {
		return t, err
	}
	needs := q.needs(purpose)
	t.Stats = make([][]Cell, len(t.Columns))
	for j, col := range t.Columns {
		if t.Stats[j], err = columnStats(p, q.Models, col, t.Rows, needs); err != nil {
			return t, err
		}
	}
	return t, nil
}

// noteUndecided says when the first reference decides no comparison
// (keep is where it votes text_a or text_b).
func (t *Table) noteUndecided(keep []int32) {
	if len(keep) == 0 {
		t.Notes = append(t.Notes, t.Ref.Name+" has no text_a or text_b vote, so every metric is undefined.")
	}
}

// modelsLayout is model analysis: the traits against each model annotator.
func (t *Table) modelsLayout(p *Pairs) {
	for _, ref := range p.d.ModelAnnotators() {
		t.Columns = append(t.Columns, newColumn(ref.Key, ref.Name, ref, p.votesOf(ref)))
	}
	if len(p.d.Models) == 0 {
		t.Notes = append(t.Notes, "No response names its model, so there are no model annotators to compare with.")
	}
	// A link or form from the feedback view may carry its fields; say
	// they change nothing here rather than fail. (The form always sends
	// a reference, so that one goes unmentioned.)
	if len(t.Q.With) > 0 || t.Q.Split != "" {
		t.Notes = append(t.Notes, "Model analysis compares every trait with each model of this dataset; other datasets (with) and splits (split) apply to the feedback view.")
	}
	t.Rows = p.d.TraitRows()
}

// splitLayout is a column per chosen value of the split key (by default
// the values with the most comparisons).
func (t *Table) splitLayout(ctx context.Context, p *Pairs) error {
	mv, err := p.MetaValues(ctx, t.Split)
	if err != nil {
		return err
	}
	t.MV = mv
	index := make(map[string]int32, len(mv.Values))
	for i, v := range mv.Values {
		index[v.Value] = int32(i)
	}
	t.Values = t.Q.Values
	if len(t.Values) == 0 {
		for _, v := range mv.Values[:min(explorer.DefaultSplitValues, len(mv.Values))] {
			t.Values = append(t.Values, v.Value)
		}
	}
	idx := make([]int32, len(t.Values))
	for k, v := range t.Values {
		idx[k] = index[v]
	}
	refVotes := p.votesOf(t.Ref)
	t.noteUndecided(explorer.Decisive(refVotes))
	for k, keep := range explorer.Split(refVotes, mv.Of, idx) {
		v := t.Values[k]
		t.Columns = append(t.Columns, Column{Key: "v:" + v, Label: v, Note: pairsNote(len(keep)),
			Ref: t.Ref, refVotes: refVotes, keep: keep, Split: t.Split, Value: v})
	}
	if len(mv.Values) == 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("No comparison has a value for %s.", t.Split))
	} else if missing := explorer.Unvalued(mv.Of); missing > 0 {
		note := fmt.Sprintf("%d comparisons have no value for %s.", missing, t.Split)
		if missing == 1 {
			note = "1 comparison has no value for " + t.Split + "."
		}
		t.Notes = append(t.Notes, note)
	}
	t.Rows = p.d.FeedbackRows(t.Ref.Key)
	return nil
}

// multiLayout is the feedback table with a column per reference (when
// there are several) and a column per other dataset. With several
// references the rows are every annotator, a row's cell empty in the column
// of its own reference; other datasets add their annotators after the
// request's own, matched by key.
func (t *Table) multiLayout(ctx context.Context, s *Service, p *Pairs) error {
	first := newColumn("all", p.DS.ID, t.Ref, p.votesOf(t.Ref))
	t.noteUndecided(first.keep)
	if len(t.Refs) > 1 {
		t.Rows = p.d.FeedbackRows("")
		for _, ref := range t.Refs {
			t.Columns = append(t.Columns, newColumn("ref:"+ref.Key, ref.Name, ref, p.votesOf(ref)))
		}
	} else {
		t.Rows = p.d.FeedbackRows(t.Ref.Key)
		first.Note += " · " + t.Ref.Name
		t.Columns = append(t.Columns, first)
	}
	seen := make(map[string]bool, len(t.Rows))
	for _, a := range t.Rows {
		seen[a.Key] = true
	}
	for _, id := range t.With {
		o, err := s.otherPairs(ctx, p, id)
		if err != nil {
			return err
		}
		ref, ok := o.d.Lookup(t.Ref.Key)
		if !ok {
			if ref, ok = o.d.Default(o.DS.DefaultAnnotator); !ok {
				return FieldErrorf("With", "dataset %s has no annotators and no response models to use as the reference", o.DS.ID)
			}
		}
		c := newColumn("ds:"+o.DS.ID, o.DS.ID, ref, o.votesOf(ref))
		c.Note += " · " + ref.Name
		c.p = o
		t.Columns = append(t.Columns, c)
		for _, a := range o.d.FeedbackRows(ref.Key) {
			if !seen[a.Key] {
				seen[a.Key] = true
				t.Rows = append(t.Rows, a.Foreign()) // looked up per column
			}
		}
	}
	return nil
}

// otherPairs opens another dataset for a side-by-side column, with the
// reference models of p that are response models there.
func (s *Service) otherPairs(ctx context.Context, p *Pairs, id string) (*Pairs, error) {
	o, err := s.Pairs(ctx, id)
	if err != nil {
		if errors.Is(err, model.ErrNotFound) {
			return nil, FieldErrorf("With", "%q is not an AnnotatedPairs dataset", id)
		}
		return nil, err
	}
	o.UseRefModels(p.refModels)
	return o, nil
}

// sortOrder checks sort and dir against the table's columns. The default
// is the first column, descending.
func (q ExplorerQuery) sortOrder(columns []Column) (sort string, desc bool, err error) {
	sort = q.Sort
	if sort == "" {
		sort = "name"
		if len(columns) > 0 {
			sort = columns[0].Key
		}
	} else if sort != "name" && sort != "spread" && !slices.ContainsFunc(columns, func(c Column) bool { return c.Key == sort }) {
		return "", false, FieldErrorf("Sort", "%q is not name, spread or a column of this table", sort)
	}
	switch q.Dir {
	case "":
		desc = sort != "name"
	case "desc":
		desc = true
	}
	return sort, desc, nil
}

// bootKey names a column's comparisons and rows for the bootstrap cache.
func bootKey(models bool, p *Pairs, col Column) string {
	rows := "annotators"
	if models {
		rows = "traits"
	}
	return strings.Join([]string{rows, col.Ref.Key, strings.Join(p.refModels, "\x1f"), col.Split, col.Value}, "\x1e")
}

// columnStats compares every row with the column's reference on the
// column's dataset; a row absent there, or that is the reference itself,
// gets an empty cell.
func columnStats(p *Pairs, models bool, col Column, rows []explorer.Annotator, needs explorer.Needs) ([]Cell, error) {
	cp := col.Dataset(p)
	out := make([]Cell, len(rows))
	var present []int
	var votes [][]analysis.Vote
	for i, a := range rows {
		if a.IsForeign() || cp != p {
			var ok bool
			if a, ok = cp.d.Lookup(a.Key); !ok {
				out[i].Absent = "not in dataset " + cp.DS.ID
				continue
			}
		}
		if a.Key == col.Ref.Key {
			out[i].Absent = a.Name + " is this column's reference"
			continue
		}
		present = append(present, i)
		votes = append(votes, cp.votesOf(a))
	}
	key := bootKey(models, cp, col)
	if len(present) != len(rows) || cp != p {
		h := fnv.New64a()
		for _, i := range present {
			h.Write([]byte(rows[i].Key))
			h.Write([]byte{0})
		}
		key += fmt.Sprintf("\x1erows:%x", h.Sum64())
	}
	st, err := explorer.Compare(col.refVotes, col.keep, votes, needs, cp.bootMemo(key))
	if err != nil {
		return nil, err
	}
	for k, i := range present {
		out[i].Stats = st[k]
	}
	return out, nil
}

// DefaultSplitValues is how many of a split key's values the explorer shows
// when none are chosen: the ones with the most comparisons.
const DefaultSplitValues = explorer.DefaultSplitValues
