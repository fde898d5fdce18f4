// Package inspect reads Inspect AI evaluation logs: the .json form (one
// EvalLog object: version, status, eval, plan, results, stats, samples) and
// the .eval form (a zip holding header.json, summaries.json, reductions.json,
// one samples/{id}_epoch_{n}.json per sample, or the chunked per-sample
// layout samples/{id}_epoch_{n}/sample.json + messages/ + attachments/
// chunks, and a _journal folder).
//
// It knows nothing about the database: it turns a log into Go values. A
// sample's messages are read as petri.Message values, since Petri transcript
// messages are Inspect chat messages. attachment:// references are resolved
// through the sample's attachments, and messages pooled in events_data (or
// the older message_pool) are expanded when the sample's final conversation
// is not stored in full.
package inspect

import (
	"encoding/json"
	"fmt"

	"github.com/auditscope/auditscope/data/petri"
)

// What a log may ask us to read is bounded by the limit on one value that
// Open takes: a .eval member (a member whose header claims more is refused
// before any of it is read, and no read goes past its claimed size), a
// sample of a .json log, and a sample once its attachments are resolved
// (so a large attachment referenced many times cannot balloon memory).

// Error is a problem in a log: the file, the zip member (for .eval), the
// JSON path inside it, and what was wrong.
type Error struct {
	File   string
	Member string // "" for a .json log
	Path   string // e.g. messages[3].content; "" when the problem is the whole file or member
	Offset int64  // byte offset in a .json log, -1 when unknown
	Msg    string
}

func (e *Error) Error() string {
	s := e.File
	if e.Member != "" {
		s += ": " + e.Member
	}
	if e.Path != "" {
		s += ": " + e.Path
	}
	return s + ": " + e.Msg
}

// Header is a log's top level without its samples.
type Header struct {
	Version int             `json:"version"`
	Status  string          `json:"status"`
	Eval    Spec            `json:"eval"`
	Plan    json.RawMessage `json:"plan,omitempty"`
	Results json.RawMessage `json:"results,omitempty"`
	Stats   Stats           `json:"stats"`
}

// Spec is the eval's identity and configuration (the log's "eval" object);
// only the fields auditscope uses are read.
type Spec struct {
	EvalID     string                     `json:"eval_id"`
	RunID      string                     `json:"run_id"`
	Created    string                     `json:"created"`
	Task       string                     `json:"task"`
	TaskID     string                     `json:"task_id"`
	Tags       []string                   `json:"tags"`
	Dataset    Dataset                    `json:"dataset"`
	Model      string                     `json:"model"`
	ModelRoles map[string]ModelRole       `json:"model_roles"`
	Metadata   map[string]json.RawMessage `json:"metadata"`
}

// Dataset names the eval's dataset.
type Dataset struct {
	Name    string `json:"name"`
	Samples int    `json:"samples"`
}

// ModelRole is the model given a role (auditor, target, judge, ...).
type ModelRole struct {
	Model string `json:"model"`
}

// Stats holds the eval's timing.
type Stats struct {
	StartedAt   string `json:"started_at"`
	CompletedAt string `json:"completed_at"`
}

// RoleModel returns the model given role, or "".
func (s *Spec) RoleModel(role string) string {
	if r, ok := s.ModelRoles[role]; ok {
		return r.Model
	}
	return ""
}

// Sample is one sample × epoch of the eval.
type Sample struct {
	// ID is the sample id as text (Inspect ids are numbers or strings).
	ID    string
	Epoch int
	// Input is the sample's input text ("" when the input is a message list).
	Input    string
	Messages []petri.Message
	// Scores by scorer name.
	Scores      map[string]Score
	Metadata    map[string]json.RawMessage
	StartedAt   string
	CompletedAt string
	Error       string // the error that halted the sample, if any
	// Target is the sample's expected answer (several when any of them
	// counts); the scorers compare the output with it.
	Target []string
	// Usage is the tokens each model used, by model name (Inspect's
	// ModelUsage, whose fields the transcript keeps as they are).
	Usage []petri.TokenUsage
	// TotalTime and WorkingTime are the sample's seconds, wall clock and
	// working (without waiting on rate limits); nil when not recorded.
	TotalTime, WorkingTime *float64
	// Limit is the limit that stopped the sample ("token limit of 5000");
	// Retries the errors of the attempts retried before this one.
	Limit   string
	Retries []string
	// Timeline is the sample's events, a line each.
	Timeline []petri.TimelineEvent
	// Member is where the sample came from: its zip member, or
	// samples[i] in a .json log.
	Member string
}

// Key is the sample's audit id: {id}_epoch_{epoch}.
func (s *Sample) Key() string { return fmt.Sprintf("%s_epoch_%d", s.ID, s.Epoch) }

// Score is one scorer's score of a sample.
type Score struct {
	// Value is a number, string, bool, list or an object of them (one
	// score per key, as Petri's alignment judge gives).
	Value       json.RawMessage            `json:"value"`
	Answer      string                     `json:"answer"`
	Explanation string                     `json:"explanation"`
	Metadata    map[string]json.RawMessage `json:"metadata"`
}
