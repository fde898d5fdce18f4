package petri

import (
	"reflect"
	"strings"
	"sync"
)

// kind is what the pass checks a value against.
type kind uint8

const (
	kUnknown kind = iota // the pass gives up when it meets one
	kString
	kBool
	kInt
	kFloat
	kAny // interface{}: any JSON, each number a float64
	kRaw // json.RawMessage: any JSON
	kStruct
	kPtr
	kSlice
	kMap     // string keys
	kStrings // Views, ToolCallIDs: a string or a list of strings
	kContent
)

// role marks the fields whose values make the search text.
type role uint8

const (
	roleNone        role = iota
	roleEvents           // Transcript.events
	roleMessages         // Transcript.messages
	roleTargets          // Transcript.target_messages
	roleEditMessage      // Edit.message
	roleEditNew          // Edit.new_messages
	roleID               // Message.id
	roleContent          // Message.content
	roleArguments        // ToolCall.arguments
)

type node struct {
	kind   kind
	bits   int // kInt, kFloat
	elem   *node
	fields []field // kStruct
}

type field struct {
	name string
	role role
	node *node
}

type schema struct {
	root    *node
	message *node
}

var indexSchema = sync.OnceValue(func() *schema {
	b := &schemaBuilder{memo: map[reflect.Type]*node{}}
	root := b.build(reflect.TypeFor[Transcript]())
	roles := map[reflect.Type]map[string]role{
		reflect.TypeFor[Transcript](): {"events": roleEvents, "messages": roleMessages, "target_messages": roleTargets},
		reflect.TypeFor[Edit]():       {"message": roleEditMessage, "new_messages": roleEditNew},
		reflect.TypeFor[Message]():    {"id": roleID, "content": roleContent},
		reflect.TypeFor[ToolCall]():   {"arguments": roleArguments},
	}
	for t, rs := range roles {
		n := b.memo[t]
		if n == nil || n.kind != kStruct {
			return nil // the types changed under the pass: it stays off
		}
		for i := range n.fields {
			n.fields[i].role = rs[n.fields[i].name]
			delete(rs, n.fields[i].name)
		}
		if len(rs) > 0 {
			return nil
		}
	}
	msg := b.memo[reflect.TypeFor[Message]()]
	if root.kind != kStruct || msg == nil {
		return nil
	}
	return &schema{root: root, message: msg}
})

type schemaBuilder struct{ memo map[reflect.Type]*node }

func (b *schemaBuilder) build(t reflect.Type) *node {
	if n, ok := b.memo[t]; ok {
		return n
	}
	n := &node{}
	b.memo[t] = n
	pt := reflect.PointerTo(t)
	switch {
	case t == rawMessage:
		n.kind = kRaw
		return n
	case t == reflect.TypeFor[Views]() || t == reflect.TypeFor[ToolCallIDs]():
		n.kind = kStrings
		return n
	case t == reflect.TypeFor[Content]():
		n.kind = kContent
		return n
	case pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler):
		return n // a decoding of its own the pass does not know
	}
	switch t.Kind() {
	case reflect.String:
		n.kind = kString
	case reflect.Bool:
		n.kind = kBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind, n.bits = kInt, t.Bits()
	case reflect.Float32, reflect.Float64:
		n.kind, n.bits = kFloat, t.Bits()
	case reflect.Interface:
		if t.NumMethod() == 0 {
			n.kind = kAny
		}
	case reflect.Pointer:
		n.kind, n.elem = kPtr, b.build(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 { // []byte is base64
			n.kind, n.elem = kSlice, b.build(t.Elem())
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String && !reflect.PointerTo(t.Key()).Implements(textUnmarshaler) {
			n.kind, n.elem = kMap, b.build(t.Elem())
		}
	case reflect.Struct:
		n.fields = b.fields(t)
		if n.fields != nil {
			n.kind = kStruct
		}
	}
	return n
}

// fields lists a struct's JSON fields as encoding/json names them; nil for
// a struct the pass leaves to the decoder (embedded fields, options, more
// fields than a 64-bit mask).
func (b *schemaBuilder) fields(t reflect.Type) []field {
	fs := []field{}
	for sf := range t.Fields() {
		if sf.Anonymous {
			return nil
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		for o := range strings.SplitSeq(opts, ",") {
			if o != "" && o != "omitempty" && o != "omitzero" {
				return nil // ",string" and the like
			}
		}
		if name == "" {
			name = sf.Name
		}
		for _, f := range fs {
			if strings.EqualFold(f.name, name) {
				return nil
			}
		}
		fs = append(fs, field{name: name, node: b.build(sf.Type)})
	}
	if len(fs) > 64 {
		return nil
	}
	return fs
}
