package web

import (
	"context"
	"hash/fnv"
	"math"
	"runtime"
	"sync"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/bundle"
)

// Dimension keys, in display order; they are also the column keys of the
// overview table and the values of scores.csv's dimension column.
var dimensionKeys = []string{"audit_quality", "fp_calibration", "production", "realism", "composite", "auditbench_stc", "auditbench_default"}

var dimensionTitles = map[string]string{
	"audit_quality":      "Audit quality",
	"fp_calibration":     "FP calibration",
	"production":         "Production discovery",
	"realism":            "Realism",
	"composite":          "Composite",
	"auditbench_stc":     "AuditBench STC",
	"auditbench_default": "AuditBench default",
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

// experimentStats is everything computed once per experiment. Imports never
// change an experiment under a running server (a replace gets a new
// database handle), so it is cached for the process.
type experimentStats struct {
	Exp      data.Experiment
	Runs     []data.Run
	Auditors []auditorScores
	// Audits are the outcome rows the statistics came from, kept for the
	// pages that break them down further (transfer).
	Audits []data.EvalAudit
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
	return c.m.get(ctx, exp, func(ctx context.Context) (*experimentStats, error) {
		return computeExperimentStats(ctx, store, exp)
	})
}

// bootstrapSeed is the random seed of one auditor's bootstrap of one
// dimension: a hash of their names, so adding or reordering auditors leaves
// every other auditor's interval as it was.
func bootstrapSeed(exp, auditor, dimension string) uint64 {
	h := fnv.New64a()
	for _, s := range []string{exp, auditor, dimension} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// auditorStats computes one auditor's dimensions and detection rates.
func auditorStats(a data.Auditor, in analysis.DimensionInput, stc, def []bool, seed uint64) (auditorScores, error) {
	d, err := analysis.Dimensions(in, 0.95, bootstrapResamples, seed)
	if err != nil {
		return auditorScores{}, err
	}
	sc := auditorScores{Auditor: a, Score: map[string]analysis.Estimate{}, N: map[string]int{}}
	set := func(k string, s analysis.DimensionScore) {
		sc.Score[k], sc.N[k] = s.Estimate, s.N
	}
	set("audit_quality", d.AuditQuality)
	set("fp_calibration", d.FPCalibration)
	set("production", d.Production)
	set("realism", d.Realism)
	set("composite", d.Composite)
	for k, v := range map[string][]bool{"auditbench_stc": stc, "auditbench_default": def} {
		est := analysis.Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		if len(v) > 0 {
			r, err := analysis.DetectionRate(v, 0.95)
			if err != nil {
				return auditorScores{}, err
			}
			est = analysis.Estimate{Value: 100 * r.Value, Lo: 100 * r.Lo, Hi: 100 * r.Hi}
		}
		sc.Score[k], sc.N[k] = est, len(v)
	}
	return sc, nil
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
	type acc struct {
		in           analysis.DimensionInput
		stc, def     []bool
		hasAnyResult bool
	}
	per := map[string]*acc{}
	for _, a := range auditors {
		per[a.ID] = &acc{}
	}
	for _, a := range audits {
		x := per[a.Auditor]
		if x == nil {
			continue
		}
		switch a.Eval {
		case bundle.EvalAuditQuality:
			if a.Quality.Valid {
				x.in.Quality = append(x.in.Quality, a.Quality.Float64)
			}
		case bundle.EvalFPCalibration:
			if a.FalsePositive.Valid {
				x.in.FalsePositive = append(x.in.FalsePositive, a.FalsePositive.Bool)
			}
		case bundle.EvalProduction:
			if a.ProductionValue.Valid {
				x.in.Production = append(x.in.Production, analysis.ProductionAudit{Seed: a.Seed, Value: a.ProductionValue.Float64})
			}
		case bundle.EvalAuditBenchSTC:
			if a.Detected.Valid {
				x.stc = append(x.stc, a.Detected.Bool)
			}
		case bundle.EvalAuditBenchDefault:
			if a.Detected.Valid {
				x.def = append(x.def, a.Detected.Bool)
			}
		}
	}
	for _, j := range realism {
		// Only the audit side of an audit-vs-real judgment counts.
		if j.OtherAuditor != "" {
			continue
		}
		if x := per[j.Auditor]; x != nil {
			x.in.Realism = append(x.in.Realism, j.Outcome)
		}
	}
	st := &experimentStats{Exp: e, Runs: runs, Auditors: make([]auditorScores, len(auditors)), Audits: audits}
	// Each auditor's bootstrap is independent: spread them over the cores.
	errs := make([]error, len(auditors))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				x := per[auditors[i].ID]
				st.Auditors[i], errs[i] = auditorStats(auditors[i], x.in, x.stc, x.def, bootstrapSeed(exp, auditors[i].ID, "composite"))
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
