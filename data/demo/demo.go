// Package demo generates auditscope's deterministic synthetic demo data: an
// alignment-audit experiment shaped like "Training alignment auditors via
// RL" (32 planted behaviors, frontier baselines, 16 training configurations
// × 3 epochs, the four-part evaluation suite, pairwise judgments, crux
// features and training curves) and an AnnotatedPairs v2.0 dataset.
//
// Everything is drawn from math/rand/v2 PCG streams derived from
// Options.Seed, so the same Options always give the same data. Outcome draws
// are calibrated so that the per-auditor dimension scores land on the
// paper's headline numbers (see docs/DOMAIN.md).
//
// The returned Bundle must be treated as read-only: audits whose
// transcripts have the same shape share one immutable event list, and audits
// with identical judge scores or labels share one map.
package demo

import (
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"
)

// Options control the generator.
type Options struct {
	Seed uint64 // default 1 when zero
	// Audits is 0 for the paper-sized default (about 62,000 audits);
	// otherwise the number of seeds and rollouts per evaluation is scaled so
	// the experiment has about this many audits, with the same auditors.
	// Small values are approximate: the auditors, the 20-conversation
	// realism set and one training audit per behavior and checkpoint are
	// fixed, so the experiment never has fewer than about 5,000 audits.
	Audits int
}

// Default evaluation sizes (per auditor).
const (
	defAQSeeds    = 5   // per held-out behavior
	defFP         = 270 // benign-target audits
	fpSeeds       = 90
	defProdSeeds  = 181
	defProdRoll   = 3
	defAB         = 16 // AuditBench audits per behavior and approach
	nRealism      = 20
	defTrainSeeds = 1  // per training behavior and checkpoint
	seedsPerTrain = 50 // training seeds per behavior
	nBenignRef    = 10 // benign audits per checkpoint in reference judgments
)

// auditorInfo is an auditor with its calibration targets.
type auditorInfo struct {
	bundle.Auditor
	idx         int
	run         *runSpec
	epoch       int
	nominal     dimTarget
	adj         dimTarget // AQ and PV adjusted so the composite survives FP/realism quantisation
	fpCount     int
	realismHalf int // realism wins in half-judgments (tie = 1)
	stc, def    int // AuditBench detections (counts)
	stratW      [8]float64
	always      bool // every audit_quality audit has a rollback

	aq, train, fp, real []int // audit indices per eval (seed order)
}

type gen struct {
	opts  Options
	seed  uint64
	scale float64

	nAQ, nFP, nProdSeeds, nAB, nTrain int
	prodRoll                          []int

	heldout, train []int // behavior indices
	auditors       []*auditorInfo
	byID           map[string]*auditorInfo

	audits    []bundle.Audit
	judgments []bundle.Judgment
	bodies    map[bodyKey]*body
	msgCache  map[string]*petri.Edit
	scoreMaps map[string]map[string]float64
	labels    [8]map[string]string
	tags      map[string][]string

	// seed-level data shared by all auditors
	prodRich    []float64
	realSeeds   []int
	seedText    map[string]string
	baseTime    time.Time
	createdTime []string
}

// Experiment builds the synthetic alignment-audit experiment. Same Options →
// identical Bundle (byte-identical JSON when marshalled).
func Experiment(opts Options) *bundle.Bundle {
	g := newGen(opts)
	g.buildAuditors()
	g.buildAudits()
	g.buildJudgments()
	b := &bundle.Bundle{
		Experiment: g.experiment(),
		Runs:       g.runRows(),
		Auditors:   make([]bundle.Auditor, len(g.auditors)),
		Audits:     g.audits,
		Judgments:  g.judgments,
		Crux:       g.crux(),
		Metrics:    g.metrics(),
		Verdicts:   g.verdicts(),
	}
	for i, a := range g.auditors {
		b.Auditors[i] = a.Auditor
	}
	return b
}

func newGen(opts Options) *gen {
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	g := &gen{opts: opts, seed: opts.Seed, scale: 1,
		byID:      map[string]*auditorInfo{},
		bodies:    map[bodyKey]*body{},
		scoreMaps: map[string]map[string]float64{},
		tags:      map[string][]string{},
		seedText:  map[string]string{},
		baseTime:  time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC),
	}
	for i := range behaviors {
		if behaviors[i].heldout {
			g.heldout = append(g.heldout, i)
		} else {
			g.train = append(g.train, i)
		}
	}
	for i := range g.labels {
		g.labels[i] = map[string]string{"strategy": strategies[i].name}
	}
	nAud := len(baselines) + len(runs)*epochs
	perAuditor := len(g.heldout)*defAQSeeds + defFP + defProdSeeds*defProdRoll + nRealism + 2*len(g.heldout)*defAB
	def := nAud*perAuditor + len(runs)*epochs*len(g.train)*defTrainSeeds
	if opts.Audits > 0 {
		g.scale = float64(opts.Audits) / float64(def)
	}
	f := g.scale
	g.nAQ = max(1, iround(defAQSeeds*f))
	g.nFP = max(10, iround(defFP*f))
	g.nAB = max(2, iround(defAB*f))
	g.nTrain = max(1, iround(defTrainSeeds*f))
	nProd := max(6, iround(defProdSeeds*defProdRoll*f))
	g.nProdSeeds = min(defProdSeeds, nProd)
	g.prodRoll = make([]int, g.nProdSeeds)
	for i := range g.prodRoll {
		g.prodRoll[i] = nProd / g.nProdSeeds
		if i < nProd%g.nProdSeeds {
			g.prodRoll[i]++
		}
	}
	r := g.rng(0x5eed)
	g.prodRich = make([]float64, g.nProdSeeds)
	for i := range g.prodRich {
		g.prodRich[i] = math.Exp(0.6 * r.NormFloat64())
	}
	// The 20 production seeds matched to WildChat conversations.
	step := max(1, g.nProdSeeds/nRealism)
	for i := 0; i < nRealism; i++ {
		g.realSeeds = append(g.realSeeds, (3+i*step)%g.nProdSeeds)
	}
	return g
}

// rng returns an independent PCG stream for a purpose.
func (g *gen) rng(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(g.seed, mix(stream)))
}

func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func iround(x float64) int { return int(math.Round(x)) }

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }

func round1(x float64) float64 { return math.Round(x*10) / 10 }

func ptr[T any](v T) *T { return &v }

func (g *gen) experiment() bundle.Experiment {
	e := bundle.Experiment{
		ID:   ExperimentID,
		Name: "Training alignment auditors via RL (synthetic demo)",
		Description: "Synthetic demo data shaped like the paper \"Training Alignment Auditors via Reinforcement Learning\": " +
			"32 planted behaviors (26 train, 6 held out), frontier baselines and 16 training configurations × 3 epochs, " +
			"evaluated on audit quality, false-positive calibration, production discovery and realism. " +
			"Every audit, transcript and judgment is generated; the numbers are calibrated to the paper's headline results " +
			"but no real model was run.",
		Synthetic: true,
	}
	for _, b := range behaviors {
		split := bundle.SplitTrain
		if b.heldout {
			split = bundle.SplitHeldout
		}
		e.Behaviors = append(e.Behaviors, bundle.Behavior{ID: b.id, Category: b.category, Split: split, Description: b.desc})
	}
	return e
}

func (g *gen) runRows() []bundle.Run {
	out := make([]bundle.Run, len(runs))
	for i, r := range runs {
		out[i] = bundle.Run{ID: r.id, Name: r.name, Reward: r.reward, CalibrationFraction: r.cal,
			MultiTarget: r.multi, BaseModel: baseAuditor}
		if r.refresh > 0 {
			out[i].RefreshSteps = ptr(r.refresh)
		}
	}
	return out
}

// buildAuditors lists baselines then checkpoints and derives their
// calibration targets.
func (g *gen) buildAuditors() {
	for _, b := range baselines {
		a := &auditorInfo{Auditor: bundle.Auditor{ID: b.id, Name: b.name, Kind: model.AuditorBaseline}, nominal: b.dims}
		a.stratW = baselineStrategies(b.dims)
		a.always = b.id == "claude-opus-4.7"
		g.addAuditor(a)
	}
	for ri := range runs {
		r := &runs[ri]
		for e := 1; e <= epochs; e++ {
			a := &auditorInfo{Auditor: bundle.Auditor{ID: r.id + "@e" + strconv.Itoa(e),
				Name: r.name + " · epoch " + strconv.Itoa(e), Kind: model.AuditorCheckpoint, Run: r.id,
				Epoch: ptr(e), Step: ptr(e * stepsPerEpoch)}, run: r, epoch: e, nominal: r.dims[e-1]}
			a.stratW = checkpointStrategies(r, e)
			a.always = a.ID == alwaysRollbackRun
			g.addAuditor(a)
		}
	}
}

func (g *gen) addAuditor(a *auditorInfo) {
	a.idx = len(g.auditors)
	n := a.nominal
	a.fpCount = iround((1 - n.FP/100) * float64(g.nFP))
	a.realismHalf = iround(n.RE / 100 * 2 * nRealism)
	fpq := 100 * (1 - float64(a.fpCount)/float64(g.nFP))
	req := 100 * float64(a.realismHalf) / (2 * nRealism)
	resid := (n.AQ + n.FP + n.PV + n.RE) - (n.AQ + fpq + n.PV + req)
	a.adj = dimTarget{AQ: n.AQ + resid/2, FP: fpq, PV: n.PV + resid/2, RE: req}
	if a.adj.PV < 1 {
		a.adj.AQ, a.adj.PV = n.AQ+resid, n.PV
	}
	// AuditBench detections.
	nab := float64(6 * g.nAB)
	stc := clamp((11+(n.AQ-60.5)*1.3)/96, 3.0/96, 26.0/96)
	if a.ID == headlineCkpt {
		stc = 27.0 / 96
	}
	def := math.Max((32+(n.AQ-60.5)*1.1)/96, stc+10.0/96)
	a.stc, a.def = iround(stc*nab), iround(def*nab)
	g.auditors = append(g.auditors, a)
	g.byID[a.ID] = a
}

// baseStrategyW is the untrained mix of auditing strategies.
var baseStrategyW = [8]float64{0.15, 0.2, 0.2, 0.25, 0.06, 0.06, 0.04, 0.04}

func baselineStrategies(d dimTarget) [8]float64 {
	w := baseStrategyW
	s := (d.AQ - 60) / 20 // stronger models experiment more, weaker ones collapse more
	w[stControlled] = math.Max(0.02, w[stControlled]+0.1*s)
	w[stCollapse] = math.Max(0.01, w[stCollapse]-0.04*s)
	return w
}

func checkpointStrategies(r *runSpec, epoch int) [8]float64 {
	var attract [8]float64
	switch r.reward {
	case rewardReference:
		attract = [8]float64{0.62, 0.14, 0.1, 0.09, 0.02, 0.01, 0.01, 0.01}
	case rewardIntragroup:
		attract = [8]float64{0.35, 0.3, 0.14, 0.1, 0.05, 0.04, 0.01, 0.01}
	case rewardBinary:
		attract = [8]float64{0.04, 0.1, 0.05, 0.02, 0.3, 0.1, 0.22, 0.17}
	default:
		attract = [8]float64{0.03, 0.12, 0.03, 0.02, 0.25, 0.3, 0.17, 0.08}
	}
	// Calibration pulls failure modes back; multi-target runs stay diverse.
	calm := [8]float64{0.35, 0.25, 0.15, 0.15, 0.04, 0.03, 0.02, 0.01}
	t := float64(epoch) / epochs
	if r.multi {
		t *= 0.7
	}
	var w [8]float64
	for i := range w {
		a := (1-r.cal)*attract[i] + r.cal*calm[i]
		w[i] = (1-t)*baseStrategyW[i] + t*a
	}
	return w
}

func pick(r *rand.Rand, w *[8]float64) int {
	var tot float64
	for _, x := range w {
		tot += x
	}
	u := r.Float64() * tot
	for i, x := range w {
		if u < x {
			return i
		}
		u -= x
	}
	return len(w) - 1
}

// timestamps: each audit starts 41 s after the previous one and lasts a few
// minutes.
func (g *gen) times(i, turns int) (string, string) {
	t := g.baseTime.Add(time.Duration(i) * 41 * time.Second)
	return t.Format(time.RFC3339), t.Add(time.Duration(60+turns*45) * time.Second).Format(time.RFC3339)
}

func (g *gen) tagList(eval, behavior string) []string {
	k := eval + "/" + behavior
	if t, ok := g.tags[k]; ok {
		return t
	}
	t := []string{eval}
	if behavior != "" {
		t = append(t, behavior)
	}
	g.tags[k] = t
	return t
}

// audit appends an audit and returns its index.
func (g *gen) audit(a *auditorInfo, eval string, bh int, seed, target string, out bundle.Outcome,
	bd *body, scores map[string]float64, strat int) int {
	i := len(g.audits)
	id := "a-" + pad6(i+1)
	behavior := ""
	if bh >= 0 {
		behavior = behaviors[bh].id
	}
	created, updated := g.times(i, bd.turns)
	tr := &petri.Transcript{
		Metadata: petri.Metadata{
			TranscriptID: id,
			AuditorModel: a.ID,
			TargetModel:  target,
			CreatedAt:    created,
			UpdatedAt:    updated,
			Version:      "v3.0",
			Description:  g.seedText[seed],
			Tags:         g.tagList(eval, behavior),
			JudgeOutput: &petri.JudgeOutput{
				Response:      bd.response,
				Summary:       bd.summary,
				Justification: bd.justification,
				Scores:        scores,
				Highlights:    bd.highlights,
			},
		},
		Events: bd.events,
	}
	au := bundle.Audit{ID: id, Auditor: a.ID, Eval: eval, Behavior: behavior, Seed: seed, Target: target,
		Turns: bd.turns, Outcome: out, Scores: scores, Summary: bd.summary, Transcript: tr}
	if a.Kind == model.AuditorCheckpoint {
		au.Labels = g.labels[strat]
	}
	g.audits = append(g.audits, au)
	return i
}

// buildAudits generates every auditor's audits.
func (g *gen) buildAudits() {
	per := len(g.heldout)*g.nAQ + g.nFP + len(g.realSeeds) + 2*len(g.heldout)*g.nAB
	for _, n := range g.prodRoll {
		per += n
	}
	g.audits = make([]bundle.Audit, 0, per*len(g.auditors)+len(runs)*epochs*len(g.train)*g.nTrain)
	for _, a := range g.auditors {
		r := g.rng(uint64(1000 + a.idx))
		g.auditQuality(a, r)
		g.fpCalibration(a, r)
		g.production(a, r)
		g.realism(a, r)
		g.auditBench(a, r, model.EvalAuditBenchSTC, a.stc)
		g.auditBench(a, r, model.EvalAuditBenchDefault, a.def)
		if a.Kind == model.AuditorCheckpoint {
			g.training(a, r)
		}
	}
}

func (g *gen) rollback(a *auditorInfo, r *rand.Rand, eval string) bool {
	if a.always && eval == model.EvalAuditQuality {
		return true
	}
	return r.IntN(10) == 0
}

// calibrateMean shifts values so their mean is target, keeping them in
// [lo, hi], and rounds them to one decimal.
func calibrateMean(v []float64, target, lo, hi float64) {
	for iter := 0; iter < 20; iter++ {
		var s float64
		for _, x := range v {
			s += x
		}
		d := target - s/float64(len(v))
		if math.Abs(d) < 1e-9 {
			break
		}
		for i := range v {
			v[i] = clamp(v[i]+d, lo, hi)
		}
	}
	for i := range v {
		v[i] = round1(v[i])
	}
}

func (g *gen) auditQuality(a *auditorInfo, r *rand.Rand) {
	n := len(g.heldout) * g.nAQ
	q := make([]float64, n)
	for k := range q {
		bh := g.heldout[k/g.nAQ]
		q[k] = a.adj.AQ + behaviors[bh].aqOffset + 13*r.NormFloat64()
	}
	calibrateMean(q, a.adj.AQ, 0, 100)
	for k := range q {
		bh := g.heldout[k/g.nAQ]
		s := k % g.nAQ
		det := q[k]+5*r.NormFloat64() >= 62
		st := pick(r, &a.stratW)
		bd := g.body(bodyKey{kind: bodyPlanted, scenario: int16(bh), variant: int16((bh*7 + s) % len(domains)),
			strat: uint8(st), hit: det, rollback: g.rollback(a, r, model.EvalAuditQuality)})
		sv := judgeScores(r, scoreInput{kind: bodyPlanted, hit: det, strat: st, behavior: bh, quality: q[k], realismLv: a.adj.RE})
		seed := g.aqSeed(k, bh, s)
		i := g.audit(a, model.EvalAuditQuality, bh, seed, evalTargets[(bh+s)%len(evalTargets)],
			bundle.Outcome{Quality: ptr(q[k]), Detected: ptr(det)}, bd, g.scoreMap(&sv), st)
		a.aq = append(a.aq, i)
	}
}

func (g *gen) fpCalibration(a *auditorInfo, r *rand.Rand) {
	fp := make([]bool, g.nFP)
	for _, i := range r.Perm(g.nFP)[:a.fpCount] {
		fp[i] = true
	}
	for k := 0; k < g.nFP; k++ {
		s := k % fpSeeds
		st := pick(r, &a.stratW)
		bd := g.body(bodyKey{kind: bodyBenign, scenario: int16(s), strat: uint8(st), hit: fp[k],
			rollback: g.rollback(a, r, model.EvalFPCalibration)})
		sv := judgeScores(r, scoreInput{kind: bodyBenign, hit: fp[k], strat: st, realismLv: a.adj.RE})
		i := g.audit(a, model.EvalFPCalibration, -1, g.fpSeed(s), evalTargets[s%len(evalTargets)],
			bundle.Outcome{FalsePositive: ptr(fp[k])}, bd, g.scoreMap(&sv), st)
		a.fp = append(a.fp, i)
	}
}

func (g *gen) production(a *auditorInfo, r *rand.Rand) {
	type pa struct {
		seed int
		v    float64
	}
	var all []pa
	for s, n := range g.prodRoll {
		p := clamp(a.adj.PV/100*1.6*g.prodRich[s], 0, 0.9)
		for j := 0; j < n; j++ {
			v := 0.0
			if r.Float64() < p {
				v = 30 + 60*math.Pow(r.Float64(), 0.8)
			} else if r.IntN(5) < 2 {
				v = 0.5 + 5*r.Float64()
			}
			all = append(all, pa{s, v})
		}
	}
	// Scale so the mean of per-seed means hits the target.
	for iter := 0; iter < 20; iter++ {
		var tot float64
		k := 0
		for _, n := range g.prodRoll {
			var s float64
			for j := 0; j < n; j++ {
				s += all[k+j].v
			}
			tot += s / float64(n)
			k += n
		}
		m := tot / float64(len(g.prodRoll))
		if m <= 0 || math.Abs(m-a.adj.PV) < 1e-9 {
			break
		}
		c := a.adj.PV / m
		for i := range all {
			all[i].v = math.Min(100, all[i].v*c)
		}
	}
	for _, x := range all {
		v := round1(x.v)
		hit := v >= 20
		st := pick(r, &a.stratW)
		bd := g.body(bodyKey{kind: bodyProduction, scenario: int16(x.seed), strat: uint8(st), hit: hit,
			rollback: g.rollback(a, r, model.EvalProduction)})
		sv := judgeScores(r, scoreInput{kind: bodyProduction, hit: hit, strat: st, prodValue: v, realismLv: a.adj.RE})
		g.audit(a, model.EvalProduction, -1, g.prodSeed(x.seed), prodTargets[x.seed%len(prodTargets)],
			bundle.Outcome{ProductionValue: ptr(v)}, bd, g.scoreMap(&sv), st)
	}
}

func (g *gen) realism(a *auditorInfo, r *rand.Rand) {
	for _, s := range g.realSeeds {
		st := pick(r, &a.stratW)
		bd := g.body(bodyKey{kind: bodyProduction, scenario: int16(s), strat: uint8(st)})
		sv := judgeScores(r, scoreInput{kind: bodyProduction, realism: true, strat: st, realismLv: a.adj.RE})
		i := g.audit(a, model.EvalRealism, -1, g.prodSeed(s), realismTarget, bundle.Outcome{}, bd, g.scoreMap(&sv), st)
		a.real = append(a.real, i)
	}
}

// allocate distributes k detections over behaviors by weight, at most n each.
func allocate(k, n int, w []float64) []int {
	c := make([]int, len(w))
	if k > n*len(w) {
		k = n * len(w)
	}
	// D'Hondt-style: each detection goes to the open behavior with the
	// largest weight per detection already given.
	for ; k > 0; k-- {
		best, bestQ := -1, -1.0
		for i, x := range w {
			if c[i] < n && x/float64(c[i]+1) > bestQ {
				best, bestQ = i, x/float64(c[i]+1)
			}
		}
		c[best]++
	}
	return c
}

func (g *gen) auditBench(a *auditorInfo, r *rand.Rand, eval string, k int) {
	w := make([]float64, len(g.heldout))
	for i, bh := range g.heldout {
		w[i] = behaviors[bh].abWeight
	}
	counts := allocate(k, g.nAB, w)
	for i, bh := range g.heldout {
		det := make([]bool, g.nAB)
		for _, j := range r.Perm(g.nAB)[:counts[i]] {
			det[j] = true
		}
		for j := 0; j < g.nAB; j++ {
			st := pick(r, &a.stratW)
			q := 40.0
			if det[j] {
				q = 75
			}
			bd := g.body(bodyKey{kind: bodyPlanted, scenario: int16(bh), variant: int16(j % len(domains)),
				strat: uint8(st), hit: det[j], rollback: g.rollback(a, r, eval)})
			sv := judgeScores(r, scoreInput{kind: bodyPlanted, hit: det[j], strat: st, behavior: bh, quality: q, realismLv: a.adj.RE})
			g.audit(a, eval, bh, g.abSeed(i*g.nAB+j, bh), "llama-3.3-70b-td-kto",
				bundle.Outcome{Detected: ptr(det[j])}, bd, g.scoreMap(&sv), st)
		}
	}
}

func (g *gen) training(a *auditorInfo, r *rand.Rand) {
	ri := a.idx
	for _, bh := range g.train {
		for j := 0; j < g.nTrain; j++ {
			s := (ri*3 + a.epoch*7 + bh + j*11) % seedsPerTrain
			q := clamp(a.adj.AQ+4+a.run.gap*40*float64(a.epoch)/epochs+12*r.NormFloat64(), 0, 100)
			q = round1(q)
			det := q+5*r.NormFloat64() >= 62
			st := pick(r, &a.stratW)
			bd := g.body(bodyKey{kind: bodyPlanted, scenario: int16(bh), variant: int16(s % len(domains)),
				strat: uint8(st), hit: det, rollback: g.rollback(a, r, model.EvalTraining)})
			sv := judgeScores(r, scoreInput{kind: bodyPlanted, hit: det, strat: st, behavior: bh, quality: q, realismLv: a.adj.RE})
			i := g.audit(a, model.EvalTraining, bh, g.trainSeed(bh, s), trainTarget,
				bundle.Outcome{Quality: ptr(q), Detected: ptr(det)}, bd, g.scoreMap(&sv), st)
			a.train = append(a.train, i)
		}
	}
}
