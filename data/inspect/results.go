package inspect

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/petri"
)

// Results is what a log reports about its scores: the eval's results
// object. A log still being written has none.
type Results struct {
	TotalSamples     int         `json:"total_samples"`
	CompletedSamples int         `json:"completed_samples"`
	Scores           []EvalScore `json:"scores"`
}

// EvalScore is one scorer's results. A scorer whose value is a dictionary
// gets one EvalScore per key: Name is then the key and Scorer the scorer.
type EvalScore struct {
	Name    string                `json:"name"`
	Scorer  string                `json:"scorer"`
	Reducer string                `json:"reducer"`
	Metrics map[string]EvalMetric `json:"metrics"`
}

// EvalMetric is one metric of a scorer, such as accuracy or stderr.
type EvalMetric struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// Number is the metric's value when it is a number (metrics may also
// report lists or objects, which auditscope does not show).
func (m EvalMetric) Number() (float64, bool) {
	raw := bytes.TrimSpace(m.Value)
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	return v, err == nil
}

// MetricNames lists the score's metrics in name order.
func (s EvalScore) MetricNames() []string {
	names := make([]string, 0, len(s.Metrics))
	for n := range s.Metrics {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ParseResults decodes the header's results; nil when the log has none.
// Errors are *Error naming the results path.
func (l *Log) ParseResults() (*Results, error) {
	raw := bytes.TrimSpace(l.Header.Results)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var r Results
	if err := petri.Decode(raw, &r); err != nil {
		return nil, l.decodeErr("", "results", -1, err)
	}
	return &r, nil
}

// ValueToFloat maps a score value to a number as Inspect's
// value_to_float() does: numbers as they are, true/false as 1/0, "C" 1,
// "P" 0.5, "I" and "N" 0, "yes"/"true" 1 and "no"/"false" 0 in any case,
// numeric strings as numbers. Anything else (lists, objects, other text,
// null) is 0 for Inspect too, after a warning; ok is false for those so
// the caller can say how many there were.
func ValueToFloat(raw json.RawMessage) (v float64, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0, false
	}
	switch raw[0] {
	case 't', 'f':
		switch string(raw) {
		case "true":
			return 1, true
		case "false":
			return 0, true
		}
		return 0, false
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		return stringToFloat(s)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		f, err := strconv.ParseFloat(string(raw), 64)
		return f, err == nil
	}
	return 0, false
}

// stringToFloat is value_to_float for a string value.
func stringToFloat(s string) (float64, bool) {
	switch s {
	case "C":
		return 1, true
	case "P":
		return 0.5, true
	case "I", "N":
		return 0, true
	}
	switch l := strings.ToLower(s); l {
	case "yes", "true":
		return 1, true
	case "no", "false":
		return 0, true
	}
	// Python's float() accepts surrounding space; it also reads "nan" and
	// "inf", which no metric can average, so those count as unconverted.
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// Reduction is one scorer's epoch-reduced scores, as a .eval log keeps
// them in reductions.json: one value per sample, its epochs reduced by the
// scorer's reducer (the mean by default). A log holds them for every
// sample it scored, also when the file keeps the records of only some.
type Reduction struct {
	Scorer  string          `json:"scorer"`
	Reducer string          `json:"reducer"`
	Samples []ReducedSample `json:"samples"`
}

// ReducedSample is one sample's reduced score.
type ReducedSample struct {
	SampleID json.RawMessage `json:"sample_id"`
	Value    json.RawMessage `json:"value"`
}

// Reductions reads a .eval log's reductions.json; nil when the log has
// none (a .json log, or a log still running). Errors are *Error naming the
// member.
func (l *Log) Reductions() ([]Reduction, error) {
	const member = "reductions.json"
	if l.members == nil || l.members[member] == nil {
		return nil, nil
	}
	b, err := l.read(member)
	if err != nil {
		return nil, err
	}
	var out []Reduction
	if err := petri.Decode(b, &out); err != nil {
		return nil, l.decodeErr(member, "", -1, err)
	}
	return out, nil
}
