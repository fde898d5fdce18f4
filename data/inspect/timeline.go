package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/auditscope/auditscope/data/petri"
)

// A sample's events are its full record (every model call with its whole
// input, every state change); the timeline keeps what a reader scans them
// for, a line an event, so a 2,000-event sample stays a few hundred KB.

// excerptMax is the most of an event's text (a model's reply, a tool's
// result, a command's output) the timeline keeps; the messages view has it
// whole.
const excerptMax = 600

// excerptLines is the most lines of it kept.
const excerptLines = 10

// maxTimeline bounds the events kept, nested ones included; the rest are
// counted in the last line.
const maxTimeline = 20000

// rawEvent is the union of the event fields the timeline reads; the rest of
// an event is skipped unread.
type rawEvent struct {
	Event        string          `json:"event"`
	ID           string          `json:"id"`
	Timestamp    string          `json:"timestamp"`
	WorkingStart *float64        `json:"working_start"`
	Completed    string          `json:"completed"`
	WorkingTime  *float64        `json:"working_time"`
	Model        string          `json:"model"`
	Role         string          `json:"role"`
	Output       json.RawMessage `json:"output"` // a model's ModelOutput, a sandbox's text
	Error        json.RawMessage `json:"error"`  // text (model), {type, message} (tool), {message, traceback} (error)
	Retries      *int            `json:"retries"`
	Cache        string          `json:"cache"`
	Function     string          `json:"function"`
	Arguments    json.RawMessage `json:"arguments"`
	Result       json.RawMessage `json:"result"`
	Events       json.RawMessage `json:"events"`
	Action       string          `json:"action"`
	Type         string          `json:"type"`
	Name         string          `json:"name"`
	Cmd          string          `json:"cmd"`
	File         string          `json:"file"`
	Score        json.RawMessage `json:"score"`
	Intermediate bool            `json:"intermediate"`
	Message      json.RawMessage `json:"message"` // a limit's text, a logger's record
	Source       string          `json:"source"`
	Data         json.RawMessage `json:"data"`
	Decision     string          `json:"decision"`
	Approver     string          `json:"approver"`
	Explanation  string          `json:"explanation"`
	Input        json.RawMessage `json:"input"` // an input event's text; a subtask's arguments
	Changes      json.RawMessage `json:"changes"`
}

// modelOutput is the part of a ModelOutput the timeline shows.
type modelOutput struct {
	Model   string   `json:"model"`
	Time    *float64 `json:"time"`
	Choices []struct {
		Message    json.RawMessage `json:"message"`
		StopReason string          `json:"stop_reason"`
	} `json:"choices"`
	Usage *petri.TokenUsage `json:"usage"`
	Error string            `json:"error"`
}

// timeline reads a sample's events (raw, with its attachments) into the
// lines of its timeline. An event that is not an object is an error at its
// path; fields of unexpected shapes are shown as written rather than
// refused, since the conversation does not depend on them.
func timeline(raw json.RawMessage, att map[string]string) ([]petri.TimelineEvent, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil
	}
	t := timelineBuilder{att: att}
	if err := t.events(raw, "events", 0); err != nil {
		return nil, err
	}
	if t.dropped > 0 {
		t.out = append(t.out, petri.TimelineEvent{Kind: "info", Name: "timeline",
			Detail: fmt.Sprintf("%d more events are not shown (the timeline keeps %d)", t.dropped, maxTimeline)})
	}
	return t.out, nil
}

type timelineBuilder struct {
	att     map[string]string
	out     []petri.TimelineEvent
	dropped int
}

func (t *timelineBuilder) events(raw json.RawMessage, path string, depth int) error {
	var list []json.RawMessage
	if err := petri.Decode(raw, &list); err != nil {
		return prefixErr(path, err)
	}
	var open []string
	for i, r := range list {
		p := path + "[" + strconv.Itoa(i) + "]"
		var ev rawEvent
		if err := json.Unmarshal(r, &ev); err != nil {
			// A field of another type than Inspect writes: keep the event's
			// kind and time, nothing else.
			var kind struct {
				Event     string `json:"event"`
				Timestamp string `json:"timestamp"`
			}
			if err := petri.Decode(r, &kind); err != nil {
				return prefixErr(p, err)
			}
			ev = rawEvent{Event: kind.Event, Timestamp: kind.Timestamp}
		}
		// Spans (and, in older logs, steps) open and close sections: an
		// event is as deep as the sections open around it.
		d := depth + len(open)
		switch {
		case ev.Event == "span_end":
			open = closeSection(open, "span:"+ev.ID)
			continue
		case ev.Event == "step" && ev.Action == "end":
			open = closeSection(open, "step:"+ev.Type+" "+ev.Name)
			continue
		case ev.Event == "span_begin":
			open = append(open, "span:"+ev.ID)
		case ev.Event == "step":
			open = append(open, "step:"+ev.Type+" "+ev.Name)
		}
		if len(t.out) >= maxTimeline {
			t.dropped++
			continue
		}
		e := t.event(&ev)
		e.Depth = d
		t.out = append(t.out, e)
		// Tool calls and subtasks record the events inside them.
		if (ev.Event == "tool" || ev.Event == "subtask") && len(ev.Events) > 0 && !bytes.Equal(bytes.TrimSpace(ev.Events), []byte("null")) {
			if err := t.events(ev.Events, p+".events", d+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// closeSection closes the innermost open section named name and those
// opened inside it; a close with no open section is ignored.
func closeSection(open []string, name string) []string {
	for i := len(open) - 1; i >= 0; i-- {
		if open[i] == name {
			return open[:i]
		}
	}
	return open
}

// event turns one event into its line.
func (t *timelineBuilder) event(ev *rawEvent) petri.TimelineEvent {
	e := petri.TimelineEvent{Kind: ev.Event, At: ev.Timestamp, Start: ev.WorkingStart}
	switch ev.Event {
	case "model":
		t.model(&e, ev)
	case "tool":
		e.Name = ev.Function
		e.Detail = t.excerpt(argsText(ev.Arguments))
		e.Result = t.excerpt(t.text(ev.Result))
		e.Error = t.errorText(ev.Error)
		e.Seconds = ev.WorkingTime
	case "sandbox":
		e.Name = ev.Action
		e.Detail = t.excerpt(firstNonEmpty(ev.Cmd, ev.File, t.text(ev.Input)))
		e.Result = t.excerpt(t.text(ev.Output))
		if r := strings.TrimSpace(string(ev.Result)); r != "" && r != "null" && r != "0" {
			e.Error = "exit " + r
		}
		e.Seconds = between(ev.Timestamp, ev.Completed)
	case "score":
		var sc Score
		_ = json.Unmarshal(ev.Score, &sc)
		e.Name = "score"
		if ev.Intermediate {
			e.Name = "intermediate score"
		}
		e.Detail = t.excerpt(strings.TrimSpace(string(sc.Value)))
		if sc.Answer != "" {
			e.Detail += " · answer " + t.excerpt(sc.Answer)
		}
		e.Result = t.excerpt(sc.Explanation)
	case "error":
		e.Error = t.excerpt(t.errorText(ev.Error))
	case "sample_limit":
		e.Name = ev.Type + " limit"
		e.Error = t.excerpt(t.text(ev.Message))
	case "step", "span_begin":
		e.Kind, e.Name = "span", ev.Name
		if ev.Type != "" && ev.Type != ev.Name {
			e.Name = ev.Type + " " + ev.Name
		}
	case "logger":
		var rec struct {
			Level   string `json:"level"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(ev.Message, &rec)
		e.Name, e.Detail = rec.Level, t.excerpt(rec.Message)
	case "info":
		e.Name, e.Detail = ev.Source, t.excerpt(t.text(ev.Data))
	case "approval":
		e.Name, e.Detail = ev.Approver, t.excerpt(strings.TrimSpace(ev.Decision+" "+ev.Explanation))
	case "input":
		e.Detail = t.excerpt(t.text(ev.Input))
	case "subtask":
		e.Name = ev.Name
		e.Detail = t.excerpt(argsText(ev.Input))
		e.Result = t.excerpt(t.text(ev.Result))
	case "state", "store":
		var changes []json.RawMessage
		_ = json.Unmarshal(ev.Changes, &changes)
		e.Detail = strconv.Itoa(len(changes)) + " changes"
	}
	return e
}

// model fills a model call's line: the model, its reply, tokens, time,
// retries and error.
func (t *timelineBuilder) model(e *petri.TimelineEvent, ev *rawEvent) {
	e.Name = ev.Model
	if ev.Role != "" {
		e.Name += " (" + ev.Role + ")"
	}
	var out modelOutput
	_ = json.Unmarshal(ev.Output, &out)
	if len(out.Choices) > 0 {
		var m petri.Message
		if r, err := (&resolver{att: t.att, budget: 1 << 30, max: 1 << 30}).resolve(out.Choices[0].Message); err == nil && json.Unmarshal(r, &m) == nil {
			text := contentText(m.Content)
			for _, tc := range m.ToolCalls {
				args, _ := json.Marshal(tc.Arguments)
				text = strings.TrimSpace(text + "\n→ " + tc.Function + "(" + argsText(args) + ")")
			}
			e.Detail = t.excerpt(text)
		}
		e.Result = out.Choices[0].StopReason
	}
	if out.Usage != nil {
		u := *out.Usage
		e.Tokens = &u
	}
	e.Seconds = ev.WorkingTime
	if e.Seconds == nil {
		e.Seconds = out.Time
	}
	if e.Seconds == nil {
		e.Seconds = between(ev.Timestamp, ev.Completed)
	}
	if ev.Retries != nil {
		e.Retries = *ev.Retries
	}
	e.Cache = ev.Cache
	e.Error = t.excerpt(firstNonEmpty(t.errorText(ev.Error), out.Error))
}

// contentText is a message's text parts, other parts named.
func contentText(c petri.Content) string {
	if c.Parts == nil {
		return c.Text
	}
	var b strings.Builder
	for _, p := range c.Parts {
		switch {
		case p.Text != "":
			b.WriteString(p.Text)
		case p.Type == "reasoning":
			// The reasoning is in the messages view, folded.
		default:
			b.WriteString("[" + p.Type + "]")
		}
	}
	return b.String()
}

// text is a JSON value as text: a string (its attachment resolved) as it
// is, anything else as compact JSON.
func (t *timelineBuilder) text(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return t.attachment(s)
	}
	// A tool's result may be a list of content parts.
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil && len(parts) > 0 {
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				b.WriteString(t.attachment(p.Text))
			} else {
				b.WriteString("[" + p.Type + "]")
			}
		}
		return b.String()
	}
	return string(raw)
}

func (t *timelineBuilder) attachment(s string) string {
	if k, ok := strings.CutPrefix(s, "attachment://"); ok {
		if v, ok := t.att[k]; ok {
			return v
		}
	}
	return s
}

// errorText reads an error: text, or an object with a message.
func (t *timelineBuilder) errorText(raw json.RawMessage) string {
	var e struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) == nil && (e.Message != "" || e.Type != "") {
		if e.Type != "" && e.Message != "" {
			return e.Type + ": " + t.attachment(e.Message)
		}
		return firstNonEmpty(t.attachment(e.Message), e.Type)
	}
	return t.text(raw)
}

// excerpt cuts s to excerptMax bytes on a rune boundary, or to
// excerptLines lines (a listing of short lines is tall before it is long),
// saying how much is left out.
func (t *timelineBuilder) excerpt(s string) string {
	cut := len(s)
	if n := 0; strings.Count(s, "\n") >= excerptLines {
		for i := range len(s) {
			if s[i] == '\n' {
				if n++; n == excerptLines {
					cut = i
					break
				}
			}
		}
	}
	if cut > excerptMax {
		cut = excerptMax
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	if cut == len(s) {
		return s
	}
	return s[:cut] + fmt.Sprintf("… (%d more characters)", utf8.RuneCountInString(s[cut:]))
}

// argsText shows a call's arguments as Inspect's viewer does: name = value,
// strings as written.
func argsText(raw json.RawMessage) string {
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil || len(args) == 0 {
		return strings.TrimSpace(string(raw))
	}
	var keys []string
	// The arguments' order as written: decode the object's keys in turn.
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err == nil {
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				break
			}
			keys = append(keys, fmt.Sprint(k))
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				break
			}
		}
	}
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		var s string
		if json.Unmarshal(args[k], &s) == nil {
			b.WriteString(k + "=" + s)
		} else {
			b.WriteString(k + "=" + string(args[k]))
		}
	}
	return b.String()
}

// between is the seconds from one timestamp to another, nil when either is
// missing or unreadable.
func between(from, to string) *float64 {
	a, err1 := time.Parse(time.RFC3339Nano, from)
	b, err2 := time.Parse(time.RFC3339Nano, to)
	if err1 != nil || err2 != nil || b.Before(a) {
		return nil
	}
	s := b.Sub(a).Seconds()
	return &s
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
