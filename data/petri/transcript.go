// Package petri reads Petri transcript files (the JSON that Petri's audit
// scaffold writes) and rebuilds the conversation views from their edit events.
//
// The schema is Petri's own (a copy lives in testdata/fixtures/petri). A file has
// metadata (ids, models, the judge's verdict) and a list of events; the
// transcript events carry edits (add, rollback, reset, json_patch) to one or
// more views ("target", "auditor", "combined"). Replaying the edits in order
// gives each view's final message list; a rollback or reset that shortens a
// view starts a new branch, and the earlier branch is kept so the audit page
// can show what the target saw before it was rolled back.
package petri

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/auditscope/auditscope/data/internal/jsonin"
)

// Transcript is one Petri transcript file.
type Transcript struct {
	Metadata Metadata `json:"metadata"`
	Events   []Event  `json:"events,omitempty"`
	// Messages and TargetMessages are the legacy layout: final message lists
	// with no events. They are read when Events is empty.
	Messages       []Message `json:"messages,omitempty"`
	TargetMessages []Message `json:"target_messages,omitempty"`
}

// Metadata is the transcript's metadata block.
type Metadata struct {
	TranscriptID string       `json:"transcript_id"`
	AuditorModel string       `json:"auditor_model,omitempty"`
	TargetModel  string       `json:"target_model,omitempty"`
	CreatedAt    string       `json:"created_at"`
	UpdatedAt    string       `json:"updated_at"`
	Version      string       `json:"version,omitempty"`
	Description  string       `json:"description,omitempty"`
	Tags         []string     `json:"tags,omitempty"`
	JudgeOutput  *JudgeOutput `json:"judge_output,omitempty"`
	// Sample is what an Inspect sample records besides its conversation,
	// on a transcript auditscope converted from one; Petri's own files do
	// not have it.
	Sample *SampleRecord `json:"inspect_sample,omitempty"`
}

// SampleRecord is an Inspect sample's record beyond its messages: the
// expected answer, each model's token use, the time it took, the limit
// that stopped it and the errors of the attempts retried before it.
type SampleRecord struct {
	Target      []string     `json:"target,omitempty"`
	Usage       []TokenUsage `json:"model_usage,omitempty"`
	TotalTime   *float64     `json:"total_time,omitempty"`
	WorkingTime *float64     `json:"working_time,omitempty"`
	Limit       string       `json:"limit,omitempty"`
	Error       string       `json:"error,omitempty"`
	Retries     []string     `json:"error_retries,omitempty"`
	// Timeline is the sample's events, a line each (data/inspect keeps
	// what a reader scans them for; the events themselves are not kept).
	Timeline []TimelineEvent `json:"timeline,omitempty"`
}

// TimelineEvent is one event of an Inspect sample as its timeline shows
// it. Kind is Inspect's event type (model, tool, sandbox, score, error,
// sample_limit, logger, info, approval, input, subtask, state, store,
// sample_init), or span for a span or step that opens a section; the
// other fields are set as the kind has them.
type TimelineEvent struct {
	Kind  string   `json:"kind"`
	At    string   `json:"at,omitempty"`    // the timestamp as written
	Start *float64 `json:"start,omitempty"` // working_start, seconds into the sample
	// Seconds is how long it took (a model call's working time, a
	// sandbox command's run).
	Seconds *float64 `json:"seconds,omitempty"`
	Name    string   `json:"name,omitempty"`   // model, function, action, scorer, step
	Detail  string   `json:"detail,omitempty"` // reply, arguments, command, score (an excerpt)
	Result  string   `json:"result,omitempty"` // result, output, stop reason (an excerpt)
	Error   string   `json:"error,omitempty"`
	Retries int      `json:"retries,omitempty"`
	Cache   string   `json:"cache,omitempty"` // a model call served from ("read") or written to ("write") the cache
	// Tokens is a model call's usage; Depth how deep inside tool calls
	// and subtasks the event ran.
	Tokens *TokenUsage `json:"tokens,omitempty"`
	Depth  int         `json:"depth,omitempty"`
}

// TokenUsage is one model's tokens on a sample; the cache and reasoning
// counts are nil when the provider does not report them.
type TokenUsage struct {
	Model      string `json:"model"`
	Input      int64  `json:"input_tokens"`
	Output     int64  `json:"output_tokens"`
	Total      int64  `json:"total_tokens"`
	CacheWrite *int64 `json:"input_tokens_cache_write,omitempty"`
	CacheRead  *int64 `json:"input_tokens_cache_read,omitempty"`
	Reasoning  *int64 `json:"reasoning_tokens,omitempty"`
}

// JudgeOutput is the alignment judge's verdict on a transcript.
type JudgeOutput struct {
	Response          string             `json:"response"`
	Summary           string             `json:"summary"`
	Justification     string             `json:"justification,omitempty"`
	Scores            map[string]float64 `json:"scores"`
	ScoreDescriptions map[string]string  `json:"score_descriptions,omitempty"`
	Highlights        []Citation         `json:"highlights,omitempty"`
}

// Citation is one highlight: quoted parts of messages with a description.
type Citation struct {
	Parts       []CitationPart `json:"parts"`
	Description string         `json:"description"`
	Index       *int           `json:"index,omitempty"`
}

// CitationPart points at text inside one message (or one tool call argument).
type CitationPart struct {
	MessageID  string `json:"message_id"`
	QuotedText string `json:"quoted_text"`
	Position   []int  `json:"position,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolArg    string `json:"tool_arg,omitempty"`
}

// Event is one entry of the events list. Only the fields of the event's Type
// are set.
type Event struct {
	Type      string         `json:"type"`
	ID        string         `json:"id,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	Timestamp string         `json:"timestamp,omitempty"`

	// transcript_event
	View Views `json:"view,omitempty"`
	Edit *Edit `json:"edit,omitempty"`

	// tool_creation_event
	Model string          `json:"model,omitempty"`
	Tool  json.RawMessage `json:"tool,omitempty"`

	// info_event
	Info json.RawMessage `json:"info,omitempty"`

	// decision_event
	Content json.RawMessage `json:"content,omitempty"`
}

// Event types.
const (
	EventTranscript   = "transcript_event"
	EventToolCreation = "tool_creation_event"
	EventInfo         = "info_event"
	EventDecision     = "decision_event"
)

// Edit operations.
const (
	OpAdd       = "add"
	OpRollback  = "rollback"
	OpReset     = "reset"
	OpJSONPatch = "json_patch"
)

// Edit is the edit a transcript event applies to its views.
type Edit struct {
	Operation string `json:"operation"`
	// add
	Message *Message `json:"message,omitempty"`
	// rollback
	Count int    `json:"count,omitempty"`
	ToID  string `json:"to_id,omitempty"`
	// reset
	NewMessages []Message `json:"new_messages,omitempty"`
	// json_patch
	Patch []JSONChange `json:"patch,omitempty"`
	Name  string       `json:"name,omitempty"`
}

// JSONChange is one RFC 6902 operation of a json_patch edit.
type JSONChange struct {
	Op       string          `json:"op"`
	Path     string          `json:"path"`
	From     string          `json:"from,omitempty"`
	Value    json.RawMessage `json:"value,omitempty"`
	Replaced json.RawMessage `json:"replaced,omitempty"`
}

// Views is the view (or views) an edit applies to: a string or a list of
// strings in the file.
type Views []string

// UnmarshalJSON accepts a string or an array of strings.
func (v *Views) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := unquote(b, &s); err != nil {
			return err
		}
		*v = Views{s}
		return nil
	}
	list, err := jsonin.Decode[[]string](b, json.Unmarshal)
	if err != nil {
		return fmt.Errorf("view: want a string or a list of strings")
	}
	*v = *list
	return nil
}

// MarshalJSON writes a single view as a string, as Petri does.
func (v Views) MarshalJSON() ([]byte, error) {
	if len(v) == 1 {
		return json.Marshal(v[0])
	}
	return json.Marshal([]string(v))
}

// Message is a chat message (system, user, assistant or tool).
type Message struct {
	ID         string         `json:"id,omitempty"`
	Role       string         `json:"role"`
	Content    Content        `json:"content"`
	Source     string         `json:"source,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	ToolCalls  []ToolCall     `json:"tool_calls,omitempty"`
	Model      string         `json:"model,omitempty"`
	ToolCallID ToolCallIDs    `json:"tool_call_id,omitempty"`
	Function   string         `json:"function,omitempty"`
	Error      *ToolError     `json:"error,omitempty"`
}

// ToolCallIDs is a tool message's tool_call_id: a string for tool messages, a
// list for user messages in Inspect's schema.
type ToolCallIDs []string

// UnmarshalJSON accepts null, a string or a list of strings.
func (t *ToolCallIDs) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*t = nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := unquote(b, &s); err != nil {
			return err
		}
		*t = ToolCallIDs{s}
	default:
		list, err := jsonin.Decode[[]string](b, json.Unmarshal)
		if err != nil {
			return fmt.Errorf("tool_call_id: want a string or a list of strings")
		}
		*t = *list
	}
	return nil
}

// MarshalJSON writes one id as a string.
func (t ToolCallIDs) MarshalJSON() ([]byte, error) {
	if len(t) == 1 {
		return json.Marshal(t[0])
	}
	return json.Marshal([]string(t))
}

// ToolCall is a call an assistant message makes.
type ToolCall struct {
	ID         string         `json:"id"`
	Function   string         `json:"function"`
	Arguments  map[string]any `json:"arguments"`
	ParseError string         `json:"parse_error,omitempty"`
	Type       string         `json:"type,omitempty"`
}

// ToolError is the error a tool call returned.
type ToolError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Content is a message's content: plain text, or a list of typed parts.
type Content struct {
	Text  string // set when the file holds a plain string
	Parts []ContentPart
}

// ContentPart is one part of a multi-part content list.
type ContentPart struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	Redacted  bool   `json:"redacted,omitempty"`
	// Other part types (image, audio, tool_use, ...) keep their JSON so they
	// can be shown as structured blocks.
	Raw json.RawMessage `json:"-"`
}

// TextContent returns the text of a plain string content.
func TextContent(s string) Content { return Content{Text: s} }

// UnmarshalJSON accepts a string or a list of content parts.
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		c.Parts = nil
		return unquote(b, &c.Text)
	}
	if bytes.Equal(b, []byte("null")) {
		*c = Content{}
		return nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		return fmt.Errorf("content: want a string or a list of parts")
	}
	c.Text = ""
	c.Parts = make([]ContentPart, 0, len(raws))
	for i, r := range raws {
		var p ContentPart
		if err := json.Unmarshal(r, &p); err != nil {
			return fmt.Errorf("content[%d]: %w", i, err)
		}
		p.Raw = r
		c.Parts = append(c.Parts, p)
	}
	return nil
}

// MarshalJSON writes plain text as a string and parts as a list.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Parts == nil {
		return json.Marshal(c.Text)
	}
	out := make([]json.RawMessage, len(c.Parts))
	for i, p := range c.Parts {
		if p.Raw != nil {
			out[i] = p.Raw
			continue
		}
		type plain ContentPart
		b, err := json.Marshal(plain(p))
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return json.Marshal(out)
}

// String returns the visible text of the content: the plain text, or the
// text parts joined by blank lines (reasoning parts are left out).
func (c Content) String() string {
	if c.Parts == nil {
		return c.Text
	}
	var buf bytes.Buffer
	for _, p := range c.Parts {
		if p.Type == "text" && p.Text != "" {
			if buf.Len() > 0 {
				buf.WriteString("\n\n")
			}
			buf.WriteString(p.Text)
		}
	}
	return buf.String()
}

// unquote decodes the JSON string b into s as json.Unmarshal does, without
// its reflection and validation passes for the common string that has no
// escapes: a transcript has one per message and view, and through
// json.Unmarshal they took a tenth of a bundle import's decoding.
func unquote(b []byte, s *string) error {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		inner := b[1 : len(b)-1]
		plain := true
		for _, c := range inner {
			if c < 0x20 || c == '"' || c == '\\' {
				plain = false
				break
			}
		}
		// Invalid UTF-8 is replaced by json.Unmarshal: left to it.
		if plain && utf8.Valid(inner) {
			*s = string(inner)
			return nil
		}
	}
	// The fast decoder, with encoding/json's answer when it fails (the
	// errors stay the standard library's).
	v, err := jsonin.Decode[string](b, json.Unmarshal)
	if err != nil {
		return err
	}
	*s = *v
	return nil
}
