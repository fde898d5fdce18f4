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
	// Version moves whenever any import lands.
	Version() int64
	ExperimentList(ctx context.Context) ([]model.ExperimentSummary, error)
	Experiment(ctx context.Context, id string) (model.Experiment, error)
	Runs(ctx context.Context, exp string) ([]model.Run, error)
	Auditors(ctx context.Context, exp string) ([]model.Auditor, error)
	EvalAudits(ctx context.Context, exp string) ([]model.EvalAudit, error)
	// EvalAuditsUnder is EvalAudits with another judge's outcomes, over the
	// audits it gave them for.
	EvalAuditsUnder(ctx context.Context, exp, judge string) ([]model.EvalAudit, error)
	SideJudgments(ctx context.Context, exp string, kinds ...string) ([]model.SideJudgment, error)
	InspectLogs(ctx context.Context, exp string) ([]model.InspectLog, error)
	ScorerValues(ctx context.Context, exp string) ([]model.ScorerValues, error)
	SampleValues(ctx context.Context, exp string) ([]model.SampleValue, error)
	Crux(ctx context.Context, exp string) ([]model.CruxRow, error)
	// JudgedAudits reads the audits with their judge scores and what the
	// import recorded of their validity.
	JudgedAudits(ctx context.Context, exp string) (model.JudgedSet, error)
	// Run reads a run by its key ("experiment:run").
	Run(ctx context.Context, key string) (model.Run, error)
	RunMetrics(ctx context.Context, exp, run string) ([]model.Metric, error)
	StrategyCounts(ctx context.Context, exp, run string) ([]model.LabelCount, error)

	// The audits: a page of the audits a filter selects, how many it
	// selects, an
	// export's chunk, scores by audit key and dimension, the filter's
	// choices, one audit with its neighbours, sample scores, judgments and
	// transcript (the stored JSON).
	ListAuditsPage(ctx context.Context, f model.AuditFilter, offset, limit int) ([]model.AuditRow, error)
	CountAudits(ctx context.Context, f model.AuditFilter) (int, error)
	// ExportAudits reads the chunk of at most limit audits that follows
	// after (nil: the first), with their scores in the dimensions dims.
	ExportAudits(ctx context.Context, f model.AuditFilter, after *model.AuditCursor, limit int, dims []string) (model.ExportChunk, error)
	AuditScores(ctx context.Context, keys []string) (map[string]map[string]float64, error)
	// VerdictScores are another judge's scores of the audits keys.
	VerdictScores(ctx context.Context, keys []string, judge string) (map[string]map[string]float64, error)
	AuditChoices(ctx context.Context, exp string) (model.AuditChoices, error)
	ScoreDimensions(ctx context.Context, exp string) ([]string, error)
	HasAudits(ctx context.Context, exp string) (bool, error)
	SampleChoices(ctx context.Context, exp string) (model.SampleChoices, error)
	// Judges and JudgeScores read the judges of an experiment's audits
	// besides the evaluation judge; AuditVerdicts their verdicts on one.
	Judges(ctx context.Context, exp string) ([]model.JudgeInfo, error)
	JudgedBy(ctx context.Context, exp, judge string, dims []string) (model.JudgedSet, error)
	EvalScores(ctx context.Context, exp, dim string) (seeds []string, scores []float64, err error)
	JudgeScores(ctx context.Context, exp string, j model.JudgeInfo) (model.JudgeScores, error)
	// JudgeMoments sums two judges' scores per seed on each of dims (a or b
	// "" the evaluation judge), with the most audits scored furthest apart.
	JudgeMoments(ctx context.Context, exp, a, b string, dims []string, most int) ([]model.PairMoments, []model.ScoreGap, error)
	AuditVerdicts(ctx context.Context, exp, audit string) ([]model.Verdict, error)
	SampleFields(ctx context.Context, keys []string) (map[string]model.SampleFields, error)
	// ResolveAuditKey turns an URL's audit id ("experiment:id", or a bare
	// id only one experiment has) into its key.
	ResolveAuditKey(ctx context.Context, id string) (string, error)
	Audit(ctx context.Context, key string) (model.AuditDetail, error)
	Neighbors(ctx context.Context, f model.AuditFilter, key string) (prev, next string, err error)
	SampleScores(ctx context.Context, exp, audit string) ([]model.SampleScore, error)
	AuditJudgments(ctx context.Context, exp, audit string) ([]model.SideJudgment, error)
	Transcript(ctx context.Context, exp, audit string) ([]byte, error)
	TranscriptOfKey(ctx context.Context, key string) ([]byte, error)
	Judgment(ctx context.Context, key string) (model.Judgment, error)

	// Summary is the home page's: every experiment and dataset.
	Summary(ctx context.Context) (model.Summary, error)
	// LakeProblem is why the lake's newest generation is not served (nil
	// when it is, or without a lake).
	LakeProblem() *model.InputError

	// The AnnotatedPairs datasets; a missing one is model.ErrNotFound.
	DatasetList(ctx context.Context) ([]model.DatasetSummary, error)
	PairsDataset(ctx context.Context, id string) (model.PairsDataset, error)
	PairsAnnotators(ctx context.Context, dataset string) ([]model.PairsAnnotator, error)
	PairsVoteMatrix(ctx context.Context, dataset string) (model.VoteMatrix, error)
	PairsMetaValues(ctx context.Context, dataset, key string) (model.MetaValues, error)
	// PairsSearch lists the positions of the comparisons whose texts
	// contain text.
	PairsSearch(ctx context.Context, dataset, text string) ([]int32, error)
	PairsComparisons(ctx context.Context, dataset string, idxs []int32) ([]model.PairsComparison, error)
	PairsComparisonByID(ctx context.Context, dataset, id string) (model.PairsComparison, error)
}

// Service computes what the pages show.
type Service struct {
	r       Reader
	stats   *Memo[string, *ExperimentStats]
	compare *Memo[string, []experiment.Comparison]
	ranks   *Memo[string, CompositeRanking]
	presets *Memo[string, []PresetResult]
	pairs   *Memo[pairsKey, *pairsEntry]
	// choices keeps what the audit browser's form and checks read of
	// every page, by experiment and data version: the filter's choices,
	// the score dimensions, whether an experiment has audits.
	choices *Memo[string, any]
	// judged keeps judge-scored overviews by experiment, data version and
	// options (each holds a row per audit, so fewer than the choices).
	judged *Memo[string, *Judged]
	// transcripts keeps parsed transcripts: moving between a transcript's
	// views, branches, parts and events tab reads it once.
	transcripts *Memo[string, *Transcript]
	// counts keeps how many audits each filter selects, by filter and
	// data version, apart from choices so that many filters (searches)
	// do not push the choices out.
	counts *Memo[string, int]
	// searched are the experiments, by data version, whose search text
	// Warm has read (warmSearch).
	searched *Memo[string, int]
}

// statsCacheSize bounds the experiments whose statistics are kept, with
// their outcome rows; Warm computes every experiment's, so it should exceed
// the experiments a database usually holds.
const statsCacheSize = 64

// choicesCacheSize bounds the audit browser's kept choices: a few entries
// per experiment.
const choicesCacheSize = 256

// judgedCacheSize bounds the kept judge-scored overviews: the options a
// few readers are looking at.
const judgedCacheSize = 32

// countsCacheSize bounds the kept counts (an int and its key each).
const countsCacheSize = 4096

// New returns a Service reading from r.
func New(r Reader) *Service {
	return &Service{r: r, stats: NewMemo[string, *ExperimentStats](statsCacheSize),
		compare: NewMemo[string, []experiment.Comparison](compareCacheSize),
		ranks:   NewMemo[string, CompositeRanking](ranksCacheSize), presets: NewMemo[string, []PresetResult](statsCacheSize),
		pairs: NewMemo[pairsKey, *pairsEntry](pairsCacheSize), choices: NewMemo[string, any](choicesCacheSize),
		judged: NewMemo[string, *Judged](judgedCacheSize),
		counts: NewMemo[string, int](countsCacheSize), searched: NewMemo[string, int](statsCacheSize),
		transcripts: newTranscriptMemo()}
}

// Experiment reads one experiment's header; a missing one is
// model.ErrNotFound.
func (s *Service) Experiment(ctx context.Context, id string) (model.Experiment, error) {
	return s.r.Experiment(ctx, id)
}

// Home is the home page's summary of every experiment and dataset, and why
// the lake's newest generation is not served (nil when it is).
func (s *Service) Home(ctx context.Context) (model.Summary, *model.Problem, error) {
	sum, err := s.r.Summary(ctx)
	if err != nil {
		return sum, nil, err
	}
	var lake *model.Problem
	if p := s.r.LakeProblem(); p != nil {
		lake = &model.Problem{File: p.File, Msg: p.Msg}
	}
	return sum, lake, nil
}
