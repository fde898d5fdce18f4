package app

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/auditscope/auditscope/analysis"
	"github.com/auditscope/auditscope/analysis/experiment"
	"github.com/auditscope/auditscope/data/model"
)

// BootstrapResamples is the number of resamples behind composite intervals
// and the compare page's bootstraps: at 10,000 a p-value near 0.05 has a
// Monte Carlo error of about 0.002 and a bound moves by well under a
// tenth of a point between seeds (at 1,000 a verdict could flip with the
// seed and the floor, 0.002, was reached by 23 of the demo's ranking rows).
const BootstrapResamples = 10000

// ScoreResamples is the number of resamples behind each auditor's own
// composite interval, a description rather than a test: at 2,000 its
// bounds move by about a tenth of a point between seeds, and the
// overview's cold statistics stay near their old cost (58 auditors).
const ScoreResamples = 2000

// AuditorScores is one auditor's evaluation results; every score is on the
// 0–100 scale.
type AuditorScores struct {
	Auditor model.Auditor
	Score   map[string]analysis.Estimate
	N       map[string]int
	// Interval names each dimension's interval method.
	Interval map[string]string
}

// ExperimentStats is everything computed once per version of an
// experiment: kept until an import changes the experiment (serve --watch),
// which moves its version (Service.Stats).
type ExperimentStats struct {
	Exp      model.Experiment
	Runs     []model.Run
	Auditors []AuditorScores
	// Audits are the outcome rows the statistics came from, kept for the
	// pages that break them down further (transfer, compare).
	Audits []model.EvalAudit
	// Realism are the realism judgments from each auditor's side (compare).
	Realism []experiment.RealismJudgment
	// Version is the experiment's version these statistics are kept under:
	// what is computed from them is kept under it too, so that an import
	// landing in between cannot file old results under the new version.
	Version int64
	// Judge is the judge whose outcomes these statistics read: "" for
	// the experiment's evaluation judge (the audits' own), else another
	// judge's (StatsUnder), over only the audits it judged.
	Judge string
	// Judges are the experiment's other judges that gave outcomes: those
	// the statistics can be computed under.
	Judges []string

	// unitsOnce makes units, every auditor's comparison units, on first use
	// (the overview's ranking): the statistics do not change once made.
	unitsOnce sync.Once
	unitsVal  *experiment.Units
	unitsErr  error

	// byUnitOnce makes byUnit, the indexes into Audits of each unit (eval,
	// behavior, seed), on first use: an audit page lists its unit's other
	// audits, and scanning every outcome row for them took tens of
	// milliseconds a page at a million audits.
	byUnitOnce sync.Once
	byUnit     map[[3]string][]int32
}

// sameUnit are the indexes into st.Audits of the audits of one unit.
func (st *ExperimentStats) sameUnit(eval, behavior, seed string) []int32 {
	st.byUnitOnce.Do(func() {
		st.byUnit = map[[3]string][]int32{}
		for i, a := range st.Audits {
			k := [3]string{a.Eval, a.Behavior, a.Seed}
			st.byUnit[k] = append(st.byUnit[k], int32(i))
		}
	})
	return st.byUnit[[3]string{eval, behavior, seed}]
}

// units are the comparison units of every auditor of the experiment.
func (st *ExperimentStats) units() (*experiment.Units, error) {
	st.unitsOnce.Do(func() {
		st.unitsVal, st.unitsErr = experiment.GatherUnits(st.Audits, st.Realism, nil)
	})
	return st.unitsVal, st.unitsErr
}

// Stats returns an experiment's statistics, computed once however many
// requests ask at the same time, without making a request for another
// experiment wait.
func (s *Service) Stats(ctx context.Context, exp string) (*ExperimentStats, error) {
	return s.statsUnder(ctx, exp, "")
}

// statsUnder is Stats under judge's outcomes ("" the evaluation judge's);
// StatsUnder checks the judge first.
func (s *Service) statsUnder(ctx context.Context, exp, judge string) (*ExperimentStats, error) {
	// Keyed by the experiment's version: an import that changes it (serve
	// --watch) gets new statistics; other experiments keep theirs.
	version := s.r.NameVersion(exp)
	at := statsKey(exp, version, "")
	key := at + judge
	return s.stats.Get(ctx, key, func(ctx context.Context) (*ExperimentStats, error) {
		// The experiment's older versions go: a running eval's appends
		// would otherwise fill the cache with them.
		s.stats.RemoveFunc(func(k string) bool { return strings.HasPrefix(k, exp+"@") && !strings.HasPrefix(k, at) })
		st, err := computeStats(ctx, s.r, exp, judge)
		if st != nil {
			st.Version, st.Judge = version, judge
		}
		return st, err
	})
}

// Key names these statistics in the memos of what is computed from them:
// the experiment, its version and the judge.
func (st *ExperimentStats) Key() string { return statsKey(st.Exp.ID, st.Version, st.Judge) }

// statsKey names an experiment's statistics of one version under judge.
func statsKey(exp string, version int64, judge string) string {
	return exp + "@" + strconv.FormatInt(version, 10) + "#" + judge
}

// Warm computes what people open first ahead of their first request (serve
// calls it in the background at start-up and after each import lands), so
// no visitor waits for it: every experiment's statistics, the overview's
// ranking of all its auditors and the paper's comparisons its presets offer, and the explorer's default table of the
// datasets whose votes fit the cache; then it reads each experiment's
// search text (warmSearch). It reports each failure to warn and goes on; a
// page would report it again. What is computed already is not computed
// again.
func (s *Service) Warm(ctx context.Context, warn func(what string, err error)) {
	exps, err := s.r.ExperimentList(ctx)
	if err != nil {
		warn("experiments", err)
		return
	}
	for _, e := range exps {
		if ctx.Err() != nil {
			return
		}
		st, err := s.Stats(ctx, e.ID)
		if err != nil {
			warn(e.ID, err)
			continue
		}
		ids := make([]string, len(st.Auditors))
		for i, a := range st.Auditors {
			ids[i] = a.Auditor.ID
		}
		if _, err := s.Rank(ctx, st, ids); err != nil {
			warn(e.ID+" ranking", err)
		}
		for _, p := range Presets(st) {
			if _, err := s.Compare(ctx, st, p.A, []string{p.B}); err != nil {
				warn(e.ID+" compare "+p.A+" "+p.B, err)
			}
		}
	}
	datasets, err := s.r.DatasetList(ctx)
	if err != nil {
		warn("datasets", err)
		return
	}
	for _, d := range datasets[:min(len(datasets), pairsCacheSize)] {
		if ctx.Err() != nil {
			return
		}
		p, err := s.Pairs(ctx, d.ID)
		if err != nil {
			warn(d.ID, err)
			continue
		}
		if ref, ok := p.DefaultRef(); ok {
			if _, err := s.ExplorerTable(ctx, p, ExplorerQuery{Refs: []string{ref}, Metric: "strength", CI: true}, ForPage); err != nil {
				warn(d.ID+" explorer", err)
			}
		}
	}
	for _, e := range exps {
		if ctx.Err() != nil {
			return
		}
		if err := s.warmSearch(ctx, e.ID); err != nil {
			warn(e.ID+" search text", err)
		}
	}
}

// warmSearchText is what warmSearch looks for: text no transcript is
// likely to hold (what it finds does not matter).
const warmSearchText = "auditscope reads the search text ahead"

// warmSearch reads the search text of every audit of an experiment once
// per version of its data, as a full-text search does. DuckDB keeps what
// it read in its buffer pool, so the first search a visitor makes need not
// wait for the disk: at a million audits the text is 1.3 GB (210 MB
// compressed in the file), and a first search took 0.65–1.7 s when the
// system had dropped the file from its cache, against 0.3 s after.
func (s *Service) warmSearch(ctx context.Context, exp string) error {
	has, err := s.HasAudits(ctx, exp)
	if err != nil || !has {
		return err
	}
	_, err = s.searched.Get(ctx, exp+"@"+strconv.FormatInt(s.r.NameVersion(exp), 10), func(ctx context.Context) (int, error) {
		return s.r.CountAudits(ctx, model.AuditFilter{Experiment: exp, Text: warmSearchText})
	})
	return err
}

// auditorStats computes one auditor's dimensions and detection rates.
func auditorStats(exp string, a model.Auditor, in *experiment.Inputs) (AuditorScores, error) {
	sc, err := experiment.Score(*in, ScoreResamples, experiment.Seed(exp, a.ID, experiment.Composite))
	return AuditorScores{Auditor: a, Score: sc.Score, N: sc.N, Interval: sc.Interval}, err
}

// computeStats reads an experiment and scores every auditor; each auditor's
// bootstrap runs on its own core.
func computeStats(ctx context.Context, store Reader, exp, judge string) (*ExperimentStats, error) {
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
	audits, err := evalAudits(ctx, store, exp, judge)
	if err != nil {
		return nil, err
	}
	judges, err := store.Judges(ctx, exp)
	if err != nil {
		return nil, err
	}
	realism, err := store.SideJudgments(ctx, exp, model.JudgmentRealism)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(auditors))
	for i, a := range auditors {
		ids[i] = a.ID
	}
	// A realism judgment's unit is the production seed its audit ran on.
	// Only the judged audits' seeds: a map of every audit's was a third
	// of a second at a million audits, for a thousand judgments.
	seedOf := make(map[string]string, len(realism))
	for _, j := range realism {
		seedOf[j.Audit] = ""
	}
	for _, a := range audits {
		if _, ok := seedOf[a.ID]; ok {
			seedOf[a.ID] = a.Seed
		}
	}
	judgments := make([]experiment.RealismJudgment, len(realism))
	for i, j := range realism {
		judgments[i] = experiment.RealismJudgment{Auditor: j.Auditor, Audit: j.Audit, OtherAuditor: j.OtherAuditor, Outcome: j.Outcome, Seed: seedOf[j.Audit]}
	}
	st := &ExperimentStats{Exp: e, Runs: runs, Audits: audits, Realism: judgments, Judges: outcomeJudges(judges)}
	// The ranking, the overview's next need, reads every auditor's units:
	// gathered meanwhile, on the core that Gather (one goroutine) leaves
	// idle (0.3–0.4 s at a million audits; the overview's first request
	// 2.50–2.61 → 2.40–2.48 s there). An error is the ranking's to report.
	go st.units()
	per := experiment.Gather(ids, audits, judgments)
	scores, err := scoreAll(exp, auditors, per)
	if err != nil {
		return nil, err
	}
	st.Auditors = scores
	return st, nil
}

// scoreAll scores every auditor; each auditor's bootstrap is independent,
// so they are spread over the cores.
func scoreAll(exp string, auditors []model.Auditor, per map[string]*experiment.Inputs) ([]AuditorScores, error) {
	out := make([]AuditorScores, len(auditors))
	errs := make([]error, len(auditors))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = auditorStats(exp, auditors[i], per[auditors[i].ID])
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
	return out, nil
}
