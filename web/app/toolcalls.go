package app

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/auditscope/auditscope/data/petri"
)

// ToolArg is one argument of a tool call as written: a string verbatim
// (Code when it runs over lines, in the language the tool implies), any
// other value as indented JSON.
type ToolArg struct {
	Name, Value string
	Code        bool
	Lang        string // "python", "bash", "sql", or "" when the tool does not say
}

// indentedJSON writes v as indented JSON without HTML escapes: the page
// escapes what it shows, and "\u003e" is no way to read a ">".
func indentedJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// toolLanguage is the language a tool's code argument is in, as its name
// (or the argument's) says.
func toolLanguage(function, arg string) string {
	name := strings.ToLower(function + " " + arg)
	switch {
	case strings.Contains(name, "python"):
		return "python"
	case strings.Contains(name, "bash"), strings.Contains(name, "shell"), strings.Contains(name, "cmd"), strings.Contains(name, "command"):
		return "bash"
	case strings.Contains(name, "sql"):
		return "sql"
	}
	return ""
}

// JudgeDimensions are the judge's score dimensions with their
// descriptions, for the pages' hover text.
func JudgeDimensions() map[string]string { return petri.DimensionDescriptions() }

// Part is a content part that is neither text nor reasoning: an image to
// show (Image, a data: URL of an image type, which the page's policy allows
// for images only), or anything else named and sized (Label), never its
// raw base64.
type Part struct{ Kind, Image, Label string }

// otherPart reads a content part's JSON: Inspect's and Petri's image parts
// hold the image in "image" (a data: URL or a remote one, which is not
// fetched); audio, video and documents are named with their size.
func otherPart(kind string, raw []byte) Part {
	var fields map[string]any
	json.Unmarshal(raw, &fields)
	p := Part{Kind: kind}
	for _, k := range []string{"image", "url", "data", "audio", "video", "document"} {
		v, ok := fields[k].(string)
		if !ok {
			continue
		}
		if kind == "image" && strings.HasPrefix(v, "data:image/") && !strings.HasPrefix(v, "data:image/svg") {
			p.Image = v
			return p
		}
		p.Label = fmt.Sprintf("%s part, %s (%d characters)", kind, k, len(v))
		if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
			p.Label = fmt.Sprintf("%s part at %s (not fetched)", kind, v)
		}
		return p
	}
	p.Label = fmt.Sprintf("%s part (%d bytes of JSON)", kind, len(raw))
	return p
}
