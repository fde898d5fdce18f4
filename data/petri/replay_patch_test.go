package petri

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// patchHeavy is a transcript written the way a diffing recorder writes it:
// every new message is a json_patch "add" at the end of the view, and every
// tenth event also rewrites an earlier message's content.
func patchHeavy(messages, size int) []byte {
	body := strings.Repeat("lorem ipsum ", size/12)
	var ev []string
	for i := 0; i < messages; i++ {
		ops := []string{fmt.Sprintf(`{"op": "add", "path": "/%d", "value": {"id": "m%d", "role": "%s", "content": %q}}`,
			i, i, []string{"user", "assistant"}[i%2], body)}
		if i%10 == 9 {
			ops = append(ops, fmt.Sprintf(`{"op": "replace", "path": "/%d/content", "value": "edited %d"}`, i-5, i))
		}
		ev = append(ev, `{"type": "transcript_event", "view": ["target", "combined"], "edit": {"operation": "json_patch", "patch": [`+strings.Join(ops, ", ")+`]}}`)
	}
	return []byte(`{"metadata": {"transcript_id": "t"}, "events": [` + strings.Join(ev, ",\n") + `]}`)
}

// BenchmarkViewsJSONPatch replays 1,000 messages of 2 KB (2 MB per view)
// added by json_patch, in two views.
func BenchmarkViewsJSONPatch(b *testing.B) {
	tr, err := Parse(patchHeavy(1000, 2000))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := tr.Views(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPatchMatchesWholeDocument applies random patches both ways: message
// by message (viewState.patch) and as one RFC 6902 patch on the whole list's
// JSON, and wants the same messages, or an error from both.
func TestPatchMatchesWholeDocument(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	msg := func(k int) string {
		return fmt.Sprintf(`{"id": "m%d", "role": "user", "content": "text %d", "metadata": {"k": %d}}`, k, k, k)
	}
	randOp := func(n, k int) string {
		idx := func(extra int) string { return strconv.Itoa(rng.IntN(n + extra + 1)) } // sometimes past the end
		switch rng.IntN(11) {
		case 0:
			return fmt.Sprintf(`{"op": "add", "path": "/%s", "value": %s}`, idx(1), msg(k))
		case 1:
			return fmt.Sprintf(`{"op": "add", "path": "/-", "value": %s}`, msg(k))
		case 2:
			return fmt.Sprintf(`{"op": "remove", "path": "/%s"}`, idx(1))
		case 3:
			return fmt.Sprintf(`{"op": "replace", "path": "/%s", "value": %s}`, idx(1), msg(k))
		case 4:
			return fmt.Sprintf(`{"op": "replace", "path": "/%s/content", "value": "edit %d"}`, idx(1), k)
		case 5:
			return fmt.Sprintf(`{"op": "add", "path": "/%s/metadata/x%d", "value": [%d]}`, idx(1), k, k)
		case 6:
			return fmt.Sprintf(`{"op": "remove", "path": "/%s/metadata"}`, idx(1))
		case 7:
			return fmt.Sprintf(`{"op": "move", "from": "/%s", "path": "/%s"}`, idx(0), idx(0))
		case 8:
			return fmt.Sprintf(`{"op": "copy", "from": "/%s/content", "path": "/%s/source"}`, idx(0), idx(0))
		case 9:
			return fmt.Sprintf(`{"op": "replace", "path": "/%s/role", "value": 5}`, idx(0))
		default:
			return fmt.Sprintf(`{"op": "add", "path": "/0%s", "value": %s}`, idx(0), msg(k))
		}
	}
	for trial := 0; trial < 3000; trial++ {
		var list []Message
		for k := 0; k < rng.IntN(5); k++ {
			var m Message
			if err := json.Unmarshal([]byte(msg(k)), &m); err != nil {
				t.Fatal(err)
			}
			list = append(list, m)
		}
		var ops []string
		for k := 0; k < 1+rng.IntN(4); k++ {
			ops = append(ops, randOp(len(list)+k, 100+k))
		}
		var patch []JSONChange
		if err := json.Unmarshal([]byte("["+strings.Join(ops, ", ")+"]"), &patch); err != nil {
			t.Fatal(err)
		}

		budget := int64(maxCopyGrowth)
		s := &viewState{cur: slices.Clone(list), copies: &budget}
		errFast := s.patch(patch)

		doc, _ := json.Marshal(list)
		if list == nil {
			doc = []byte("[]")
		}
		var want []Message
		out, errWhole := applyPatch(doc, patch, maxCopyGrowth)
		if errWhole == nil {
			errWhole = json.Unmarshal(out, &want)
		}
		if (errFast != nil) != (errWhole != nil) {
			t.Fatalf("trial %d: patch %s on %d messages: message by message %v, whole document %v", trial, ops, len(list), errFast, errWhole)
		}
		if errFast != nil {
			continue
		}
		got, _ := json.Marshal(s.cur)
		wantJSON, _ := json.Marshal(want)
		if !bytes.Equal(got, wantJSON) && !(len(s.cur) == 0 && len(want) == 0) {
			t.Fatalf("trial %d: patch %s:\n got  %s\n want %s", trial, ops, got, wantJSON)
		}
	}
}

// Operations that only work on the JSON between them (an empty object the
// Message type drops, then a key inside it) still apply, as on the whole
// document; so does a copy budget charged by a first attempt.
func TestPatchNeedsWholeDocument(t *testing.T) {
	tr, err := Parse(patchTranscript(
		`[{"op": "add", "path": "/0/metadata", "value": {}}, {"op": "add", "path": "/0/metadata/k", "value": 1}]`,
		`[{"op": "add", "path": "/0/tool_calls", "value": []}, {"op": "add", "path": "/0/tool_calls/-", "value": {"id": "c1", "function": "f", "arguments": {}}}]`,
	))
	if err != nil {
		t.Fatal(err)
	}
	views, err := tr.Views()
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	m := views[0].Final().Messages[0]
	if m.Metadata["k"] != 1.0 || len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != "c1" {
		t.Errorf("message after the patches: %+v", m)
	}
}
