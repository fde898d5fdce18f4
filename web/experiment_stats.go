package web

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bundle"

	"github.com/auditscope/auditscope/analysis/experiment"
)

// Dimension keys, in display order; they are also the column keys of the
// overview table and the values of scores.csv's dimension column.
var dimensionKeys = []string{experiment.AuditQuality, experiment.FPCalibration, experiment.Production, experiment.Realism, experiment.Composite, experiment.AuditBenchSTC, experiment.AuditBenchDefault}

var dimensionTitles = map[string]string{
	experiment.AuditQuality:      "Audit quality",
	experiment.FPCalibration:     "FP calibration",
	experiment.Production:        "Production discovery",
	experiment.Realism:           "Realism",
	experiment.Composite:         "Composite",
	experiment.AuditBenchSTC:     "AuditBench STC",
	experiment.AuditBenchDefault: "AuditBench default",
}

// bootstrapResamples is the number of resamples behind composite intervals.
const bootstrapResamples = 1000

// auditorScores is one auditor's evaluation results; every score is on the
// 0–100 scale.
type auditorScores struct {
	Auditor data.Auditor
	Score   map[string]analysis.Estimate
	N       map[string]int
}

// experimentStats is everything computed once per version of an
// experiment: cached until an import changes the experiment (serve
// --watch), which moves its version (statsCache.get).
type experimentStats struct {
	Exp      data.Experiment
	Runs     []data.Run
	Auditors []auditorScores
	// Audits are the outcome rows the statistics came from, kept for the
	// pages that break them down further (transfer, compare).
	Audits []data.EvalAudit
	// Realism are the realism judgments from each auditor's side (compare).
	Realism []experiment.RealismJudgment
}

// statsCacheSize bounds the experiments whose statistics are kept, with
// their outcome rows; Warm computes every experiment's, so it should exceed
// the experiments a database usually holds.
const statsCacheSize = 64

// statsCache computes each experiment's statistics once, however many
// requests ask at the same time, without making a request for another
// experiment wait.
type statsCache struct {
	m *memo[string, *experimentStats]
}

func newStatsCache() statsCache {
	return statsCache{m: newMemo[string, *experimentStats](statsCacheSize)}
}

func (c statsCache) get(ctx context.Context, store *data.Store, exp string) (*experimentStats, error) {
	// Keyed by the experiment's version: an import that changes it (serve
	// --watch) gets new statistics; other experiments keep theirs.
	key := exp + "@" + strconv.FormatInt(store.NameVersion(exp), 10)
	return c.m.get(ctx, key, func(ctx context.Context) (*experimentStats, error) {
		// The experiment's older versions go: a running eval's appends
		// would otherwise fill the cache with them.
		c.m.removeFunc(func(k string) bool { return strings.HasPrefix(k, exp+"@") && k != key })
		return computeExperimentStats(ctx, store, exp)
	})
}

// auditorStats computes one auditor's dimensions and detection rates.
func auditorStats(exp string, a data.Auditor, in *experiment.Inputs) (auditorScores, error) {
	sc, err := experiment.Score(*in, bootstrapResamples, experiment.Seed(exp, a.ID, experiment.Composite))
	return auditorScores{Auditor: a, Score: sc.Score, N: sc.N}, err
}

// evalAudits maps the store's audit outcomes to the domain's.
func evalAudits(in []data.EvalAudit) []experiment.Audit {
	out := make([]experiment.Audit, len(in))
	for i, a := range in {
		out[i] = experiment.Audit{Auditor: a.Auditor, Eval: a.Eval, Seed: a.Seed, Behavior: a.Behavior,
			Quality: a.Quality, ProductionValue: a.ProductionValue, FalsePositive: a.FalsePositive, Detected: a.Detected}
	}
	return out
}

func computeExperimentStats(ctx context.Context, store *data.Store, exp string) (*experimentStats, error) {
	e, err := store.Experiment(ctx, exp)
	if err != nil {
		return nil, err
	}
	runs, err := store.Runs(ctx, exp)
	if err != nil {
		return nil, err
	}
	auditors, err := store.Auditors(ctx, exp)
	if err != nil {
		return nil, err
	}
	audits, err := store.EvalAudits(ctx, exp)
	if err != nil {
		return nil, err
	}
	realism, err := store.SideJudgments(ctx, exp, bundle.JudgmentRealism)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(auditors))
	for i, a := range auditors {
		ids[i] = a.ID
	}
	// A realism judgment's unit is the production seed its audit ran on.
	seedOf := make(map[string]string, len(audits))
	for _, a := range audits {
		seedOf[a.ID] = a.Seed
	}
	judgments := make([]experiment.RealismJudgment, len(realism))
	for i, j := range realism {
		judgments[i] = experiment.RealismJudgment{Auditor: j.Auditor, OtherAuditor: j.OtherAuditor, Outcome: j.Outcome, Seed: seedOf[j.Audit]}
	}
	per := experiment.Gather(ids, evalAudits(audits), judgments)
	st := &experimentStats{Exp: e, Runs: runs, Auditors: make([]auditorScores, len(auditors)), Audits: audits, Realism: judgments}
	// Each auditor's bootstrap is independent: spread them over the cores.
	errs := make([]error, len(auditors))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				st.Auditors[i], errs[i] = auditorStats(exp, auditors[i], per[auditors[i].ID])
			}
		}()
	}
	for i := range auditors {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return st, nil
}

// Warm computes every experiment's statistics ahead of the first request
// (serve calls it in the background at start-up), so no visitor waits for
// the bootstraps. Errors are logged; a page would report them again.
func (s *Server) Warm(ctx context.Context) {
	exps, err := s.store.ExperimentList(ctx)
	if err != nil {
		s.log.Warn("warm statistics", "err", err)
		return
	}
	for _, e := range exps {
		if ctx.Err() != nil {
			return
		}
		if _, err := s.stats.get(ctx, s.store, e.ID); err != nil {
			s.log.Warn("warm statistics", "experiment", e.ID, "err", err)
		}
	}
}
