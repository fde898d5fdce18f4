package app

import (
	"context"
	"math"

	"github.com/auditscope/auditscope/data/model"
)

// The full export of the audits a filter selects, read chunk by chunk.

// ExportChunk is how many audits an export reads per query: it holds one
// chunk in memory, not the whole result, and one chunk's query is what a
// download holds a slot of the heavy work for. Each query costs DuckDB
// 10–15 ms to plan (the score columns make it long) besides its rows: at
// a million audits chunks of 25,000 export at 52 MB/s, of 10,000 at 41
// MB/s; a chunk holds its slot about 0.2 s and two chunks of an export
// are in memory at once (about 20 MB).
var ExportChunk = 25000

// Export reads every audit a filter selects, chunk by chunk, with the names
// an export adds to its ids.
type Export struct {
	Dims  []string // the selection's judge dimensions, a column each
	s     *Service
	f     model.AuditFilter
	names exportNames
	after *model.AuditCursor // where the next chunk starts
	done  bool
}

// ExportRow is one audit of an export.
type ExportRow struct {
	model.AuditRow
	Run, RunName, BehaviorDescription string
	Scores                            []float64 // in the order of the export's Dims, NaN for none
	// Packed are the scores packed four bits each when Scores is nil, and
	// only then (model.ExportChunk).
	Packed []int64
}

// exportNames are the display names an export adds to its ids, keyed by
// experiment and id: an auditor's run, a run's name, a behavior's
// description.
type exportNames struct{ run, runName, behavior map[string]string }

// Export checks a filter (ResolveFilter, CheckDimensions) and prepares its
// export; nothing is read of the audits yet.
func (s *Service) Export(ctx context.Context, f model.AuditFilter) (*Export, error) {
	if _, _, err := s.ResolveFilter(ctx, &f); err != nil {
		return nil, err
	}
	dims, err := s.FilterDimensions(ctx, f)
	if err != nil {
		return nil, err
	}
	if err := CheckDimensions(f, dims); err != nil {
		return nil, err
	}
	names, err := s.exportNames(ctx, f.Experiment)
	if err != nil {
		return nil, err
	}
	return &Export{Dims: dims, s: s, f: f, names: names}, nil
}

// Done reports whether every chunk has been read: the caller need not ask
// for a slot to learn that nothing is left.
func (e *Export) Done() bool { return e.done }

// Next reads the next chunk; none (nil) when the export is done. Each
// chunk starts after the last audit of the one before in the filter's
// order, which ends in experiment and ordinal, a unique key, so
// consecutive chunks neither repeat nor skip an audit.
func (e *Export) Next(ctx context.Context) ([]ExportRow, error) {
	if e.done {
		return nil, nil
	}
	chunk, err := e.s.r.ExportAudits(ctx, e.f, e.after, ExportChunk, e.Dims)
	if err != nil {
		return nil, err
	}
	e.after, e.done = chunk.Next, chunk.Next == nil
	rows := chunk.Rows
	out := make([]ExportRow, len(rows))
	for i, r := range rows {
		run := e.names.run[r.Experiment+"\x00"+r.Auditor]
		out[i] = ExportRow{AuditRow: r, Run: run, RunName: e.names.runName[r.Experiment+"\x00"+run],
			BehaviorDescription: e.names.behavior[r.Experiment+"\x00"+r.Behavior], Scores: chunk.Scores[i]}
		if out[i].Scores == nil {
			if i < len(chunk.Packed) && chunk.Packed[i] != nil {
				out[i].Packed = chunk.Packed[i]
			} else { // a reader that writes no cells: the audit has no scores
				out[i].Scores = make([]float64, len(e.Dims))
				for j := range out[i].Scores {
					out[i].Scores[j] = math.NaN()
				}
			}
		}
	}
	return out, nil
}

func (s *Service) exportNames(ctx context.Context, exp string) (exportNames, error) {
	n := exportNames{run: map[string]string{}, runName: map[string]string{}, behavior: map[string]string{}}
	exps := []string{exp}
	if exp == "" {
		list, err := s.r.ExperimentList(ctx)
		if err != nil {
			return n, err
		}
		exps = exps[:0]
		for _, e := range list {
			exps = append(exps, e.ID)
		}
	}
	for _, e := range exps {
		auditors, err := s.r.Auditors(ctx, e)
		if err != nil {
			return n, err
		}
		for _, a := range auditors {
			n.run[e+"\x00"+a.ID] = a.Run
		}
		runs, err := s.r.Runs(ctx, e)
		if err != nil {
			return n, err
		}
		for _, r := range runs {
			n.runName[e+"\x00"+r.ID] = r.Name
		}
		choices, err := s.r.AuditChoices(ctx, e)
		if err != nil {
			return n, err
		}
		for _, b := range choices.Behaviors {
			n.behavior[e+"\x00"+b.Value] = b.Label
		}
	}
	return n, nil
}
