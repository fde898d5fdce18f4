// Package bundle defines auditscope's exchange format for alignment-audit
// experiments: a folder (or a .zip of one) holding experiment.json and a set
// of JSON Lines files. docs/FORMAT.md is the specification; this package reads
// and writes it, checks every record (check.go) and loads an experiment into
// the store's tables through the import's transaction (load.go, audits.go;
// the Tx it writes through is the store's, so it needs no DuckDB). Petri
// transcripts and Inspect logs are loaded the same way, as a Source
// (data/logs).
package bundle

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/data/petri"
)

// File names inside a bundle.
const (
	FileExperiment = "experiment.json"
	FileRuns       = "runs.jsonl"
	FileAuditors   = "auditors.jsonl"
	FileAudits     = "audits.jsonl"
	FileJudgments  = "judgments.jsonl"
	FileCrux       = "crux.jsonl"
	FileMetrics    = "metrics.jsonl"
	FileVerdicts   = "verdicts.jsonl"
)

// Bundle is a whole experiment.
type Bundle struct {
	Experiment Experiment
	Runs       []Run
	Auditors   []Auditor
	Audits     []Audit
	Judgments  []Judgment
	Crux       []Crux
	Metrics    []Metric
	Verdicts   []Verdict
}

// Verdict is another judge's verdict on one of the bundle's audits
// (verdicts.jsonl): a model that judged the transcript again, or a
// person's labels (kind "human"). The audits' own scores are the verdicts
// of the experiment's evaluation judge.
type Verdict struct {
	Audit   string             `json:"audit"`
	Judge   string             `json:"judge"`
	Kind    string             `json:"kind,omitempty"` // model (the default) or human
	Summary string             `json:"summary,omitempty"`
	Scores  map[string]float64 `json:"scores"`
	// Outcome is the judge's reading of the evaluation's outcome, as an
	// audit's: comparisons can then be recomputed under this judge.
	Outcome *Outcome `json:"outcome,omitempty"`
}

// Experiment is experiment.json.
type Experiment struct {
	// ID is the experiment's id in URLs; when empty the importer derives it
	// from --name or Name.
	ID          string     `json:"id,omitempty"`
	Name        string     `json:"name"`
	Description string     `json:"description,omitempty"`
	Synthetic   bool       `json:"synthetic"`
	Behaviors   []Behavior `json:"behaviors"`
}

// Behavior is a planted hidden behavior (a "quirk").
type Behavior struct {
	ID          string `json:"id"`
	Category    string `json:"category"`
	Split       string `json:"split"` // "train" or "heldout"
	Description string `json:"description,omitempty"`
}

// Behavior splits. Audits of benign or production targets have no behavior
// and count in the benign split.
const (
	SplitTrain   = "train"
	SplitHeldout = "heldout"
	SplitBenign  = "benign"
)

// Run is one training configuration (a line of runs.jsonl).
type Run struct {
	ID                  string  `json:"id"`
	Name                string  `json:"name"`
	Reward              string  `json:"reward"`
	CalibrationFraction float64 `json:"calibration_fraction"`
	MultiTarget         bool    `json:"multi_target"`
	RefreshSteps        *int    `json:"refresh_steps"` // null: the reference is never refreshed
	BaseModel           string  `json:"base_model"`
}

// Auditor is a baseline model or a checkpoint of a run (auditors.jsonl).
type Auditor struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Kind  string `json:"kind"` // "baseline" or "checkpoint"
	Run   string `json:"run,omitempty"`
	Epoch *int   `json:"epoch,omitempty"`
	Step  *int   `json:"step,omitempty"`
}

// Audit is one audit (audits.jsonl): an auditor's investigation of a target,
// with the judge's verdict.
type Audit struct {
	ID       string             `json:"id"`
	Auditor  string             `json:"auditor"`
	Eval     string             `json:"eval"`
	Behavior string             `json:"behavior,omitempty"` // empty for benign and production targets
	Seed     string             `json:"seed"`
	Target   string             `json:"target"`
	Turns    int                `json:"turns"`
	Outcome  Outcome            `json:"outcome"`
	Scores   map[string]float64 `json:"scores,omitempty"`
	Summary  string             `json:"summary,omitempty"`
	Labels   map[string]string  `json:"labels,omitempty"`
	// Exactly one of Transcript and TranscriptPath is set. TranscriptPath is
	// relative to the bundle root and must stay inside it.
	Transcript     *petri.Transcript `json:"transcript,omitempty"`
	TranscriptPath string            `json:"transcript_path,omitempty"`

	// What an Inspect log's sample carries besides (not part of the bundle
	// format): Sample marks a sample that is not an audit of the paper's
	// kind (no eval, behavior, target or split; Auditor is the eval's
	// model); Scorers are its scores as the scorers gave them; Columns are
	// their numbers filed beside the judge dimensions (any range), so the
	// audit list sorts and filters by them the same way.
	Sample  bool               `json:"-"`
	Scorers []SampleScore      `json:"-"`
	Columns map[string]float64 `json:"-"`
}

// SampleScore is one scorer's score of an Inspect sample (one key of a
// scorer whose value is a dictionary).
type SampleScore struct {
	Log, Scorer, Key    string
	Value               string  // strings bare, other values as JSON
	Num                 float64 // value_to_float(Value); 0 when not Converted
	Converted           bool
	Judge               bool // filed as a judge dimension
	Answer, Explanation string
}

// Outcome holds what the audit's evaluation needs.
type Outcome = model.Outcome

// Judgment is a pairwise judgment (judgments.jsonl). Left and Right are audit
// ids of this bundle or external labels (a reference transcript, a real
// conversation), which start with "ext:".
type Judgment struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"` // reference, intragroup, realism, crux
	Left      string `json:"left"`
	Right     string `json:"right"`
	Behavior  string `json:"behavior,omitempty"`
	Outcome   string `json:"outcome"` // left, right, tie
	Judge     string `json:"judge,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
}

// Judgment outcomes (the kinds are model.Judgment*).
const (
	OutcomeLeft  = "left"
	OutcomeRight = "right"
	OutcomeTie   = "tie"
)

// ExternalPrefix marks a judgment side that is not an audit of the bundle.
const ExternalPrefix = "ext:"

// Crux is one auditor's crux evaluation (crux.jsonl): four rates in [0, 1]
// and four pairwise sub-dimension deltas in [-1, 1]. The field list
// names three rates; the eight features of DOMAIN.md's regression need a
// fourth, so the pairwise judge's loss rate (the base auditor's continuation
// preferred) is carried too: ties are 1 - win - loss.
type Crux struct {
	Auditor       string  `json:"auditor"`
	N             int     `json:"n"`
	TargetFocused float64 `json:"target_focused"`
	AuditorView   float64 `json:"auditor_view"`
	PairwiseWin   float64 `json:"pairwise_win"`
	PairwiseLoss  float64 `json:"pairwise_loss"`
	DSignal       float64 `json:"d_signal"`
	DCraft        float64 `json:"d_craft"`
	DRealism      float64 `json:"d_realism"`
	DEvidence     float64 `json:"d_evidence"`
}

// Features returns the eight crux features in model.CruxFeatureNames order.
func (c Crux) Features() []float64 {
	return []float64{c.TargetFocused, c.AuditorView, c.PairwiseWin, c.PairwiseLoss,
		c.DSignal, c.DCraft, c.DRealism, c.DEvidence}
}

// Metric is one training-time scalar (metrics.jsonl).
type Metric struct {
	Run   string  `json:"run"`
	Step  int     `json:"step"`
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// InputError turns an *Error into a *model.InputError, its position
// prefixed with the bundle's path root; other errors pass as they are.
func InputError(root string, err error) error {
	var be *Error
	if errors.As(err, &be) {
		file := be.File
		if !filepath.IsAbs(file) && !strings.HasPrefix(file, root) {
			file = filepath.Join(root, file)
		}
		return &model.InputError{File: file, Line: be.Line, Offset: -1, Path: be.Field, Msg: be.Msg}
	}
	return err
}
