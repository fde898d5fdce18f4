package app

import (
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/petri"
)

// TestToolCallsAndParts: arguments as written (a multi-line string a code
// block in the tool's language, no HTML escapes in JSON), an image part as
// an image, anything else named and sized, never its base64.
func TestToolCallsAndParts(t *testing.T) {
	m := petri.Message{Role: "assistant", ToolCalls: []petri.ToolCall{{ID: "c1", Function: "python", Arguments: map[string]any{
		"code": "x = 1 >> 2\nprint(x & 3)", "opts": map[string]any{"name": "Quill & Co. <ltd>"}, "n": 3.0}}}}
	got := plainMessage(m).ToolCalls[0]
	if strings.Contains(got.Arguments, `\u0026`) || !strings.Contains(got.Arguments, "Quill & Co. <ltd>") {
		t.Errorf("arguments %q", got.Arguments)
	}
	want := []ToolArg{{Name: "code", Value: "x = 1 >> 2\nprint(x & 3)", Code: true, Lang: "python"}, {Name: "n", Value: "3"},
		{Name: "opts", Value: "{\n  \"name\": \"Quill & Co. <ltd>\"\n}", Code: true}}
	if len(got.Args) != 3 {
		t.Fatalf("args %+v", got.Args)
	}
	for i := range want {
		if got.Args[i] != want[i] {
			t.Errorf("arg %d: %+v, want %+v", i, got.Args[i], want[i])
		}
	}
	img := otherPart("image", []byte(`{"type":"image","image":"data:image/png;base64,iVBORw0KGgo="}`))
	if img.Image != "data:image/png;base64,iVBORw0KGgo=" || img.Label != "" {
		t.Errorf("image part %+v", img)
	}
	for _, raw := range []string{`{"type":"audio","audio":"UklGRiQAAABXQVZF","format":"wav"}`, `{"type":"image","image":"data:image/svg+xml;base64,PHN2Zz4="}`} {
		p := otherPart(strings.Split(strings.Split(raw, `"type":"`)[1], `"`)[0], []byte(raw))
		if p.Image != "" || !strings.Contains(p.Label, "characters") || strings.Contains(p.Label, "UklG") {
			t.Errorf("%s: %+v", raw, p)
		}
	}
	if p := otherPart("image", []byte(`{"type":"image","image":"https://example.com/x.png"}`)); p.Image != "" || !strings.Contains(p.Label, "not fetched") {
		t.Errorf("remote image %+v", p)
	}
}
