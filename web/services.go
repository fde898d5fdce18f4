package web

import (
	"context"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/web/app"
)

// The application layer as each group of pages sees it (issue #52): a
// handler depends on the few methods its pages call, named here, not on
// *app.Service and its fifty, so a test can hand a page a fake of what it
// reads (services_test.go) and a reader sees at a glance what a page can
// do. *app.Service is all of them (checked below); Server holds it once
// under each name.

// homeReader is the home page's.
type homeReader interface {
	Home(ctx context.Context) (model.Summary, *model.Problem, error)
}

// statsReader is an experiment's statistics, which most of its pages start
// from, under the evaluation judge or another.
type statsReader interface {
	Experiment(ctx context.Context, id string) (model.Experiment, error)
	Stats(ctx context.Context, exp string) (*app.ExperimentStats, error)
	StatsUnder(ctx context.Context, exp, judge string) (*app.ExperimentStats, error)
	AuditJudges(ctx context.Context, exp string) ([]model.JudgeInfo, error)
	Warm(ctx context.Context, warn func(what string, err error))
}

// overviewReader is the experiment overview's ranking and its Inspect
// scorers' table.
type overviewReader interface {
	Rank(ctx context.Context, st *app.ExperimentStats, ids []string) (app.CompositeRanking, error)
	Scorers(ctx context.Context, exp string) ([]app.ScorerRow, error)
}

// comparer is the compare and units pages': A against the Bs, under each
// judge, the paper's preset comparisons, and the units behind a row.
type comparer interface {
	ComparePage(ctx context.Context, exp string, q app.CompareQuery, both bool) (*app.ComparePage, error)
	Compare(ctx context.Context, st *app.ExperimentStats, a string, bs []string) ([]app.Comparison, error)
	JudgeSwap(ctx context.Context, st *app.ExperimentStats, a string, bs []string) ([]app.Under, error)
	PresetResults(ctx context.Context, st *app.ExperimentStats) ([]app.PresetResult, error)
	Units(st *app.ExperimentStats, a, b, dim string) (app.MatchedUnits, error)
}

// sampleReader is the same pages for plain Inspect samples: by model and
// sample.
type sampleReader interface {
	IsSamples(ctx context.Context, e model.Experiment) (bool, error)
	SampleCompare(ctx context.Context, exp, a, b string) ([]app.SampleDiff, error)
	SampleMetrics(ctx context.Context, exp string) ([]string, error)
	SampleUnits(ctx context.Context, exp, a, b, metric string) ([]app.SampleUnit, error)
}

// analysisReader is the experiment's analyses of their own pages: crux,
// cycles, RWR and transfer.
type analysisReader interface {
	Crux(ctx context.Context, exp string) (*app.Crux, error)
	AuditorCycles(ctx context.Context, exp, kind string, maxLen int) (*app.ExperimentStats, app.WinAnalysis, error)
	RWR(ctx context.Context, exp string) (*app.ExperimentStats, []app.RWRRow, []string, map[string][]string, error)
	Transfer(ctx context.Context, exp, judge string) (*app.ExperimentStats, app.Transfer, error)
}

// judgedReader is the judge-scored overview (Petri's dimensions) and its
// paired comparison of two models.
type judgedReader interface {
	JudgedOverview(ctx context.Context, exp string, opts app.JudgedOptions) (*app.Judged, error)
	JudgedCompare(ctx context.Context, exp, a, b string, opts app.JudgedOptions) (*app.Judged, app.Paired, error)
}

// judgeReader is the judges' pages: who judged, the pairwise judgments and
// one judgment with its transcripts side by side.
type judgeReader interface {
	JudgesOf(ctx context.Context, exp string) (app.Judges, error)
	Judgments(ctx context.Context, exp string, f app.JudgmentFilter) ([]model.SideJudgment, error)
	Judgment(ctx context.Context, key string) (model.Judgment, model.Experiment, error)
	AuditorNames(ctx context.Context, exp string) (map[string]string, error)
	Transcript(ctx context.Context, exp, id string) (*app.Transcript, error)
	SideBySide(ctx context.Context, a, b string) (app.SideOf, app.SideOf, error)
	RealismVerdicts(ctx context.Context, side app.SideOf) ([]model.Judgment, error)
}

// auditReader is one audit's page and its transcript.
type auditReader interface {
	Audit(ctx context.Context, id string, f *model.AuditFilter) (*app.Audit, error)
	AuditByURL(ctx context.Context, id string) (string, model.AuditDetail, error)
	RawTranscript(ctx context.Context, exp, id string) ([]byte, error)
	SameUnit(ctx context.Context, d model.AuditDetail) ([]model.Choice, error)
}

// auditLister is the audit list and its streamed export.
type auditLister interface {
	AuditList(ctx context.Context, q app.AuditListQuery) (*app.AuditList, error)
	Export(ctx context.Context, f model.AuditFilter) (*app.Export, error)
}

// pairsReader is a pairs dataset's pages: its statistics, the explorer's
// table and its comparisons.
type pairsReader interface {
	Datasets(ctx context.Context) ([]model.DatasetSummary, error)
	Pairs(ctx context.Context, id string) (*app.Pairs, error)
	ExplorerTable(ctx context.Context, p *app.Pairs, q app.ExplorerQuery, purpose app.Purpose) (*app.Table, error)
	SelectComparisons(ctx context.Context, p *app.Pairs, q app.ListQuery) (app.Selection, error)
	PairsComparisons(ctx context.Context, dataset string, idxs []int32) ([]model.PairsComparison, error)
	PairsComparison(ctx context.Context, dataset, id string) (model.PairsDataset, model.PairsComparison, error)
}

// runReader is a training run's page: its checkpoints, curves and judges.
type runReader interface {
	Run(ctx context.Context, key, judge string) (*app.RunPage, error)
	Metrics(ctx context.Context, p *app.RunPage) ([]model.Metric, error)
	StrategyCounts(ctx context.Context, p *app.RunPage) ([]model.LabelCount, error)
	RunJudges(ctx context.Context, p *app.RunPage) ([]app.RunJudge, error)
}

// services are the interfaces above, as Server holds them.
type services struct {
	home     homeReader
	stats    statsReader
	overview overviewReader
	compares comparer
	samples  sampleReader
	analyses analysisReader
	judged   judgedReader
	judges   judgeReader
	audit    auditReader
	audits   auditLister
	pairs    pairsReader
	runs     runReader
}

// servicesOf is the application layer under each of its names.
func servicesOf(a *app.Service) services {
	return services{home: a, stats: a, overview: a, compares: a, samples: a, analyses: a,
		judged: a, judges: a, audit: a, audits: a, pairs: a, runs: a}
}
