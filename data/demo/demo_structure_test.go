package demo

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/bundle"
	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"
)

var (
	idRe       = regexp.MustCompile(`^[a-z0-9._@-]+$`)
	behaviorRe = regexp.MustCompile(`^[a-z0-9._-]+$`)
)

func TestStructure(t *testing.T) {
	b := defaultBundle()
	behaviorsSeen, runsSeen, auditors := checkStructureIDs(t, b)
	audits := checkStructureAudits(t, b, behaviorsSeen, auditors)
	checkStructureJudgments(t, b, audits, behaviorsSeen)
	checkStructureCrux(t, b, auditors, runsSeen)
}

// checkStructureIDs checks the experiment's header and the ids of its
// behaviors, runs and auditors, and returns those ids for the checks of
// what refers to them; TestStructure's first part, apart to keep it short.
func checkStructureIDs(t *testing.T, b *bundle.Bundle) (behaviorsSeen, runsSeen, auditors map[string]bool) {
	t.Helper()
	e := b.Experiment
	if e.ID != "demo" || !e.Synthetic || !strings.Contains(strings.ToLower(e.Description), "synthetic") {
		t.Errorf("experiment header: %+v", e)
	}
	behaviorsSeen = map[string]bool{}
	splits := map[string]int{}
	for _, bh := range e.Behaviors {
		if behaviorsSeen[bh.ID] || !behaviorRe.MatchString(bh.ID) {
			t.Errorf("behavior id %q duplicate or not URL-safe", bh.ID)
		}
		behaviorsSeen[bh.ID] = true
		splits[bh.Split]++
	}
	if len(e.Behaviors) != 32 || splits[bundle.SplitTrain] != 26 || splits[bundle.SplitHeldout] != 6 {
		t.Errorf("behaviors: %d, splits %v", len(e.Behaviors), splits)
	}
	runsSeen = map[string]bool{}
	for _, r := range b.Runs {
		if runsSeen[r.ID] || !idRe.MatchString(r.ID) {
			t.Errorf("run id %q", r.ID)
		}
		runsSeen[r.ID] = true
	}
	if len(b.Runs) != 16 {
		t.Errorf("%d runs, want 16", len(b.Runs))
	}
	auditors = map[string]bool{}
	for _, a := range b.Auditors {
		if auditors[a.ID] || !idRe.MatchString(a.ID) {
			t.Errorf("auditor id %q", a.ID)
		}
		auditors[a.ID] = true
		if a.Kind == model.AuditorCheckpoint && !runsSeen[a.Run] {
			t.Errorf("auditor %s: no run %q", a.ID, a.Run)
		}
	}
	return behaviorsSeen, runsSeen, auditors
}

// checkStructureAudits checks every audit (its ids, what it refers to, its
// outcome and transcript) and the share of transcripts with a rollback,
// and returns the audits by id for the judgments' check.
func checkStructureAudits(t *testing.T, b *bundle.Bundle, behaviorsSeen, auditors map[string]bool) map[string]*bundle.Audit {
	t.Helper()
	evals := map[string]bool{}
	for _, ev := range model.Evals {
		evals[ev] = true
	}
	audits := map[string]*bundle.Audit{}
	rollbackAQ := map[string][2]int{} // auditor → (with rollback, audit_quality audits)
	var rollbacks, others int
	var sawScript, sawBold bool
	checkedBodies := map[*petri.Event]bool{}
	for i := range b.Audits {
		au := &b.Audits[i]
		if audits[au.ID] != nil || !idRe.MatchString(au.ID) || !idRe.MatchString(au.Seed) {
			t.Fatalf("audit id %q / seed %q", au.ID, au.Seed)
		}
		audits[au.ID] = au
		checkAuditFields(t, au, evals, auditors, behaviorsSeen)
		tr := au.Transcript
		has := hasRollback(tr)
		if au.Eval == model.EvalAuditQuality {
			c := rollbackAQ[au.Auditor]
			if has {
				c[0]++
			}
			c[1]++
			rollbackAQ[au.Auditor] = c
		} else {
			others++
			if has {
				rollbacks++
			}
		}
		// Check each distinct body once.
		if checkedBodies[&tr.Events[0]] {
			continue
		}
		checkedBodies[&tr.Events[0]] = true
		script, bold := checkTranscriptBody(t, au, has)
		sawScript = sawScript || script
		sawBold = sawBold || bold
	}
	if !sawScript || !sawBold {
		t.Error("no message quotes <script>alert(1)</script> and <b>bold</b>")
	}
	full := 0
	for _, c := range rollbackAQ {
		if c[0] == c[1] {
			full++
		}
	}
	if full == 0 {
		t.Error("no auditor has a rollback in every audit_quality transcript")
	}
	if share := float64(rollbacks) / float64(others); share < 0.07 || share > 0.13 {
		t.Errorf("rollback share elsewhere %.3f, want about 0.10", share)
	}
	t.Logf("%d audits, %d distinct transcript bodies", len(b.Audits), len(checkedBodies))
	return audits
}

// checkAuditFields checks one audit: it refers to a known auditor, eval and
// behavior, has its 38 scores, its eval's outcome and an inline transcript
// whose metadata agree with it.
func checkAuditFields(t *testing.T, au *bundle.Audit, evals, auditors, behaviorsSeen map[string]bool) {
	t.Helper()
	switch {
	case !auditors[au.Auditor]:
		t.Fatalf("%s: unknown auditor %q", au.ID, au.Auditor)
	case !evals[au.Eval]:
		t.Fatalf("%s: unknown eval %q", au.ID, au.Eval)
	case au.Behavior != "" && !behaviorsSeen[au.Behavior]:
		t.Fatalf("%s: unknown behavior %q", au.ID, au.Behavior)
	case au.Transcript == nil || au.TranscriptPath != "":
		t.Fatalf("%s: want exactly an inline transcript", au.ID)
	case len(au.Scores) != 38:
		t.Fatalf("%s: %d scores", au.ID, len(au.Scores))
	case au.Summary == "":
		t.Fatalf("%s: no summary", au.ID)
	}
	for d, v := range au.Scores {
		if v < 1 || v > 10 || v != math.Trunc(v) {
			t.Fatalf("%s: score %s = %v", au.ID, d, v)
		}
	}
	if (au.Labels["strategy"] != "") != strings.Contains(au.Auditor, "@") {
		t.Fatalf("%s: strategy label %q on auditor %s", au.ID, au.Labels["strategy"], au.Auditor)
	}
	switch au.Eval {
	case model.EvalAuditQuality:
		if au.Outcome.Quality == nil || *au.Outcome.Quality < 0 || *au.Outcome.Quality > 100 || au.Outcome.Detected == nil {
			t.Fatalf("%s: audit quality outcome", au.ID)
		}
	case model.EvalFPCalibration:
		if au.Outcome.FalsePositive == nil || au.Behavior != "" {
			t.Fatalf("%s: fp outcome", au.ID)
		}
	case model.EvalProduction:
		if v := au.Outcome.ProductionValue; v == nil || *v < 0 || *v > 100 {
			t.Fatalf("%s: production outcome", au.ID)
		}
	}
	tr := au.Transcript
	md := tr.Metadata
	if md.TranscriptID != au.ID || md.AuditorModel != au.Auditor || md.TargetModel != au.Target || md.Version != "v3.0" ||
		md.Description == "" || md.JudgeOutput == nil || md.JudgeOutput.Summary != au.Summary || len(md.JudgeOutput.Scores) != 38 {
		t.Fatalf("%s: transcript metadata %+v", au.ID, md)
	}
	for k, v := range au.Scores {
		if md.JudgeOutput.Scores[k] != v {
			t.Fatalf("%s: judge score %s differs", au.ID, k)
		}
	}
	if n := len(md.JudgeOutput.Highlights); n < 1 || n > 3 {
		t.Fatalf("%s: %d highlights", au.ID, n)
	}
}

// checkTranscriptBody checks one distinct transcript body: unique message
// ids, highlights quoted from its messages, a target view with two branches
// when it has a rollback (has), and a JSON round trip. It reports whether
// a message quotes <script>alert(1)</script> and <b>bold</b>, which some
// body of the experiment must.
func checkTranscriptBody(t *testing.T, au *bundle.Audit, has bool) (sawScript, sawBold bool) {
	t.Helper()
	tr := au.Transcript
	md := tr.Metadata
	msgs := map[string]string{}
	for _, ev := range tr.Events {
		if ev.Edit == nil || ev.Edit.Message == nil {
			continue
		}
		m := ev.Edit.Message
		if _, dup := msgs[m.ID]; dup || m.ID == "" {
			t.Fatalf("%s: message id %q repeated or empty", au.ID, m.ID)
		}
		msgs[m.ID] = m.Content.String()
		sawScript = sawScript || strings.Contains(msgs[m.ID], "<script>alert(1)</script>")
		sawBold = sawBold || strings.Contains(msgs[m.ID], "<b>bold</b>")
	}
	for _, h := range md.JudgeOutput.Highlights {
		for _, p := range h.Parts {
			text, ok := msgs[p.MessageID]
			if !ok || !strings.Contains(text, p.QuotedText) || p.QuotedText == "" {
				t.Fatalf("%s: highlight %q does not occur in message %s (%q)", au.ID, p.QuotedText, p.MessageID, text)
			}
		}
	}
	views, err := tr.Views()
	if err != nil {
		t.Fatalf("%s: replay: %v", au.ID, err)
	}
	for _, v := range views {
		if v.Name == petri.ViewTarget && has != (len(v.Branches) == 2) {
			t.Fatalf("%s: target view has %d branches, rollback %v", au.ID, len(v.Branches), has)
		}
	}
	raw, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var back petri.Transcript
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("%s: transcript does not round-trip: %v", au.ID, err)
	}
	return sawScript, sawBold
}

// checkStructureJudgments checks the judgments' ids, sides, outcomes and
// behaviors against the audits and behaviors.
func checkStructureJudgments(t *testing.T, b *bundle.Bundle, audits map[string]*bundle.Audit, behaviorsSeen map[string]bool) {
	t.Helper()
	// Judgments.
	jids := map[string]bool{}
	kinds := map[string]int{}
	for _, j := range b.Judgments {
		if jids[j.ID] || !idRe.MatchString(j.ID) {
			t.Fatalf("judgment id %q", j.ID)
		}
		jids[j.ID] = true
		kinds[j.Kind]++
		for _, side := range []string{j.Left, j.Right} {
			if audits[side] == nil && !strings.HasPrefix(side, bundle.ExternalPrefix) {
				t.Fatalf("%s: side %q", j.ID, side)
			}
		}
		if j.Outcome != bundle.OutcomeLeft && j.Outcome != bundle.OutcomeRight && j.Outcome != bundle.OutcomeTie {
			t.Fatalf("%s: outcome %q", j.ID, j.Outcome)
		}
		if j.Behavior != "" && !behaviorsSeen[j.Behavior] {
			t.Fatalf("%s: behavior %q", j.ID, j.Behavior)
		}
		if j.Judge == "" || j.Reasoning == "" {
			t.Fatalf("%s: judge or reasoning missing", j.ID)
		}
	}
	t.Logf("judgments by kind: %v", kinds)
}

// checkStructureCrux checks the crux rows (known auditors, rates that are
// whole counts of 750, deltas within ±1, 49 rows) and the metrics' runs.
func checkStructureCrux(t *testing.T, b *bundle.Bundle, auditors, runsSeen map[string]bool) {
	t.Helper()
	// Crux.
	for _, c := range b.Crux {
		if !auditors[c.Auditor] || c.N != 750 {
			t.Fatalf("crux %+v", c)
		}
		for _, x := range []float64{c.TargetFocused, c.AuditorView, c.PairwiseWin, c.PairwiseLoss} {
			if k := x * 750; x < 0 || x > 1 || math.Abs(k-math.Round(k)) > 1e-6 {
				t.Fatalf("crux %s: rate %v", c.Auditor, x)
			}
		}
		if c.PairwiseWin+c.PairwiseLoss > 1+1e-9 {
			t.Fatalf("crux %s: win + loss > 1", c.Auditor)
		}
		for _, x := range []float64{c.DSignal, c.DCraft, c.DRealism, c.DEvidence} {
			if x < -1 || x > 1 {
				t.Fatalf("crux %s: delta %v", c.Auditor, x)
			}
		}
	}
	if len(b.Crux) != 16*3+1 {
		t.Errorf("%d crux rows", len(b.Crux))
	}
	for _, m := range b.Metrics {
		if !runsSeen[m.Run] {
			t.Fatalf("metric for unknown run %q", m.Run)
		}
	}
}

func hasRollback(tr *petri.Transcript) bool {
	for _, ev := range tr.Events {
		if ev.Edit != nil && ev.Edit.Operation == petri.OpRollback {
			return true
		}
	}
	return false
}
