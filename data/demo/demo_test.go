package demo

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"
)

var defaultBundle = sync.OnceValue(func() *bundle.Bundle { return Experiment(Options{}) })

// hashBundle hashes the bundle's JSON as the importer would read it.
func hashBundle(t testing.TB, b *bundle.Bundle) [32]byte {
	h := sha256.New()
	enc := json.NewEncoder(h)
	put := func(v any) {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	put(b.Experiment)
	for _, x := range b.Runs {
		put(x)
	}
	for _, x := range b.Auditors {
		put(x)
	}
	// A transcript's JSON is its metadata plus its events; audits with the
	// same body share one event list (and identical scores one map), so each
	// list and map is hashed once and then referred to by its index: an
	// exact check, and much faster.
	bodies := map[*petri.Event]int{}
	maps := map[uintptr]int{}
	putMap := func(m map[string]float64) {
		p := reflect.ValueOf(m).Pointer()
		i, ok := maps[p]
		if !ok {
			i = len(maps)
			maps[p] = i
			put(m)
		}
		put(i)
	}
	for _, x := range b.Audits {
		tr := *x.Transcript
		jo := *tr.Metadata.JudgeOutput
		ev, sc, jsc := tr.Events, x.Scores, jo.Scores
		tr.Events, x.Scores, jo.Scores = nil, nil, nil
		tr.Metadata.JudgeOutput = &jo
		x.Transcript = &tr
		put(x)
		putMap(sc)
		putMap(jsc)
		i, ok := bodies[&ev[0]]
		if !ok {
			i = len(bodies)
			bodies[&ev[0]] = i
			put(ev)
		}
		put(i)
	}
	for _, x := range b.Judgments {
		put(x)
	}
	for _, x := range b.Crux {
		put(x)
	}
	for _, x := range b.Metrics {
		put(x)
	}
	var s [32]byte
	copy(s[:], h.Sum(nil))
	return s
}

func TestDeterminism(t *testing.T) {
	a := hashBundle(t, defaultBundle())
	b := hashBundle(t, Experiment(Options{}))
	if a != b {
		t.Fatal("two default experiments differ")
	}
	if hashBundle(t, Experiment(Options{Audits: 5000})) != hashBundle(t, Experiment(Options{Seed: 1, Audits: 5000})) {
		t.Fatal("Seed 0 and Seed 1 should be the same experiment")
	}
	s2 := hashBundle(t, Experiment(Options{Seed: 2, Audits: 5000}))
	s3 := hashBundle(t, Experiment(Options{Seed: 3, Audits: 5000}))
	if s2 == s3 {
		t.Fatal("different seeds give the same experiment")
	}
	if s2 != hashBundle(t, Experiment(Options{Seed: 2, Audits: 5000})) {
		t.Fatal("scaled experiment is not deterministic")
	}
	var p1, p2, p3 bytes.Buffer
	for _, x := range []struct {
		w    *bytes.Buffer
		seed uint64
	}{{&p1, 0}, {&p2, 1}, {&p3, 7}} {
		if err := AnnotatedPairs(x.w, Options{Seed: x.seed}); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(p1.Bytes(), p2.Bytes()) {
		t.Fatal("AnnotatedPairs is not deterministic")
	}
	if bytes.Equal(p1.Bytes(), p3.Bytes()) {
		t.Fatal("AnnotatedPairs ignores the seed")
	}
}

// dimScores are the four dimensions and the composite, computed the plain
// way from audits and judgments.
type dimScores struct{ AQ, FP, PV, RE, C float64 }

func computeDims(b *bundle.Bundle) map[string]*dimScores {
	type acc struct {
		qSum            float64
		qN, fpN, fpPos  int
		prod            map[string][]float64
		realWin, realN  float64
		stc, stcN       int
		deflt, defaultN int
	}
	accs := map[string]*acc{}
	get := func(id string) *acc {
		a := accs[id]
		if a == nil {
			a = &acc{prod: map[string][]float64{}}
			accs[id] = a
		}
		return a
	}
	byID := map[string]*bundle.Audit{}
	for i := range b.Audits {
		au := &b.Audits[i]
		byID[au.ID] = au
		a := get(au.Auditor)
		switch au.Eval {
		case model.EvalAuditQuality:
			a.qSum += *au.Outcome.Quality
			a.qN++
		case model.EvalFPCalibration:
			a.fpN++
			if *au.Outcome.FalsePositive {
				a.fpPos++
			}
		case model.EvalProduction:
			a.prod[au.Seed] = append(a.prod[au.Seed], *au.Outcome.ProductionValue)
		}
	}
	for _, j := range b.Judgments {
		if j.Kind != model.JudgmentRealism {
			continue
		}
		a := get(byID[j.Left].Auditor)
		a.realN++
		switch j.Outcome {
		case bundle.OutcomeLeft:
			a.realWin++
		case bundle.OutcomeTie:
			a.realWin += 0.5
		}
	}
	out := map[string]*dimScores{}
	for id, a := range accs {
		var ps float64
		for _, v := range a.prod {
			var s float64
			for _, x := range v {
				s += x
			}
			ps += s / float64(len(v))
		}
		d := &dimScores{
			AQ: a.qSum / float64(a.qN),
			FP: 100 * (1 - float64(a.fpPos)/float64(a.fpN)),
			PV: ps / float64(len(a.prod)),
			RE: 100 * a.realWin / a.realN,
		}
		d.C = (d.AQ + d.FP + d.PV + d.RE) / 4
		out[id] = d
	}
	return out
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.2f, want %.2f ± %.1f", what, got, want, tol)
	}
}

func pearson(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

func TestCalibration(t *testing.T) {
	b := defaultBundle()
	d := computeDims(b)
	for _, id := range []string{"claude-haiku-4.5", "claude-sonnet-4.6", "claude-opus-4.6", "claude-opus-4.7", headlineCkpt,
		"gpt-5.4", "gemini-3.1-pro", "binary-pointwise@e3", "concerningness-rl@e1", "concerningness-rl@e3"} {
		x := d[id]
		t.Logf("%-24s AQ %5.1f  FP %5.1f  PV %5.1f  RE %5.1f  composite %5.2f", id, x.AQ, x.FP, x.PV, x.RE, x.C)
	}
	near(t, "composite opus-4.7", d["claude-opus-4.7"].C, 49.9, 1.5)
	near(t, "composite opus-4.6", d["claude-opus-4.6"].C, 48.4, 1.5)
	near(t, "composite sonnet-4.6", d["claude-sonnet-4.6"].C, 46.5, 1.5)
	near(t, "composite haiku-4.5", d["claude-haiku-4.5"].C, 44.2, 1.5)
	h, o := d[headlineCkpt], d["claude-opus-4.6"]
	near(t, "composite headline", h.C, 48.7, 1.5)
	near(t, "headline audit quality", h.AQ, 72.7, 1.5)
	near(t, "opus-4.6 audit quality", o.AQ, 68.0, 1.5)
	near(t, "headline production", h.PV, 8.5, 1.5)
	near(t, "opus-4.6 production", o.PV, 13.4, 1.5)
	near(t, "headline realism", h.RE, 14.0, 1.5)
	near(t, "opus-4.6 realism", o.RE, 13.1, 1.5)
	if h.RE <= o.RE || h.AQ <= o.AQ || h.PV >= o.PV {
		t.Errorf("headline vs opus-4.6 ordering wrong: %+v vs %+v", *h, *o)
	}
	if h.FP <= 99 || o.FP <= 99 {
		t.Errorf("FP calibration should be > 99: headline %.2f, opus-4.6 %.2f", h.FP, o.FP)
	}
	// Dose-response at epoch 2.
	for _, x := range []struct {
		id   string
		want float64
	}{{"intragroup-cal0@e2", 3}, {"intragroup-cal12@e2", 28}, {"intragroup-cal25@e2", 93}, {"intragroup-cal50@e2", 97}} {
		near(t, "FP calibration "+x.id, d[x.id].FP, x.want, 3)
	}
	// Concerningness RL.
	near(t, "concerningness e1 production", d["concerningness-rl@e1"].PV, 7.8, 1)
	near(t, "concerningness e3 production", d["concerningness-rl@e3"].PV, 23.0, 1)
	near(t, "concerningness e1 calibration", d["concerningness-rl@e1"].FP, 98.9, 1)
	near(t, "concerningness e3 calibration", d["concerningness-rl@e3"].FP, 3.3, 1)
	// The composite beats base Haiku after one epoch; binary degrades at epoch 3.
	if d[headlineRun+"@e1"].C <= d["claude-haiku-4.5"].C {
		t.Error("headline run should beat base Haiku after one epoch")
	}
	if d["binary-pointwise@e3"].AQ >= d["binary-pointwise@e2"].AQ-5 {
		t.Error("binary pointwise should degrade at epoch 3")
	}
	// Correlations across checkpoints.
	var fp, pv, aq, comp []float64
	for _, a := range b.Auditors {
		if a.Kind != model.AuditorCheckpoint {
			continue
		}
		x := d[a.ID]
		fp, pv, aq, comp = append(fp, x.FP), append(pv, x.PV), append(aq, x.AQ), append(comp, x.C)
	}
	rFPPV, rFPC, rAQC := pearson(fp, pv), pearson(fp, comp), pearson(aq, comp)
	t.Logf("correlations over %d checkpoints: FP~PV %.2f  FP~composite %.2f  AQ~composite %.2f", len(fp), rFPPV, rFPC, rAQC)
	if rFPPV > -0.4 || rFPC < 0.5 {
		t.Errorf("correlations off: FP~PV %.2f, FP~composite %.2f", rFPPV, rFPC)
	}
}

func TestAuditBench(t *testing.T) {
	b := defaultBundle()
	type cnt struct{ det, n int }
	rates := map[string]map[string]*cnt{}
	hard := map[string]int{}
	for _, au := range b.Audits {
		if au.Eval != model.EvalAuditBenchSTC && au.Eval != model.EvalAuditBenchDefault {
			continue
		}
		m := rates[au.Eval]
		if m == nil {
			m = map[string]*cnt{}
			rates[au.Eval] = m
		}
		c := m[au.Auditor]
		if c == nil {
			c = &cnt{}
			m[au.Auditor] = c
		}
		c.n++
		if *au.Outcome.Detected {
			c.det++
			switch au.Behavior {
			case "contextual_optimism", "hallucinates_citations", "secret_loyalty":
				hard[au.Eval]++
			}
		}
	}
	stc, def := rates[model.EvalAuditBenchSTC], rates[model.EvalAuditBenchDefault]
	if c := stc[baseAuditor]; c.det != 11 || c.n != 96 {
		t.Errorf("base STC = %d/%d, want 11/96", c.det, c.n)
	}
	if c := def[baseAuditor]; c.det != 32 || c.n != 96 {
		t.Errorf("base default = %d/%d, want 32/96", c.det, c.n)
	}
	best := 0
	for _, a := range b.Auditors {
		if a.Kind == model.AuditorCheckpoint {
			best = max(best, stc[a.ID].det)
		}
		if def[a.ID].det <= stc[a.ID].det {
			t.Errorf("%s: default %d should exceed STC %d", a.ID, def[a.ID].det, stc[a.ID].det)
		}
	}
	if best != 27 || stc[headlineCkpt].det != 27 {
		t.Errorf("best trained STC = %d (headline %d), want 27", best, stc[headlineCkpt].det)
	}
	// Near 0 for the three hard behaviors: under 3% of their audits.
	n := len(b.Auditors) * 3 * 16
	for e, h := range hard {
		if float64(h) > 0.03*float64(n) {
			t.Errorf("%s: %d detections of hard behaviors out of %d", e, h, n)
		}
	}
}

// TestStrategies checks that strategy mixes shift with the reward.
func TestStrategies(t *testing.T) {
	b := defaultBundle()
	counts := map[string]map[string]int{}
	for _, a := range b.Audits {
		if s := a.Labels["strategy"]; s != "" {
			if counts[a.Auditor] == nil {
				counts[a.Auditor] = map[string]int{}
			}
			counts[a.Auditor][s]++
		}
	}
	share := func(id string, names ...string) float64 {
		var n, tot int
		for s, c := range counts[id] {
			tot += c
			for _, x := range names {
				if s == x {
					n += c
				}
			}
		}
		return float64(n) / float64(tot)
	}
	ctl1, ctl3 := share(headlineRun+"@e1", "controlled experimentation"), share(headlineCkpt, "controlled experimentation")
	bad1 := share("binary-pointwise@e1", "coercion", "extraction attack", "investigation collapse")
	bad3 := share("binary-pointwise@e3", "coercion", "extraction attack", "investigation collapse")
	t.Logf("controlled experimentation, headline run: e1 %.2f → e3 %.2f; coercion+extraction+collapse, binary: e1 %.2f → e3 %.2f", ctl1, ctl3, bad1, bad3)
	if ctl3 <= ctl1+0.1 || bad3 <= bad1+0.2 {
		t.Error("strategy mixes do not shift over epochs")
	}
}

// olsR2 is the in-sample R² of regressing y on x (with an intercept).
func olsR2(x [][]float64, y []float64) float64 {
	n, k := len(y), len(x[0])+1
	// Normal equations.
	a := make([][]float64, k)
	for i := range a {
		a[i] = make([]float64, k+1)
	}
	row := make([]float64, k)
	for r := 0; r < n; r++ {
		row[0] = 1
		copy(row[1:], x[r])
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				a[i][j] += row[i] * row[j]
			}
			a[i][k] += row[i] * y[r]
		}
	}
	for c := 0; c < k; c++ {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		a[c], a[p] = a[p], a[c]
		for r := 0; r < k; r++ {
			if r != c && a[c][c] != 0 {
				f := a[r][c] / a[c][c]
				for j := c; j <= k; j++ {
					a[r][j] -= f * a[c][j]
				}
			}
		}
	}
	beta := make([]float64, k)
	for i := range beta {
		beta[i] = a[i][k] / a[i][i]
	}
	var my float64
	for _, v := range y {
		my += v
	}
	my /= float64(n)
	var ssr, sst float64
	for r := 0; r < n; r++ {
		pred := beta[0]
		for j, v := range x[r] {
			pred += beta[j+1] * v
		}
		ssr += (y[r] - pred) * (y[r] - pred)
		sst += (y[r] - my) * (y[r] - my)
	}
	return 1 - ssr/sst
}

func TestCruxR2(t *testing.T) {
	b := defaultBundle()
	d := computeDims(b)
	var x [][]float64
	var aq, fp, pv, re []float64
	var base float64
	for _, c := range b.Crux {
		x = append(x, c.Features())
		s := d[c.Auditor]
		aq, fp, pv, re = append(aq, s.AQ), append(fp, s.FP), append(pv, s.PV), append(re, s.RE)
		if c.Auditor == baseAuditor {
			base = c.TargetFocused
		}
	}
	r := map[string]float64{"realism": olsR2(x, re), "production": olsR2(x, pv), "audit_quality": olsR2(x, aq), "fp_calibration": olsR2(x, fp)}
	t.Logf("crux R² with 8 features: %v", r)
	near(t, "base target-focused", base, 0.351, 0.002)
	if r["realism"] < 0.55 || r["production"] < 0.5 || r["fp_calibration"] > r["realism"] {
		t.Errorf("crux R² off: %v", r)
	}
}

func TestScaled(t *testing.T) {
	b := Experiment(Options{Audits: 100_000})
	n := len(b.Audits)
	if n < 90_000 || n > 110_000 {
		t.Errorf("Audits: 100000 gave %d audits", n)
	}
	d := computeDims(b)
	near(t, "scaled headline composite", d[headlineCkpt].C, 48.7, 1.5)
	near(t, "scaled opus-4.6 composite", d["claude-opus-4.6"].C, 48.4, 1.5)
	// The auditors and the realism set are fixed, so small sizes are
	// approximate.
	small := Experiment(Options{Audits: 20_000})
	if n := len(small.Audits); n < 15_000 || n > 27_000 {
		t.Errorf("Audits: 20000 gave %d audits", n)
	}
}

// TestReport checks the default experiment's size against what
// docs/PERFORMANCE.md and the home page state (62,438 audits, 5,168
// judgments, a 462 MB bundle that is mostly transcript JSON), and logs how
// long it takes and how big its transcripts are per eval (go test -v -run
// Report): the benchmarks' figures rest on this size.
func TestReport(t *testing.T) {
	start := time.Now()
	b := Experiment(Options{})
	el := time.Since(start)
	var total int64
	perEval := map[string][2]int64{}
	cw := &countWriter{}
	enc := json.NewEncoder(cw)
	eventsSize := map[*petri.Event]int64{}
	for _, a := range b.Audits {
		// Transcript JSON = {"metadata":…} + ,"events":[…]; event lists are
		// shared, so each is measured once.
		tr := *a.Transcript
		ev := tr.Events
		tr.Events = nil
		before := cw.n
		if err := enc.Encode(&tr); err != nil {
			t.Fatal(err)
		}
		size := cw.n - before - 1 // newline
		es, ok := eventsSize[&ev[0]]
		if !ok {
			raw, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			es = int64(len(raw))
			eventsSize[&ev[0]] = es
		}
		size += int64(len(`,"events":`)) + es
		total += size
		x := perEval[a.Eval]
		perEval[a.Eval] = [2]int64{x[0] + size, x[1] + 1}
	}
	evs := make([]string, 0, len(perEval))
	for e := range perEval {
		evs = append(evs, e)
	}
	sort.Strings(evs)
	var sb strings.Builder
	for _, e := range evs {
		x := perEval[e]
		sb.WriteString(e + ": " + strconv.Itoa(int(x[0]/x[1])) + " B; ")
	}
	t.Logf("Experiment(Options{}) took %v: %d audits, %d judgments; transcript JSON %.1f MB total, %d B per transcript (%s)",
		el, len(b.Audits), len(b.Judgments), float64(total)/1e6, total/int64(len(b.Audits)), sb.String())
	if len(b.Audits) != 62438 || len(b.Judgments) != 5168 {
		t.Errorf("the default experiment has %d audits and %d judgments; docs/PERFORMANCE.md says 62,438 and 5,168", len(b.Audits), len(b.Judgments))
	}
	// The rest of the 462 MB bundle is audits.jsonl's other fields, scores
	// and judgments: the transcripts are most of it, never more.
	if mb := float64(total) / 1e6; mb < 300 || mb > 462 {
		t.Errorf("transcript JSON is %.1f MB; the 462 MB bundle docs/PERFORMANCE.md describes holds 300–462 MB of it", mb)
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)

func BenchmarkExperiment(b *testing.B) {
	for b.Loop() {
		Experiment(Options{})
	}
}

func BenchmarkExperiment100k(b *testing.B) {
	for b.Loop() {
		Experiment(Options{Audits: 100_000})
	}
}
