// Package petrischema compiles Petri's transcript JSON schema (kept in the
// repository's testdata/fixtures/petri) for the tests that check
// transcripts against it: the Petri reader's and the demo generator's.
// Only tests import it.
package petrischema

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Compile compiles the schema.
func Compile() (*jsonschema.Schema, error) {
	_, file, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "fixtures", "petri", "transcript_schema.json"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, err
	}
	upgradeTuples(doc)
	c := jsonschema.NewCompiler()
	if err := c.AddResource("transcript_schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("transcript_schema.json")
}

// upgradeTuples rewrites draft-2019 tuple schemas ("items": [...] with
// "additionalItems") as draft 2020-12 spells them ("prefixItems", "items":
// false). The schema declares no $schema, so it is draft 2020-12, and uses
// prefixItems for CitationPart.position; but the cited_text of the content
// citation types it borrows from Inspect is written the older way, which the
// 2020-12 metaschema rejects. The rewrite keeps the meaning.
func upgradeTuples(v any) {
	switch x := v.(type) {
	case map[string]any:
		if items, ok := x["items"].([]any); ok {
			x["prefixItems"] = items
			if extra, ok := x["additionalItems"]; ok {
				x["items"] = extra
			} else {
				delete(x, "items")
			}
			delete(x, "additionalItems")
		}
		for _, c := range x {
			upgradeTuples(c)
		}
	case []any:
		for _, c := range x {
			upgradeTuples(c)
		}
	}
}
