package petri

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/internal/jsonin"
)

// ParseError is a problem in a transcript file's JSON: where it is (a JSON
// path such as events[3].edit.message.content, or a byte offset for broken
// JSON) and what was expected there.
type ParseError struct {
	Path   string // "" for the document as a whole
	Offset int64  // byte offset of a syntax error, -1 when unknown
	Msg    string
}

func (e *ParseError) Error() string {
	switch {
	case e.Path != "":
		return e.Path + ": " + e.Msg
	case e.Offset >= 0:
		return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg)
	}
	return e.Msg
}

// Parse reads one Petri transcript file: its metadata and events, or the
// legacy top-level messages / target_messages. Errors are *ParseError values
// naming the JSON path of the first problem. Parse does not replay the
// edits; Views does.
func Parse(b []byte) (*Transcript, error) {
	b = bytes.TrimPrefix(b, jsonin.BOM)
	var top map[string]json.RawMessage
	if err := Decode(b, &top); err != nil {
		var pe *ParseError
		if errors.As(err, &pe) && pe.Path == "" && pe.Offset < 0 {
			pe.Msg = "want a JSON object (a Petri transcript), found " + jsonin.Kind(bytes.TrimSpace(b))
		}
		return nil, err
	}
	if _, ok := top["metadata"]; !ok {
		return nil, &ParseError{Path: "metadata", Offset: -1, Msg: "missing: a Petri transcript has a metadata object"}
	}
	_, events := top["events"]
	_, msgs := top["messages"]
	_, tmsgs := top["target_messages"]
	if !events && !msgs && !tmsgs {
		return nil, &ParseError{Offset: -1, Msg: "not a Petri transcript: no events (or legacy messages / target_messages) at the top level"}
	}
	t := new(Transcript)
	if err := Decode(b, t); err != nil {
		return nil, err
	}
	if err := t.check(); err != nil {
		return nil, err
	}
	return t, nil
}

// Message roles.
var roles = map[string]bool{"system": true, "user": true, "assistant": true, "tool": true}

var patchOps = map[string]bool{"add": true, "remove": true, "replace": true, "move": true, "copy": true, "test": true}

// check validates what decoding cannot: required fields, known edit
// operations and message roles.
func (t *Transcript) check() error {
	bad := func(path, format string, args ...any) error {
		return &ParseError{Path: path, Offset: -1, Msg: fmt.Sprintf(format, args...)}
	}
	checkMsg := func(path string, m *Message) error {
		if !roles[m.Role] {
			return bad(path+".role", "want system, user, assistant or tool, found %q", m.Role)
		}
		for i, tc := range m.ToolCalls {
			if tc.Function == "" {
				return bad(fmt.Sprintf("%s.tool_calls[%d].function", path, i), "missing")
			}
		}
		return nil
	}
	if jo := t.Metadata.JudgeOutput; jo != nil {
		for i, h := range jo.Highlights {
			for j, p := range h.Parts {
				if p.MessageID == "" {
					return bad(fmt.Sprintf("metadata.judge_output.highlights[%d].parts[%d].message_id", i, j), "missing")
				}
			}
		}
	}
	for i := range t.Events {
		e := &t.Events[i]
		path := "events[" + strconv.Itoa(i) + "]"
		switch e.Type {
		case "":
			return bad(path+".type", "missing: want transcript_event, tool_creation_event, info_event or decision_event")
		case EventTranscript:
		default:
			// Other event types (tools, info, decisions, and any a newer
			// Petri adds) do not change the views.
			continue
		}
		if len(e.View) == 0 {
			return bad(path+".view", "missing: name the view(s) the edit applies to")
		}
		if e.Edit == nil {
			return bad(path+".edit", "missing")
		}
		ed := e.Edit
		switch ed.Operation {
		case OpAdd, "":
			if ed.Message == nil {
				return bad(path+".edit.message", "missing: an add edit carries a message")
			}
			if err := checkMsg(path+".edit.message", ed.Message); err != nil {
				return err
			}
		case OpRollback:
			if ed.Count < 0 {
				return bad(path+".edit.count", "want a count >= 0, found %d", ed.Count)
			}
		case OpReset:
			for j := range ed.NewMessages {
				if err := checkMsg(fmt.Sprintf("%s.edit.new_messages[%d]", path, j), &ed.NewMessages[j]); err != nil {
					return err
				}
			}
		case OpJSONPatch:
			for j, c := range ed.Patch {
				if !patchOps[c.Op] {
					return bad(fmt.Sprintf("%s.edit.patch[%d].op", path, j), "want add, remove, replace, move, copy or test, found %q", c.Op)
				}
			}
		default:
			return bad(path+".edit.operation", "want add, rollback, reset or json_patch, found %q", ed.Operation)
		}
	}
	for i := range t.Messages {
		if err := checkMsg(fmt.Sprintf("messages[%d]", i), &t.Messages[i]); err != nil {
			return err
		}
	}
	for i := range t.TargetMessages {
		if err := checkMsg(fmt.Sprintf("target_messages[%d]", i), &t.TargetMessages[i]); err != nil {
			return err
		}
	}
	return nil
}

// Decode decodes the JSON value b into v (a pointer). When b does not fit
// v's type, the error is a *ParseError naming the JSON path of the first
// value that does not fit, which encoding/json does not report for values
// inside lists or read by custom decoders. Broken JSON gives the byte offset.
func Decode(b []byte, v any) error {
	err := json.Unmarshal(b, v)
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		msg := "invalid JSON: " + syn.Error()
		if syn.Offset >= int64(len(bytes.TrimRight(b, " \t\r\n"))) {
			msg = "the JSON ends early (truncated?)"
		}
		return &ParseError{Offset: syn.Offset, Msg: msg}
	}
	path, msg := locate(b, reflect.TypeOf(v).Elem(), "", err)
	return &ParseError{Path: path, Offset: -1, Msg: msg}
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	rawMessage      = reflect.TypeFor[json.RawMessage]()
)

// locate finds the innermost value of raw that cannot be decoded into a t,
// given err, the error decoding raw as a whole.
func locate(raw []byte, t reflect.Type, path string, err error) (string, string) {
	raw = bytes.TrimSpace(raw)
	if t.Kind() == reflect.Pointer {
		if bytes.Equal(raw, []byte("null")) {
			return path, describe(err)
		}
		return locate(raw, t.Elem(), path, err)
	}
	if t == rawMessage || reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return path, describe(err)
	}
	switch t.Kind() {
	case reflect.Struct:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return path, "want an object, found " + jsonin.Kind(raw)
		}
		for _, f := range jsonFields(t) {
			r, ok := lookupKey(m, f.name)
			if !ok {
				continue
			}
			fv := reflect.New(f.typ)
			if e := json.Unmarshal(r, fv.Interface()); e != nil {
				return locate(r, f.typ, JoinPath(path, f.name), e)
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			break
		}
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			return path, "want a list, found " + jsonin.Kind(raw)
		}
		for i, r := range list {
			ev := reflect.New(t.Elem())
			if e := json.Unmarshal(r, ev.Interface()); e != nil {
				return locate(r, t.Elem(), path+"["+strconv.Itoa(i)+"]", e)
			}
		}
	case reflect.Map:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return path, "want an object, found " + jsonin.Kind(raw)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ev := reflect.New(t.Elem())
			if e := json.Unmarshal(m[k], ev.Interface()); e != nil {
				return locate(m[k], t.Elem(), JoinPath(path, k), e)
			}
		}
	default:
		if len(raw) > 0 {
			return path, "want " + jsonin.TypeName(t) + ", found " + jsonin.Kind(raw)
		}
	}
	return path, describe(err)
}

// lookupKey finds a field the way encoding/json does: exactly, else
// case-insensitively.
func lookupKey(m map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	if r, ok := m[name]; ok {
		return r, true
	}
	for k, r := range m {
		if strings.EqualFold(k, name) {
			return r, true
		}
	}
	return nil, false
}

type jsonField struct {
	name string
	typ  reflect.Type
}

// jsonFields lists a struct's JSON fields, embedded structs flattened.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, jsonFields(ft)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, typ: f.Type})
	}
	return out
}

// JoinPath appends a key to a JSON path (a list index already carries its
// brackets).
func JoinPath(path, key string) string {
	switch {
	case path == "":
		return key
	case key == "":
		return path
	case strings.HasPrefix(key, "["):
		return path + key
	}
	return path + "." + key
}

// describe words a decoding error for a user. The custom decoders of this
// package prefix their messages with the field name, which the path
// already gives.
func describe(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return "want " + jsonin.TypeName(typ.Type) + ", found a JSON " + typ.Value
	}
	msg := err.Error()
	for _, prefix := range []string{"content: ", "view: ", "tool_call_id: ", "json: "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	return msg
}

// Turns counts the auditor's turns in views (as Views returns them): the
// user messages and tool results the target's view received, over all its
// branches, so a turn that was rolled back still counts. Without a target
// view the first view is counted.
func Turns(views []View) int {
	v, ok := targetView(views)
	if !ok {
		return 0
	}
	n := 0
	eachMessage(v, func(m Message) {
		if m.Role == "user" || m.Role == "tool" {
			n++
		}
	})
	return n
}
