package petri

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// patchTranscript is a transcript whose target view gets one user message
// with metadata, then a json_patch event per entry of patches (each a JSON
// list of operations).
func patchTranscript(patches ...string) []byte {
	ev := []string{`{"type": "transcript_event", "view": "target", "edit": {"operation": "add", "message": {"id": "m1", "role": "user", "content": "hi", "metadata": {"a": "0123456789abcdef"}}}}`}
	for _, p := range patches {
		ev = append(ev, `{"type": "transcript_event", "view": "target", "edit": {"operation": "json_patch", "patch": `+p+`}}`)
	}
	return []byte(`{"metadata": {"transcript_id": "t"}, "events": [` + strings.Join(ev, ", ") + `]}`)
}

// selfCopy copies the message's metadata into itself: each one doubles it.
func selfCopy(i int) string {
	return fmt.Sprintf(`{"op": "copy", "from": "/0/metadata", "path": "/0/metadata/k%d"}`, i)
}

// TestReplayLimits: json_patch copies are the one edit whose output the
// file does not bound. Found by FuzzParse's seeds: 22 events of 150 bytes
// that each copy a value into itself grew the view to 113 MB in 23 s (30
// would ask for 30 GB). Copies may now grow a transcript's views by 4 MiB in
// all.
func TestReplayLimits(t *testing.T) {
	many := func(n int, one func(int) string, each bool) []string {
		var out []string
		var ops []string
		for i := 0; i < n; i++ {
			if each {
				out = append(out, "["+one(i)+"]")
			} else {
				ops = append(ops, one(i))
			}
		}
		if !each {
			out = append(out, "["+strings.Join(ops, ", ")+"]")
		}
		return out
	}
	tests := []struct {
		name    string
		patches []string
		wantErr []string // nil when the replay succeeds
	}{
		{"a copy", []string{"[" + selfCopy(0) + "]"}, nil},
		{"copies doubling over 40 events", many(40, selfCopy, true), []string{"events[", "json_patch: ", "cop"}},
		{"copies doubling in one patch", many(40, selfCopy, false), []string{"events[1]: json_patch: ", "copy"}},
		{"a removal after copies", append(many(3, selfCopy, true), `[{"op": "remove", "path": "/0/metadata/k0"}]`), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Parse(patchTranscript(tt.patches...))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = tr.Views()
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Errorf("replay took %v", elapsed)
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Errorf("replay: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("replay succeeded, want an error mentioning %q", tt.wantErr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("replay error %q does not mention %q", err, w)
				}
			}
		})
	}
}
