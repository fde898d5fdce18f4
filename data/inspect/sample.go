package inspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/petri"

	"github.com/auditscope/auditscope/data/internal/jsonin"
	"github.com/auditscope/auditscope/data/internal/limit"
)

// rawSample is an EvalSample as stored, its parts kept raw until their
// attachments are resolved.
type rawSample struct {
	ID          json.RawMessage             `json:"id"`
	Epoch       int                         `json:"epoch"`
	Input       json.RawMessage             `json:"input"`
	Messages    json.RawMessage             `json:"messages"`
	Scores      json.RawMessage             `json:"scores"`
	Score       json.RawMessage             `json:"score"` // logs before scores were keyed by scorer
	Metadata    json.RawMessage             `json:"metadata"`
	StartedAt   string                      `json:"started_at"`
	CompletedAt string                      `json:"completed_at"`
	Error       json.RawMessage             `json:"error"`
	Target      json.RawMessage             `json:"target"`
	ModelUsage  map[string]petri.TokenUsage `json:"model_usage"`
	TotalTime   *float64                    `json:"total_time"`
	WorkingTime *float64                    `json:"working_time"`
	Retries     json.RawMessage             `json:"error_retries"`
	Limit       json.RawMessage             `json:"limit"`
	Attachments map[string]string           `json:"attachments"`
	Transcript  *struct{ Content any }      `json:"transcript"` // very old logs kept attachments here
	MessagePool json.RawMessage             `json:"message_pool"`
	EventsData  map[string]json.RawMessage  `json:"events_data"`
	Events      json.RawMessage             `json:"events"`
}

// decodeSample decodes one sample's JSON. att, when given, holds the
// attachments (chunked samples keep them outside the shell); otherwise the
// sample's own attachments map is used. Errors are *petri.ParseError with
// a path inside the sample.
func decodeSample(b []byte, att map[string]string, withMessages bool, max int64) (*Sample, error) {
	var rs rawSample
	if err := petri.Decode(b, &rs); err != nil {
		return nil, err
	}
	if att == nil {
		att = sampleAttachments(&rs)
	}
	r := resolver{att: att, budget: max, max: max}
	s := &Sample{Epoch: rs.Epoch, StartedAt: rs.StartedAt, CompletedAt: rs.CompletedAt, TotalTime: rs.TotalTime, WorkingTime: rs.WorkingTime}
	for m, u := range rs.ModelUsage {
		u.Model = m
		s.Usage = append(s.Usage, u)
	}
	slices.SortFunc(s.Usage, func(a, b petri.TokenUsage) int { return strings.Compare(a.Model, b.Model) })
	var err error
	if s.ID, err = sampleID(rs.ID); err != nil {
		return nil, err
	}
	// decode resolves a part's attachments and decodes it, keeping the path.
	decode := func(field string, raw json.RawMessage, v any) error {
		if len(raw) == 0 {
			return nil
		}
		raw, err := r.resolve(raw)
		if err != nil {
			return &petri.ParseError{Path: field, Offset: -1, Msg: err.Error()}
		}
		if err := petri.Decode(raw, v); err != nil {
			if pe, ok := err.(*petri.ParseError); ok {
				pe.Path = petri.JoinPath(field, pe.Path)
				pe.Offset = -1
			}
			return err
		}
		return nil
	}
	var input any
	if err := decode("input", rs.Input, &input); err != nil {
		return nil, err
	}
	if t, ok := input.(string); ok {
		s.Input = t
	}
	if len(rs.Scores) > 0 {
		if err := decode("scores", rs.Scores, &s.Scores); err != nil {
			return nil, err
		}
	} else if len(rs.Score) > 0 && !bytes.Equal(bytes.TrimSpace(rs.Score), []byte("null")) {
		var sc Score
		if err := decode("score", rs.Score, &sc); err != nil {
			return nil, err
		}
		s.Scores = map[string]Score{"score": sc}
	}
	if err := decode("metadata", rs.Metadata, &s.Metadata); err != nil {
		return nil, err
	}
	if len(rs.Error) > 0 {
		var e struct {
			Message string `json:"message"`
		}
		if err := decode("error", rs.Error, &e); err != nil {
			return nil, err
		}
		s.Error = e.Message
	}
	if err := decodeOutcome(&rs, s, decode); err != nil {
		return nil, err
	}
	if !withMessages {
		return s, nil
	}
	if err := decode("messages", rs.Messages, &s.Messages); err != nil {
		return nil, err
	}
	if len(s.Messages) == 0 {
		msgs, err := lastModelCall(&rs, decode)
		if err != nil {
			return nil, err
		}
		s.Messages = msgs
	}
	if s.Timeline, err = timeline(rs.Events, att); err != nil {
		return nil, err
	}
	return s, nil
}

// decodeOutcome reads what a sample says of how it ended: its target (a
// string or a list of them, several acceptable answers, either perhaps an
// attachment), its retried errors and the limit it hit, decoded with
// decode (attachments resolved, paths kept).
func decodeOutcome(rs *rawSample, s *Sample, decode func(field string, raw json.RawMessage, v any) error) error {
	// The target is a string or a list of them (several acceptable
	// answers), either perhaps an attachment.
	var target any
	if err := decode("target", rs.Target, &target); err != nil {
		return err
	}
	switch t := target.(type) {
	case string:
		s.Target = []string{t}
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok {
				s.Target = append(s.Target, str)
			}
		}
	}
	var retries []struct {
		Message string `json:"message"`
	}
	if err := decode("error_retries", rs.Retries, &retries); err != nil {
		return err
	}
	for _, e := range retries {
		s.Retries = append(s.Retries, e.Message)
	}
	var limit *struct {
		Type  string          `json:"type"`
		Limit json.RawMessage `json:"limit"`
	}
	if err := decode("limit", rs.Limit, &limit); err != nil {
		return err
	}
	if limit != nil && limit.Type != "" {
		s.Limit = limit.Type + " limit"
		if l := strings.TrimSpace(string(limit.Limit)); l != "" && l != "null" {
			s.Limit += " of " + l
		}
	}
	return nil
}

// sampleAttachments are a sample's attachments: its own, or those a
// transcript's content holds.
func sampleAttachments(rs *rawSample) map[string]string {
	att := rs.Attachments
	if len(att) == 0 && rs.Transcript != nil {
		if m, ok := rs.Transcript.Content.(map[string]any); ok {
			att = map[string]string{}
			for k, v := range m {
				if s, ok := v.(string); ok {
					att[k] = s
				}
			}
		}
	}
	return att
}

// sampleID reads a sample's id, a number or a string, as text.
func sampleID(raw json.RawMessage) (string, error) {
	id := bytes.TrimSpace(raw)
	var s string
	switch {
	case len(id) == 0 || bytes.Equal(id, []byte("null")):
		return "", &petri.ParseError{Path: "id", Offset: -1, Msg: "missing: a sample has an id"}
	case id[0] == '"':
		if err := json.Unmarshal(id, &s); err != nil {
			return "", &petri.ParseError{Path: "id", Offset: -1, Msg: err.Error()}
		}
	case id[0] == '-' || (id[0] >= '0' && id[0] <= '9'):
		s = string(id)
	default:
		return "", &petri.ParseError{Path: "id", Offset: -1, Msg: "want a number or a string, found " + jsonin.Kind(bytes.TrimSpace(id))}
	}
	if s == "" {
		return "", &petri.ParseError{Path: "id", Offset: -1, Msg: "missing: a sample has an id"}
	}
	return s, nil
}

// lastModelCall rebuilds a conversation that was not stored in full from
// the sample's last model call: its input (inline, or range references
// into the pooled messages of events_data or message_pool) and its output.
func lastModelCall(rs *rawSample, decode func(string, json.RawMessage, any) error) ([]petri.Message, error) {
	if len(rs.Events) == 0 {
		return nil, nil
	}
	var events []json.RawMessage
	if err := petri.Decode(rs.Events, &events); err != nil {
		return nil, prefixErr("events", err)
	}
	type modelEvent struct {
		Event     string          `json:"event"`
		Input     json.RawMessage `json:"input"`
		InputRefs [][2]int        `json:"input_refs"`
		Output    struct {
			Choices []struct {
				Message json.RawMessage `json:"message"`
			} `json:"choices"`
		} `json:"output"`
	}
	for i := len(events) - 1; i >= 0; i-- {
		var kind struct {
			Event string `json:"event"`
		}
		if json.Unmarshal(events[i], &kind) != nil || kind.Event != "model" {
			continue
		}
		path := fmt.Sprintf("events[%d]", i)
		var ev modelEvent
		if err := petri.Decode(events[i], &ev); err != nil {
			return nil, prefixErr(path, err)
		}
		var msgs []petri.Message
		if err := decode(path+".input", ev.Input, &msgs); err != nil {
			return nil, err
		}
		if len(msgs) == 0 && len(ev.InputRefs) > 0 {
			poolRaw, field := rs.EventsData["messages"], "events_data.messages"
			if len(poolRaw) == 0 {
				poolRaw, field = rs.MessagePool, "message_pool"
			}
			var pool []json.RawMessage
			if err := petri.Decode(poolRaw, &pool); err != nil && len(poolRaw) > 0 {
				return nil, prefixErr(field, err)
			}
			for j, ref := range ev.InputRefs {
				if ref[0] < 0 || ref[1] < ref[0] || ref[1] > len(pool) {
					return nil, &petri.ParseError{Path: fmt.Sprintf("%s.input_refs[%d]", path, j), Offset: -1,
						Msg: fmt.Sprintf("range [%d, %d) is outside the %d pooled messages", ref[0], ref[1], len(pool))}
				}
				for k := ref[0]; k < ref[1]; k++ {
					var m petri.Message
					if err := decode(field+"["+strconv.Itoa(k)+"]", pool[k], &m); err != nil {
						return nil, err
					}
					msgs = append(msgs, m)
				}
			}
		}
		if len(ev.Output.Choices) > 0 && len(ev.Output.Choices[0].Message) > 0 {
			var m petri.Message
			if err := decode(path+".output.choices[0].message", ev.Output.Choices[0].Message, &m); err != nil {
				return nil, err
			}
			msgs = append(msgs, m)
		}
		return msgs, nil
	}
	return nil, nil
}

func prefixErr(prefix string, err error) error {
	if pe, ok := err.(*petri.ParseError); ok {
		pe.Path = petri.JoinPath(prefix, pe.Path)
		pe.Offset = -1
		return pe
	}
	return err
}

// attachmentRef opens a JSON string that is a whole attachment reference.
var attachmentRef = []byte(`"attachment://`)

// resolver replaces attachment references with their content.
type resolver struct {
	att    map[string]string
	budget int64 // bytes the resolved sample may still grow by
	max    int64 // the limit it started from
}

// resolve replaces every JSON string of raw that is exactly
// "attachment://KEY", for a KEY of the attachments, by the attachment's
// text. Inspect writes references only as whole strings; unknown keys are
// left as they are, as Inspect does.
func (r *resolver) resolve(raw []byte) ([]byte, error) {
	if len(r.att) == 0 || !bytes.Contains(raw, attachmentRef) {
		return raw, nil
	}
	out := make([]byte, 0, len(raw))
	last := 0
	for i := 0; ; {
		j := bytes.Index(raw[i:], attachmentRef)
		if j < 0 {
			break
		}
		j += i
		k := j + len(attachmentRef)
		e := k
		for e < len(raw) && isKeyByte(raw[e]) {
			e++
		}
		i = k
		if e == k || e >= len(raw) || raw[e] != '"' || escaped(raw, j) {
			continue
		}
		content, ok := r.att[string(raw[k:e])]
		if !ok {
			continue
		}
		q, err := json.Marshal(content)
		if err != nil {
			return nil, err
		}
		r.budget -= int64(len(q))
		if r.budget < 0 {
			return nil, errors.New(limit.Message("the sample with its attachments resolved", r.max))
		}
		out = append(out, raw[last:j]...)
		out = append(out, q...)
		last = e + 1
		i = last
	}
	return append(out, raw[last:]...), nil
}

func isKeyByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-'
}

// escaped reports whether the quote at j is escaped (inside a string).
func escaped(b []byte, j int) bool {
	n := 0
	for k := j - 1; k >= 0 && b[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

// lessID orders sample ids numerically when both are numbers.
func lessID(a, b string) bool {
	x, err1 := strconv.ParseInt(a, 10, 64)
	y, err2 := strconv.ParseInt(b, 10, 64)
	if err1 == nil && err2 == nil {
		return x < y
	}
	if (err1 == nil) != (err2 == nil) {
		return err1 == nil
	}
	return a < b
}
