// Package app is the application layer between the web handlers and the
// store: it reads through a Reader (the store implements it), computes with
// the analysis packages, and keeps what it computed in memos (the one cache
// mechanism, memo.go). It knows nothing of HTTP or DuckDB, so it is tested
// with a fake Reader and hand-made inputs.
//
// Pages move here one at a time (docs/ARCHITECTURE.md says which have);
// a handler parses its query, makes one call into the Service, maps the
// result to a view model and renders HTML, CSV or a figure from it.
package app

import (
	"context"

	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
)

// Reader is what the Service reads from the store.
type Reader interface {
	// NameVersion moves whenever an import changes the named experiment or
	// dataset: what is computed from it is kept under that version.
	NameVersion(name string) int64
	ExperimentList(ctx context.Context) ([]model.ExperimentSummary, error)
	Experiment(ctx context.Context, id string) (model.Experiment, error)
	Runs(ctx context.Context, exp string) ([]model.Run, error)
	Auditors(ctx context.Context, exp string) ([]model.Auditor, error)
	EvalAudits(ctx context.Context, exp string) ([]model.EvalAudit, error)
	SideJudgments(ctx context.Context, exp string, kinds ...string) ([]model.SideJudgment, error)
	InspectLogs(ctx context.Context, exp string) ([]model.InspectLog, error)
	ScorerValues(ctx context.Context, exp string) ([]model.ScorerValues, error)
}

// Service computes what the pages show.
type Service struct {
	r       Reader
	stats   *Memo[string, *ExperimentStats]
	compare *Memo[string, []experiment.Comparison]
}

// statsCacheSize bounds the experiments whose statistics are kept, with
// their outcome rows; Warm computes every experiment's, so it should exceed
// the experiments a database usually holds.
const statsCacheSize = 64

// New returns a Service reading from r.
func New(r Reader) *Service {
	return &Service{r: r, stats: NewMemo[string, *ExperimentStats](statsCacheSize),
		compare: NewMemo[string, []experiment.Comparison](compareCacheSize)}
}
