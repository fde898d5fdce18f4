// Package model holds the plain types the store returns and the pages show:
// no SQL, no DuckDB, no cgo, so that views (and anything else that only
// shows or computes) builds and tests without the database. The data
// package fills them; its names for them are aliases of these.
package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrNotFound says a requested experiment, dataset, audit or other row
// does not exist.
var ErrNotFound = errors.New("not found")

// The evaluation kinds an audit can belong to (docs/FORMAT.md), defined
// here once for the format readers, the store, the statistics and the
// pages.
const (
	EvalAuditQuality      = "audit_quality"
	EvalFPCalibration     = "fp_calibration"
	EvalProduction        = "production"
	EvalRealism           = "realism"
	EvalAuditBenchSTC     = "auditbench_stc"
	EvalAuditBenchDefault = "auditbench_default"
	EvalTraining          = "training"
)

// The kinds of pairwise judgment (docs/FORMAT.md).
const (
	JudgmentReference  = "reference"
	JudgmentIntragroup = "intragroup"
	JudgmentRealism    = "realism"
	JudgmentCrux       = "crux"
)

// The kinds of auditor: a baseline, or a checkpoint of a training run.
const (
	AuditorBaseline   = "baseline"
	AuditorCheckpoint = "checkpoint"
)

// CruxFeatureNames names the eight crux features in their fixed order; the
// first three are the aggregate rates of the three-feature regression.
var CruxFeatureNames = []string{"target_focused", "auditor_view", "pairwise_win", "pairwise_loss",
	"d_signal", "d_craft", "d_realism", "d_evidence"}

// Evals lists the valid evaluation kinds in display order.
var Evals = []string{EvalAuditQuality, EvalFPCalibration, EvalProduction, EvalRealism,
	EvalAuditBenchSTC, EvalAuditBenchDefault, EvalTraining}

// Problem is an input the dashboard could not serve: a file in a watched
// folder that could not be imported, or a lake manifest that is not read.
type Problem struct{ File, Msg string }

// Experiment is one imported experiment.
type Experiment struct {
	ID, Name, Description, Format string
	Synthetic                     bool
}

// Run is a training configuration.
type Run struct {
	Key, ID, Name, Reward string
	CalibrationFraction   float64
	MultiTarget           bool
	RefreshSteps          *int64 // nil: the run has no refresh schedule
	BaseModel             string
}

// DatasetSummary is one AnnotatedPairs dataset as the home page lists it.
type DatasetSummary struct {
	ID, Name, Description, Format string
	Synthetic                     bool
	Comparisons, Annotators       int
	Votes                         int64
}

// ExperimentSummary is one experiment as the home page lists it.
type ExperimentSummary struct {
	ID, Name, Description, Format string
	Synthetic                     bool
	Runs, Auditors, Audits        int
	Judgments                     int
	// Samples and Epochs are an Inspect experiment's distinct samples (by
	// log) and its most epochs: Audits counts each epoch of a sample.
	Samples, Epochs int
}

// Summary is what the store holds.
type Summary struct {
	Datasets    []DatasetSummary
	Experiments []ExperimentSummary
}

// ScoreCond is a judge-dimension threshold such as concerning >= 7.
type ScoreCond struct {
	Dimension string
	Op        string // one of >=, <=, >, <, =
	Value     float64
}

// AuditFilter selects and orders audits: the audit browser's query.
type AuditFilter struct {
	Experiment, Auditor, Run, Eval, Behavior, Split, Target string
	Epoch                                                   *int
	Outcome                                                 string // detected, missed, false_positive
	// Task, Log and SampleEpoch select Inspect samples by their task, the
	// log they came from (its path under the imported folder) and their
	// epoch (the eval's repeat, not a training epoch).
	Task, Log   string
	SampleEpoch *int
	Scores      []ScoreCond
	Text        string // full-text search in summaries and transcripts
	Sort        string // one of AuditSortKeys, or score:DIMENSION
	Desc        bool
	// Judge, when set, is another judge of the experiment's audits (issue
	// #51): only the audits it judged, their scores (the thresholds, the
	// score sort and columns) its own.
	Judge string `json:",omitempty"`
}

// AuditSortKeys are the audit columns the audit browser sorts by, besides
// a judge dimension (score:DIMENSION).
var AuditSortKeys = []string{"id", "auditor", "eval", "behavior", "target", "turns", "quality", "production_value", "outcome", "messages"}

// FilterError is a filter value that selects nothing the store can query:
// Param names the audit browser's query parameter it came from.
type FilterError struct{ Param, Msg string }

func (e *FilterError) Error() string { return e.Param + ": " + e.Msg }

// Validate checks the values the store turns into SQL clauses (the one set
// of rules for the browser and the store): the outcome, the score
// comparisons and dimension names, and the sort key.
func (f AuditFilter) Validate() error {
	switch f.Outcome {
	case "", "detected", "missed", "false_positive":
	default:
		return &FilterError{Param: "outcome", Msg: fmt.Sprintf("want detected, missed or false_positive, found %q", f.Outcome)}
	}
	for _, s := range f.Scores {
		switch s.Op {
		case ">=", "<=", ">", "<", "=":
		default:
			return &FilterError{Param: "score", Msg: fmt.Sprintf("unknown comparison %q (use >=, <=, >, < or =)", s.Op)}
		}
		if strings.ContainsAny(s.Dimension, `"\`) {
			return &FilterError{Param: "score", Msg: fmt.Sprintf("unusable dimension name %q", s.Dimension)}
		}
	}
	if f.Sort != "" && !strings.HasPrefix(f.Sort, "score:") && !slices.Contains(AuditSortKeys, f.Sort) {
		return &FilterError{Param: "sort", Msg: fmt.Sprintf("unknown column %q", f.Sort)}
	}
	return nil
}

// AuditRow is one line of the audit browser. A nil outcome is one the
// audit's eval does not have.
type AuditRow struct {
	Key, Experiment, ID, Auditor, AuditorName, Eval, Behavior, Split, Seed, Target string
	Turns, Messages                                                                int
	Detected, FalsePositive                                                        *bool
	Quality, ProductionValue                                                       *float64
	Summary, Strategy                                                              string
	SortScore                                                                      *float64 // the sort dimension's score, when sorted by one
}

// AuditCursor is the position of an audit in a filter's order, where an
// export's next chunk starts: the audit's sort value (nil for none, which
// sorts last either way), experiment and ordinal. The order ends in
// experiment and ordinal, a unique key.
type AuditCursor struct {
	Sort       any
	Experiment string
	Ord        int64
	// Until, in an export of one experiment in file order, are the ords
	// its chunks end at, ascending: each chunk reads only up to the first
	// past Ord (the store's ExportAudits sets them).
	Until []int64
}

// ExportChunk is one chunk of the audits a filter selects, in its order,
// each with its judge scores in the order of the dimensions asked for (NaN
// where an audit has none), and where the next chunk starts (nil after the
// last).
//
// A row whose scores are all whole numbers from 1 to 15 or missing may
// have them in Packed instead: four bits a score, 0 for none, ScoresPerWord
// to an int64, in the order of the dimensions (PackedScore reads one). Its
// Scores entry is then nil, and only then. (The store's driver hands over
// a few numbers, not a list whose every value it boxes: these scores were
// the export's slowest part.)
type ExportChunk struct {
	Rows   []AuditRow
	Scores [][]float64
	Packed [][]int64
	Next   *AuditCursor
}

// ScoresPerWord is how many scores an int64 of ExportChunk.Packed holds.
const ScoresPerWord = 15

// PackedScore is score i of a row's packed scores: 1 to 15, or 0 for none.
func PackedScore(packs []int64, i int) int {
	return int(packs[i/ScoresPerWord] >> (4 * (i % ScoresPerWord)) & 15)
}

// Score is one judge dimension's score of an audit.
type Score struct {
	Dimension string
	Value     float64
}

// AuditDetail is one audit with what its page shows beyond its row.
type AuditDetail struct {
	AuditRow
	Labels         string // JSON object
	TranscriptFile string
	Bytes          int64
	Scores         []Score
	RunID          string
}

// Judgment is one pairwise judgment with both sides resolved.
type Judgment struct {
	Key, Experiment, ID, Kind, Behavior, Split, Outcome, Judge, Reasoning string
	Left, Right                                                           JudgmentSide
}

// JudgmentSide is an audit (with its auditor) or an external label.
type JudgmentSide struct {
	Ref              string // as in the file: audit id or ext:label
	AuditKey         string // "" for external items
	Auditor, Summary string
}

// SideJudgment is a judgment seen from one auditor's side.
type SideJudgment struct {
	ID, Kind, Behavior, Split string
	Auditor                   string // the auditor of the audit on this side
	Audit                     string // that audit's id
	Target                    string // that audit's target model
	Other                     string // the other side: an audit id or an ext: label
	OtherAuditor              string // "" when the other side is external
	Outcome                   string // win, loss or tie from this side
}

// Choice is one value a filter can take, with the name a person reads.
type Choice struct{ Value, Label string }

// AuditChoices are the values the audit browser's id filters can take in a
// selection: auditors and runs by name, behaviors by description, targets.
type AuditChoices struct {
	Auditors, Runs, Behaviors, Targets, Evals []Choice
}

// SampleChoices are the tasks, logs and epochs of an experiment's Inspect
// samples, for the sample list's filters.
type SampleChoices struct {
	Tasks, Logs, Epochs []string
}

// SampleFields are what the sample list shows of a sample besides its
// audit row: its task, log and epoch.
type SampleFields struct {
	Task, Log, Epoch string
}

// Auditor is a baseline model or a training checkpoint. The run's fields
// are copied onto it for filtering and grouping; a nil pointer is a value
// the auditor does not have (a baseline has no epoch, a run may leave its
// fraction or refresh schedule unset).
type Auditor struct {
	Key, ID, Name, Kind string
	Run                 string // run id, "" for baselines
	Epoch, Step         *int64
	Reward              string
	CalibrationFraction *float64
	MultiTarget         *bool
	RefreshSteps        *int64
}

// EvalAudit is the part of an audit the evaluation dimensions need
// (analysis/experiment.Audit); a nil outcome is one the audit does not
// carry.
type EvalAudit struct {
	ID                  string // the audit's id, for the units a comparison lists
	Auditor, Eval, Seed string
	Behavior            string   // "" for benign and production targets
	Quality             *float64 // 0–100, audit_quality
	ProductionValue     *float64 // 0–100, production
	FalsePositive       *bool    // fp_calibration
	Detected            *bool    // auditbench_*
}

// InspectLog is an imported Inspect log's header: what it ran and what it
// reports about its scores.
type InspectLog struct {
	Log, Task, Model, Status, Created string
	Samples                           int  // samples × epochs in the file
	Total                             *int // as the log reports; nil without results
	Scores                            []ReportedScore
}

// ReportedScore is one scorer's results as a log reports them.
type ReportedScore struct {
	Name    string           `json:"name"`
	Scorer  string           `json:"scorer"`
	Metrics []ReportedMetric `json:"metrics"`
	// Reduced summarises the log's own epoch-reduced scores of this scorer
	// (a .eval log's reductions.json): every sample the log scored, also
	// when the file keeps the records of only some. Nil without them.
	Reduced *ReducedScores `json:"reduced,omitempty"`
}

// ReducedScores summarises a scorer's epoch-reduced values, one per
// sample, mapped to numbers as Inspect's value_to_float does.
type ReducedScores struct {
	Reducer     string  `json:"reducer,omitempty"`
	N           int     `json:"n"`
	Mean        float64 `json:"mean"`
	SD          float64 `json:"sd"` // divisor n-1; 0 for one value
	Binary      bool    `json:"binary"`
	Min         float64 `json:"min"`
	Max         float64 `json:"max"`
	Unconverted int     `json:"unconverted,omitempty"`
}

// ReportedMetric is one reported metric; Value is nil when not a number.
type ReportedMetric struct {
	Name  string   `json:"name"`
	Value *float64 `json:"value"`
}

// ScorerValues aggregates one scorer's values over one log's samples in
// the file (see analysis/scorer.Values).
type ScorerValues struct {
	Log, Scorer, Key string
	N                int     // samples
	Records          int     // sample × epoch records in the file
	Mean, SD         float64 // SD has divisor n-1; NaN for one value
	Min, Max         float64 // of the samples' reduced values
	Binary           bool    // every value is 0 or 1
	Unconverted      int
}

// SampleValue is one scorer value of one Inspect sample record, with what
// pairs it with another model's: the task and the sample's id in it.
type SampleValue struct {
	Audit, Auditor, Task, Sample, Scorer, Key string
	// Run is the log the record came from: two logs of one model are two
	// runs, not more epochs of one.
	Run string
	Num float64
}

// SampleScore is one scorer's score of an Inspect sample.
type SampleScore struct {
	Scorer, Key, Value  string
	Num                 float64
	Converted, Judge    bool
	Answer, Explanation string
}

// Metric is one training-time scalar.
type Metric struct {
	Step  int
	Name  string
	Value float64
}

// LabelCount is how many of a group's audits carry a strategy label.
type LabelCount struct {
	Auditor  string
	Epoch    *int64 // nil for a baseline
	Strategy string
	N        int
}

// CruxRow is one auditor's crux features.
type CruxRow struct {
	Auditor  string
	N        int
	Features [8]float64 // CruxFeatureNames order
}

// SplitKey splits an "experiment:id" key.
func SplitKey(key string) (exp, id string, ok bool) {
	return strings.Cut(key, ":")
}

// Verdict is one judge's verdict on one audit besides the judge the audit
// was imported with: its scores by dimension and its summary. Kind is
// JudgeModel or JudgeHuman; File and Line (or Path) say where it was read.
type Verdict struct {
	Audit, Judge, Kind, Summary string
	Scores                      map[string]float64
	// Outcome is the judge's reading of what the audit's evaluation needs
	// (its quality, detection, false positive, production value), nil when
	// it gives none: what lets a comparison be recomputed under it.
	Outcome    *Outcome
	File, Path string
	Line       int
}

// The kinds of judge: a model re-judging transcripts, a person's labels.
const (
	JudgeModel = "model"
	JudgeHuman = "human"
)

// JudgeInfo is a judge of an experiment's audits besides the one they were
// imported with: its name, kind (JudgeModel or JudgeHuman), the audits it
// judged and the dimensions it scored.
type JudgeInfo struct {
	Name, Kind string
	Audits     int
	Dimensions []string
	// Outcomes counts the audits it gave an outcome for (Verdict.Outcome):
	// the experiment's statistics can be computed under a judge that has.
	Outcomes int
}

// JudgeScores are one judge's scores: by audit id, in the order of Dims
// (NaN where it gave none).
type JudgeScores struct {
	JudgeInfo
	Scores map[string][]float64
}
