package bundle

import (
	"fmt"
	"math"
	"strings"

	"github.com/auditscope/auditscope/data/model"
)

// The check* functions are the format's rules for one record each: they
// write nothing, and the loader appends a record only after its check.

func checkBehavior(i int, b Behavior, split map[string]string) error {
	p, f := Pos{File: FileExperiment}, fmt.Sprintf("behaviors[%d]", i)
	switch {
	case b.ID == "":
		return fieldErr(p, f+".id", "missing")
	case split[b.ID] != "":
		return fieldErr(p, f+".id", "duplicate behavior id %q", b.ID)
	case b.Split != SplitTrain && b.Split != SplitHeldout:
		return fieldErr(p, f+".split", "want \"train\" or \"heldout\", found %q", b.Split)
	}
	return nil
}

func checkRun(p Pos, r *Run, runs map[string]bool) error {
	switch {
	case r.ID == "":
		return fieldErr(p, "id", "missing")
	case runs[r.ID]:
		return fieldErr(p, "id", "duplicate run id %q", r.ID)
	case r.CalibrationFraction < 0 || r.CalibrationFraction > 1:
		return fieldErr(p, "calibration_fraction", "want a fraction in [0, 1], found %v", r.CalibrationFraction)
	case r.RefreshSteps != nil && !countRange(*r.RefreshSteps):
		return fieldErr(p, "refresh_steps", "want a whole number from 0 to %d, found %d", math.MaxInt32, *r.RefreshSteps)
	}
	return nil
}

func checkAuditor(p Pos, a *Auditor, auditors, runs map[string]bool) error {
	switch {
	case a.ID == "":
		return fieldErr(p, "id", "missing")
	case auditors[a.ID]:
		return fieldErr(p, "id", "duplicate auditor id %q", a.ID)
	case a.Kind != model.AuditorBaseline && a.Kind != model.AuditorCheckpoint:
		return fieldErr(p, "kind", "want \"baseline\" or \"checkpoint\", found %q", a.Kind)
	case a.Kind == model.AuditorCheckpoint && a.Run == "":
		return fieldErr(p, "run", "missing: a checkpoint names its run")
	case a.Run != "" && !runs[a.Run]:
		return fieldErr(p, "run", "no run %q in %s", a.Run, FileRuns)
	case a.Epoch != nil && !countRange(*a.Epoch):
		return fieldErr(p, "epoch", "want a whole number from 0 to %d, found %d", math.MaxInt32, *a.Epoch)
	case a.Step != nil && !countRange(*a.Step):
		return fieldErr(p, "step", "want a whole number from 0 to %d, found %d", math.MaxInt32, *a.Step)
	}
	return nil
}

// checkAudit checks an audit's fields against what the bundle declared.
func (l *loader) checkAudit(p Pos, a *Audit) error {
	switch {
	case a.ID == "":
		return fieldErr(p, "id", "missing")
	case l.audits[a.ID]:
		return fieldErr(p, "id", "duplicate audit id %q", a.ID)
	case !l.auditors[a.Auditor]:
		return fieldErr(p, "auditor", "no auditor %q in %s", a.Auditor, FileAuditors)
	case a.Sample && (a.Eval != "" || a.Behavior != "" || a.Target != ""):
		return fieldErr(p, "eval", "an Inspect sample that is not an audit has no eval, behavior or target")
	case !a.Sample && !l.validEval[a.Eval]:
		return fieldErr(p, "eval", "unknown eval %q: want one of %s", a.Eval, strings.Join(model.Evals, ", "))
	case a.Behavior != "" && l.split[a.Behavior] == "":
		return fieldErr(p, "behavior", "no behavior %q in %s", a.Behavior, FileExperiment)
	case a.Turns < 0:
		return fieldErr(p, "turns", "want a count >= 0, found %d", a.Turns)
	}
	if q := a.Outcome.Quality; q != nil && (*q < 0 || *q > 100 || math.IsNaN(*q)) {
		return fieldErr(p, "outcome.quality", "want 0–100, found %v", *q)
	}
	if q := a.Outcome.ProductionValue; q != nil && (*q < 0 || *q > 100 || math.IsNaN(*q)) {
		return fieldErr(p, "outcome.production_value", "want 0–100, found %v", *q)
	}
	for d, v := range a.Scores {
		if v < 1 || v > 10 || math.IsNaN(v) {
			return fieldErr(p, "scores."+d, "want a score from 1 to 10, found %v", v)
		}
	}
	return nil
}

func (l *loader) checkJudgment(p Pos, j *Judgment, seen map[string]bool) error {
	switch {
	case j.ID == "":
		return fieldErr(p, "id", "missing")
	case seen[j.ID]:
		return fieldErr(p, "id", "duplicate judgment id %q", j.ID)
	case !judgmentKinds[j.Kind]:
		return fieldErr(p, "kind", "want reference, intragroup, realism or crux, found %q", j.Kind)
	case !judgmentOutcomes[j.Outcome]:
		return fieldErr(p, "outcome", "want left, right or tie, found %q", j.Outcome)
	case j.Behavior != "" && l.split[j.Behavior] == "":
		return fieldErr(p, "behavior", "no behavior %q in %s", j.Behavior, FileExperiment)
	}
	for _, s := range [][2]string{{"left", j.Left}, {"right", j.Right}} {
		field, v := s[0], s[1]
		switch {
		case v == "":
			return fieldErr(p, field, "missing")
		case !strings.HasPrefix(v, ExternalPrefix) && !l.audits[v]:
			return fieldErr(p, field, "no audit %q in %s (external items are written %q)", v, FileAudits, ExternalPrefix+v)
		}
	}
	return nil
}

func checkCrux(p Pos, c *Crux, auditors, seen map[string]bool) error {
	switch {
	case !auditors[c.Auditor]:
		return fieldErr(p, "auditor", "no auditor %q in %s", c.Auditor, FileAuditors)
	case seen[c.Auditor]:
		return fieldErr(p, "auditor", "duplicate crux row for %q", c.Auditor)
	case c.N <= 0:
		return fieldErr(p, "n", "want the number of evaluations (> 0), found %d", c.N)
	}
	for i, v := range c.Features() {
		lo := 0.0
		if i >= 4 {
			lo = -1
		}
		if v < lo || v > 1 || math.IsNaN(v) {
			return fieldErr(p, model.CruxFeatureNames[i], "want a value in [%g, 1], found %v", lo, v)
		}
	}
	return nil
}

// metricKey identifies a metric row: run and name, and the step.
type metricKey struct {
	runName string
	step    int
}

// checkMetric checks a metric row. A metric is one value per run, step and
// name: a second row would be averaged with the first by nobody and plotted
// as a zigzag. seen maps each row's key to its line.
func checkMetric(p Pos, m *Metric, runs map[string]bool, seen map[metricKey]int) error {
	switch {
	case !runs[m.Run]:
		return fieldErr(p, "run", "no run %q in %s", m.Run, FileRuns)
	case m.Name == "":
		return fieldErr(p, "name", "missing")
	case !countRange(m.Step):
		return fieldErr(p, "step", "want a whole number from 0 to %d, found %d", math.MaxInt32, m.Step)
	case math.IsNaN(m.Value) || math.IsInf(m.Value, 0):
		return fieldErr(p, "value", "want a finite number")
	}
	if line, dup := seen[metricKey{m.Run + "\x00" + m.Name, m.Step}]; dup {
		return fieldErr(p, "name", "a second %q for run %q at step %d (the first is on line %d)", m.Name, m.Run, m.Step, line)
	}
	return nil
}

// countRange reports whether n is a valid epoch or step: stored as 32-bit
// integers, and never negative.
func countRange(n int) bool { return n >= 0 && n <= math.MaxInt32 }

func fieldErr(p Pos, field, format string, args ...any) error {
	return &Error{Pos: p, Field: field, Msg: fmt.Sprintf(format, args...)}
}
